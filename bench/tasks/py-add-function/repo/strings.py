"""Small string helpers."""


def shout(text):
    """Return text in upper case with an exclamation mark."""
    return text.upper() + "!"


def words(text):
    """Split text into words."""
    return text.split()
