//! The session file (`OC_HOME/sessions/<id>.json`, docs/sessions.md): the
//! conversation of a run and what is known of how it went.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::usage::Usage;
use crate::client::Message;
use crate::error::{Error, Result};
use crate::permissions::PermissionRecord;
use crate::vocab::{Confinement, Mode};

/// Version of the session file layout.
pub(crate) const SESSION_VERSION: u32 = 1;

/// How a run stands or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    /// Still going (or the process died mid-run).
    Running,
    /// The model answered without tool calls.
    Finished,
    /// `--max-turns` was reached first.
    MaxTurns,
    /// A model or server error ended the run.
    Failed,
    /// SIGINT, SIGTERM or SIGHUP ended the run.
    Interrupted,
    /// `--timeout` ended the run.
    TimedOut,
    /// The model repeated the same call until the run was stopped.
    Stuck,
}

/// Repairs made to one tool call before it ran (name or arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Repair {
    pub turn: u32,
    pub tool_call_id: String,
    pub notes: Vec<String>,
}

/// Text of a reply cut short by an interrupt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AbortedReply {
    /// Always true: the text is incomplete.
    pub aborted: bool,
    pub content: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub thinking: String,
}

/// One saved run: `OC_HOME/sessions/<id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Session {
    pub version: u32,
    /// ULID: sortable by creation time.
    pub id: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    pub mode: Mode,
    /// What the last run was for: `change` or `answer` (`--task`, or
    /// decided from the prompt's words); absent in sessions from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<crate::vocab::Task>,
    /// Why the task may not be what the prompt meant: an answer guessed
    /// from a verb that asks for either, or an answer whose reply held
    /// changes to files that were not made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_warning: Option<String>,
    pub model: String,
    pub host: String,
    /// The API of the server at `host`: `ollama` or `openai` (sessions
    /// from before the field: `ollama`).
    #[serde(default = "default_provider")]
    pub provider: String,
    /// What ran the agent loop when not oc itself: `opencode` (docs/model-servers.md
    /// "Runtimes").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// How bash commands were confined in the last run of the session
    /// (docs/permissions.md "Sandbox"); absent in sessions from before the sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Confinement>,
    pub cwd: String,
    /// The project config (`.ollama-code.json`, found from `cwd` up to the
    /// repository root) whose rules bound the last run, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_from: Option<String>,
    /// The first line of the prompt, shortened.
    pub title: String,
    pub status: Status,
    /// Why the run ended, as a stable word (`answered`, `max_turns`,
    /// `check_failed`, … : `vocab::ExitReason`); sessions from before it
    /// hold words here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_reason: Option<String>,
    /// Why the run ended, in words (`max turns (25) reached`, the error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_detail: Option<String>,
    /// Model requests made.
    pub turns: u32,
    pub num_ctx: u32,
    pub usage: Usage,
    /// Every message sent or received, system prompt first: read with
    /// [`Session::messages`]; changed through a [`super::Journal`], which
    /// saves each push, or by the methods named `unsaved`.
    pub(super) messages: Vec<Message>,
    /// The reply that was streaming when the run was interrupted: kept here,
    /// flagged aborted, and not in `messages`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted_reply: Option<AbortedReply>,
    pub permissions: Vec<PermissionRecord>,
    /// Tool calls repaired before they ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<Repair>,
    /// Ids of the tool calls whose result was an error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_tool_calls: Vec<String>,
    /// The `--check` command run after the model finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// The `--check` command as it stood before the first request
    /// (`attempts` 0); absent with `--no-precheck` or without `--check`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precheck: Option<Check>,
    /// Replies cut short at the reply cap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_replies: Vec<CutReply>,
    /// The tokens of each reply, in order: one per assistant message the
    /// model wrote (Ollama's `prompt_eval_count` and `eval_count`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reply_usage: Vec<Usage>,
    /// Turns whose prompt the server cut (it evaluated clearly fewer
    /// tokens than were sent): the model did not see all of it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truncated_turns: Vec<u32>,
    /// Compaction markers: what in `messages` was replaced, by what.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compactions: Vec<Compaction>,
    /// The process exit code the run ended with (README "Exit codes").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The run ended on a reply holding a tool call written as text that was
    /// not run (`--text-tools off`): never a success, left out of exports.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unexecuted_call: bool,
    /// The last run's checkpoint: the files it changed and where their
    /// old contents are kept, for `oc undo` (docs/sessions.md "Undo"). `None` for a
    /// run that could change nothing or was not checkpointed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<crate::checkpoint::CheckpointRecord>,
    /// Which try of a run with `--attempts` this session is; absent for a
    /// run of one try.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<Attempt>,
}

