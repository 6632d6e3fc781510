//! How a run ended, and what that means for the session status, the exit
//! code (docs/output.md) and what the user is told.

use super::guards::REPEAT_STOP;
use super::reply::Cut;
use super::room::ContextFull;
use crate::error::{Error, ExitStatus};
use crate::job::RunVerdict;
use crate::job::interrupt::Interruption;
use crate::session::{Check, Status};
use crate::ui::Output;
use crate::vocab::ExitReason;

/// Why an [`Ending::Unchanged`] run stopped.
const UNCHANGED: &str = "stopped: the model changed nothing (it sent the files back as they were, or the same reply again); try another model or a clearer prompt";

/// Why an [`Ending::NothingChanged`] run did not do its task.
const NOTHING_CHANGED: &str = "the model answered without changing any file, and the prompt asks for a change: the task is not done (for a question, `--task answer` takes the answer as the result)";

/// How the turns ended.
pub(crate) enum Ending {
    /// The model answered without tool calls.
    Answered,
    /// In a text edit format, after a change, a reply that changes nothing
    /// more (the files sent back as they are now, the same reply again):
    /// the editing is done, and `--check` decides.
    EditingDone,
    /// In a text edit format, nothing changed and the model sent the files
    /// back as they are, or the same reply twice.
    Unchanged,
    /// A change run (no `--check`) whose model answered without changing a
    /// file or running a command.
    NothingChanged,
    /// `max_turns` requests were made.
    MaxTurns,
    /// A model or server error.
    Failed(Error),
    /// A signal or `--timeout`.
    Interrupted(Interruption),
    /// The model made the same call [`REPEAT_STOP`] times in a row.
    Stuck,
    /// The last reply is a tool call written as text, left unrun: why
    /// (`--text-tools off`, or a format without tools).
    UnexecutedCall(&'static str),
    /// Two replies in a row were cut short at the reply cap.
    Cut(Cut),
    /// The conversation still does not fit in `num_ctx` after compaction.
    ContextFull(ContextFull),
    /// The answer did not match `--output-schema`, twice: what is wrong.
    SchemaMismatch(String),
    /// Before the first request, the check showed it cannot run as written
    /// (`check::unusable`): what was wrong and what to do.
    CheckUnrunnable(String),
}

impl Ending {
    /// The session status, why the run ended (a stable word and its
    /// words) and the exit status. `denied`: some calls needed approval no
    /// one could give; `check`: the last `--check` run, if any.
    pub(crate) fn verdict(
        &self,
        max_turns: u32,
        denied: bool,
        check: Option<&Check>,
    ) -> RunVerdict {
        let verdict = RunVerdict::new;
        match self {
            Ending::Answered | Ending::EditingDone | Ending::Unchanged => {
                self.settled(denied, check)
            }
            Ending::MaxTurns => verdict(
                Status::MaxTurns,
                ExitReason::MaxTurns,
                format!("max turns ({max_turns}) reached"),
                ExitStatus::MaxTurns,
            ),
            Ending::Failed(e) => verdict(
                Status::Failed,
                ExitReason::Failed,
                e.to_string(),
                ExitStatus::Failure,
            ),
            Ending::Interrupted(stop) => verdict(
                stop.status(),
                stop.reason(),
                stop.describe(),
                stop.exit_status(),
            ),
            Ending::UnexecutedCall(why) => verdict(
                Status::Failed,
                ExitReason::UnexecutedCall,
                format!("the last reply is a tool call written as text, left unrun: {why}"),
                ExitStatus::Failure,
            ),
            Ending::Cut(cut) => verdict(
                Status::Stuck,
                ExitReason::CutReplies,
                format!(
                    "stopped: two replies in a row were cut short ({})",
                    cut.as_str()
                ),
                ExitStatus::MaxTurns,
            ),
            Ending::ContextFull(full) => verdict(
                Status::Stuck,
                ExitReason::ContextFull,
                format!(
                    "stopped: the conversation takes about {} tokens after compaction, more than the context of {} tokens",
                    full.tokens, full.num_ctx
                ),
                ExitStatus::MaxTurns,
            ),
            Ending::Stuck => verdict(
                Status::Stuck,
                ExitReason::RepeatedCall,
                format!("stopped: the model made the same call {REPEAT_STOP} times in a row"),
                ExitStatus::MaxTurns,
            ),
            Ending::NothingChanged => verdict(
                Status::Stuck,
                ExitReason::Unchanged,
                NOTHING_CHANGED.to_string(),
                ExitStatus::MaxTurns,
            ),
            Ending::SchemaMismatch(why) => verdict(
                Status::Failed,
                ExitReason::SchemaMismatch,
                format!("the answer does not match `--output-schema`: {why}"),
                ExitStatus::SchemaMismatch,
            ),
            Ending::CheckUnrunnable(why) => verdict(
                Status::Failed,
                ExitReason::CheckUnrunnable,
                why.clone(),
                ExitStatus::Usage,
            ),
        }
    }

