//! What a language's tracer is asked to do ([`Plan`], [`Limits`]) and what
//! it reports ([`Spectra`]): which of the workspace's functions each test
//! it ran executed, and whether the test failed.

use std::time::Duration;

use serde::Deserialize;

/// How the report line starts in the tracer's output; the JSON follows on
/// the same line.
pub(crate) const MARK: &str = "OC-SPECTRUM ";

/// Least time the tracer gets, however quick the check was: starting an
/// interpreter and importing the project costs about a second.
const FLOOR: Duration = Duration::from_secs(5);
/// Most time the tracer gets, however slow the check was.
const CEILING: Duration = Duration::from_secs(60);
/// The tracer's time as a multiple of the check's own.
const FACTOR: u32 = 3;
/// Extra seconds past the tracer's own deadline before it is stopped: the
/// test running at the deadline ends, and the report is written.
const GRACE_SECS: u64 = 10;

/// Most failing tests traced: more add little to the ranking.
pub(crate) const MAX_FAILING: usize = 20;
/// Most passing tests traced (from the failing tests' modules first).
pub(crate) const MAX_PASSING: usize = 40;

/// How long the tracer may take and how many tests it may run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Limits {
    /// The tracer starts no test past this; its report covers those it ran.
    pub soft: Duration,
    /// Past this the tracer is stopped, and nothing is localised.
    pub hard_secs: u64,
    pub failing: usize,
    pub passing: usize,
}

impl Limits {
    /// A few times the check's own time `check_time`, within
    /// [`FLOOR`]..[`CEILING`].
    pub(crate) fn for_check(check_time: Duration) -> Limits {
        let soft = (check_time * FACTOR).clamp(FLOOR, CEILING);
        Limits {
            soft,
            hard_secs: soft.as_secs() + GRACE_SECS,
            failing: MAX_FAILING,
            passing: MAX_PASSING,
        }
    }
}

/// A tracing run one language's localiser planned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    /// The command line that runs the tracer, in the workspace, as the
    /// check runs (through the sandbox, under the rules).
    pub command: String,
}

/// The tracer's report (the JSON after [`MARK`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct Spectra {
    /// The workspace functions any traced test executed.
    pub functions: Vec<Function>,
    pub tests: Vec<TestRun>,
    /// Whether the time limit stopped it before every chosen test ran.
    #[serde(default)]
    pub stopped: bool,
}

/// A function as the tracer saw it: the file (workspace-relative,
/// `/`-separated), the qualified name (`Class.method`) and the first line
/// (1-based; a decorated function's first decorator).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct Function(pub String, pub String, pub usize);

/// One test the tracer ran.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct TestRun {
    pub id: String,
    pub failed: bool,
    /// Indexes into [`Spectra::functions`].
    pub hits: Vec<usize>,
}

impl Spectra {
    /// The report in a tracer's `output`; `None` when there is none (the
    /// tracer failed, or was stopped) or it does not parse.
    pub(crate) fn parse(output: &str) -> Option<Spectra> {
        let line = output.lines().find_map(|l| l.strip_prefix(MARK))?;
        serde_json::from_str(line).ok()
    }

    /// How many of the tests failed, and how many passed.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let failed = self.tests.iter().filter(|t| t.failed).count();
        (failed, self.tests.len() - failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_a_few_times_the_check_within_a_floor_and_a_ceiling() {
        let of = |ms| Limits::for_check(Duration::from_millis(ms));
        assert_eq!(of(300).soft, FLOOR);
        assert_eq!(of(4_000).soft, Duration::from_secs(12));
        assert_eq!(of(4_000).hard_secs, 22);
        assert_eq!(of(600_000).soft, CEILING);
    }

    #[test]
    fn the_report_is_read_from_its_line_among_others() {
        let output = "warning: something\nOC-SPECTRUM {\"functions\":[[\"pkg/m.py\",\"C.f\",3]],\"tests\":[{\"id\":\"t.T.test_a\",\"failed\":true,\"hits\":[0]}],\"stopped\":false}\n[exit code 0]";
        let spectra = Spectra::parse(output).unwrap();
        assert_eq!(
            spectra.functions,
            vec![Function("pkg/m.py".into(), "C.f".into(), 3)]
        );
        assert_eq!(spectra.counts(), (1, 0));
        assert_eq!(Spectra::parse("Traceback …\n[exit code 1]"), None);
        assert_eq!(Spectra::parse("OC-SPECTRUM {\"functions\": [[\"a\""), None);
    }
}
