import unittest
from datetime import date, timedelta
from decimal import Decimal

from isodate import Duration, parse_duration, duration_isoformat


class HiddenDurationOptionTest(unittest.TestCase):
    def test_default_unchanged(self):
        self.assertEqual(parse_duration("P1DT2H"), timedelta(days=1, hours=2))
        self.assertIsInstance(parse_duration("P1DT2H"), timedelta)
        self.assertIsInstance(parse_duration("P1DT2H", as_timedelta_if_possible=True),
                              timedelta)
        self.assertIsInstance(parse_duration("P1Y"), Duration)

    def test_always_duration(self):
        dur = parse_duration("P1DT2H", as_timedelta_if_possible=False)
        self.assertIsInstance(dur, Duration)
        self.assertEqual(dur, Duration(days=1, hours=2))
        self.assertEqual(dur.years, 0)
        self.assertEqual(dur.months, 0)
        self.assertEqual(dur.tdelta, timedelta(days=1, hours=2))

    def test_positional_argument(self):
        dur = parse_duration("PT36H", False)
        self.assertIsInstance(dur, Duration)
        self.assertEqual(dur.tdelta, timedelta(hours=36))

    def test_weeks_and_sign(self):
        dur = parse_duration("P2W", as_timedelta_if_possible=False)
        self.assertIsInstance(dur, Duration)
        self.assertEqual(dur.tdelta, timedelta(weeks=2))
        neg = parse_duration("-P3DT4M", as_timedelta_if_possible=False)
        self.assertIsInstance(neg, Duration)
        self.assertEqual(neg.tdelta, -timedelta(days=3, minutes=4))
        self.assertEqual(duration_isoformat(neg), "-P3DT4M")

    def test_years_still_duration(self):
        dur = parse_duration("P1Y2M3D", as_timedelta_if_possible=False)
        self.assertEqual(dur, Duration(years=1, months=2, days=3))
        self.assertEqual(dur.years, Decimal(1))

    def test_date_arithmetic(self):
        dur = parse_duration("P10D", as_timedelta_if_possible=False)
        self.assertEqual(date(2020, 2, 25) + dur, date(2020, 3, 6))

    def test_alternative_format(self):
        dur = parse_duration("P0001-02-03T04:05:06", as_timedelta_if_possible=False)
        self.assertEqual(dur, Duration(years=1, months=2, days=3, hours=4,
                                       minutes=5, seconds=6))


if __name__ == "__main__":
    unittest.main()
