//! The output seam: what the agent reports while it runs.

use crate::permissions::PermissionRecord;
use crate::protocol::{AttemptSummary, Context, RunSummary};
use crate::session::{Session, Usage};

/// Where a run's activity goes: the text renderer, or JSON on stdout
/// (`--output-format json` / `stream-json`). The agent calls these in
/// order; each output shows what its format needs.
pub(crate) trait Output {
    /// The run has a session.
    fn session_started(&mut self, session: &Session, resumed: bool);
    /// A model request is about to be sent.
    fn turn_started(&mut self, turn: u32);
    /// A piece of thinking.
    fn thinking(&mut self, turn: u32, delta: &str);
    /// A piece of the answer.
    fn content(&mut self, turn: u32, delta: &str);
    /// A file block of a whole-file or diff reply grew to `lines` lines, or
    /// closed (`closed`); `path` once the reply names its file. Its text is
    /// not shown: the change is, as a diff, when it is applied.
    fn file_block(&mut self, turn: u32, path: Option<&str>, lines: usize, closed: bool);
    /// Whether the answer is worth showing as it streams (someone watches
    /// it), or only once each reply is read: then reasoning a model ends
    /// with a lone `</think>` never reaches the answer.
    fn streams_content(&self) -> bool {
        true
    }
    /// The reply is complete.
    /// `cut`: `length` when the reply is incomplete;
    /// `context`: the conversation's tokens now, of `num_ctx`.
    fn turn_completed(
        &mut self,
        turn: u32,
        usage: Usage,
        done_reason: Option<&str>,
        cut: Option<&str>,
        context: Context,
    );
    /// The conversation was compacted before turn `turn`, from about
    /// `before` to `after` tokens.
    fn compacted(&mut self, turn: u32, before: u64, after: u64);
    /// Another chunk of the reply arrived (`chunks` so far, about one token
    /// each); shown while nothing else is.
    fn progress(&mut self, turn: u32, chunks: u64);
    /// A tool call is about to be settled; `detail` is the path(s) or
    /// command, empty when the arguments could not be read.
    fn tool_call(
        &mut self,
        turn: u32,
        id: &str,
        name: &str,
        detail: &str,
        arguments: &serde_json::Value,
    );
    /// A permission decision.
    fn permission(&mut self, record: &PermissionRecord);
    /// A tool call's result.
    /// A tool call's result: one line for people (`summary`), and the
    /// result as the model gets it (`content`, secrets scrubbed).
    fn tool_result(
        &mut self,
        turn: u32,
        id: &str,
        name: &str,
        ok: bool,
        summary: &str,
        content: &str,
    );
    /// The diff of an applied change.
    fn diff(&mut self, diff: &str);
    /// A warning; always on stderr.
    fn warn(&mut self, message: &str);
    /// Progress information.
    fn note(&mut self, message: &str);
    /// An error that ended the run.
    fn error(&mut self, message: &str);
    /// A try of a run with `--attempts` ended (`of`: the tries allowed).
    fn attempt_completed(&mut self, attempt: &AttemptSummary, of: u32);
    /// The run is over.
    fn session_completed(&mut self, summary: &RunSummary);
}

/// The warning that lists the actions denied for want of approval, one
/// line each with the `--allow` rule that would permit it, the same in
/// every output format; `None` when nothing was denied.
pub(crate) fn denials_warning(denials: &[crate::protocol::Denial]) -> Option<String> {
    if denials.is_empty() {
        return None;
    }
    let noun = if denials.len() == 1 {
        "action"
    } else {
        "actions"
    };
    let mut text = format!(
        "{} {noun} needed approval and no one could give it (no terminal):",
        denials.len()
    );
    for d in denials {
        text.push_str(&format!(
            "\n  - {} {}    ({})",
            d.tool,
            super::term::sanitize(&d.detail),
            d.allow
        ));
    }
    text.push_str("\nRe-run with `--yes`, or with the `--allow` rules shown, to allow them.");
    Some(text)
}
