//! The end of a run, one for both runtimes, in this order: the verdict on
//! record, the answer in `-o FILE` (only when the run answered), the exit
//! code, the checkpoint settled (or the try set aside for another), then
//! the session and its fine-tuning record saved.

use std::path::Path;

use serde_json::Value;

use super::record::{save_with_record, set_aside, settle_checkpoint, write_last_message};
use super::steps;
use crate::checkpoint::Checkpoint;
use crate::client::Message;
use crate::error::ExitStatus;
use crate::session::{Session, Status, Store};
use crate::ui::Output;
use crate::vocab::ExitReason;

/// How a run ended, as its session, result and record say it.
pub(crate) struct RunVerdict {
    pub status: Status,
    /// The stable word (`exit_reason`).
    pub reason: ExitReason,
    /// The same in words, with the particulars (`exit_detail`).
    pub detail: String,
    pub exit: ExitStatus,
}

impl RunVerdict {
    pub(crate) fn new(
        status: Status,
        reason: ExitReason,
        detail: String,
        exit: ExitStatus,
    ) -> Self {
        RunVerdict {
            status,
            reason,
            detail,
            exit,
        }
    }
}

/// Where the end of a run writes.
pub(crate) struct Finish<'a> {
    /// `-o FILE`.
    pub last_message_file: Option<&'a Path>,
    pub checkpoint: Option<&'a Checkpoint>,
    /// `--on-fail revert`.
    pub revert_on_fail: bool,
    /// `None` with `--no-save`.
    pub store: Option<&'a Store>,
    /// The tool schemas as sent (none in the text formats), for the record.
    pub schemas: &'a [Value],
}

/// What the end of a run decided.
pub(crate) struct Finished {
    /// The verdict's exit status, unless `-o` could not be written.
    pub exit: ExitStatus,
    /// The files `--on-fail revert` put back.
    pub reverted: Vec<String>,
}

impl Finish<'_> {
    /// Ends the run of `session` with `verdict` (kept when the session
    /// already has one, as an interruption gives it); `answer` goes to `-o`
    /// when the run answered and is not `set_aside` for another try;
    /// `wire` gives the conversation as the model saw it, for the record.
    pub(crate) fn apply(
        &self,
        session: &mut Session,
        verdict: RunVerdict,
        answer: &str,
        set_aside_for_retry: bool,
        wire: &dyn Fn(&[Message]) -> Vec<Message>,
        out: &mut dyn Output,
    ) -> Finished {
        if session.status == Status::Running {
            session.status = verdict.status;
            session.exit_reason = Some(verdict.reason.to_string());
            session.exit_detail = Some(verdict.detail);
        }
        let mut exit = verdict.exit;
        // Only an answer is written: a run stopped short has none, whatever
        // text its last reply had.
        if let Some(path) = self
            .last_message_file
            .filter(|_| !set_aside_for_retry && verdict.reason.answered())
        {
            exit = write_last_message(path, answer, exit, out);
        }
        session.exit_code = Some(exit.code());
        if let Some(attempt) = &mut session.attempt {
            attempt.set_aside = set_aside_for_retry;
        }
        let reverted = match set_aside_for_retry {
            true => set_aside(self.checkpoint, session, out),
            false => settle_checkpoint(self.checkpoint, self.revert_on_fail, session, exit, out),
        };
        if let Some(store) = self.store {
            let trajectory = steps::trajectory(session, wire);
            save_with_record(store, session, self.schemas, trajectory, out);
        }
        Finished { exit, reverted }
    }
}
