import unittest
import warnings

from semver import match


def setUpModule():
    # The module-level functions these tests call are deprecated; pytest's
    # warning summary kept the DeprecationWarnings out of the test output.
    warnings.simplefilter("ignore", (DeprecationWarning, PendingDeprecationWarning))


class TestMatch(unittest.TestCase):
    def test_should_match_simple(self):
        self.assertIs(match("2.3.7", ">=2.3.6"), True)

    def test_should_no_match_simple(self):
        self.assertIs(match("2.3.7", ">=2.3.8"), False)

    def test_should_match_not_equal(self):
        for left, right, expected in [
            ("2.3.7", "!=2.3.8", True),
            ("2.3.7", "!=2.3.6", True),
            ("2.3.7", "!=2.3.7", False),
        ]:
            with self.subTest(left=left, right=right):
                self.assertIs(match(left, right), expected)

    def test_should_match_equal_by_default(self):
        for left, right, expected in [
            ("2.3.7", "2.3.7", True),
            ("2.3.6", "2.3.6", True),
            ("2.3.7", "4.3.7", False),
        ]:
            with self.subTest(left=left, right=right):
                self.assertIs(match(left, right), expected)

    def test_should_not_raise_value_error_for_expected_match_expression(self):
        for left, right, expected in [
            ("2.3.7", "<2.4.0", True),
            ("2.3.7", ">2.3.5", True),
            ("2.3.7", "<=2.3.9", True),
            ("2.3.7", ">=2.3.5", True),
            ("2.3.7", "==2.3.7", True),
            ("2.3.7", "!=2.3.7", False),
        ]:
            with self.subTest(left=left, right=right):
                self.assertIs(match(left, right), expected)

    def test_should_raise_value_error_for_unexpected_match_expression(self):
        for left, right in [("2.3.7", "=2.3.7"), ("2.3.7", "~2.3.7"), ("2.3.7", "^2.3.7")]:
            with self.subTest(left=left, right=right):
                with self.assertRaises(ValueError):
                    match(left, right)

    def test_should_raise_value_error_for_invalid_match_expression(self):
        for left, right in [("1.0.0", ""), ("1.0.0", "!")]:
            with self.subTest(left=left, right=right):
                with self.assertRaises(ValueError):
                    match(left, right)
