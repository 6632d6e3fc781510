import io
import unittest
import warnings
from contextlib import redirect_stderr, redirect_stdout
from argparse import Namespace
from contextlib import contextmanager
from unittest.mock import patch


from semver import (
    cmd_bump,
    cmd_check,
    cmd_compare,
    cmd_nextver,
    createparser,
    main,
    __main__,
)


@contextmanager
def does_not_raise(item):
    yield item


def setUpModule():
    # The module-level functions these tests call are deprecated; pytest's
    # warning summary kept the DeprecationWarnings out of the test output.
    warnings.simplefilter("ignore", (DeprecationWarning, PendingDeprecationWarning))


class TestPysemverCli(unittest.TestCase):
    def test_should_parse_cli_arguments(self):
        for cli, expected in [
            (["bump", "major", "1.2.3"], Namespace(bump="major", version="1.2.3")),
            (["bump", "minor", "1.2.3"], Namespace(bump="minor", version="1.2.3")),
            (["bump", "patch", "1.2.3"], Namespace(bump="patch", version="1.2.3")),
            (
                ["bump", "prerelease", "1.2.3"],
                Namespace(bump="prerelease", version="1.2.3"),
            ),
            (["bump", "build", "1.2.3"], Namespace(bump="build", version="1.2.3")),
            # ---
            (["compare", "1.2.3", "2.1.3"], Namespace(version1="1.2.3", version2="2.1.3")),
            # ---
            (["check", "1.2.3"], Namespace(version="1.2.3")),
        ]:
            with self.subTest(cli=cli):
                parser = createparser()
                self.assertTrue(parser)
                result = parser.parse_args(cli)
                del result.func
                self.assertEqual(result, expected)

    def test_should_process_parsed_cli_arguments(self):
        for func, args, expectation in [
            # bump subcommand
            (cmd_bump, Namespace(bump="major", version="1.2.3"), does_not_raise("2.0.0")),
            (cmd_bump, Namespace(bump="minor", version="1.2.3"), does_not_raise("1.3.0")),
            (cmd_bump, Namespace(bump="patch", version="1.2.3"), does_not_raise("1.2.4")),
            (
                cmd_bump,
                Namespace(bump="prerelease", version="1.2.3-rc1"),
                does_not_raise("1.2.3-rc2"),
            ),
            (
                cmd_bump,
                Namespace(bump="build", version="1.2.3+build.13"),
                does_not_raise("1.2.3+build.14"),
            ),
            # compare subcommand
            (
                cmd_compare,
                Namespace(version1="1.2.3", version2="2.1.3"),
                does_not_raise("-1"),
            ),
            (
                cmd_compare,
                Namespace(version1="1.2.3", version2="1.2.3"),
                does_not_raise("0"),
            ),
            (
                cmd_compare,
                Namespace(version1="2.4.0", version2="2.1.3"),
                does_not_raise("1"),
            ),
            # check subcommand
            (cmd_check, Namespace(version="1.2.3"), does_not_raise(None)),
            (cmd_check, Namespace(version="1.2"), self.assertRaises(ValueError)),
            # nextver subcommand
            (
                cmd_nextver,
                Namespace(version="1.2.3", part="major"),
                does_not_raise("2.0.0"),
            ),
            (
                cmd_nextver,
                Namespace(version="1.2", part="major"),
                self.assertRaises(ValueError),
            ),
            (
                cmd_nextver,
                Namespace(version="1.2.3", part="nope"),
                self.assertRaises(ValueError),
            ),
        ]:
            with self.subTest(func=func, args=args, expectation=expectation):
                with expectation as expected:
                    result = func(args)
                    self.assertEqual(result, expected)

    def test_should_process_print(self):
        with redirect_stdout(io.StringIO()) as out:
            rc = main(["bump", "major", "1.2.3"])
        self.assertEqual(rc, 0)
        self.assertEqual(out.getvalue().rstrip(), "2.0.0")

    def test_should_process_raise_error(self):
        with redirect_stderr(io.StringIO()) as err:
            rc = main(["bump", "major", "1.2"])
        self.assertNotEqual(rc, 0)
        self.assertTrue(err.getvalue().startswith("ERROR"))

    def test_should_raise_systemexit_when_called_with_empty_arguments(self):
        with self.assertRaises(SystemExit), redirect_stdout(io.StringIO()), \
                redirect_stderr(io.StringIO()):
            main([])

    def test_should_raise_systemexit_when_bump_iscalled_with_empty_arguments(self):
        with self.assertRaises(SystemExit), redirect_stdout(io.StringIO()), \
                redirect_stderr(io.StringIO()):
            main(["bump"])

    def test_should_process_check_iscalled_with_valid_version(self):
        with redirect_stdout(io.StringIO()) as out:
            result = main(["check", "1.1.1"])
        self.assertFalse(result)
        self.assertFalse(out.getvalue())

    def test_main_file_should_call_cli_main(self):
        for package_name in ["", "semver"]:
            with self.subTest(package_name=package_name):
                with patch("semver.__main__.cli.main") as mocked_main:
                    with patch("semver.__main__.__package__", package_name):
                        __main__.main()
                        mocked_main.assert_called_once()
