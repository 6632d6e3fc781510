import unittest
import warnings

import semver
from semver import Version, compare


def setUpModule():
    # The module-level functions these tests call are deprecated; pytest's
    # warning summary kept the DeprecationWarnings out of the test output.
    warnings.simplefilter("ignore", (DeprecationWarning, PendingDeprecationWarning))


class TestCompare(unittest.TestCase):
    def test_should_get_less(self):
        for left, right in [
            ("1.0.0", "2.0.0"),
            ("1.0.0-alpha", "1.0.0-alpha.1"),
            ("1.0.0-alpha.1", "1.0.0-alpha.beta"),
            ("1.0.0-alpha.beta", "1.0.0-beta"),
            ("1.0.0-beta", "1.0.0-beta.2"),
            ("1.0.0-beta.2", "1.0.0-beta.11"),
            ("1.0.0-beta.11", "1.0.0-rc.1"),
            ("1.0.0-rc.1", "1.0.0"),
        ]:
            with self.subTest(left=left, right=right):
                self.assertEqual(compare(left, right), -1)

    def test_should_get_greater(self):
        for left, right in [
            ("2.0.0", "1.0.0"),
            ("1.0.0-alpha.1", "1.0.0-alpha"),
            ("1.0.0-alpha.beta", "1.0.0-alpha.1"),
            ("1.0.0-beta", "1.0.0-alpha.beta"),
            ("1.0.0-beta.2", "1.0.0-beta"),
            ("1.0.0-beta.11", "1.0.0-beta.2"),
            ("1.0.0-rc.1", "1.0.0-beta.11"),
            ("1.0.0", "1.0.0-rc.1"),
        ]:
            with self.subTest(left=left, right=right):
                self.assertEqual(compare(left, right), 1)

    def test_should_raise_value_error_for_invalid_value(self):
        for left, right in [("foo", "bar"), ("1.0", "1.0.0"), ("1.x", "1.0.0")]:
            with self.subTest(left=left, right=right):
                with self.assertRaises(ValueError):
                    compare(left, right)

    def test_should_follow_specification_comparison(self):
        """
        produce comparison chain:
        1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-beta.2 < 1.0.0-beta.11
        < 1.0.0-rc.1 < 1.0.0-rc.1+build.1 < 1.0.0 < 1.0.0+0.3.7 < 1.3.7+build
        < 1.3.7+build.2.b8f12d7 < 1.3.7+build.11.e0f985a
        and in backward too.
        """
        chain = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.3.7+build",
        ]
        versions = zip(chain[:-1], chain[1:])
        for low_version, high_version in versions:
            assert (
                compare(low_version, high_version) == -1
            ), "%s should be lesser than %s" % (low_version, high_version)
            assert (
                compare(high_version, low_version) == 1
            ), "%s should be higher than %s" % (high_version, low_version)

    def test_should_compare_rc_builds(self):
        for left, right in [("1.0.0-beta.2", "1.0.0-beta.11")]:
            with self.subTest(left=left, right=right):
                self.assertEqual(compare(left, right), -1)

    def test_should_compare_release_candidate_with_release(self):
        for left, right in [("1.0.0-rc.1", "1.0.0"), ("1.0.0-rc.1+build.1", "1.0.0")]:
            with self.subTest(left=left, right=right):
                self.assertEqual(compare(left, right), -1)

    def test_should_say_equal_versions_are_equal(self):
        for left, right in [
            ("2.0.0", "2.0.0"),
            ("1.1.9-rc.1", "1.1.9-rc.1"),
            ("1.1.9+build.1", "1.1.9+build.1"),
            ("1.1.9-rc.1+build.1", "1.1.9-rc.1+build.1"),
        ]:
            with self.subTest(left=left, right=right):
                self.assertEqual(compare(left, right), 0)

    def test_should_compare_versions_with_build_and_release(self):
        for left, right, expected in [("1.1.9-rc.1", "1.1.9-rc.1+build.1", 0), ("1.1.9-rc.1", "1.1.9+build.1", -1)]:
            with self.subTest(left=left, right=right):
                self.assertEqual(compare(left, right), expected)

    def test_should_ignore_builds_on_compare(self):
        for left, right, expected in [
            ("1.0.0+build.1", "1.0.0", 0),
            ("1.0.0-alpha.1+build.1", "1.0.0-alpha.1", 0),
            ("1.0.0+build.1", "1.0.0-alpha.1", 1),
            ("1.0.0+build.1", "1.0.0-alpha.1+build.1", 1),
        ]:
            with self.subTest(left=left, right=right):
                self.assertEqual(compare(left, right), expected)

    def test_should_get_more_rc1(self):
        self.assertEqual(compare("1.0.0-rc1", "1.0.0-rc0"), 1)

    def test_should_compare_prerelease_with_numbers_and_letters(self):
        v1 = Version(major=1, minor=9, patch=1, prerelease="1unms", build=None)
        v2 = Version(major=1, minor=9, patch=1, prerelease=None, build="1asd")
        self.assertTrue(v1 < v2)
        self.assertEqual(compare("1.9.1-1unms", "1.9.1+1"), -1)

    def test_should_compare_version_info_objects(self):
        v1 = Version(major=0, minor=10, patch=4)
        v2 = Version(major=0, minor=10, patch=4, prerelease="beta.1", build=None)

        # use `not` to enforce using comparision operators
        self.assertNotEqual(v1, v2)
        self.assertTrue(v1 > v2)
        self.assertTrue(v1 >= v2)
        self.assertFalse(v1 < v2)
        self.assertFalse(v1 <= v2)
        self.assertFalse(v1 == v2)

        v3 = Version(major=0, minor=10, patch=4)

        self.assertFalse(v1 != v3)
        self.assertFalse(v1 > v3)
        self.assertTrue(v1 >= v3)
        self.assertFalse(v1 < v3)
        self.assertTrue(v1 <= v3)
        self.assertEqual(v1, v3)

        v4 = Version(major=0, minor=10, patch=5)
        self.assertNotEqual(v1, v4)
        self.assertFalse(v1 > v4)
        self.assertFalse(v1 >= v4)
        self.assertTrue(v1 < v4)
        self.assertTrue(v1 <= v4)
        self.assertFalse(v1 == v4)

    def test_should_compare_version_dictionaries(self):
        v1 = Version(major=0, minor=10, patch=4)
        v2 = dict(major=0, minor=10, patch=4, prerelease="beta.1", build=None)

        self.assertNotEqual(v1, v2)
        self.assertTrue(v1 > v2)
        self.assertTrue(v1 >= v2)
        self.assertFalse(v1 < v2)
        self.assertFalse(v1 <= v2)
        self.assertFalse(v1 == v2)

        v3 = dict(major=0, minor=10, patch=4)

        self.assertFalse(v1 != v3)
        self.assertFalse(v1 > v3)
        self.assertTrue(v1 >= v3)
        self.assertFalse(v1 < v3)
        self.assertTrue(v1 <= v3)
        self.assertEqual(v1, v3)

        v4 = dict(major=0, minor=10, patch=5)
        self.assertNotEqual(v1, v4)
        self.assertFalse(v1 > v4)
        self.assertFalse(v1 >= v4)
        self.assertTrue(v1 < v4)
        self.assertTrue(v1 <= v4)
        self.assertFalse(v1 == v4)

    def test_should_compare_version_tuples(self):
        for t in (
            (1, 0, 0),
            (1, 0),
            (1,),
            (1, 0, 0, "pre.2"),
            (1, 0, 0, "pre.2", "build.4"),
        ):
            with self.subTest(t=t):
                v0 = Version(major=0, minor=4, patch=5, prerelease="pre.2", build="build.4")
                v1 = Version(major=3, minor=4, patch=5, prerelease="pre.2", build="build.4")

                self.assertTrue(v0 < t)
                self.assertTrue(v0 <= t)
                self.assertNotEqual(v0, t)
                self.assertFalse(v0 == t)
                self.assertTrue(v1 > t)
                self.assertTrue(v1 >= t)
                # Symmetric
                self.assertTrue(t > v0)
                self.assertTrue(t >= v0)
                self.assertTrue(t < v1)
                self.assertTrue(t <= v1)
                self.assertNotEqual(t, v0)
                self.assertFalse(t == v0)

    def test_should_compare_version_list(self):
        for lst in (
            [1, 0, 0],
            [1, 0],
            [1],
            [1, 0, 0, "pre.2"],
            [1, 0, 0, "pre.2", "build.4"],
        ):
            with self.subTest(lst=lst):
                v0 = Version(major=0, minor=4, patch=5, prerelease="pre.2", build="build.4")
                v1 = Version(major=3, minor=4, patch=5, prerelease="pre.2", build="build.4")

                self.assertTrue(v0 < lst)
                self.assertTrue(v0 <= lst)
                self.assertNotEqual(v0, lst)
                self.assertFalse(v0 == lst)
                self.assertTrue(v1 > lst)
                self.assertTrue(v1 >= lst)
                # Symmetric
                self.assertTrue(lst > v0)
                self.assertTrue(lst >= v0)
                self.assertTrue(lst < v1)
                self.assertTrue(lst <= v1)
                self.assertNotEqual(lst, v0)
                self.assertFalse(lst == v0)

    def test_should_compare_version_string(self):
        for s in (
            "1.0.0",
            # "1.0",
            # "1",
            "1.0.0-pre.2",
            "1.0.0-pre.2+build.4",
        ):
            with self.subTest(s=s):
                v0 = Version(major=0, minor=4, patch=5, prerelease="pre.2", build="build.4")
                v1 = Version(major=3, minor=4, patch=5, prerelease="pre.2", build="build.4")

                self.assertTrue(v0 < s)
                self.assertTrue(v0 <= s)
                self.assertNotEqual(v0, s)
                self.assertFalse(v0 == s)
                self.assertTrue(v1 > s)
                self.assertTrue(v1 >= s)
                # Symmetric
                self.assertTrue(s > v0)
                self.assertTrue(s >= v0)
                self.assertTrue(s < v1)
                self.assertTrue(s <= v1)
                self.assertNotEqual(s, v0)
                self.assertFalse(s == v0)

    def test_should_not_allow_to_compare_invalid_versionstring(self):
        for s in ("1", "1.0", "1.0.x"):
            with self.subTest(s=s):
                v = Version(major=3, minor=4, patch=5, prerelease="pre.2", build="build.4")
                with self.assertRaises(ValueError):
                    v < s
                with self.assertRaises(ValueError):
                    s > v

    def test_should_not_allow_to_compare_version_with_int(self):
        v1 = Version(major=3, minor=4, patch=5, prerelease="pre.2", build="build.4")
        with self.assertRaises(TypeError):
            v1 > 1
        with self.assertRaises(TypeError):
            1 > v1
        with self.assertRaises(TypeError):
            semver.compare(1)

    def test_should_compare_prerelease_and_build_with_numbers(self):
        self.assertTrue(Version(major=1, minor=9, patch=1, prerelease=1, build=1) < Version(
            major=1, minor=9, patch=1, prerelease=2, build=1
        ))
        self.assertTrue(Version(1, 9, 1, 1, 1) < Version(1, 9, 1, 2, 1))
        self.assertTrue(Version("2") < Version(10))
        self.assertTrue(Version("2") < Version("10"))
