import time


def fetch(get, url, attempts=3, delay=0.5):
    """Call get(url) up to `attempts` times, sleeping between tries."""
    for attempt in range(attempts):
        try:
            return get(url)
        except OSError:
            if attempt + 1 < attempts:
                time.sleep(delay)
    return None
