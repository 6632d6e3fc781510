"""Hidden checks of naturaltime's minimum_unit argument."""

import datetime as dt
import unittest

import humanize

NOW = dt.datetime(2010, 2, 2, 12, 0, 0)


class HiddenNaturaltimeMinimumUnitTests(unittest.TestCase):
    def ago(self, seconds, **kwargs):
        return humanize.naturaltime(NOW - dt.timedelta(seconds=seconds), when=NOW, **kwargs)

    def test_default_is_seconds(self):
        self.assertEqual(self.ago(0.004), "now")
        self.assertEqual(self.ago(0.004, minimum_unit="seconds"), "now")
        self.assertEqual(self.ago(2), "2 seconds ago")

    def test_milliseconds(self):
        for seconds, expected in [
            (0.000004, "0 milliseconds ago"),
            (0.001, "1 millisecond ago"),
            (0.004, "4 milliseconds ago"),
            (0.101943, "101 milliseconds ago"),
            (1.337, "a second ago"),
            (3600.004, "an hour ago"),
        ]:
            with self.subTest(seconds=seconds):
                self.assertEqual(self.ago(seconds, minimum_unit="milliseconds"), expected)

    def test_microseconds(self):
        for seconds, expected in [
            (0.000001, "1 microsecond ago"),
            (0.000004, "4 microseconds ago"),
            (0.004, "4 milliseconds ago"),
            (2, "2 seconds ago"),
        ]:
            with self.subTest(seconds=seconds):
                self.assertEqual(self.ago(seconds, minimum_unit="microseconds"), expected)

    def test_future_and_timedelta(self):
        later = NOW + dt.timedelta(milliseconds=4)
        self.assertEqual(humanize.naturaltime(later, when=NOW, minimum_unit="milliseconds"),
                         "4 milliseconds from now")
        self.assertEqual(humanize.naturaltime(dt.timedelta(milliseconds=4), when=NOW,
                                              minimum_unit="milliseconds"),
                         "4 milliseconds ago")

    def test_with_months_false(self):
        self.assertEqual(self.ago(0.004, months=False, minimum_unit="milliseconds"),
                         "4 milliseconds ago")
        self.assertEqual(self.ago(500 * 86400, months=False, minimum_unit="milliseconds"),
                         "1 year, 135 days ago")

    def test_bad_unit(self):
        with self.assertRaises(ValueError):
            self.ago(2, minimum_unit="years")


if __name__ == "__main__":
    unittest.main()