/// One try of a run with `--attempts` (docs/attempts.md): each try is a
/// session and a fine-tuning record of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Attempt {
    /// The run's id: the session id of its first try.
    pub run_id: String,
    /// Which try, from 1.
    pub number: u32,
    /// How many tries the run allowed.
    pub of: u32,
    /// Its changes were put back for another try (or for a try that came
    /// closer): `oc undo` and `--continue` pass it by.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub set_aside: bool,
}

/// A reply cut short by the reply cap (`length`; sessions of earlier
/// versions may hold `repetition`, a reply stopped for looping). Its calls
/// were not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CutReply {
    pub turn: u32,
    pub reason: String,
}

/// One compaction step (see `agent::compaction`), as the session keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Compaction {
    /// The turn about to be requested when it happened.
    pub turn: u32,
    /// `stubbed` (old tool results), `summarized` (older messages) or `cut`
    /// (one result cut to fit).
    pub kind: String,
    /// Index in `messages` where the replaced messages were.
    pub at: usize,
    /// The messages as they were.
    pub replaced: Vec<Message>,
    /// What took their place.
    pub by: Vec<Message>,
}

/// The outcome of `--check CMD`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Check {
    pub command: String,
    /// The exit code; `None` when it did not run or was killed.
    pub exit_code: Option<i32>,
    pub passed: bool,
    /// How many times it ran in this run (feedback rounds + 1).
    #[serde(default)]
    pub attempts: u32,
    /// How many tests failed, where the output of a known test runner
    /// says so (pytest, unittest, cargo test, go test, Jest, Vitest,
    /// Mocha, node --test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing: Option<u32>,
    /// How many tests passed, where the runner's output says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_tests: Option<u32>,
}

fn default_provider() -> String {
    "ollama".to_string()
}

impl Session {
    /// Whether this session is a try of a run with `--attempts` whose
    /// changes were put back for another try: `--continue` and `oc undo`
    /// pass it by for the run's kept try.
    pub(crate) fn set_aside(&self) -> bool {
        self.attempt.as_ref().is_some_and(|a| a.set_aside)
    }

    /// A new running session.
    pub(crate) fn new(
        mode: Mode,
        model: &str,
        host: &str,
        cwd: &Path,
        prompt: &str,
        num_ctx: u32,
    ) -> Self {
        let now = now_rfc3339();
        Session {
            version: SESSION_VERSION,
            id: ulid::Ulid::new().to_string(),
            created_at: now.clone(),
            updated_at: now,
            mode,
            task: None,
            task_warning: None,
            model: model.to_string(),
            host: host.to_string(),
            provider: default_provider(),
            runtime: None,
            sandbox: None,
            cwd: cwd.display().to_string(),
            rules_from: None,
            title: title_of(prompt),
            status: Status::Running,
            exit_reason: None,
            exit_detail: None,
            turns: 0,
            num_ctx,
            usage: Usage::default(),
            messages: Vec::new(),
            aborted_reply: None,
            permissions: Vec::new(),
            repairs: Vec::new(),
            failed_tool_calls: Vec::new(),
            check: None,
            precheck: None,
            cut_replies: Vec::new(),
            reply_usage: Vec::new(),
            truncated_turns: Vec::new(),
            compactions: Vec::new(),
            exit_code: None,
            unexecuted_call: false,
            checkpoint: None,
            attempt: None,
        }
    }
}