    /// The verdict of a run the model ended (an answer, editing done,
    /// nothing changed again): the check decides when there is one (6
    /// failed, else as answered); then actions denied for want of approval
    /// (5, the likely reason nothing changed); then the ending itself (0,
    /// or 4 for a run that changed nothing).
    fn settled(&self, denied: bool, check: Option<&Check>) -> RunVerdict {
        let verdict = RunVerdict::new;
        if let Some(failed) = check.filter(|c| !c.passed) {
            return verdict(
                Status::Finished,
                ExitReason::CheckFailed,
                format!("answered, but the check `{}` failed", failed.command),
                ExitStatus::CheckFailed,
            );
        }
        if denied {
            return verdict(
                Status::Finished,
                ExitReason::Denied,
                "answered; some actions were denied for want of approval".to_string(),
                ExitStatus::Denied,
            );
        }
        if matches!(self, Ending::Unchanged) && check.is_none() {
            return verdict(
                Status::Stuck,
                ExitReason::Unchanged,
                UNCHANGED.to_string(),
                ExitStatus::MaxTurns,
            );
        }
        verdict(
            Status::Finished,
            ExitReason::Answered,
            "answered".to_string(),
            ExitStatus::Success,
        )
    }

    /// Whether `--check` runs once more after this ending: when a cap
    /// stopped the model (an answer was already checked in the loop), not
    /// after errors or interruptions.
    pub(crate) fn runs_final_check(&self) -> bool {
        match self {
            Ending::MaxTurns
            | Ending::Stuck
            | Ending::Cut(_)
            | Ending::ContextFull(_)
            | Ending::EditingDone
            | Ending::Unchanged => true,
            Ending::Answered
            | Ending::NothingChanged
            | Ending::Failed(_)
            | Ending::Interrupted(_)
            | Ending::UnexecutedCall(_)
            | Ending::SchemaMismatch(_)
            | Ending::CheckUnrunnable(_) => false,
        }
    }

    /// Whether a fresh try may do better (`--attempts`): the check ran and
    /// failed after the model's work. Not after a server error, an
    /// interruption, or a check that cannot run: another try would meet
    /// the same.
    pub(crate) fn tries_again(&self, check: Option<&Check>) -> bool {
        let failed = check.is_some_and(|c| !c.passed && c.exit_code.is_some());
        let model_ended = match self {
            Ending::Answered
            | Ending::EditingDone
            | Ending::MaxTurns
            | Ending::Stuck
            | Ending::Cut(_)
            | Ending::ContextFull(_)
            | Ending::Unchanged
            | Ending::NothingChanged
            | Ending::UnexecutedCall(_) => true,
            Ending::Failed(_)
            | Ending::Interrupted(_)
            | Ending::SchemaMismatch(_)
            | Ending::CheckUnrunnable(_) => false,
        };
        failed && model_ended
    }

    /// Tells the user why the run stopped short, if it did. `turns`: the
    /// turns of this run.
    pub(crate) fn explain(&self, turns: u32, out: &mut dyn Output) {
        match self {
            Ending::MaxTurns => out.warn(&format!(
                "stopped after {turns} turn{} (`--max-turns`) before the model finished; raise `--max-turns` to let it go on",
                if turns == 1 { "" } else { "s" }
            )),
            Ending::Failed(e) => out.error(&format!("{e:#}")),
            Ending::Stuck => out.warn(&format!(
                "stopped: the model made the same call {REPEAT_STOP} times in a row"
            )),
            Ending::Cut(Cut::Length) => out.warn(
                "stopped: two replies in a row reached `--max-output-tokens`; raise it, or ask for a smaller change",
            ),
            Ending::ContextFull(full) => out.warn(&format!(
                "stopped: the conversation still takes about {} tokens after compaction, more than the context of {} tokens (`--num-ctx`); nothing more can be removed. Raise `--num-ctx`, or split the task",
                full.tokens, full.num_ctx
            )),
            Ending::UnexecutedCall(why) => out.error(&format!(
                "the model's last reply is a tool call written as text, left unrun ({why}); the run did not do its job"
            )),
            Ending::Unchanged => out.warn(UNCHANGED),
            Ending::NothingChanged => out.warn(NOTHING_CHANGED),
            Ending::SchemaMismatch(why) => out.error(&format!(
                "the answer does not match `--output-schema` after one retry: {why}; nothing was printed as the answer"
            )),
            Ending::CheckUnrunnable(why) => out.error(why),
            Ending::Answered | Ending::EditingDone | Ending::Interrupted(_) => {}
        }
    }
}
