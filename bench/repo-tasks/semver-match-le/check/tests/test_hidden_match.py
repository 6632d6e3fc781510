"""Hidden checks of Version.match() and semver.match() with every operator."""

import unittest
import warnings

import semver
from semver import Version


class HiddenMatchTests(unittest.TestCase):
    CASES = [
        ("2.3.7", "<=2.3.7", True),
        ("2.3.7", "<=2.3.9", True),
        ("2.3.7", "<=2.3.6", False),
        ("1.0.0-rc.1", "<=1.0.0-rc.1", True),
        ("1.0.0-rc.1", "<=1.0.0", True),
        ("1.0.0+build.1", "<=1.0.0", True),
        ("2.3.7", ">=2.3.7", True),
        ("2.3.7", ">=2.3.8", False),
        ("2.3.7", "<2.3.7", False),
        ("2.3.7", "<2.4.0", True),
        ("2.3.7", ">2.3.7", False),
        ("2.3.7", ">2.3.6", True),
        ("2.3.7", "==2.3.7", True),
        ("2.3.7", "!=2.3.7", False),
        ("2.3.7", "!=2.3.8", True),
        ("2.3.7", "2.3.7", True),
    ]

    def test_version_match(self):
        for version, expr, expected in self.CASES:
            with self.subTest(version=version, expr=expr):
                self.assertIs(Version.parse(version).match(expr), expected)

    def test_module_match(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for version, expr, expected in self.CASES:
                with self.subTest(version=version, expr=expr):
                    self.assertIs(semver.match(version, expr), expected)

    def test_bad_expressions(self):
        for expr in ("=2.3.7", "~2.3.7", "", "!"):
            with self.subTest(expr=expr):
                with self.assertRaises(ValueError):
                    Version.parse("2.3.7").match(expr)


if __name__ == "__main__":
    unittest.main()
