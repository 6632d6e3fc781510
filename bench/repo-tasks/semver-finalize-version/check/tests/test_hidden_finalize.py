"""Hidden checks of Version.finalize_version()."""

import unittest
import warnings

import semver
from semver import Version


class HiddenFinalizeTests(unittest.TestCase):
    def test_returns_a_new_version(self):
        for text, expected in [
            ("1.2.3-rc.5", "1.2.3"),
            ("1.2.3+build.2", "1.2.3"),
            ("1.2.3-rc.1+build.5", "1.2.3"),
            ("1.2.3", "1.2.3"),
            ("0.0.1-alpha", "0.0.1"),
        ]:
            with self.subTest(text=text):
                version = Version.parse(text)
                final = version.finalize_version()
                self.assertIsInstance(final, Version)
                self.assertEqual(str(final), expected)
                self.assertEqual(final, Version.parse(expected))
                self.assertEqual(str(version), text)  # self is left untouched

    def test_keeps_the_subclass(self):
        class MyVersion(Version):
            pass

        final = MyVersion.parse("3.4.5-pre.2+build.4").finalize_version()
        self.assertIs(type(final), MyVersion)
        self.assertEqual(final.to_tuple(), (3, 4, 5, None, None))

    def test_module_function(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            self.assertEqual(semver.finalize_version("1.2.3-rc.5"), "1.2.3")


if __name__ == "__main__":
    unittest.main()
