import unittest
import warnings

from semver import (
    bump_build,
    bump_major,
    bump_minor,
    bump_patch,
    bump_prerelease,
    parse_version_info,
)


def setUpModule():
    # The module-level functions these tests call are deprecated; pytest's
    # warning summary kept the DeprecationWarnings out of the test output.
    warnings.simplefilter("ignore", (DeprecationWarning, PendingDeprecationWarning))


class TestBump(unittest.TestCase):
    def test_should_bump_major(self):
        self.assertEqual(bump_major("3.4.5"), "4.0.0")

    def test_should_bump_minor(self):
        self.assertEqual(bump_minor("3.4.5"), "3.5.0")

    def test_should_bump_patch(self):
        self.assertEqual(bump_patch("3.4.5"), "3.4.6")

    def test_should_versioninfo_bump_major_and_minor(self):
        v = parse_version_info("3.4.5")
        expected = parse_version_info("4.1.0")
        self.assertEqual(v.bump_major().bump_minor(), expected)

    def test_should_versioninfo_bump_minor_and_patch(self):
        v = parse_version_info("3.4.5")
        expected = parse_version_info("3.5.1")
        self.assertEqual(v.bump_minor().bump_patch(), expected)

    def test_should_versioninfo_bump_patch_and_prerelease(self):
        v = parse_version_info("3.4.5-rc.1")
        expected = parse_version_info("3.4.6-rc.1")
        self.assertEqual(v.bump_patch().bump_prerelease(), expected)

    def test_should_versioninfo_bump_patch_and_prerelease_with_token(self):
        v = parse_version_info("3.4.5-dev.1")
        expected = parse_version_info("3.4.6-dev.1")
        self.assertEqual(v.bump_patch().bump_prerelease("dev"), expected)

    def test_should_versioninfo_bump_prerelease_and_build(self):
        v = parse_version_info("3.4.5-rc.1+build.1")
        expected = parse_version_info("3.4.5-rc.2+build.2")
        self.assertEqual(v.bump_prerelease().bump_build(), expected)

    def test_should_versioninfo_bump_prerelease_and_build_with_token(self):
        v = parse_version_info("3.4.5-rc.1+b.1")
        expected = parse_version_info("3.4.5-rc.2+b.2")
        self.assertEqual(v.bump_prerelease().bump_build("b"), expected)

    def test_should_versioninfo_bump_multiple(self):
        v = parse_version_info("3.4.5-rc.1+build.1")
        expected = parse_version_info("3.4.5-rc.2+build.2")
        self.assertEqual(v.bump_prerelease().bump_build().bump_build(), expected)
        expected = parse_version_info("3.4.5-rc.3")
        self.assertEqual(v.bump_prerelease().bump_build().bump_build().bump_prerelease(), expected)

    def test_should_versioninfo_bump_prerelease_with_empty_str(self):
        v = parse_version_info("3.4.5")
        expected = parse_version_info("3.4.5-1")
        self.assertEqual(v.bump_prerelease(""), expected)

    def test_should_versioninfo_bump_prerelease_with_none(self):
        v = parse_version_info("3.4.5")
        expected = parse_version_info("3.4.5-rc.1")
        self.assertEqual(v.bump_prerelease(None), expected)

    def test_should_versioninfo_bump_build_with_empty_str(self):
        v = parse_version_info("3.4.5")
        expected = parse_version_info("3.4.5+1")
        self.assertEqual(v.bump_build(""), expected)

    def test_should_versioninfo_bump_build_with_none(self):
        v = parse_version_info("3.4.5")
        expected = parse_version_info("3.4.5+build.1")
        self.assertEqual(v.bump_build(None), expected)

    def test_should_ignore_extensions_for_bump(self):
        self.assertEqual(bump_patch("3.4.5-rc1+build4"), "3.4.6")

    def test_should_bump_prerelease(self):
        for version, token, expected in [
            ("3.4.5-rc.9", None, "3.4.5-rc.10"),
            ("3.4.5", None, "3.4.5-rc.1"),
            ("3.4.5", "dev", "3.4.5-dev.1"),
            ("3.4.5", "", "3.4.5-rc.1"),
        ]:
            with self.subTest(version=version, token=token):
                token = "rc" if not token else token
                self.assertEqual(bump_prerelease(version, token), expected)

    def test_should_ignore_build_on_prerelease_bump(self):
        self.assertEqual(bump_prerelease("3.4.5-rc.1+build.4"), "3.4.5-rc.2")

    def test_should_bump_build(self):
        for version, expected in [
            ("3.4.5-rc.1+build.9", "3.4.5-rc.1+build.10"),
            ("3.4.5-rc.1+0009.dev", "3.4.5-rc.1+0010.dev"),
            ("3.4.5-rc.1", "3.4.5-rc.1+build.1"),
            ("3.4.5", "3.4.5+build.1"),
        ]:
            with self.subTest(version=version):
                self.assertEqual(bump_build(version), expected)
