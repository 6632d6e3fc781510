//! The machine-readable output of `--output-format json` and `stream-json`:
//! every event is one JSON object with a `type` and a `schema_version`.
//! docs/output.md documents each field; the snapshot tests pin them.

use serde::Serialize;
use serde_json::Value;

use crate::permissions::PermissionRecord;
use crate::session::{Check, CutReply, Status, Usage};
use crate::vocab::Confinement;

/// Version of the event schema; bumped on any incompatible change.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// One line of `--output-format stream-json`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type")]
pub(crate) enum Event<'a> {
    /// The run has a session: `{session_id, model, mode, cwd, resumed}`.
    #[serde(rename = "session.started")]
    SessionStarted {
        schema_version: u32,
        session_id: &'a str,
        model: &'a str,
        mode: &'a str,
        cwd: &'a str,
        /// True for `--continue` / `--resume`.
        resumed: bool,
    },
    /// A model request is about to be sent (1-based, counted over the session).
    #[serde(rename = "turn.started")]
    TurnStarted { schema_version: u32, turn: u32 },
    /// A piece of the model's thinking.
    #[serde(rename = "thinking.delta")]
    ThinkingDelta {
        schema_version: u32,
        turn: u32,
        text: &'a str,
    },
    /// A piece of the model's answer.
    #[serde(rename = "content.delta")]
    ContentDelta {
        schema_version: u32,
        turn: u32,
        text: &'a str,
    },
    /// A file block of a whole-file or diff reply grew by a line, or closed:
    /// its text is not sent (the change is, as the tool call that applies
    /// it, once the reply is read).
    #[serde(rename = "file.block")]
    FileBlock {
        schema_version: u32,
        turn: u32,
        /// The file the reply names for it; `null` until it does.
        path: Option<&'a str>,
        /// Its lines so far, the fences not counted.
        lines: usize,
        closed: bool,
    },
    /// The model asked for a tool; `arguments` as the model sent them (an
    /// object once parsed).
    #[serde(rename = "tool.call")]
    ToolCall {
        schema_version: u32,
        turn: u32,
        id: &'a str,
        name: &'a str,
        arguments: &'a Value,
    },
    /// How the call's permission was settled.
    #[serde(rename = "permission")]
    Permission {
        schema_version: u32,
        turn: u32,
        id: &'a str,
        tool: &'a str,
        /// `allow` or `deny`.
        decision: &'a str,
        /// `hard_rule`, `mode`, `rule`, `default`, `user` or `no_approver`.
        source: crate::permissions::Source,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
    },
    /// What the call produced: `ok` and a one-line `summary`.
    #[serde(rename = "tool.result")]
    ToolResult {
        schema_version: u32,
        turn: u32,
        id: &'a str,
        name: &'a str,
        ok: bool,
        summary: &'a str,
        /// The result as the model got it (secrets scrubbed), at most 4,000
        /// bytes, with what was left out counted.
        content: &'a str,
    },
    /// The model's reply is complete: its token counts and `done_reason`.
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        schema_version: u32,
        turn: u32,
        usage: Usage,
        #[serde(skip_serializing_if = "Option::is_none")]
        done_reason: Option<&'a str>,
        /// `length` (the reply cap) when the reply is incomplete; its calls
        /// were not run.
        #[serde(skip_serializing_if = "Option::is_none")]
        cut: Option<&'a str>,
        /// The conversation's tokens after this reply, of `num_ctx`.
        context: Context,
    },
    /// The conversation was compacted before turn `turn`: about `before`
    /// tokens became `after`.
    #[serde(rename = "compaction")]
    Compaction {
        schema_version: u32,
        turn: u32,
        before: u64,
        after: u64,
    },
    /// Something went wrong; `message` says what.
    #[serde(rename = "error")]
    Error {
        schema_version: u32,
        message: &'a str,
        /// Set when the error ends the process before a session exists.
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
    },
    /// A try of a run with `--attempts` ended (docs/attempts.md): how it
    /// went, and whether it stays in the workspace.
    #[serde(rename = "attempt.completed")]
    AttemptCompleted {
        schema_version: u32,
        /// How many tries the run allows.
        of: u32,
        #[serde(flatten)]
        attempt: &'a AttemptSummary,
    },
    /// The last event: the same object `--output-format json` prints.
    #[serde(rename = "session.completed")]
    SessionCompleted(&'a RunSummary),
}

/// One try of a run with `--attempts`: an element of the result's
/// `attempts` and the body of the `attempt.completed` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AttemptSummary {
    /// Which try, from 1.
    pub number: u32,
    /// The model that made it.
    pub model: String,
    /// Its session (each try is a session and a record of its own).
    pub session_id: String,
    /// Whether its session was saved (false with `--no-save`).
    pub saved: bool,
    /// The exit code the try alone would have ended with.
    pub exit_code: i32,
    /// Why it ended, as a stable word (see [`RunSummary::exit_reason`]).
    pub exit_reason: String,
    /// The same in words.
    pub exit_detail: String,
    /// Whether its `--check` passed.
    pub check_passed: bool,
    /// The failing tests its last check reported, where the runner's
    /// output says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing: Option<u32>,
    /// The tests its last check passed, where the runner's output says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed_tests: Option<u32>,
    /// Model requests it made.
    pub turns: u32,
    pub usage: Usage,
    pub duration_ms: u64,
    /// Its changes are what the workspace holds now: false for a try set
    /// aside (put back for the next try, or for one that came closer).
    pub kept: bool,
}

