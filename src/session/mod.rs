//! Sessions (`OC_HOME/sessions/<id>.json`, saved atomically after every turn)
//! and the fine-tuning record appended to `OC_HOME/finetune.jsonl` at the end
//! of every saved run (SPEC §9).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::Message;
use crate::error::{Error, Result};
use crate::fsutil;
use crate::images::ImageStore;
use crate::permissions::PermissionRecord;
use crate::vocab::{Confinement, Mode};

pub mod export;
mod export_images;
mod step;
mod usage;

pub use step::{GROUNDING_CALL, Step, Trajectory, is_grounding_read};
pub use usage::Usage;

/// Version of the session file layout.
pub const SESSION_VERSION: u32 = 1;
/// Version of the fine-tuning record layout: 2 since records hold the
/// conversation as the model saw it and a step for each of its replies.
pub const FINETUNE_VERSION: u32 = 2;

/// The placeholder for the run's working directory in fine-tuning
/// records: a record says nothing of the machine it was made on.
pub const WORKSPACE_PLACEHOLDER: &str = "/workspace";

/// How a run stands or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Still going (or the process died mid-run).
    Running,
    /// The model answered without tool calls.
    Finished,
    /// `--max-turns` was reached first.
    MaxTurns,
    /// A model or server error ended the run.
    Failed,
    /// SIGINT or SIGTERM ended the run.
    Interrupted,
    /// `--timeout` ended the run.
    TimedOut,
    /// The model repeated the same call until the run was stopped.
    Stuck,
}

/// Repairs made to one tool call before it ran (name or arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repair {
    pub turn: u32,
    pub tool_call_id: String,
    pub notes: Vec<String>,
}

/// Text of a reply cut short by an interrupt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbortedReply {
    /// Always true: the text is incomplete.
    pub aborted: bool,
    pub content: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub thinking: String,
}

/// One saved run: `OC_HOME/sessions/<id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub version: u32,
    /// ULID: sortable by creation time.
    pub id: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    pub mode: Mode,
    pub model: String,
    pub host: String,
    /// The API of the server at `host`: `ollama` or `openai` (sessions
    /// from before the field: `ollama`).
    #[serde(default = "default_provider")]
    pub provider: String,
    /// What ran the agent loop when not oc itself: `opencode` (README
    /// "Runtimes").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// How bash commands were confined in the last run of the session
    /// (README "Sandbox"); absent in sessions from before the sandbox.
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
    /// Why the run ended, in words (`answered`, `max turns (25) reached`, the error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_reason: Option<String>,
    /// Model requests made.
    pub turns: u32,
    pub num_ctx: u32,
    pub usage: Usage,
    /// Every message sent or received, system prompt first.
    pub messages: Vec<Message>,
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
    /// Replies cut short (reply cap or repetition).
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
    /// old contents are kept, for `oc undo` (README "Undo"). `None` for a
    /// run that could change nothing or was not checkpointed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<crate::checkpoint::CheckpointRecord>,
}

/// A reply cut short: by the reply cap (`length`) or because it repeated
/// itself (`repetition`). Its calls were not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CutReply {
    pub turn: u32,
    pub reason: String,
}

/// One compaction step (see `agent::compaction`), as the session keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compaction {
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
pub struct Check {
    pub command: String,
    /// The exit code; `None` when it did not run or was killed.
    pub exit_code: Option<i32>,
    pub passed: bool,
    /// How many times it ran in this run (feedback rounds + 1).
    #[serde(default)]
    pub attempts: u32,
}

fn default_provider() -> String {
    "ollama".to_string()
}

impl Session {
    /// A new running session.
    pub fn new(
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
        }
    }
}

impl Session {
    /// Every message of the session: the conversation, then what the
    /// compaction markers replaced and put in place.
    pub fn all_messages(&mut self) -> impl Iterator<Item = &mut Message> {
        let marked = (self.compactions.iter_mut())
            .flat_map(|c| c.replaced.iter_mut().chain(c.by.iter_mut()));
        self.messages.iter_mut().chain(marked)
    }

    /// Whether any message carries images.
    fn has_images(&self) -> bool {
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
    pub fn normalize_loaded(&mut self) -> usize {
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
    pub fn last_assistant(&self) -> Option<&Message> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == crate::client::Role::Assistant)
    }

