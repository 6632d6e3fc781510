//! `--check CMD`: the user's own command, run in the workspace when the
//! model says it is done. A failing check's output goes back to the model
//! for up to `--check-attempts` runs in all; the last result decides
//! whether the run did its job.

use std::time::{Duration, Instant};

use super::calls::CallRunner;
use super::cannot_run::unusable;
use super::spectrum::suspect::Suspect;
use super::traceback::{self, Location};
use crate::client::{Message, Role};
use crate::job::CheckPlan;
use crate::job::interrupt::{Interruption, Interruptions};
use crate::permissions::rules::Rule;
use crate::permissions::{self, PermissionMode, Verdict};
use crate::session::{Check, Session};
use crate::tools::{self, ToolInput, Workspace};
use crate::ui::Output;

/// Most bytes of a failing check's output the model is shown, before the
/// first request and in each feedback round: the first failure as the
/// runner reports it, and the summary ([`first_failure`]). Every prompt
/// token costs time on a CPU.
pub(crate) const OUTPUT_CAP: usize = 2000;
/// Of those, the bytes kept from the end (the runner's summary).
const SUMMARY_BYTES: usize = 300;

/// The check as it stood before the first request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Precheck {
    /// Its record (`attempts` 0).
    pub check: Check,
    /// The tail of its output, secrets scrubbed, for the model.
    pub output: String,
    /// The places its output names (tracebacks), from the whole output.
    pub locations: Vec<Location>,
    /// How long it took.
    pub elapsed: Duration,
    /// The functions its failing tests point at, most suspicious first
    /// (spectrum-based fault localisation, filled in after the check).
    pub suspects: Vec<Suspect>,
}

impl Precheck {
    /// What the first message says of it: that it passes, or how it fails.
    pub(crate) fn message(&self) -> String {
        let command = &self.check.command;
        if self.check.passed {
            return format!("The check `{command}` passes now.");
        }
        let code = self
            .check
            .exit_code
            .map_or_else(|| "no exit code".to_string(), |c| format!("exit code {c}"));
        format!(
            "The check `{command}` fails now ({code}). Its output:\n```\n{}\n```",
            first_failure(&self.output, OUTPUT_CAP)
        )
    }
}

/// Where a test runner's report of a failure starts: unittest's and
/// pytest's `FAIL:`/`ERROR:` headers and tracebacks, Rust panics, Node's
/// and Jest's markers, Go's `--- FAIL`.
static FAILURE_START: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?m)^(?:(?:FAIL|ERROR)[: ]|Traceback |_{3,} |thread '.*' panicked|--- FAIL|not ok |\s*✖ |\s*● |.*Error: )",
    )
    .ok()
});

/// Up to `cap` bytes of a check's output for the first request: the first
/// failure as the runner reports it (what to fix first), and the end of
/// the output (its summary); the tail alone when no failure is marked.
fn first_failure(output: &str, cap: usize) -> String {
    let output = output.trim();
    let start = FAILURE_START
        .as_ref()
        .and_then(|re| re.find(output))
        .map_or(0, |m| m.start());
    let from_failure = &output[start..];
    if from_failure.len() <= cap {
        return if start == 0 {
            from_failure.to_string()
        } else {
            format!("[… earlier output cut]\n{from_failure}")
        };
    }
    let mut head_end = cap - SUMMARY_BYTES;
    while !from_failure.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let head = &from_failure[..head_end];
    let head = head.rsplit_once('\n').map_or(head, |(h, _)| h);
    let lead = if start > 0 {
        "[… earlier output cut]\n"
    } else {
        ""
    };
    format!(
        "{lead}{head}\n[…]\n{}",
        tail(from_failure, SUMMARY_BYTES).trim_start_matches("[… earlier output cut]\n")
    )
}

/// A check found before the first request to be unable to run as written.
#[derive(Debug)]
pub(crate) struct Unrunnable {
    /// Its run's record; `None` when the rules refused it.
    pub check: Option<Check>,
    /// What was wrong and what to do, for the user.
    pub message: String,
}

