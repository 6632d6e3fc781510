"""
Hidden checks of the HTML5 legacy color parsing algorithm.

"""

import unittest

import webcolors


class HiddenLegacyColorTests(unittest.TestCase):
    def check(self, pairs):
        for raw, expected in pairs:
            with self.subTest(raw=raw):
                result = webcolors.html5_parse_legacy_color(raw)
                self.assertIsInstance(result, webcolors.HTML5SimpleColor)
                self.assertEqual(tuple(result), expected)

    def test_leading_zeros_only_stripped_when_all_components_have_them(self):
        self.check(
            (
                ("chucknorris", (192, 0, 0)),
                ("0a00b0c00", (10, 11, 192)),
                ("#01234567890abc", (1, 86, 10)),
            )
        )

    def test_leading_zeros_stripped(self):
        self.check(
            (
                ("000a000b000c", (10, 11, 12)),
                ("00ff00ff00ff", (255, 255, 255)),
                ("  #0102 ", (1, 2, 0)),
            )
        )

    def test_short_junk(self):
        self.check(
            (
                ("ninja", (0, 0, 160)),
                ("crap", (192, 160, 0)),
                ("sick", (0, 192, 0)),
                ("zzz", (0, 0, 0)),
            )
        )

    def test_long_values(self):
        self.check(
            (
                ("#1234567890ab", (18, 86, 144)),
                ("123456789", (18, 69, 120)),
                ("A" * 129, (170, 170, 170)),
            )
        )


if __name__ == "__main__":
    unittest.main()
