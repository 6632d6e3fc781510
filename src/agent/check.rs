//! `--check CMD`: the user's own command, run in the workspace when the
//! model says it is done. A failing check's output goes back to the model
//! for up to `--check-attempts` runs in all; the last result decides
//! whether the run did its job.

use super::interrupt::{Interruption, Interruptions};
use crate::permissions::rules::Rule;
use crate::permissions::{self, PermissionMode, Verdict};
use crate::session::{Check, Session};
use crate::tools::{self, ToolInput, Workspace};
use crate::ui::Output;

/// Most bytes of a failing check's output sent back to the model (its
/// tail: test runners print the summary last).
pub const FEEDBACK_CAP: usize = 4000;

/// The `--check` of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckPlan {
    /// The command, run with `bash -c` in the workspace.
    pub command: String,
    /// How many times it may run in this run (at least 1).
    pub max_attempts: u32,
}

/// Runs the check once under the hard and deny rules (it is the user's own,
/// so it needs no approval). Returns its record (with `attempts` 0 for the
/// caller to fill) and its output.
pub async fn run_once(
    command: &str,
    rules: &[Rule],
    workspace: &Workspace,
    out: &mut dyn Output,
) -> (Check, String) {
    let not_run = || Check {
        command: command.to_string(),
        exit_code: None,
        passed: false,
        attempts: 0,
    };
    let args = tools::bash::Args {
        command: command.to_string(),
        timeout_secs: Some(tools::bash::MAX_TIMEOUT_SECS),
    };
    let input = ToolInput::Bash(args.clone());
    let request = permissions::Request {
        input: &input,
        paths: &[],
        root: workspace.root(),
    };
    if let Verdict::Deny { reason, .. } = permissions::check(PermissionMode::Yolo, rules, &request)
    {
        out.warn(&format!("the check `{command}` was not run: {reason}"));
        return (not_run(), String::new());
    }
    out.note(&format!("running the check `{command}`"));
    let (outcome, code) = tools::bash::run_with_status(&args, workspace).await;
    let passed = code == Some(0);
    let message = format!("the check `{command}`: {}", outcome.summary);
    if passed {
        out.note(&message);
    } else {
        out.warn(&message);
    }
    let check = Check {
        exit_code: code,
        passed,
        ..not_run()
    };
    (check, outcome.content)
}

/// The user message that hands a failed check back to the model: what
/// failed, the tail of its output, and how to go on (`how`).
pub fn feedback(check: &Check, output: &str, how: &str) -> String {
    let code = check
        .exit_code
        .map_or_else(|| "no exit code".to_string(), |c| format!("exit code {c}"));
    let output = output.trim();
    let mut start = output.len().saturating_sub(FEEDBACK_CAP);
    while !output.is_char_boundary(start) {
        start += 1;
    }
    let cut = if start > 0 {
        "[… earlier output cut]\n"
    } else {
        ""
    };
    format!(
        "The check `{}` failed ({code}). Its output:\n```\n{cut}{}\n```\nThe task is not done yet. Fix the cause of this failure. {how}",
        check.command,
        &output[start..]
    )
}

/// Runs the check once more after the turns ended without the model saying
/// it was done (turn cap, repeated calls), to record where the run stands.
/// A signal or `--timeout` stops it too: the session then ends interrupted
/// or timed out, and the interruption is returned.
pub async fn run_final(
    plan: &CheckPlan,
    attempts: u32,
    rules: &[Rule],
    workspace: &Workspace,
    interruptions: &mut Interruptions,
    session: &mut Session,
    out: &mut dyn Output,
) -> Option<Interruption> {
    let stopped = tokio::select! {
        (check, _) = run_once(&plan.command, rules, workspace, out) => {
            session.check = Some(Check { attempts, ..check });
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
    });
    session.status = stop.status();
    session.exit_reason = Some(why);
    Some(stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_keeps_the_tail_of_long_output() {
        let check = Check {
            command: "pytest -q".into(),
            exit_code: Some(1),
            passed: false,
            attempts: 1,
        };
        let output = format!(
            "{}\nFAILED test_a.py::test_x - assert 1 == 2\n",
            "é".repeat(5000)
        );
        let text = feedback(&check, &output, "Reply with the whole file.");
        assert!(text.starts_with("The check `pytest -q` failed (exit code 1)."));
        assert!(text.contains("[… earlier output cut]"));
        assert!(text.contains("FAILED test_a.py::test_x - assert 1 == 2\n```"));
        assert!(text.ends_with("Reply with the whole file."));
        assert!(text.len() < FEEDBACK_CAP + 400);
        let short = feedback(&check, "boom", "Go on.");
        assert!(short.contains("```\nboom\n```"), "{short}");
    }
}