/// Runs the check of `plan` before the first request (`scrub` takes
/// secrets out of its output) and says on `out` how it stands.
///
/// Errors: the check cannot run as written ([`unusable`], or the rules
/// refuse it).
pub(crate) async fn precheck(
    plan: &CheckPlan,
    rules: &[Rule],
    workspace: &Workspace,
    scrub: &dyn Fn(&str) -> String,
    out: &mut dyn Output,
) -> Result<Precheck, Unrunnable> {
    let command = plan.command.as_str();
    if let Some(reason) = refusal(command, rules, workspace.root()) {
        return Err(Unrunnable {
            check: None,
            message: cannot_run(plan, &reason, ""),
        });
    }
    let started = Instant::now();
    let (check, output) = run_once(command, When::Precheck, rules, workspace, out).await;
    let elapsed = started.elapsed();
    let output = scrub(&output);
    if let Some(why) = unusable(command, check.exit_code, &output) {
        return Err(Unrunnable {
            check: Some(check),
            message: cannot_run(plan, &why, &output),
        });
    }
    if check.passed {
        out.note(&format!(
            "the check `{command}` passes already; the run goes on"
        ));
    }
    Ok(Precheck {
        locations: traceback::locations(&output),
        output,
        check,
        elapsed,
        suspects: Vec::new(),
    })
}

/// Most lines of a check's output shown when it cannot run as written.
const SHOWN_LINES: usize = 4;

/// The words that end a run whose check cannot run as written: what was
/// wrong (`why`, the first lines of `output`) and what to do.
fn cannot_run(plan: &CheckPlan, why: &str, output: &str) -> String {
    let command = &plan.command;
    let what = match &plan.chosen_from {
        Some(source) => format!(
            "`--check auto` took the check `{command}` from {source}, and it cannot run as written: {why}; nothing was sent to the model. Give the test command yourself: `--check 'COMMAND'`"
        ),
        None => format!(
            "the check `{command}` cannot run as written: {why}; nothing was sent to the model. Fix the command given to `--check` (the whole command as one quoted argument), or run without `--check`"
        ),
    };
    let mut shown: Vec<&str> = (output.lines())
        .filter(|l| !l.trim().is_empty() && !l.starts_with("[exit code"))
        .collect();
    if shown.is_empty() {
        return what;
    }
    // The start says what ran, the end why it stopped (argparse's error
    // comes after its usage).
    if shown.len() > SHOWN_LINES {
        let last = shown.len() - 1;
        shown.splice(SHOWN_LINES - 2..last, ["[…]"]);
    }
    format!("{what}\nits output:\n  {}", shown.join("\n  "))
}

/// The last `cap` bytes of `text` (on a character boundary), marked when
/// cut.
fn tail(text: &str, cap: usize) -> String {
    let text = text.trim();
    let mut start = text.len().saturating_sub(cap);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    if start == 0 {
        text.to_string()
    } else {
        format!("[… earlier output cut]\n{}", &text[start..])
    }
}

/// Why the hard or deny rules refuse the check `command` in the workspace
/// at `root`, if they do (the check is the user's own: it needs no
/// approval, but no rule is lifted for it).
pub(crate) fn refusal(command: &str, rules: &[Rule], root: &std::path::Path) -> Option<String> {
    let input = ToolInput::Bash(tools::bash::Args {
        command: command.to_string(),
        timeout_secs: None,
    });
    let request = permissions::Request {
        input: &input,
        paths: &[],
        root,
    };
    match permissions::check(PermissionMode::Yolo, rules, &request) {
        Verdict::Deny { reason, .. } => Some(reason),
        _ => None,
    }
}

/// When a run of the check happens, as its lines say it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum When {
    /// Before the first request: a failure is expected, and its output
    /// shows the model what to fix, so it is a note, not a warning.
    Precheck,
    /// After the model's work: a failure means the task is not done.
    After,
}

/// Runs the check once under the hard and deny rules (it is the user's own,
/// so it needs no approval). Returns its record (with `attempts` 0 for the
/// caller to fill) and its output.
pub(crate) async fn run_once(
    command: &str,
    when: When,
    rules: &[Rule],
    workspace: &Workspace,
    out: &mut dyn Output,
) -> (Check, String) {
    let not_run = || Check {
        command: command.to_string(),
        exit_code: None,
        passed: false,
        attempts: 0,
        failing: None,
        passed_tests: None,
    };
    // A pipeline fails when any of its programs does: `pytest | tail -5`
    // must not pass because `tail` did.
    let args = tools::bash::Args {
        command: format!("set -o pipefail\n{command}"),
        timeout_secs: Some(tools::bash::MAX_TIMEOUT_SECS),
    };
    if let Some(reason) = refusal(command, rules, workspace.root()) {
        out.warn(&format!("the check `{command}` was not run: {reason}"));
        return (not_run(), String::new());
    }
    let label = match when {
        When::Precheck => " before the first request",
        When::After => "",
    };
    out.note(&format!("running the check `{command}`{label}"));
    let (outcome, code) = tools::bash::run_with_status(&args, workspace).await;
    let passed = code == Some(0);
    if passed || when == When::Precheck {
        let shown = if passed {
            ""
        } else {
            "; the model is shown its output"
        };
        out.note(&format!(
            "the check `{command}`{label}: {}{shown}",
            outcome.summary
        ));
    } else {
        out.warn(&format!("the check `{command}`: {}", outcome.summary));
    }
    let tally = super::failing_tests::tally(&outcome.content);
    let check = Check {
        exit_code: code,
        passed,
        failing: tally.map(|t| t.failing),
        passed_tests: match tally {
            Some(t) => t.passed,
            None if passed => super::failing_tests::passed(&outcome.content),
            None => None,
        },
        ..not_run()
    };
    (check, outcome.content)
}

