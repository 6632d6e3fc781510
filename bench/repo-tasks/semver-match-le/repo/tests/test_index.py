import unittest

from semver import Version


class TestIndex(unittest.TestCase):
    def test_version_info_should_be_accessed_with_index(self):
        for version, index, expected in [
            # Simple positive indices
            ("1.2.3-rc.0+build.0", 0, 1),
            ("1.2.3-rc.0+build.0", 1, 2),
            ("1.2.3-rc.0+build.0", 2, 3),
            ("1.2.3-rc.0+build.0", 3, "rc.0"),
            ("1.2.3-rc.0+build.0", 4, "build.0"),
            ("1.2.3-rc.0", 0, 1),
            ("1.2.3-rc.0", 1, 2),
            ("1.2.3-rc.0", 2, 3),
            ("1.2.3-rc.0", 3, "rc.0"),
            ("1.2.3", 0, 1),
            ("1.2.3", 1, 2),
            ("1.2.3", 2, 3),
            # Special cases
            ("1.0.2", 1, 0),
        ]:
            with self.subTest(version=version, index=index):
                version_info = Version.parse(version)
                self.assertEqual(version_info[index], expected)

    def test_version_info_should_be_accessed_with_slice_object(self):
        for version, slice_object, expected in [
            # Slice indices
            ("1.2.3-rc.0+build.0", slice(0, 5), (1, 2, 3, "rc.0", "build.0")),
            ("1.2.3-rc.0+build.0", slice(0, 4), (1, 2, 3, "rc.0")),
            ("1.2.3-rc.0+build.0", slice(0, 3), (1, 2, 3)),
            ("1.2.3-rc.0+build.0", slice(0, 2), (1, 2)),
            ("1.2.3-rc.0+build.0", slice(3, 5), ("rc.0", "build.0")),
            ("1.2.3-rc.0", slice(0, 4), (1, 2, 3, "rc.0")),
            ("1.2.3-rc.0", slice(0, 3), (1, 2, 3)),
            ("1.2.3-rc.0", slice(0, 2), (1, 2)),
            ("1.2.3", slice(0, 10), (1, 2, 3)),
            ("1.2.3", slice(0, 3), (1, 2, 3)),
            ("1.2.3", slice(0, 2), (1, 2)),
            # Special cases
            ("1.2.3-rc.0+build.0", slice(3), (1, 2, 3)),
            ("1.2.3-rc.0+build.0", slice(0, 5, 2), (1, 3, "build.0")),
            ("1.2.3-rc.0+build.0", slice(None, 5, 2), (1, 3, "build.0")),
            ("1.2.3-rc.0+build.0", slice(5, 0, -2), ("build.0", 3)),
            ("1.2.0-rc.0+build.0", slice(3), (1, 2, 0)),
        ]:
            with self.subTest(version=version, slice_object=slice_object):
                version_info = Version.parse(version)
                self.assertEqual(version_info[slice_object], expected)

    def test_version_info_should_throw_index_error(self):
        for version, index in [
            ("1.2.3", 3),
            ("1.2.3", slice(3, 4)),
            ("1.2.3", 4),
            ("1.2.3", slice(4, 5)),
            ("1.2.3", 5),
            ("1.2.3", slice(5, 6)),
            ("1.2.3-rc.0", 5),
            ("1.2.3-rc.0", slice(5, 6)),
            ("1.2.3-rc.0", 6),
            ("1.2.3-rc.0", slice(6, 7)),
        ]:
            with self.subTest(version=version, index=index):
                version_info = Version.parse(version)
                with self.assertRaisesRegex(IndexError, r"Version part undefined"):
                    version_info[index]

    def test_version_info_should_throw_index_error_when_negative_index(self):
        for version, index in [
            ("1.2.3", -1),
            ("1.2.3", -2),
            ("1.2.3", slice(-2, 2)),
            ("1.2.3", slice(2, -2)),
            ("1.2.3", slice(-2, -2)),
        ]:
            with self.subTest(version=version, index=index):
                version_info = Version.parse(version)
                with self.assertRaisesRegex(IndexError, r"Version index cannot be negative"):
                    version_info[index]