    /// Gives every tool call of the last assistant message that has no
    /// result a synthetic one saying `note`, so the history is valid to send
    /// again. Returns how many were added.
    pub fn answer_unanswered_calls(&mut self, note: &str) -> usize {
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

fn title_of(prompt: &str) -> String {
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
pub fn read_session(path: &Path) -> Result<Session> {
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
pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Where sessions and the fine-tuning file live (`OC_HOME`).
#[derive(Debug, Clone)]
pub struct Store {
    home: PathBuf,
}

impl Store {
    /// A store rooted at `home` (`OC_HOME`); nothing is created until a save.
    pub fn new(home: &Path) -> Self {
        Store {
            home: home.to_path_buf(),
        }
    }

    /// `OC_HOME/sessions/<id>.json`.
    pub fn session_path(&self, id: &str) -> PathBuf {
        self.home.join("sessions").join(format!("{id}.json"))
    }

    /// `OC_HOME/finetune.jsonl`.
    pub fn finetune_path(&self) -> PathBuf {
        self.home.join("finetune.jsonl")
    }

    /// Saves the session atomically (temp file + rename): a crash leaves the
    /// previous save intact.
    pub fn save(&self, session: &mut Session) -> Result<()> {
        session.updated_at = now_rfc3339();
        let path = self.session_path(&session.id);
        let hint = "point `OC_HOME` or `--home` at a writable directory, or pass `--no-save`";
        fsutil::private_dir(&self.home.join("sessions")).map_err(|e| {
            Error::io(
                format!("cannot create `{}` ({hint})", self.home.display()),
                e,
            )
        })?;
        let named;
        let session: &Session = if session.has_images() {
            let mut copy = session.clone();
            ImageStore::new(&self.home).name_all(copy.all_messages())?;
            named = copy;
            &named
        } else {
            session
        };
        let json = serde_json::to_vec_pretty(session)
            .map_err(|e| Error::Server(format!("cannot encode the session: {e}")))?;
        fsutil::write_atomic(&path, &json, 0o600).map_err(|e| {
            Error::io(
                format!("cannot save the session to `{}` ({hint})", path.display()),
                e,
            )
        })
    }

    /// Every saved session, newest first. Files that cannot be read are
    /// returned as errors beside the sessions, so one bad file hides nothing.
    pub fn list(&self) -> (Vec<Session>, Vec<String>) {
        let dir = self.home.join("sessions");
        let mut sessions = Vec::new();
        let mut problems = Vec::new();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return (sessions, problems);
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            match read_session(&path) {
                Ok(session) => sessions.push(session),
                Err(e) => problems.push(e.to_string()),
            }
        }
        sessions.sort_by(|a, b| b.id.cmp(&a.id));
        (sessions, problems)
    }

    /// The session whose id is `id` or starts with it.
    ///
    /// Errors (exit 2): no such session, or a prefix that fits several.
    pub fn find(&self, id: &str) -> Result<PathBuf> {
        // Ids are ULIDs: upper case, so `01m8…` means `01M8…`.
        let upper = id.trim().to_ascii_uppercase();
        let id = upper.as_str();
        let dir = self.home.join("sessions");
        let exact = dir.join(format!("{id}.json"));
        if !id.is_empty() && !id.contains('/') && exact.is_file() {
            return Ok(exact);
        }
        let mut matches: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.extension().is_some_and(|e| e == "json")
                            && p.file_stem().is_some_and(|s| {
                                !id.is_empty() && s.to_string_lossy().starts_with(id)
                            })
                    })
                    .collect()
            })
            .unwrap_or_default();
        matches.sort();
        match matches.len() {
            1 => Ok(matches.remove(0)),
            0 => Err(Error::Usage(format!(
                "no saved session `{id}` in `{}`; see `oc sessions list`",
                dir.display()
            ))),
            n => Err(Error::Usage(format!(
                "`{id}` fits {n} sessions; give more of the id (see `oc sessions list`)"
            ))),
        }
    }

    /// Loads the session `id` (or a unique prefix of it).
    pub fn load(&self, id: &str) -> Result<Session> {
        let mut session = read_session(&self.find(id)?)?;
        session.normalize_loaded();
        ImageStore::new(&self.home).load_all(session.all_messages())?;
        Ok(session)
    }

    /// The newest session started in `cwd`, if any (normalised as by
    /// [`Store::load`]). Errors: as [`ImageStore::load_all`].
    pub fn newest_in(&self, cwd: &Path) -> Result<Option<Session>> {
        let cwd = cwd.display().to_string();
        let Some(mut session) = self.list().0.into_iter().find(|s| s.cwd == cwd) else {
            return Ok(None);
        };
        session.normalize_loaded();
        ImageStore::new(&self.home).load_all(session.all_messages())?;
        Ok(Some(session))
    }

    /// Appends one record as one line, with credentials redacted first (see
    /// [`redact`]), under an exclusive lock so concurrent runs never
    /// interleave.
    pub fn append_finetune(&self, record: &FinetuneRecord) -> Result<()> {
        let path = self.finetune_path();
        let context = || format!("cannot append to `{}`", path.display());
        let mut named = record.clone();
        let messages = named.messages.iter_mut();
        let markers = named.compactions.iter_mut();
        let marked = markers.flat_map(|c| c.replaced.iter_mut().chain(c.by.iter_mut()));
        ImageStore::new(&self.home).name_all(messages.chain(marked))?;
        let mut value = serde_json::to_value(&named)
            .map_err(|e| Error::Server(format!("cannot encode the finetune record: {e}")))?;
        let redactions = crate::secrets::shapes::redact_value(&mut value);
        value["redactions"] = Value::from(redactions);
        let mut line = value.to_string();
        line.push('\n');
        fsutil::private_dir(&self.home).map_err(|e| Error::io(context(), e))?;
        fsutil::append_locked(&path, line.as_bytes()).map_err(|e| Error::io(context(), e))
    }
}

