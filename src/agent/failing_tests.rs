//! How many tests a check's output says failed, read from the summary
//! lines of the test runners `--check auto` knows. `--attempts` keeps the
//! try that came closest: the one with the fewest failing tests.

use std::sync::LazyLock;

use regex::Regex;

/// One runner's summary line, and what in it counts failing tests.
struct Summary {
    /// The summary line.
    line: &'static str,
    /// The counts in that line (group 1 of each match, added up); `None`:
    /// each summary line is one failing test (`go test`'s `--- FAIL:`).
    count: Option<&'static str>,
    /// Every summary line counts (`cargo test` prints one per test
    /// binary), not only the first.
    every_line: bool,
}

/// The runners' summaries, in the order they are tried: the first runner
/// with a summary line in the output gives the count.
const SUMMARIES: &[Summary] = &[
    // cargo test
    Summary {
        line: r"(?m)^test result: FAILED\..*$",
        count: Some(r"(\d+) failed"),
        every_line: true,
    },
    // pytest
    Summary {
        line: r"(?m)^=*\s*\d+ \w+(?:, \d+ \w+)* in [\d.]+s\b.*$",
        count: Some(r"(\d+) (?:failed|errors?)\b"),
        every_line: false,
    },
    // unittest
    Summary {
        line: r"(?m)^FAILED \(.*\)$",
        count: Some(r"(?:failures|errors)=(\d+)"),
        every_line: false,
    },
    // jest
    Summary {
        line: r"(?m)^Tests:\s+.*\d+ total$",
        count: Some(r"(\d+) failed"),
        every_line: false,
    },
    // vitest
    Summary {
        line: r"(?m)^\s*Tests\s+\d+ .*\(\d+\)$",
        count: Some(r"(\d+) failed"),
        every_line: false,
    },
    // mocha
    Summary {
        line: r"(?m)^\s*\d+ failing$",
        count: Some(r"(\d+) failing"),
        every_line: false,
    },
    // node --test
    Summary {
        line: r"(?m)^(?:#|ℹ) fail \d+$",
        count: Some(r"fail (\d+)"),
        every_line: false,
    },
    // go test
    Summary {
        line: r"(?m)^\s*--- FAIL: .*$",
        count: None,
        every_line: true,
    },
];

/// Each summary's line and count patterns, compiled.
static COMPILED: LazyLock<Vec<(Regex, Option<Regex>)>> = LazyLock::new(|| {
    let compile = |pattern: &str| {
        Regex::new(pattern).unwrap_or_else(|e| panic!("a failing-tests pattern: {e}"))
    };
    (SUMMARIES.iter())
        .map(|s| (compile(s.line), s.count.map(compile)))
        .collect()
});

/// The number of failing tests (failures and errors) `output` reports,
/// when a known runner's summary line is in it; `None` when none is.
pub(crate) fn count(output: &str) -> Option<u32> {
    let (summary, (line, count)) = SUMMARIES
        .iter()
        .zip(COMPILED.iter())
        .find(|(_, (line, _))| line.is_match(output))?;
    let lines = line.find_iter(output).take(match summary.every_line {
        true => usize::MAX,
        false => 1,
    });
    let in_line = |text: &str| match count {
        Some(count) => (count.captures_iter(text))
            .filter_map(|c| c.get(1)?.as_str().parse::<u32>().ok())
            .sum(),
        None => 1,
    };
    Some(lines.map(|m| in_line(m.as_str())).sum())
}

#[cfg(test)]
mod tests {
    use super::count;

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
}
