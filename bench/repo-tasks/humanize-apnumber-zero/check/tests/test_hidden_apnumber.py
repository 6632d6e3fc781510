"""Hidden checks of apnumber: 0 to 9 are spelled out, everything else is not."""

import unittest

import humanize


class HiddenApnumberTests(unittest.TestCase):
    def test_zero_is_spelled_out(self):
        self.assertEqual(humanize.apnumber(0), "zero")
        self.assertEqual(humanize.apnumber("0"), "zero")
        self.assertEqual(humanize.apnumber(0.0), "zero")

    def test_one_to_nine(self):
        words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
        for value, word in enumerate(words, start=1):
            with self.subTest(value=value):
                self.assertEqual(humanize.apnumber(value), word)
                self.assertEqual(humanize.apnumber(str(value)), word)

    def test_outside_the_range(self):
        for value, expected in [(10, "10"), (11, "11"), (100, "100"), (-1, "-1"), ("-5", "-5")]:
            with self.subTest(value=value):
                self.assertEqual(humanize.apnumber(value), expected)

    def test_not_numbers(self):
        self.assertEqual(humanize.apnumber("foo"), "foo")
        self.assertEqual(humanize.apnumber(None), "None")


if __name__ == "__main__":
    unittest.main()