impl<'a> Event<'a> {
    /// The event for a permission decision.
    pub(crate) fn permission(record: &'a PermissionRecord) -> Self {
        Event::Permission {
            schema_version: SCHEMA_VERSION,
            turn: record.turn,
            id: &record.tool_call_id,
            tool: &record.tool,
            decision: if record.allowed { "allow" } else { "deny" },
            source: record.source,
            rule: record.rule.as_deref(),
            reason: record.reason.as_deref(),
        }
    }
}

/// How full the context is: `used` tokens of `max` (`num_ctx`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Context {
    pub used: u64,
    pub max: u32,
}

/// How fast the server read prompts and wrote replies in a run, measured
/// from Ollama's `prompt_eval_duration` / `eval_duration` (llama.cpp's
/// `timings`): tokens a second, rounded; the prompt speed is the slowest
/// request's (a prompt the server had cached reads faster).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct Speed {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval_tokens_per_second: Option<f64>,
}

impl Speed {
    /// Nothing was measured (the server gives no durations).
    pub(crate) fn is_unknown(&self) -> bool {
        self.prompt_tokens_per_second.is_none() && self.eval_tokens_per_second.is_none()
    }
}

/// A call denied because it needed approval and no one could give it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Denial {
    pub tool: String,
    /// The path(s) or command.
    pub detail: String,
    /// The `--allow '…'` flags that would have allowed it.
    pub allow: String,
}

/// How a run ended: the object of `--output-format json` and of the
/// `session.completed` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RunSummary {
    pub schema_version: u32,
    /// The session's id (also with `--no-save`, when no file is written).
    pub session_id: String,
    /// Whether the session was saved (false with `--no-save`): only then
    /// can `oc sessions show` find it.
    pub saved: bool,
    pub status: Status,
    /// What the run was for: `change` (files may change) or `answer` (text
    /// comes back, no file changes); absent for the opencode runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<crate::vocab::Task>,
    /// Why the task may not be what the prompt meant: an answer guessed
    /// from a verb that asks for either ("show …"), or an answer whose
    /// reply held changes to files that were not made. Absent when there
    /// is no doubt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_warning: Option<String>,
    /// Why the run ended, as a stable word for scripts: `answered`,
    /// `denied`, `check_failed`, `max_turns`, … (`vocab::ExitReason`,
    /// docs/output.md "Why a run ended").
    pub exit_reason: String,
    /// The same in words, with the particulars: `max turns (25) reached`,
    /// the server's error, the check that failed.
    pub exit_detail: String,
    /// The process exit code (README "Exit codes").
    pub exit_code: i32,
    /// The last answer of the model (its last message's text).
    pub final_text: String,
    /// Model requests made in this run.
    pub turns: u32,
    /// Tokens of this run.
    pub usage: Usage,
    /// Model requests made in the whole session (more than `turns` after
    /// `--continue` or `--resume`).
    pub session_turns: u32,
    /// Tokens of the whole session.
    pub session_usage: Usage,
    /// The conversation's tokens at the end, of `num_ctx`.
    pub context: Context,
    /// The server's measured speed; absent when it gives no durations.
    #[serde(skip_serializing_if = "Speed::is_unknown")]
    pub speed: Speed,
    /// Tool calls made in this run.
    pub tool_calls: usize,
    /// Files created, changed or moved, relative to the workspace.
    pub files_changed: Vec<String>,
    pub permission_denials: Vec<Denial>,
    /// Replies cut short in this run: `{turn, reason}` with reason
    /// `length`; absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cut_replies: Vec<CutReply>,
    /// Turns of this run whose prompt the server cut (it evaluated far
    /// fewer tokens than were sent): the model did not see the whole
    /// conversation, and the run counts as a success only if `--check`
    /// passes. Absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub truncated_turns: Vec<u32>,
    /// `--on-fail revert`: the files put back as the run found them
    /// because it failed; absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reverted: Vec<String>,
    /// `--check`: `{command, exit_code, passed, attempts}`; absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// `--check` as it stood before the first request: `{command,
    /// exit_code, passed, attempts: 0}`; absent with `--no-precheck` or
    /// without `--check`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precheck: Option<Check>,
    /// `--output-schema`: the answer's JSON value, validated against the
    /// schema; absent without one or when the answer did not match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// How bash commands were confined: `{"mode": "workspace-write" |
    /// "read-only" | "off", "network": "on" | "off"}`.
    pub sandbox: Confinement,
    pub duration_ms: u64,
    /// With `--attempts`: every try in order (the summary's other fields
    /// describe the try that was kept, its turns and tokens those of the
    /// whole run); absent for a run of one try.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptSummary>,
}
