import unittest

from semver import Version


def _version():
    """The version the pytest fixture ``version`` gave."""
    return Version(
        major=1, minor=2, patch=3, prerelease="alpha.1.2", build="build.11.e0f985a"
    )


class TestSemver(unittest.TestCase):
    def test_should_private_increment_string(self):
        for string, expected in [("rc", "rc"), ("rc.1", "rc.2"), ("2x", "3x")]:
            with self.subTest(string=string):
                self.assertEqual(Version._increment_string(string), expected)

    def test_should_not_allow_negative_numbers(self):
        for ver in [
            {"major": -1},
            {"major": 1, "minor": -2},
            {"major": 1, "minor": 2, "patch": -3},
            {"major": 1, "minor": -2, "patch": 3},
        ]:
            with self.subTest(ver=ver):
                with self.assertRaisesRegex(ValueError, ".* is negative. .*"):
                    Version(**ver)

    def test_should_versioninfo_to_dict(self):
        version = _version()
        resultdict = version.to_dict()
        assert isinstance(resultdict, dict), "Got type from to_dict"
        self.assertEqual(list(resultdict.keys()), ["major", "minor", "patch", "prerelease", "build"])

    def test_should_versioninfo_to_tuple(self):
        version = _version()
        result = version.to_tuple()
        assert isinstance(result, tuple), "Got type from to_dict"
        assert len(result) == 5, "Different length from to_tuple()"

    def test_version_info_should_be_iterable(self):
        version = _version()
        self.assertEqual(tuple(version), (
            version.major,
            version.minor,
            version.patch,
            version.prerelease,
            version.build,
        ))

    def test_should_be_able_to_use_strings_as_major_minor_patch(self):
        v = Version("1", "2", "3")
        self.assertTrue(isinstance(v.major, int))
        self.assertTrue(isinstance(v.minor, int))
        self.assertTrue(isinstance(v.patch, int))
        self.assertIsNone(v.prerelease)
        self.assertIsNone(v.build)
        self.assertEqual(Version("1", "2", "3"), Version(1, 2, 3))

    def test_using_non_numeric_string_as_major_minor_patch_throws(self):
        with self.assertRaises(ValueError):
            Version("a")
        with self.assertRaises(ValueError):
            Version(1, "a")
        with self.assertRaises(ValueError):
            Version(1, 2, "a")

    def test_should_be_able_to_use_integers_as_prerelease_build(self):
        v = Version(1, 2, 3, 4, 5)
        self.assertTrue(isinstance(v.prerelease, str))
        self.assertTrue(isinstance(v.build, str))
        self.assertEqual(Version(1, 2, 3, 4, 5), Version(1, 2, 3, "4", "5"))

    def test_should_versioninfo_isvalid(self):
        self.assertIs(Version.is_valid("1.0.0"), True)
        self.assertIs(Version.is_valid("foo"), False)

    def test_versioninfo_compare_should_raise_when_passed_invalid_value(self):
        with self.assertRaises(TypeError):
            Version(1, 2, 3).compare(4)

    def test_should_succeed_compatible_match(self):
        for old, new in [
            ((1, 2, 3), (1, 2, 3)),
            ((1, 2, 3), (1, 2, 4)),
            ((1, 2, 4), (1, 2, 3)),
            ((1, 2, 3, "rc.0"), (1, 2, 4, "rc.0")),
            ((0, 1, 0), (0, 1, 0)),
        ]:
            with self.subTest(old=old, new=new):
                old = Version(*old)
                new = Version(*new)
                self.assertTrue(old.is_compatible(new))

    def test_should_fail_compatible_match(self):
        for old, new in [
            ((1, 1, 0), (1, 0, 0)),
            ((2, 0, 0), (1, 5, 0)),
            ((1, 2, 3, "rc.1"), (1, 2, 3, "rc.0")),
            ((1, 2, 3, "rc.1"), (1, 2, 4, "rc.0")),
            ((0, 1, 0), (0, 1, 1)),
            ((1, 0, 0), (1, 0, 0, "rc1")),
            ((1, 0, 0, "rc1"), (1, 0, 0)),
        ]:
            with self.subTest(old=old, new=new):
                old = Version(*old)
                new = Version(*new)
                self.assertFalse(old.is_compatible(new))

    def test_should_fail_with_incompatible_type_for_compatible_match(self):
        for wrongtype in [
            "wrongtype",
            dict(a=2),
            list(),
        ]:
            with self.subTest(wrongtype=wrongtype):
                with self.assertRaisesRegex(TypeError, "Expected a Version type .*"):
                    v = Version(1, 2, 3)
                    v.is_compatible(wrongtype)

    def test_should_succeed_with_compatible_subclass_for_is_compatible(self):
        class CustomVersion(Version): ...

        self.assertTrue(CustomVersion(1, 0, 0).is_compatible(Version(1, 0, 0)))
