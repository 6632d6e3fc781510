from timeutil.parsing import parse_date


def main(text):
    return parse_date(text).year
