//! How many tests a check's output says failed and passed, read from the
//! summary lines of the test runners `--check auto` knows. `--attempts`
//! keeps the try that came closest: the most passing tests (a try that
//! breaks the test module's import runs fewer), then the fewest failing.

use std::sync::LazyLock;

use regex::Regex;

/// What a check's output says of its tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Failures and errors.
    pub failing: u32,
    /// Tests that passed, where the output says.
    pub passed: Option<u32>,
}

/// How a runner's output counts the tests that passed.
enum Passed {
    /// Group 1 of every match, added up.
    Sum(&'static str),
    /// One a matching line (`go test -v`'s `--- PASS:`).
    Lines(&'static str),
    /// Group 1 of the first match is the tests run (unittest's `Ran N
    /// tests`): those that did not fail passed.
    Run(&'static str),
}

/// One runner's summary line, what in it counts failing tests, and where
/// its output counts those that passed.
struct Summary {
    /// The summary line.
    line: &'static str,
    /// The counts in that line (group 1 of each match, added up); `None`:
    /// each summary line is one failing test (`go test`'s `--- FAIL:`).
    count: Option<&'static str>,
    /// Every summary line counts (`cargo test` prints one per test
    /// binary), not only the first.
    every_line: bool,
    passed: Passed,
}

/// The runners' summaries, in the order they are tried: the first runner
/// with a summary line in the output gives the counts.
const SUMMARIES: &[Summary] = &[
    // cargo test
    Summary {
        line: r"(?m)^test result: FAILED\..*$",
        count: Some(r"(\d+) failed"),
        every_line: true,
        passed: Passed::Sum(r"(?m)^test result: \w+\. (\d+) passed"),
    },
    // pytest
    Summary {
        line: r"(?m)^=*\s*\d+ \w+(?:, \d+ \w+)* in [\d.]+s\b.*$",
        count: Some(r"(\d+) (?:failed|errors?)\b"),
        every_line: false,
        passed: Passed::Sum(r"(?m)^=*\s*(?:\d+ \w+, )*(\d+) passed(?:, \d+ \w+)* in [\d.]+s"),
    },
    // unittest
    Summary {
        line: r"(?m)^FAILED \(.*\)$",
        count: Some(r"(?:failures|errors)=(\d+)"),
        every_line: false,
        passed: Passed::Run(r"(?m)^Ran (\d+) tests? in"),
    },
    // Jest
    Summary {
        line: r"(?m)^Tests:\s+.*\d+ total$",
        count: Some(r"(\d+) failed"),
        every_line: false,
        passed: Passed::Sum(r"(?m)^Tests:.*?(\d+) passed"),
    },
    // Vitest
    Summary {
        line: r"(?m)^\s*Tests\s+\d+ .*\(\d+\)$",
        count: Some(r"(\d+) failed"),
        every_line: false,
        passed: Passed::Sum(r"(?m)^\s*Tests\s+.*?(\d+) passed"),
    },
    // Mocha
    Summary {
        line: r"(?m)^\s*\d+ failing$",
        count: Some(r"(\d+) failing"),
        every_line: false,
        passed: Passed::Sum(r"(?m)^\s*(\d+) passing"),
    },
    // node --test
    Summary {
        line: r"(?m)^(?:#|ℹ) fail \d+$",
        count: Some(r"fail (\d+)"),
        every_line: false,
        passed: Passed::Sum(r"(?m)^(?:#|ℹ) pass (\d+)$"),
    },
    // go test
    Summary {
        line: r"(?m)^\s*--- FAIL: .*$",
        count: None,
        every_line: true,
        passed: Passed::Lines(r"(?m)^\s*--- PASS: "),
    },
];

/// Each summary's patterns, compiled: its line, its count, and what counts
/// the tests that passed.
struct Compiled {
    line: Regex,
    count: Option<Regex>,
    passed: Regex,
}

static COMPILED: LazyLock<Vec<Compiled>> = LazyLock::new(|| {
    let compile = |pattern: &str| {
        Regex::new(pattern).unwrap_or_else(|e| panic!("a test-summary pattern: {e}"))
    };
    (SUMMARIES.iter())
        .map(|s| Compiled {
            line: compile(s.line),
            count: s.count.map(compile),
            passed: compile(match s.passed {
                Passed::Sum(p) | Passed::Lines(p) | Passed::Run(p) => p,
            }),
        })
        .collect()
});

/// What `output` says of its tests, when a known runner's summary line of
/// failures is in it; `None` when none is (the tests passed, or no known
/// runner ran).
pub(crate) fn tally(output: &str) -> Option<Tally> {
    let (summary, compiled) =
        (SUMMARIES.iter().zip(COMPILED.iter())).find(|(_, c)| c.line.is_match(output))?;
    let lines = compiled
        .line
        .find_iter(output)
        .take(match summary.every_line {
            true => usize::MAX,
            false => 1,
        });
    let in_line = |text: &str| match &compiled.count {
        Some(count) => (count.captures_iter(text))
            .filter_map(|c| c.get(1)?.as_str().parse::<u32>().ok())
            .sum(),
        None => 1,
    };
    let failing: u32 = lines.map(|m| in_line(m.as_str())).sum();
    let numbers = || {
        (compiled.passed.captures_iter(output))
            .filter_map(|c| c.get(1)?.as_str().parse::<u32>().ok())
            .collect::<Vec<u32>>()
    };
    let passed = match summary.passed {
        Passed::Sum(_) => Some(numbers())
            .filter(|n| !n.is_empty())
            .map(|n| n.iter().sum()),
        Passed::Lines(_) => u32::try_from(compiled.passed.find_iter(output).count()).ok(),
        Passed::Run(_) => numbers().first().map(|run| run.saturating_sub(failing)),
    };
    Some(Tally { failing, passed })
}

/// How many tests passed, from the output of a run with no failure
/// summary in it ([`tally`] is `None`), when a known runner's count is.
pub(crate) fn passed(output: &str) -> Option<u32> {
    (SUMMARIES.iter().zip(COMPILED.iter())).find_map(|(summary, compiled)| {
        let numbers: Vec<u32> = (compiled.passed.captures_iter(output))
            .filter_map(|c| c.get(1)?.as_str().parse::<u32>().ok())
            .collect();
        match summary.passed {
            Passed::Sum(_) | Passed::Run(_) if !numbers.is_empty() => Some(numbers.iter().sum()),
            Passed::Lines(_) => u32::try_from(compiled.passed.find_iter(output).count())
                .ok()
                .filter(|n| *n > 0),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{passed, tally};

    #[test]
    fn how_many_tests_a_passing_run_ran() {
        assert_eq!(passed("Ran 0 tests in 0.000s\n\nOK\n"), Some(0));
        assert_eq!(passed("Ran 3 tests in 0.001s\n\nOK\n"), Some(3));
        let cargo = "test result: ok. 2 passed; 0 failed\ntest result: ok. 1 passed; 0 failed";
        assert_eq!(passed(cargo), Some(3));
        assert_eq!(passed("==== 4 passed in 0.02s ===="), Some(4));
        assert_eq!(passed("all good"), None);
    }

    fn count(output: &str) -> Option<u32> {
        tally(output).map(|t| t.failing)
    }

    /// Each runner's summary as it prints it, and the count read from it.
    const OUTPUTS: &[(&str, &str, Option<u32>)] = &[
        (
            "pytest",
            "FAILED tests/test_a.py::test_x\n========= 2 failed, 5 passed in 0.12s =========",
            Some(2),
        ),
        (
            "pytest with errors",
            "==== 1 failed, 3 passed, 2 errors in 1.01s ====",
            Some(3),
        ),
        ("pytest -q", "1 failed, 4 passed in 0.05s", Some(1)),
        ("pytest passing", "===== 6 passed in 0.02s =====", Some(0)),
        (
            "unittest",
            "Ran 5 tests in 0.001s\n\nFAILED (failures=2, errors=1)",
            Some(3),
        ),
        ("unittest errors only", "FAILED (errors=4)", Some(4)),
        (
            "cargo test, two binaries",
            "test result: FAILED. 3 passed; 2 failed; 0 ignored\ntest result: FAILED. 1 passed; 1 failed; 0 ignored",
            Some(3),
        ),
        ("jest", "Tests:       2 failed, 7 passed, 9 total", Some(2)),
        ("vitest", "      Tests  1 failed | 3 passed (4)", Some(1)),
        ("mocha", "  3 passing (12ms)\n  2 failing", Some(2)),
        ("node --test", "# tests 4\n# pass 3\n# fail 1", Some(1)),
        (
            "go test",
            "--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/x\t0.002s",
            Some(2),
        ),
        (
            "a pytest-like summary in the output of bash",
            "== 2 failed, 1 passed in 0.01s ==\n[exit code 1]",
            Some(2),
        ),
        ("no runner", "make: *** [test] Error 1", None),
        (
            "a traceback only",
            "Traceback (most recent call last):\n  File \"x.py\", line 1\nNameError: x",
            None,
        ),
    ];

    #[test]
    fn each_runners_summary_gives_its_count() {
        let wrong: Vec<String> = (OUTPUTS.iter())
            .filter(|(_, output, expected)| count(output) != *expected)
            .map(|(runner, output, expected)| {
                format!("{runner}: {:?}, expected {expected:?}", count(output))
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// Where the output says how many passed: the most passing tests
    /// tells a try that broke the test module's import (one error, no
    /// test run) from one with two of three failing.
    #[test]
    fn the_tests_that_passed_are_counted_where_the_output_says() {
        let cases: &[(&str, Option<u32>)] = &[
            ("== 2 failed, 5 passed in 0.12s ==", Some(5)),
            ("Ran 3 tests in 0.001s\n\nFAILED (failures=2)", Some(1)),
            ("Ran 1 test in 0.001s\n\nFAILED (errors=1)", Some(0)),
            (
                "test result: ok. 4 passed; 0 failed\ntest result: FAILED. 1 passed; 2 failed",
                Some(5),
            ),
            ("Tests:       2 failed, 7 passed, 9 total", Some(7)),
            ("  3 passing (12ms)\n  2 failing", Some(3)),
            ("# pass 3\n# fail 1", Some(3)),
            ("--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)", Some(1)),
            ("== 1 failed in 0.01s ==", None),
        ];
        for (output, passed) in cases {
            assert_eq!(tally(output).map(|t| t.passed), Some(*passed), "{output}");
        }
    }
}
