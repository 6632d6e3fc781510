//! `--check CMD`: the user's own command, run in the workspace after the
//! model has finished, deciding whether the run did its job.

use super::interrupt::{Interruption, Interruptions};
use crate::permissions::rules::Rule;
use crate::permissions::{self, PermissionMode, Verdict};
use crate::session::{Check, Session};
use crate::tools::{self, ToolInput, Workspace};
use crate::ui::Output;

/// Runs `command` and records it in `session.check`. A signal or
/// `--timeout` stops the check too: the session then ends interrupted or
/// timed out, and the interruption is returned.
pub async fn run_to_end(
    command: &str,
    rules: &[Rule],
    workspace: &Workspace,
    interruptions: &mut Interruptions,
    session: &mut Session,
    out: &mut dyn Output,
) -> Option<Interruption> {
    let stopped = tokio::select! {
        check = run(command, rules, workspace, out) => {
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
        command: command.to_string(),
        exit_code: None,
        passed: false,
    });
    session.status = stop.status();
    session.exit_reason = Some(why);
    Some(stop)
}

/// Runs the check under the hard and deny rules (it is the user's own, so
/// it needs no approval).
async fn run(command: &str, rules: &[Rule], workspace: &Workspace, out: &mut dyn Output) -> Check {
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
        return Check {
            command: command.to_string(),
            exit_code: None,
            passed: false,
        };
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
    Check {
        command: command.to_string(),
        exit_code: code,
        passed,
    }
}
