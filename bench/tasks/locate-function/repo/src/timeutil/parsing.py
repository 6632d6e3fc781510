import datetime


def parse_date(text):
    """Parse YYYY-MM-DD."""
    return datetime.date.fromisoformat(text)
