import unittest
import warnings

from semver import Version, replace


def setUpModule():
    # The module-level functions these tests call are deprecated; pytest's
    # warning summary kept the DeprecationWarnings out of the test output.
    warnings.simplefilter("ignore", (DeprecationWarning, PendingDeprecationWarning))


class TestReplace(unittest.TestCase):
    def test_replace_method_replaces_requested_parts(self):
        for version, parts, expected in [
            ("3.4.5", dict(major=2), "2.4.5"),
            ("3.4.5", dict(major="2"), "2.4.5"),
            ("3.4.5", dict(major=2, minor=5), "2.5.5"),
            ("3.4.5", dict(minor=2), "3.2.5"),
            ("3.4.5", dict(major=2, minor=5, patch=10), "2.5.10"),
            ("3.4.5", dict(major=2, minor=5, patch=10, prerelease="rc1"), "2.5.10-rc1"),
            (
                "3.4.5",
                dict(major=2, minor=5, patch=10, prerelease="rc1", build="b1"),
                "2.5.10-rc1+b1",
            ),
            ("3.4.5-alpha.1.2", dict(major=2), "2.4.5-alpha.1.2"),
            ("3.4.5-alpha.1.2", dict(build="x1"), "3.4.5-alpha.1.2+x1"),
            ("3.4.5+build1", dict(major=2), "2.4.5+build1"),
        ]:
            with self.subTest(version=version, parts=parts):
                self.assertEqual(replace(version, **parts), expected)

    def test_replace_raises_TypeError_for_invalid_keyword_arg(self):
        with self.assertRaisesRegex(TypeError, r"replace\(\).*unknown.*"):
            self.assertTrue(replace("1.2.3", unknown="should_raise"))

    def test_should_return_versioninfo_with_replaced_parts(self):
        for version, parts, expected in [
            ("3.4.5", dict(major=2, minor=5), "2.5.5"),
            ("3.4.5", dict(major=2, minor=5, patch=10), "2.5.10"),
            ("3.4.5-alpha.1.2", dict(major=2), "2.4.5-alpha.1.2"),
            ("3.4.5-alpha.1.2", dict(build="x1"), "3.4.5-alpha.1.2+x1"),
            ("3.4.5+build1", dict(major=2), "2.4.5+build1"),
        ]:
            with self.subTest(version=version, parts=parts):
                self.assertEqual(Version.parse(version).replace(**parts), Version.parse(expected))

    def test_replace_raises_ValueError_for_non_numeric_values(self):
        with self.assertRaises(ValueError):
            Version.parse("1.2.3").replace(major="x")
