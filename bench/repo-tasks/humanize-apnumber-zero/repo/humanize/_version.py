__version__ = "4.16.0"