/// One run of the check after the model said it is done.
pub(crate) struct Round<'a> {
    pub plan: &'a CheckPlan,
    /// Which run this is (1 for the first after the model's answer).
    pub attempt: u32,
    /// Whether the turn cap leaves room for another request.
    pub turns_left: bool,
    /// How the model should go on (the edit protocol's words).
    pub how: &'a str,
}

impl Round<'_> {
    /// Runs the check under the rules of `calls` and records it in the
    /// session. When it fails and attempts and turns are left, this returns
    /// the message that gives its output (secrets scrubbed) back to the
    /// model: the run goes on.
    pub(crate) async fn run(
        &self,
        calls: &CallRunner<'_>,
        session: &mut Session,
        out: &mut dyn Output,
    ) -> Option<Message> {
        let plan = self.plan;
        // On record before it runs: an interrupted check counts as failed.
        session.check = Some(Check {
            command: plan.command.clone(),
            exit_code: None,
            passed: false,
            attempts: self.attempt,
            failing: None,
            passed_tests: None,
        });
        let (run, output) = run_once(
            &plan.command,
            When::After,
            calls.rules(),
            calls.workspace(),
            out,
        )
        .await;
        // The check may run what the model wrote (a test script).
        calls.guard_rules(out);
        let mut run = Check {
            attempts: self.attempt,
            ..run
        };
        let fewer = fewer_tests(session.precheck.as_ref(), &mut run, out);
        session.check = Some(run.clone());
        if run.passed || run.exit_code.is_none() {
            return None;
        }
        if self.attempt >= plan.max_attempts {
            out.warn(&format!(
                "the check `{}` still fails after {} round{} (`--check-rounds`)",
                plan.command,
                self.attempt,
                if self.attempt == 1 { "" } else { "s" }
            ));
            return None;
        }
        if !self.turns_left {
            return None;
        }
        out.note("the check failed; its output goes back to the model");
        if let Some(why) = fewer {
            let text = format!(
                "The check `{}` passed, but {why}. Tests must stay and pass: put back what removed or broke them, and fix the code instead. {}",
                run.command, self.how
            );
            return Some(Message::text(Role::User, text));
        }
        let output = calls.scrub(&output).1;
        Some(Message::text(Role::User, feedback(&run, &output, self.how)))
    }
}

/// A check that passed after the change but ran fewer tests than before
/// it (the precheck's count, both from the runner's summary) does not show
/// that the change works: tests were removed, or no longer load. `check`
/// is then failed, and why is said on stderr and returned.
fn fewer_tests(
    precheck: Option<&Check>,
    check: &mut Check,
    out: &mut dyn Output,
) -> Option<String> {
    let count = |c: &Check| c.passed_tests.map(|p| p + c.failing.unwrap_or(0));
    let (before, after) = (count(precheck?)?, count(check)?);
    if !check.passed || after >= before {
        return None;
    }
    check.passed = false;
    let why = format!("it ran {after} tests where {before} ran before the change");
    out.warn(&format!(
        "the check `{}` passed, but {why}: tests were removed or no longer load, so it does not count as passing",
        check.command
    ));
    Some(why)
}

/// The user message that hands a failed check back to the model: what
/// failed, the tail of its output, and how to go on (`how`).
pub(crate) fn feedback(check: &Check, output: &str, how: &str) -> String {
    let code = check
        .exit_code
        .map_or_else(|| "no exit code".to_string(), |c| format!("exit code {c}"));
    format!(
        "The check `{}` failed ({code}). Its output:\n```\n{}\n```\nThe task is not done yet. Fix the cause of this failure. {how}",
        check.command,
        first_failure(output, OUTPUT_CAP)
    )
}

