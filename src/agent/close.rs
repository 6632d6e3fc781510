//! The end of one try: its verdict, the `-o` file, the checkpoint settled
//! (or the try set aside for another), the saved session and record, and
//! the summary the caller shows.

use std::path::Path;
use std::time::Instant;

use serde_json::Value;

use super::calls::CallRunner;
use super::edits::Protocol;
use super::ending::Ending;
use crate::checkpoint::Checkpoint;
use crate::client::Message;
use crate::error::ExitStatus;
use crate::job::{Finish, Finished};
use crate::protocol::{RunSummary, SCHEMA_VERSION};
use crate::session::{Session, Store, Usage};
use crate::ui::Output;
use crate::vocab::{Confinement, ExitReason};

/// The end of one try: its verdict, the `-o` file, the saved session and
/// record, and the summary.
pub(crate) struct Close<'a> {
    /// The conversation's tokens at the end.
    pub context: crate::protocol::Context,
    pub speed: crate::protocol::Speed,
    pub started: Instant,
    /// The session's turns and tokens before this run.
    pub first_turn: u32,
    pub usage_before: Usage,
    pub max_turns: u32,
    /// `None` with `--no-save`.
    pub store: Option<&'a Store>,
    /// The tool schemas as sent (none in the text formats).
    pub schemas: &'a [Value],
    /// How the conversation went on the wire, for the record.
    pub protocol: &'a Protocol,
    pub last_message_file: Option<&'a Path>,
    /// The answer's JSON value, validated against `--output-schema`.
    pub structured_output: Option<Value>,
    pub checkpoint: Option<&'a Checkpoint>,
    pub revert_on_fail: bool,
    /// Another try follows if this one fails its check (`--attempts`).
    pub retry: bool,
}

/// How a try ended: its exit status, its summary (not yet shown), and
/// whether it was set aside for another try.
pub(crate) struct Closed {
    pub exit: ExitStatus,
    pub summary: RunSummary,
    pub set_aside: bool,
    /// The try's session as saved.
    pub session: Session,
}

impl Close<'_> {
    /// Whether a run that ended as having changed nothing did change files
    /// after all, by a command the run could not follow (one that failed
    /// after writing, or wrote through an option): the checkpoint says.
    fn commands_changed_files(&self, ending: &Ending) -> bool {
        matches!(ending, Ending::NothingChanged)
            && (self.checkpoint).is_some_and(|c| c.finish().is_ok_and(|r| !r.changes.is_empty()))
    }

    pub(crate) fn write(
        &self,
        session: &mut Session,
        ending: &Ending,
        calls: CallRunner<'_>,
        out: &mut dyn Output,
    ) -> Closed {
        let denied = !calls.denials.is_empty();
        let answered = Ending::Answered;
        let ending = match self.commands_changed_files(ending) {
            true => &answered,
            false => ending,
        };
        let verdict = ending.verdict(self.max_turns, denied, session.check.as_ref());
        // Files sent back unchanged, where a check or a denial decided the
        // verdict: the verdict is what is said.
        let says_why =
            !matches!(ending, Ending::Unchanged) || verdict.reason == ExitReason::Unchanged;
        let set_aside = self.retry && ending.tries_again(session.check.as_ref());
        let (final_text, summarized) = final_text(session, &calls.files_changed);
        // With `--output-schema`, `-o` gets the JSON value, as stdout does.
        let answer = match &self.structured_output {
            Some(value) => value.to_string(),
            None => final_text.clone(),
        };
        if summarized {
            // The reply was only file blocks: stdout says what `-o` and
            // the json `final_text` say.
            out.content(session.turns, &format!("{final_text}\n"));
        }
        let finish = Finish {
            last_message_file: self.last_message_file,
            checkpoint: self.checkpoint,
            revert_on_fail: self.revert_on_fail,
            store: self.store,
            schemas: self.schemas,
        };
        let wire = |messages: &[Message]| self.protocol.wire(messages).into_owned();
        let Finished { exit, reverted } =
            finish.apply(session, verdict, &answer, set_aside, &wire, out);
        if says_why {
            ending.explain(session.turns - self.first_turn, out);
        }
        let summary = RunSummary {
            schema_version: SCHEMA_VERSION,
            session_id: session.id.clone(),
            saved: self.store.is_some(),
            status: session.status,
            task: session.task,
            task_warning: session.task_warning.clone(),
            exit_reason: session.exit_reason.clone().unwrap_or_default(),
            exit_detail: session.exit_detail.clone().unwrap_or_default(),
            exit_code: exit.code(),
            final_text,
            turns: session.turns - self.first_turn,
            usage: Usage {
                prompt_tokens: session.usage.prompt_tokens - self.usage_before.prompt_tokens,
                completion_tokens: session.usage.completion_tokens
                    - self.usage_before.completion_tokens,
            },
            session_turns: session.turns,
            session_usage: session.usage,
            context: self.context,
            speed: self.speed,
            tool_calls: calls.tool_calls,
            files_changed: crate::job::files_changed(&calls.files_changed, session),
            permission_denials: calls.denials,
            cut_replies: (session.cut_replies.iter())
                .filter(|c| c.turn > self.first_turn)
                .cloned()
                .collect(),
            truncated_turns: (session.truncated_turns.iter())
                .filter(|&&turn| turn > self.first_turn)
                .copied()
                .collect(),
            reverted,
            check: session.check.clone(),
            precheck: session.precheck.clone(),
            structured_output: self.structured_output.clone(),
            sandbox: session.sandbox.clone().unwrap_or(Confinement::NONE),
            duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            attempts: Vec::new(),
        };
        Closed {
            exit,
            summary,
            set_aside,
            session: session.clone(),
        }
    }
}

/// The last assistant message's text; when it has none (its reply was only
/// file blocks) and files changed, which ones, and `true`: the text is a
/// summary made here, not yet shown.
fn final_text(session: &Session, files_changed: &[String]) -> (String, bool) {
    let text = session
        .last_assistant()
        .map(|m| m.content.clone())
        .unwrap_or_default();
    if text.trim().is_empty() && !files_changed.is_empty() {
        return (format!("Changed {}.", files_changed.join(", ")), true);
    }
    (text, false)
}
