import unittest
import warnings
import semver


def setUpModule():
    # The module-level functions these tests call are deprecated; pytest's
    # warning summary kept the DeprecationWarnings out of the test output.
    warnings.simplefilter("ignore", (DeprecationWarning, PendingDeprecationWarning))


class TestTypeerror274(unittest.TestCase):
    def test_should_work_with_string_and_bytes(self):
        result = semver.compare("1.1.0", b"1.2.2")
        self.assertEqual(result, -1)
        result = semver.compare(b"1.1.0", "1.2.2")
        self.assertEqual(result, -1)

    def test_should_not_work_with_invalid_args(self):
        with self.assertRaises(TypeError):
            semver.version.Version.parse(8)
