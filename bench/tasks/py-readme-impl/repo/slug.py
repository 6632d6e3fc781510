def slugify(title):
    """See README.md."""
    raise NotImplementedError
