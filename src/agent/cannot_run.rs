//! Whether a check can run as written: the shapes of a check's first
//! lines of output that say it cannot (no such command, program, script,
//! module, target or folder; a usage message), as one table a reader can
//! scan ([`CANNOT_RUN`]). Such a check is a usage error before the first
//! request, not a failing check the model is asked to fix.

/// A way a check shows it cannot run as written: the exit codes it comes
/// with, what one of the first [`TOP_LINES`] lines of its output starts
/// with (a regex; empty: any output), and what that means.
struct CannotRun {
    codes: &'static [i32],
    line: &'static str,
    why: &'static str,
    /// Only when the check's own program would say it: a runner (pytest,
    /// `python3 -m …`, go, npm, …), not a script or a program of the
    /// workspace, whose usage message can be the very failure to fix.
    runner_only: bool,
}

/// What a check that cannot run as written looks like, for the runners
/// `--check auto` picks and the shells around them. A failing test, or a
/// test file that does not import (pytest's "errors during collection",
/// exit 2; `ModuleNotFoundError` in a traceback), is the task, not this.
const CANNOT_RUN: &[CannotRun] = &[
    CannotRun {
        codes: &[127],
        line: "",
        why: "the shell found no such command",
        runner_only: false,
    },
    CannotRun {
        codes: &[126],
        line: "",
        why: "the shell could not run it: not executable",
        runner_only: false,
    },
    CannotRun {
        codes: &[2],
        line: r"(?:\S*/)?(?:ba|da)?sh: .*(?:syntax error|unexpected EOF)",
        why: "the shell could not read it: a syntax error",
        runner_only: false,
    },
    // argparse's `usage:`, clap's `Usage:`, pytest's `ERROR: usage:`.
    CannotRun {
        codes: &[2, 4],
        line: r"(?i)(?:error:\s*)?usage:",
        why: "the program answered with its usage message",
        runner_only: true,
    },
    CannotRun {
        codes: &[2],
        line: r"\S*python[0-9.]*: can't open file",
        why: "Python found no such script",
        runner_only: false,
    },
    CannotRun {
        codes: &[1],
        line: r"\S*python[0-9.]*: No module named ",
        why: "Python has no such module to run with `-m` (not installed?)",
        runner_only: false,
    },
    CannotRun {
        codes: &[2],
        line: r"make(?:\[\d+\])?: \*\*\* No (?:rule to make target|targets specified)",
        why: "make has no such target here (or no makefile)",
        runner_only: false,
    },
    CannotRun {
        codes: &[1],
        line: r"(?i)npm (?:error|ERR!) missing script",
        why: "package.json has no such script",
        runner_only: false,
    },
    CannotRun {
        codes: &[101],
        line: r"error: could not find `Cargo.toml`",
        why: "cargo found no Cargo.toml here",
        runner_only: false,
    },
    CannotRun {
        codes: &[1],
        line: r"(?:\S*sh: )?(?:line \d+: )?cd: .*: No such file or directory",
        why: "`cd` found no such folder",
        runner_only: false,
    },
    CannotRun {
        codes: &[2],
        line: r"make(?:\[\d+\])?: \*\*\* .*: No such file or directory",
        why: "make found no such folder or makefile",
        runner_only: false,
    },
    CannotRun {
        codes: &[1],
        line: r"ImportError: Start directory is not importable",
        why: "unittest found no such start folder (`discover -s`)",
        runner_only: false,
    },
    CannotRun {
        codes: &[254],
        line: r"(?i)npm (?:error|ERR!) (?:code ENOENT|enoent)",
        why: "npm found no package.json here",
        runner_only: false,
    },
];

/// The patterns of [`CANNOT_RUN`], compiled once (`None`: any output).
static CANNOT_RUN_LINES: std::sync::LazyLock<Vec<Option<regex::Regex>>> =
    std::sync::LazyLock::new(|| {
        CANNOT_RUN
            .iter()
            .map(|c| {
                let anchored = format!("^(?:{})", c.line);
                (!c.line.is_empty())
                    .then(|| regex::Regex::new(&anchored).ok())
                    .flatten()
            })
            .collect()
    });

/// How many lines from the top of a check's output are read for
/// [`CANNOT_RUN`]: a runner that cannot start says so first; further
/// down, a usage line is more likely the output of a program under test.
const TOP_LINES: usize = 10;

/// Why the check `command` that exited with `code` and wrote `output`
/// cannot run as written, if it cannot ([`CANNOT_RUN`]), with its exit
/// code.
pub(crate) fn unusable(command: &str, code: Option<i32>, output: &str) -> Option<String> {
    let code = code?;
    let runner = is_runner(command);
    let top: Vec<&str> = (output.lines())
        .map(str::trim_start)
        .filter(|l| !l.is_empty())
        .take(TOP_LINES)
        .collect();
    let found = CANNOT_RUN
        .iter()
        .zip(CANNOT_RUN_LINES.iter())
        .find(|(c, re)| {
            c.codes.contains(&code)
                && (runner || !c.runner_only)
                && match re {
                    None => c.line.is_empty(),
                    Some(re) => top.iter().any(|l| re.is_match(l)),
                }
        });
    found.map(|(c, _)| format!("{} (exit code {code})", c.why))
}

