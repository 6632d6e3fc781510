import unittest
from datetime import date, datetime, timedelta

from isodate import Duration, parse_duration


class HiddenSubtractTest(unittest.TestCase):
    def test_months_across_year_boundary(self):
        self.assertEqual(date(2000, 1, 15) - Duration(months=2), date(1999, 11, 15))
        self.assertEqual(date(2000, 2, 1) - Duration(months=14), date(1998, 12, 1))
        self.assertEqual(date(2001, 1, 1) - Duration(months=1), date(2000, 12, 1))

    def test_years_and_months(self):
        self.assertEqual(date(2000, 3, 31) - Duration(years=1, months=1), date(1999, 2, 28))
        self.assertEqual(date(2004, 1, 31) - Duration(years=1, months=2), date(2002, 11, 30))

    def test_same_year(self):
        self.assertEqual(date(2000, 12, 15) - Duration(months=2), date(2000, 10, 15))
        self.assertEqual(date(2000, 5, 31) - Duration(months=1), date(2000, 4, 30))

    def test_datetime_and_parsed(self):
        self.assertEqual(datetime(2010, 2, 3, 12, 30) - parse_duration("P1Y3M"),
                         datetime(2008, 11, 3, 12, 30))
        self.assertEqual(datetime(2010, 2, 3, 12, 30) - parse_duration("P2MT1H"),
                         datetime(2009, 12, 3, 11, 30))

    def test_add_is_inverse(self):
        start = date(1999, 11, 15)
        dur = Duration(months=3)
        self.assertEqual((start + dur) - dur, start)

    def test_timedelta_only(self):
        self.assertEqual(date(2000, 1, 1) - Duration(days=1), date(1999, 12, 31))
        self.assertEqual(date(2000, 1, 1) - timedelta(days=1), date(1999, 12, 31))


if __name__ == "__main__":
    unittest.main()
