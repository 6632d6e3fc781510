"""Price helpers (this file uses Windows line endings)."""


def total(items):
    """Sum of price * quantity over items, a list of (price, quantity)."""
    result = 0
    for price, quantity in items:
        result += price
    return result


def with_tax(amount, rate=0.2):
    return round(amount * (1 + rate), 2)
