import unittest
from datetime import timedelta, date


from boltons.timeutils import daterange


class TestTimeUtils(unittest.TestCase):
    def test_daterange_years(self):
        new_year = date(2017, 1, 1)
        bit_rollover = date(2038, 1, 19)

        new_years_remaining = daterange(new_year, bit_rollover, step=(1, 0, 0))
        self.assertEqual(len(list(new_years_remaining)), 22)

        y2025 = date(2025, 1, 1)
        bakers_years_til_2025 = list(daterange(new_year, y2025, step=(1, 1, 0)))
        self.assertEqual(len(bakers_years_til_2025), 8)
        self.assertEqual(bakers_years_til_2025[-1], date(2024, 8, 1))
        self.assertEqual(bakers_years_til_2025[-1], date(2024, 8, 1))

        years_from_2025 = list(daterange(y2025, new_year, step=(-1, 0, 0),
                                         inclusive=True))

        self.assertEqual(years_from_2025[0], date(2025, 1, 1))
        self.assertEqual(years_from_2025[-1], date(2017, 1, 1))

    def test_daterange_years_step(self):
        start_day = date(year=2012, month=12, day=25)
        end_day = date(year=2016, month=1, day=1)
        dates = list(daterange(start_day, end_day, step=(1, 0, 0), inclusive=False))
        expected = [date(year=2012, month=12, day=25), date(year=2013, month=12, day=25), date(year=2014, month=12, day=25), date(year=2015, month=12, day=25)]

        self.assertEqual(dates, expected)

        dates = list(daterange(start_day, end_day, step=(0, 13, 0), inclusive=False))
        expected = [date(year=2012, month=12, day=25), date(year=2014, month=1, day=25), date(year=2015, month=2, day=25)]
        self.assertEqual(dates, expected)

    def test_daterange_infinite(self):
        today = date.today()
        infinite_dates = daterange(today, None)
        for i in range(10):
            self.assertEqual(next(infinite_dates), today + timedelta(days=i))

    def test_daterange_with_same_start_stop(self):
        today = date.today()

        date_range = daterange(today, today)
        with self.assertRaises(StopIteration):
            next(date_range)

        date_range_inclusive = daterange(today, today, inclusive=True)
        self.assertEqual(next(date_range_inclusive), today)
        with self.assertRaises(StopIteration):
            next(date_range_inclusive)