/// Whether the check `command` starts with a test runner itself (pytest,
/// `python3 -m …`, go, cargo, npm, make, …), not a script or a program
/// of the workspace (`./run_tests.sh`, `python3 cli.py`).
fn is_runner(command: &str) -> bool {
    let words = shlex::split(command).unwrap_or_default();
    let mut words = words
        .iter()
        .map(String::as_str)
        .skip_while(|w| w.contains('=') && !w.starts_with('-'));
    let Some(first) = words.next() else {
        return false;
    };
    let program = first.rsplit('/').next().unwrap_or(first);
    if program.starts_with("python") {
        return words.next() == Some("-m");
    }
    !first.contains('/') && !matches!(program, "bash" | "sh" | "zsh" | "node" | "ruby" | "perl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_that_cannot_run_as_written_is_told_from_a_failing_one() {
        let argparse = "usage: python3 -m unittest [-h] [-v] [-q]\npython3 -m unittest: error: unrecognized arguments: --bogus\n[exit code 2]";
        let pytest_usage = "ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]\npytest: error: unrecognized arguments: --bogus\n  inifile: None\n[exit code 4]";
        let go_flag = "flag provided but not defined: -x\nusage: go test [build/test flags] [packages]\n[exit code 2]";
        let collection = "==== ERRORS ====\nE   ModuleNotFoundError: No module named 'pkg'\n!!! Interrupted: 1 error during collection !!!\n[exit code 2]";
        let make_failed = "python3 -m unittest\nF\nFAIL: test_a (t.T.test_a)\nmake: *** [Makefile:2: test] Error 1\n[exit code 2]";
        let deep_usage = format!("{}usage: tool [-h]\n[exit code 2]", "line\n".repeat(12));
        let cases: [(Option<i32>, &str, Option<&str>); 21] = [
            (
                Some(127),
                "bash: line 1: nonexistent-cmd: command not found",
                Some("127"),
            ),
            (
                Some(126),
                "bash: line 1: ./run.sh: Permission denied",
                Some("126"),
            ),
            (
                Some(2),
                "bash: -c: line 1: unexpected EOF while looking for matching `''",
                Some("syntax error"),
            ),
            (Some(2), argparse, Some("usage message (exit code 2)")),
            (Some(4), pytest_usage, Some("usage message (exit code 4)")),
            (Some(2), go_flag, Some("usage message")),
            (
                Some(2),
                "/usr/bin/python3: can't open file '/w/nosuch.py': [Errno 2] No such file or directory",
                Some("no such script (exit code 2)"),
            ),
            (
                Some(1),
                "/usr/bin/python3: No module named pytest",
                Some("no such module"),
            ),
            (
                Some(2),
                "make: *** No rule to make target 'test'.  Stop.",
                Some("make has no such target"),
            ),
            (
                Some(2),
                "make: *** No targets specified and no makefile found.  Stop.",
                Some("or no makefile"),
            ),
            (
                Some(1),
                "npm error Missing script: \"test\"\nnpm error\nnpm error To see a list of scripts, run:",
                Some("no such script"),
            ),
            (
                Some(101),
                "error: could not find `Cargo.toml` in `/w` or any parent directory",
                Some("no Cargo.toml"),
            ),
            (
                Some(1),
                "bash: line 1: cd: nosuchdir: No such file or directory",
                Some("no such folder"),
            ),
            (
                Some(2),
                "make: *** nosuchdir: No such file or directory.  Stop.",
                Some("no such folder or makefile"),
            ),
            (
                Some(1),
                "Traceback (most recent call last):\nImportError: Start directory is not importable: 'nosuchdir'",
                Some("no such start folder"),
            ),
            (
                Some(254),
                "npm error code ENOENT\nnpm error syscall open\nnpm error path /w/package.json",
                Some("no package.json"),
            ),
            // The task, not the check: a test file that does not import, a
            // failing test, a usage line far down (a program under test).
            (Some(2), collection, None),
            (Some(2), make_failed, None),
            (Some(2), &deep_usage, None),
            (Some(1), argparse, None),
            (None, "timed out", None),
        ];
        // A usage message from a script or a program of the workspace is
        // the failure to fix, not the check's own.
        for command in [
            "./run_tests.sh",
            "python3 cli.py --input data.txt",
            "bash t.sh",
        ] {
            assert_eq!(unusable(command, Some(2), argparse), None, "{command}");
        }
        assert!(unusable("npm test", Some(2), argparse).is_some());
        for (code, output, want) in cases {
            let got = unusable("python3 -m pytest -q", code, output);
            match want {
                Some(part) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(part)),
                    "{code:?} {output}: {got:?}"
                ),
                None => assert_eq!(got, None, "{code:?} {output}"),
            }
        }
    }
}
