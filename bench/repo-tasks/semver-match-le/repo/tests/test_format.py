import unittest
import warnings

from semver import Version, finalize_version, format_version


def setUpModule():
    # The module-level functions these tests call are deprecated; pytest's
    # warning summary kept the DeprecationWarnings out of the test output.
    warnings.simplefilter("ignore", (DeprecationWarning, PendingDeprecationWarning))


class TestFormat(unittest.TestCase):
    def test_should_finalize_version(self):
        for version, expected in [
            ("1.2.3", "1.2.3"),
            ("1.2.3-rc.5", "1.2.3"),
            ("1.2.3+build.2", "1.2.3"),
            ("1.2.3-rc.1+build.5", "1.2.3"),
            ("1.2.3-alpha", "1.2.3"),
            ("1.2.0", "1.2.0"),
        ]:
            with self.subTest(version=version):
                self.assertEqual(finalize_version(version), expected)

    def test_should_correctly_format_version(self):
        self.assertEqual(format_version(3, 4, 5), "3.4.5")
        self.assertEqual(format_version(3, 4, 5, "rc.1"), "3.4.5-rc.1")
        self.assertEqual(format_version(3, 4, 5, prerelease="rc.1"), "3.4.5-rc.1")
        self.assertEqual(format_version(3, 4, 5, build="build.4"), "3.4.5+build.4")
        self.assertEqual(format_version(3, 4, 5, "rc.1", "build.4"), "3.4.5-rc.1+build.4")

    def test_parse_method_for_version_info(self):
        s_version = "1.2.3-alpha.1.2+build.11.e0f985a"
        v = Version.parse(s_version)
        self.assertEqual(str(v), s_version)

    def test_repr(self):
        for version, expected in [
            (
                Version(major=1, minor=2, patch=3, prerelease=None, build=None),
                "Version(major=1, minor=2, patch=3, prerelease=None, build=None)",
            ),
            (
                Version(major=1, minor=2, patch=3, prerelease="r.1", build=None),
                "Version(major=1, minor=2, patch=3, prerelease='r.1', build=None)",
            ),
            (
                Version(major=1, minor=2, patch=3, prerelease="dev.1", build=None),
                "Version(major=1, minor=2, patch=3, prerelease='dev.1', build=None)",
            ),
            (
                Version(major=1, minor=2, patch=3, prerelease="dev.1", build="b.1"),
                "Version(major=1, minor=2, patch=3, prerelease='dev.1', build='b.1')",
            ),
            (
                Version(major=1, minor=2, patch=3, prerelease="r.1", build="b.1"),
                "Version(major=1, minor=2, patch=3, prerelease='r.1', build='b.1')",
            ),
            (
                Version(major=1, minor=2, patch=3, prerelease="r.1", build="build.1"),
                "Version(major=1, minor=2, patch=3, prerelease='r.1', build='build.1')",
            ),
        ]:
            with self.subTest(version=version):
                self.assertEqual(repr(version), expected)