/// Runs the check once more after the turns ended without the model saying
/// it was done (turn cap, repeated calls), to record where the run stands.
/// A signal or `--timeout` stops it too: the session then ends interrupted
/// or timed out, and the interruption is returned.
pub(crate) async fn run_final(
    plan: &CheckPlan,
    attempts: u32,
    rules: &[Rule],
    workspace: &Workspace,
    interruptions: &mut Interruptions,
    session: &mut Session,
    out: &mut dyn Output,
) -> Option<Interruption> {
    let stopped = tokio::select! {
        (check, _) = run_once(&plan.command, When::After, rules, workspace, out) => {
            let mut check = Check { attempts, ..check };
            fewer_tests(session.precheck.as_ref(), &mut check, out);
            session.check = Some(check);
            None
        }
        stop = interruptions.next() => Some(stop),
    };
    let stop = stopped?;
    let why = match stop {
        Interruption::Signal(signal) => format!("stopped by {} during the check", signal.name()),
        Interruption::TimedOut(_) => "timed out during the check".to_string(),
    };
    out.warn(&why);
    session.check = Some(Check {
        command: plan.command.clone(),
        exit_code: None,
        passed: false,
        attempts,
        failing: None,
        passed_tests: None,
    });
    session.status = stop.status();
    session.exit_reason = Some(stop.reason().to_string());
    session.exit_detail = Some(why);
    Some(stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_request_sees_the_first_failure_and_the_summary() {
        let many: String = (1..=6)
            .map(|i| format!("======\nFAIL: test_{i} (t.T.test_{i})\n------\nTraceback (most recent call last):\n  File \"/w/t.py\", line {i}, in test_{i}\nAssertionError: {}\n\n", "x".repeat(300)))
            .collect();
        let output =
            format!("..FFFFFF\n{many}------\nRan 8 tests in 0.01s\n\nFAILED (failures=6)\n");
        let shown = first_failure(&output, OUTPUT_CAP);
        assert!(shown.len() <= OUTPUT_CAP + 60, "{} bytes", shown.len());
        assert!(
            shown.starts_with("[… earlier output cut]\nFAIL: test_1 (t.T.test_1)"),
            "{shown}"
        );
        assert!(shown.ends_with("FAILED (failures=6)"), "{shown}");
        assert!(!shown.contains("test_6 (t.T"), "{shown}");
        assert_eq!(first_failure("boom", OUTPUT_CAP), "boom");
    }

    #[test]
    fn the_words_for_a_check_that_cannot_run_say_what_to_do() {
        let mut plan = CheckPlan {
            command: "python3 -m unittest -q to check".into(),
            max_attempts: 1,
            precheck: true,
            chosen_from: Some("the prompt".into()),
        };
        let output =
            "usage: python3 -m unittest [-h]\n  [-q]\n\nmore\nand more\nerror: bad\n[exit code 2]";
        let text = cannot_run(&plan, "the program answered with its usage message", output);
        assert_eq!(
            text,
            "`--check auto` took the check `python3 -m unittest -q to check` from the prompt, and it cannot run as written: the program answered with its usage message; nothing was sent to the model. Give the test command yourself: `--check 'COMMAND'`\nits output:\n  usage: python3 -m unittest [-h]\n    [-q]\n  […]\n  error: bad"
        );
        plan.chosen_from = None;
        let text = cannot_run(&plan, "why", "");
        assert!(
            text.starts_with(
                "the check `python3 -m unittest -q to check` cannot run as written: why;"
            ),
            "{text}"
        );
        assert!(
            text.contains("Fix the command given to `--check`"),
            "{text}"
        );
    }

    #[test]
    fn feedback_keeps_the_start_and_the_tail_of_long_output() {
        let check = Check {
            command: "pytest -q".into(),
            exit_code: Some(1),
            passed: false,
            attempts: 1,
            failing: None,
            passed_tests: None,
        };
        let output = format!(
            "{}\nFAILED test_a.py::test_x - assert 1 == 2\n",
            "é".repeat(5000)
        );
        let text = feedback(&check, &output, "Reply with the whole file.");
        assert!(text.starts_with("The check `pytest -q` failed (exit code 1)."));
        assert!(text.contains("[…]"), "{text}");
        assert!(text.contains("FAILED test_a.py::test_x - assert 1 == 2\n```"));
        assert!(text.ends_with("Reply with the whole file."));
        assert!(text.len() < OUTPUT_CAP + 400);
        let short = feedback(&check, "boom", "Go on.");
        assert!(short.contains("```\nboom\n```"), "{short}");
    }
}
