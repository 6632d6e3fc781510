//! Python's localiser: a check that runs unittest or pytest, the failing
//! tests its output names, and the tracer (`tracer.py`) that runs them again
//! with a sample of passing ones, recording the workspace functions each
//! executes (`sys.monitoring` on Python 3.12+, `sys.settrace` before).

use std::sync::LazyLock;

use regex::Regex;

use super::trace::{Limits, Plan};

/// The tracer, run from a here-document: nothing is written to the
/// workspace, nor anywhere else.
const TRACER: &str = include_str!("tracer.py");
/// The here-document's delimiter (a line the tracer never holds).
const END: &str = "OC_SPECTRUM_TRACER_END";

/// The test runner a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Runner {
    Unittest,
    Pytest,
}

impl Runner {
    fn name(self) -> &'static str {
        match self {
            Runner::Unittest => "unittest",
            Runner::Pytest => "pytest",
        }
    }
}

/// How the check runs its tests.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Invocation {
    /// `NAME=value` words before the program, kept for the tracer.
    env: Vec<String>,
    /// The Python the tracer runs on: the check's own, or `python3` for the
    /// `pytest` script.
    interpreter: String,
    runner: Runner,
    /// Directories (workspace-relative) unittest's discovery puts first on
    /// `sys.path`: the test ids it prints are relative to them.
    path: Vec<String>,
}

/// The tracing run for the failing tests `output` names, when `command`
/// runs unittest or pytest (`pytest`, `py.test`, `python3 -m pytest`,
/// `python3 -m unittest …`).
pub(crate) fn plan(command: &str, output: &str, limits: &Limits) -> Option<Plan> {
    let invocation = invocation(command)?;
    let mut failing = match invocation.runner {
        Runner::Unittest => unittest_failures(output),
        Runner::Pytest => pytest_failures(output),
    };
    if failing.is_empty() {
        return None;
    }
    failing.truncate(limits.failing);
    let config = serde_json::json!({
        "failing": failing,
        "passing": limits.passing,
        "seconds": limits.soft.as_secs_f64(),
        "path": invocation.path,
    });
    let mut words = invocation.env;
    words.extend([
        invocation.interpreter,
        "-".to_string(),
        invocation.runner.name().to_string(),
        config.to_string(),
    ]);
    let line = shlex::try_join(words.iter().map(String::as_str)).ok()?;
    Some(Plan {
        command: format!("{line} <<'{END}'\n{TRACER}{END}\n"),
    })
}

/// The runner and interpreter of a check that is one simple command; `None`
/// for anything else (pipelines, lists, redirections, other programs).
fn invocation(command: &str) -> Option<Invocation> {
    if command.contains([';', '&', '|', '<', '>', '`', '$', '\n']) {
        return None;
    }
    let words = shlex::split(command)?;
    let assignments = words.iter().take_while(|w| is_assignment(w)).count();
    let (env, rest) = words.split_at(assignments);
    let (program, args) = rest.split_first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    let found = |runner, interpreter: &str, path| Invocation {
        env: env.to_vec(),
        interpreter: interpreter.to_string(),
        runner,
        path,
    };
    if base == "pytest" || base == "py.test" {
        return Some(found(Runner::Pytest, "python3", Vec::new()));
    }
    let version = base.strip_prefix("python")?;
    if !version.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let module_at = args.iter().position(|a| a == "-m")?;
    if args[..module_at].iter().any(|a| !a.starts_with('-')) {
        return None;
    }
    let after = &args[module_at + 1..];
    match after.first().map(String::as_str) {
        Some("pytest") => Some(found(Runner::Pytest, program, Vec::new())),
        Some("unittest") => Some(found(
            Runner::Unittest,
            program,
            discovery_path(&after[1..]),
        )),
        _ => None,
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// What `python -m unittest discover ARGS` puts first on `sys.path`: the
/// top-level directory, else the start directory (`-s`, `-t` or the first
/// and third positional arguments); nothing without `discover` or for `.`.
fn discovery_path(args: &[String]) -> Vec<String> {
    let Some(("discover", args)) = args.split_first().map(|(d, a)| (d.as_str(), a)) else {
        return Vec::new();
    };
    let (mut start, mut top, mut positional) = (None, None, Vec::new());
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-s" | "--start-directory" => start = words.next(),
            "-t" | "--top-level-directory" => top = words.next(),
            "-p" | "--pattern" | "-k" => {
                words.next();
            }
            w if w.starts_with('-') => {}
            _ => positional.push(word),
        }
    }
    let start = start.or(positional.first().copied());
    let top = top.or(positional.get(2).copied());
    top.or(start)
        .map(|dir| dir.trim_end_matches('/'))
        .filter(|dir| !dir.is_empty() && *dir != ".")
        .map(|dir| vec![dir.to_string()])
        .unwrap_or_default()
}

/// unittest's failure headers: `FAIL: test_x (pkg.test_m.Case.test_x)` since
/// Python 3.11, `FAIL: test_x (pkg.test_m.Case)` before; a subtest's adds
/// ` (param=…)` after.
static UNITTEST_HEADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^(?:FAIL|ERROR): (\w+) \(([^)\s]+)\)").ok());

/// pytest's short summary: `FAILED tests/test_m.py::Case::test_x[1] - msg`,
/// `ERROR …` for a failing fixture.
static PYTEST_SUMMARY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?m)^(?:FAILED|ERROR) (\S+?\.py::[^\r\n]+?)(?: - [^\r\n]*)?\s*$").ok()
});

/// The ids (`pkg.test_m.Case.test_x`) of the tests unittest's `output` says
/// failed, each once; a class's or module's fixture and a module that did
/// not import are no test to run.
fn unittest_failures(output: &str) -> Vec<String> {
    let Some(header) = UNITTEST_HEADER.as_ref() else {
        return Vec::new();
    };
    let mut ids: Vec<String> = Vec::new();
    for caps in header.captures_iter(output) {
        let (name, named) = (&caps[1], &caps[2]);
        let fixture = matches!(
            name,
            "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule"
        );
        if fixture || named.starts_with("unittest.") {
            continue;
        }
        let id = if named.rsplit('.').next() == Some(name) {
            named.to_string()
        } else {
            format!("{named}.{name}")
        };
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// The node ids (`tests/test_m.py::Case::test_x`) of the tests pytest's
/// `output` says failed, each once.
fn pytest_failures(output: &str) -> Vec<String> {
    let Some(summary) = PYTEST_SUMMARY.as_ref() else {
        return Vec::new();
    };
    let mut ids: Vec<String> = Vec::new();
    for caps in summary.captures_iter(output) {
        let id = caps[1].trim().to_string();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

#[cfg(test)]
#[path = "python_tests.rs"]
mod tests;