/// Whether a run truly did its job: it ended well (status finished, exit
/// 0, so no action was denied for want of approval), no failure signal
/// stands (an unexecuted call, a final answer that is empty or only
/// markup), and with `--check` the check passed.
pub fn succeeded(session: &Session) -> bool {
    let answered = session
        .last_assistant()
        .is_some_and(|m| !m.tool_calls.is_empty() || !is_markup_only(&m.content));
    let check_passed = session.check.as_ref().is_some_and(|c| c.passed);
    session.status == Status::Finished
        && session.exit_code.is_none_or(|c| c == 0)
        && !session.unexecuted_call
        && answered
        && (session.truncated_turns.is_empty() || check_passed)
        && session.check.as_ref().is_none_or(|c| c.passed)
}

/// Whether `text` holds nothing but whitespace and fence markers (```).
pub fn is_markup_only(text: &str) -> bool {
    text.lines()
        .map(|l| l.trim().trim_start_matches('`').trim())
        .all(str::is_empty)
}

/// One line of `OC_HOME/finetune.jsonl`: everything a trainer needs to
/// rebuild the run's conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinetuneRecord {
    pub version: u32,
    pub session_id: String,
    /// RFC 3339, UTC, when the run ended.
    pub created_at: String,
    pub model: String,
    pub mode: Mode,
    pub system_prompt: String,
    /// The tool schemas offered, as sent to the server.
    pub tools: Vec<Value>,
    /// The conversation after the system prompt, as the model saw it and
    /// wrote it: with tools, user, assistant (with `tool_calls`, arguments
    /// as objects) and tool messages; in the text edit formats, the
    /// replies as written (file blocks, requests) and the results as the
    /// user messages that carried them. Nothing `oc` made up is in it.
    pub messages: Vec<Message>,
    /// One per assistant message of `messages`, in order: whether that
    /// reply did what it meant to (records before version 2 have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// The run finished with an answer (and, with `--check`, the check
    /// passed).
    pub success: bool,
    pub exit_reason: String,
    pub turns: u32,
    pub usage: Usage,
    /// The kind of model server: `ollama` or `openai`.
    #[serde(default)]
    pub host_kind: String,
    /// What ran the agent loop when not oc itself (`opencode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// How bash commands were confined: `{mode, network}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Confinement>,
    /// Ids of the tool calls whose result was an error: the assistant turns
    /// that made them are marked failed.
    #[serde(default)]
    pub failed_tool_calls: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// The process exit code of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The run ended on a tool call written as text that was not run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unexecuted_call: bool,
    /// `messages` is the conversation as the model saw it last; these
    /// markers hold what compaction replaced in it, and by what.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compactions: Vec<Compaction>,
    /// Turns whose prompt the server cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truncated_turns: Vec<u32>,
    /// Credentials replaced before the record was written.
    #[serde(default)]
    pub redactions: usize,
}

impl FinetuneRecord {
    /// The record of a session as it stands, its conversation being
    /// `trajectory`; the working directory is [`WORKSPACE_PLACEHOLDER`].
    pub fn from_session(session: &Session, tools: &[Value], trajectory: Trajectory) -> Self {
        let trajectory = trajectory.with_path_as(&session.cwd, WORKSPACE_PLACEHOLDER);
        let all = trajectory.messages;
        let (system_prompt, messages) = match all.split_first() {
            Some((first, rest)) if first.role == crate::client::Role::System => {
                (first.content.clone(), rest.to_vec())
            }
            _ => (String::new(), all),
        };
        let success = succeeded(session);
        FinetuneRecord {
            version: FINETUNE_VERSION,
            session_id: session.id.clone(),
            created_at: now_rfc3339(),
            model: session.model.clone(),
            mode: session.mode,
            system_prompt,
            tools: tools.to_vec(),
            messages,
            steps: trajectory.steps,
            success,
            exit_reason: session.exit_reason.clone().unwrap_or_default(),
            turns: session.turns,
            host_kind: session.provider.clone(),
            runtime: session.runtime.clone(),
            sandbox: session.sandbox.clone(),
            failed_tool_calls: session.failed_tool_calls.clone(),
            check: session.check.clone(),
            exit_code: session.exit_code,
            unexecuted_call: session.unexecuted_call,
            compactions: session.compactions.clone(),
            truncated_turns: session.truncated_turns.clone(),
            redactions: 0,
            usage: session.usage,
        }
    }
}

#[cfg(test)]
mod tests;
