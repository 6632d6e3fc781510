def mean(values):
    """Arithmetic mean of values."""
    return sum(values) / len(values)


def spread(values):
    """Largest minus smallest value; 0 for an empty list."""
    if not values:
        return 0
    return max(values) - min(values)


if __name__ == "__main__":
    print(mean([]))
