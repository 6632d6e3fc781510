def format_date(d):
    return d.isoformat()
