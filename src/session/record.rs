//! The fine-tuning record (one line of `OC_HOME/finetune.jsonl`, docs/fine-tuning.md)
//! and the rule that says whether a run succeeded.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::file::{Check, Compaction, Session, Status, now_rfc3339};
use super::step::{Step, Trajectory};
use super::usage::Usage;
use crate::client::Message;
use crate::vocab::{Confinement, Mode};

/// Version of the fine-tuning record layout: 2 since records hold the
/// conversation as the model saw it and a step for each of its replies.
pub(crate) const FINETUNE_VERSION: u32 = 2;

/// The placeholder for the run's working directory in fine-tuning
/// records: a record says nothing of the machine it was made on.
pub(crate) const WORKSPACE_PLACEHOLDER: &str = "/workspace";

/// Whether a run truly did its job: it ended well (status finished, exit
/// 0, so no action was denied for want of approval), no failure signal
/// stands (an unexecuted call, a final answer that is empty or only
/// markup), and with `--check` the check passed.
pub(crate) fn succeeded(session: &Session) -> bool {
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
pub(crate) fn is_markup_only(text: &str) -> bool {
    text.lines()
        .map(|l| l.trim().trim_start_matches('`').trim())
        .all(str::is_empty)
}

/// One line of `OC_HOME/finetune.jsonl`: everything a trainer needs to
/// rebuild the run's conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FinetuneRecord {
    pub version: u32,
    pub session_id: String,
    /// RFC 3339, UTC, when the run ended.
    pub created_at: String,
    pub model: String,
    pub mode: Mode,
    /// What the run was for: `change` or `answer`; absent in records from
    /// before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<crate::vocab::Task>,
    /// Why the task may not be what the prompt meant (the session's
    /// `task_warning`): a record to check before training on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_warning: Option<String>,
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
    /// Why the run ended, as a stable word (docs/output.md "Why a run
    /// ended"); records from before it hold words here.
    pub exit_reason: String,
    /// The same in words; absent in records from before it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub exit_detail: String,
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
    /// Which try of a run with `--attempts` this record is: `{run_id,
    /// number, of}`; absent for a run of one try.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<super::file::Attempt>,
}

impl FinetuneRecord {
    /// The record of a session as it stands, its conversation being
    /// `trajectory`; the working directory is [`WORKSPACE_PLACEHOLDER`].
    pub(crate) fn from_session(session: &Session, tools: &[Value], trajectory: Trajectory) -> Self {
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
            task: session.task,
            task_warning: session.task_warning.clone(),
            system_prompt,
            tools: tools.to_vec(),
            messages,
            steps: trajectory.steps,
            success,
            exit_reason: session.exit_reason.clone().unwrap_or_default(),
            exit_detail: session.exit_detail.clone().unwrap_or_default(),
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
            // Which tries were set aside is known only when the run ends;
            // a record says which try it is and whether its check passed.
            attempt: (session.attempt.clone()).map(|attempt| super::file::Attempt {
                set_aside: false,
                ..attempt
            }),
        }
    }
}