impl Session {
    /// The conversation, system prompt first.
    pub(crate) fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Adds `message` without saving: for a session not yet written (its
    /// system prompt), or a message the same step saves right after.
    pub(crate) fn push_unsaved(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// The conversation to change in place (compaction, the opening's
    /// prompt), unsaved: the caller saves once it is done.
    pub(crate) fn messages_unsaved(&mut self) -> &mut Vec<Message> {
        &mut self.messages
    }

    /// Every message of the session: the conversation, then what the
    /// compaction markers replaced and put in place.
    pub(crate) fn all_messages(&mut self) -> impl Iterator<Item = &mut Message> {
        let marked = (self.compactions.iter_mut())
            .flat_map(|c| c.replaced.iter_mut().chain(c.by.iter_mut()));
        self.messages.iter_mut().chain(marked)
    }

    /// Whether any message carries images.
    pub(crate) fn has_images(&self) -> bool {
        let marked = self
            .compactions
            .iter()
            .flat_map(|c| c.replaced.iter().chain(&c.by));
        self.messages
            .iter()
            .chain(marked)
            .any(|m| !m.images.is_empty())
    }

    /// Normalises what older versions, other tools or hand edits may have
    /// written: tool-call `arguments` given as a JSON string become the
    /// object they hold, as live replies are, since Ollama rejects string
    /// arguments in a request. Each repair is recorded; everything else is
    /// kept byte for byte. Returns the number of repairs.
    pub(crate) fn normalize_loaded(&mut self) -> usize {
        let mut repairs = Vec::new();
        for message in &mut self.messages {
            for call in &mut message.tool_calls {
                let Value::String(text) = &call.function.arguments else {
                    continue;
                };
                let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) else {
                    continue;
                };
                call.function.arguments = Value::Object(object);
                repairs.push(Repair {
                    turn: 0,
                    tool_call_id: call.id.clone().unwrap_or_default(),
                    notes: vec!["arguments saved as a JSON string were read as the object".into()],
                });
            }
        }
        let count = repairs.len();
        self.repairs.extend(repairs);
        count
    }

    /// The model's last message, if it has sent one.
    pub(crate) fn last_assistant(&self) -> Option<&Message> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == crate::client::Role::Assistant)
    }

    /// Gives every tool call of the last assistant message that has no
    /// result a synthetic one saying `note`, so the history is valid to send
    /// again. Returns how many were added.
    pub(crate) fn answer_unanswered_calls(&mut self, note: &str) -> usize {
        let Some(last) = self
            .messages
            .iter()
            .rposition(|m| m.role == crate::client::Role::Assistant)
        else {
            return 0;
        };
        let answered: Vec<Option<String>> = self.messages[last + 1..]
            .iter()
            .filter(|m| m.role == crate::client::Role::Tool)
            .map(|m| m.tool_call_id.clone())
            .collect();
        let missing: Vec<(String, String)> = self.messages[last]
            .tool_calls
            .iter()
            .filter(|c| !answered.contains(&c.id))
            .map(|c| (c.function.name.clone(), c.id.clone().unwrap_or_default()))
            .collect();
        for (name, id) in &missing {
            self.messages.push(Message::tool_result(name, id, note));
        }
        missing.len()
    }
}

pub(super) fn title_of(prompt: &str) -> String {
    let line = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut title: String = line.chars().take(80).collect();
    if title.len() < line.len() {
        title.push('…');
    }
    title
}

/// Reads and parses one session file.
///
/// Errors (exit 2): unreadable, or not a session (with line and column).
pub(crate) fn read_session(path: &Path) -> Result<Session> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::io(format!("cannot read the session `{}`", path.display()), e))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "`{}` is not a valid session file (line {}, column {}): {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// The current time as RFC 3339 in UTC.
pub(crate) fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
