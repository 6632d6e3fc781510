import unittest

from semver import Version


def _version():
    """The version the pytest fixture ``version`` gave."""
    return Version(
        major=1, minor=2, patch=3, prerelease="alpha.1.2", build="build.11.e0f985a"
    )


class TestImmutable(unittest.TestCase):
    def test_immutable_major(self):
        version = _version()
        with self.assertRaisesRegex(AttributeError, "attribute 'major' is readonly"):
            version.major = 9

    def test_immutable_minor(self):
        version = _version()
        with self.assertRaisesRegex(AttributeError, "attribute 'minor' is readonly"):
            version.minor = 9

    def test_immutable_patch(self):
        version = _version()
        with self.assertRaisesRegex(AttributeError, "attribute 'patch' is readonly"):
            version.patch = 9

    def test_immutable_prerelease(self):
        version = _version()
        with self.assertRaisesRegex(AttributeError, "attribute 'prerelease' is readonly"):
            version.prerelease = "alpha.9.9"

    def test_immutable_build(self):
        version = _version()
        with self.assertRaisesRegex(AttributeError, "attribute 'build' is readonly"):
            version.build = "build.99.e0f985a"

    def test_immutable_unknown_attribute(self):
        version = _version()
        with self.assertRaisesRegex(AttributeError, ".* object has no attribute 'new_attribute'"):
            version.new_attribute = "forbidden"
