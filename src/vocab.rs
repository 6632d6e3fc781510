//! The small vocabulary every layer shares: the run mode, thinking, whether
//! text-form tool calls are recovered, and the sampling options. A leaf: it
//! imports nothing of the crate, so anything may import it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What the agent may do in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Mode {
    /// All tools (`oc run`).
    Code,
    /// Read-only tools (`oc plan`, `oc run --plan`).
    Plan,
    /// No tools, one answer (`oc chat`).
    Chat,
}

impl Mode {
    /// The name used in sessions, records and messages.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Code => "code",
            Mode::Plan => "plan",
            Mode::Chat => "chat",
        }
    }
}

/// The `think` request field: a switch or an effort level. Ollama takes
/// `true`/`false` or `"low"`/`"medium"`/`"high"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Think {
    Off,
    On,
    Low,
    Medium,
    High,
}

impl Think {
    /// Whether any thinking is asked for.
    pub fn is_on(self) -> bool {
        !matches!(self, Think::Off)
    }
}

impl fmt::Display for Think {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Think::Off => "false",
            Think::On => "true",
            Think::Low => "low",
            Think::Medium => "medium",
            Think::High => "high",
        })
    }
}

impl FromStr for Think {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "true" | "on" | "yes" => Ok(Think::On),
            "false" | "off" | "no" => Ok(Think::Off),
            "low" => Ok(Think::Low),
            "medium" => Ok(Think::Medium),
            "high" => Ok(Think::High),
            other => Err(format!(
                "`{other}` is not a think setting; use true, false, low, medium or high"
            )),
        }
    }
}

impl Serialize for Think {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Think::Off => s.serialize_bool(false),
            Think::On => s.serialize_bool(true),
            Think::Low => s.serialize_str("low"),
            Think::Medium => s.serialize_str("medium"),
            Think::High => s.serialize_str("high"),
        }
    }
}

impl<'de> Deserialize<'de> for Think {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bool(true) => Ok(Think::On),
            Raw::Bool(false) => Ok(Think::Off),
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Whether tool calls written as text are turned into real calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TextTools {
    /// Recover calls to offered tools from the text.
    #[default]
    Auto,
    /// Leave the text as it is.
    Off,
}

/// How the model changes files (`--edit-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EditFormat {
    /// Tool calls: `write_file`, `edit_file` and the other tools.
    Tools,
    /// Each changed file whole, in a fenced block headed by its path.
    Whole,
    /// SEARCH/REPLACE blocks headed by the file's path.
    Diff,
    /// Chosen per model from its size and capabilities.
    #[default]
    Auto,
}

impl EditFormat {
    /// The name used in flags, sessions and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            EditFormat::Tools => "tools",
            EditFormat::Whole => "whole",
            EditFormat::Diff => "diff",
            EditFormat::Auto => "auto",
        }
    }
}

/// What a run is for (`--task`): a change to the files, or an answer
/// (a commit message, an explanation, a review, a question).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Decided from the prompt's words, the command and stdin.
    #[default]
    Auto,
    /// The model changes files.
    Change,
    /// The model answers; files are shown for reference and none changes.
    Answer,
}

impl Task {
    /// The name used in flags, config and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Task::Auto => "auto",
            Task::Change => "change",
            Task::Answer => "answer",
        }
    }
}

/// The API of the model server (`--provider`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Ollama's native API (`/api/chat`).
    #[default]
    Ollama,
    /// The OpenAI chat-completions API (`{base}/chat/completions`):
    /// llama.cpp, vLLM, SGLang, LM Studio, LiteLLM, Ollama's `/v1`.
    #[serde(rename = "openai")]
    #[value(name = "openai")]
    OpenAi,
}

impl Provider {
    /// The name used in flags, config, sessions and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Ollama => "ollama",
            Provider::OpenAi => "openai",
        }
    }
}

/// Sampling options the user set (flag or config file). Only those are
/// sent in `options` of `/api/chat`; anything unset is left to the model's
/// own Modelfile parameters and the server's defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sampling {
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub top_k: Option<u32>,
    pub presence_penalty: Option<f64>,
    /// Seed of the sampler, for reproducible runs.
    pub seed: Option<i64>,
}

/// How bash commands are confined (`--sandbox`, config `sandbox`; docs/permissions.md
/// "Sandbox"). The confinement is Linux Landlock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Writes only inside the workspace, the run's temp directory and the
    /// usual devices; where the kernel lacks Landlock, a warning and no
    /// confinement.
    #[default]
    WorkspaceWrite,
    /// Writes only in the run's temp directory and the usual devices.
    ReadOnly,
    /// No confinement.
    Off,
    /// As `workspace-write`, and a usage error where the kernel cannot
    /// confine (for CI that must not run unconfined).
    Required,
}

/// Whether confined commands may open TCP connections (`--network`,
/// config `network`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    On,
    Off,
}

impl Network {
    /// The name used in flags, sessions and records.
    pub fn as_str(self) -> &'static str {
        match self {
            Network::On => "on",
            Network::Off => "off",
        }
    }
}

/// The confinement a run's commands actually had: what sessions, the
/// `json` result and fine-tuning records say.
/// JSON: `{"mode": "workspace-write" | "read-only" | "off", "network": "on" | "off",
/// "add_dirs"?: [path, …]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Confinement {
    /// The filesystem confinement applied: `workspace-write`, `read-only`
    /// or `off` (never `required`).
    pub mode: SandboxMode,
    /// `off` when the network was refused.
    pub network: Network,
    /// More directories commands could write (`--add-dir`, real paths);
    /// absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add_dirs: Vec<String>,
}

impl Confinement {
    /// No confinement at all.
    pub(crate) const NONE: Confinement = Confinement {
        mode: SandboxMode::Off,
        network: Network::On,
        add_dirs: Vec::new(),
    };
}

/// What runs the agent loop (`--runtime`, config `runtime`; docs/model-servers.md
/// "Runtimes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// oc's own loop against the model server.
    #[default]
    Native,
    /// An opencode server runs the loop; oc decides its permissions and
    /// keeps the output, session and record.
    Opencode,
}

/// Why a run ended, as a stable word for scripts: `exit_reason` in the
/// JSON result, the session and the record (docs/output.md "Why a run
/// ended"). The words of each case (the error, the check, the limit) go to
/// `exit_detail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ExitReason {
    /// The model answered (exit 0).
    Answered,
    /// It answered, but actions were denied for want of approval (exit 5).
    Denied,
    /// It answered, but `--check` still fails (exit 6).
    CheckFailed,
    /// `--max-turns` was reached (exit 4).
    MaxTurns,
    /// The model made the same call five times in a row (exit 4).
    RepeatedCall,
    /// Two replies in a row were cut short (exit 4).
    CutReplies,
    /// The model changed nothing and sent the same again (exit 4).
    Unchanged,
    /// The conversation does not fit the context even compacted (exit 4).
    ContextFull,
    /// The answer does not match `--output-schema` (exit 7).
    SchemaMismatch,
    /// The last reply is a tool call written as text, left unrun (exit 1).
    UnexecutedCall,
    /// A server error or a broken stream (exit 1).
    Failed,
    /// The `--check` command cannot run as written (exit 2).
    CheckUnrunnable,
    /// `--timeout` was reached (exit 124).
    TimedOut,
    /// Stopped by SIGINT (exit 130).
    Interrupted,
    /// Stopped by SIGTERM (exit 143).
    Terminated,
    /// Stopped by SIGHUP, its terminal closed (exit 129).
    HungUp,
}

impl ExitReason {
    /// Whether the run gave an answer (`answered`, `denied`,
    /// `check_failed`): then `-o FILE` gets it.
    pub(crate) fn answered(self) -> bool {
        matches!(
            self,
            ExitReason::Answered | ExitReason::Denied | ExitReason::CheckFailed
        )
    }

    /// Every reason, in the order docs/output.md lists them.
    #[cfg(test)]
    pub(crate) const ALL: [ExitReason; 16] = [
        ExitReason::Answered,
        ExitReason::Denied,
        ExitReason::CheckFailed,
        ExitReason::MaxTurns,
        ExitReason::RepeatedCall,
        ExitReason::CutReplies,
        ExitReason::Unchanged,
        ExitReason::ContextFull,
        ExitReason::SchemaMismatch,
        ExitReason::UnexecutedCall,
        ExitReason::Failed,
        ExitReason::CheckUnrunnable,
        ExitReason::TimedOut,
        ExitReason::Interrupted,
        ExitReason::Terminated,
        ExitReason::HungUp,
    ];

    /// The word written to JSON.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ExitReason::Answered => "answered",
            ExitReason::Denied => "denied",
            ExitReason::CheckFailed => "check_failed",
            ExitReason::MaxTurns => "max_turns",
            ExitReason::RepeatedCall => "repeated_call",
            ExitReason::CutReplies => "cut_replies",
            ExitReason::Unchanged => "unchanged",
            ExitReason::ContextFull => "context_full",
            ExitReason::SchemaMismatch => "schema_mismatch",
            ExitReason::UnexecutedCall => "unexecuted_call",
            ExitReason::Failed => "failed",
            ExitReason::CheckUnrunnable => "check_unrunnable",
            ExitReason::TimedOut => "timed_out",
            ExitReason::Interrupted => "interrupted",
            ExitReason::Terminated => "terminated",
            ExitReason::HungUp => "hung_up",
        }
    }
}

impl fmt::Display for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ExitReason;

    /// docs/output.md lists every exit reason, in order, and nothing else.
    #[test]
    fn the_output_page_lists_every_exit_reason() {
        let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/output.md"))
            .unwrap();
        let section = page.split("### Why a run ended").nth(1).unwrap();
        let table = section.split("\n## ").next().unwrap();
        let listed: Vec<&str> = table
            .lines()
            .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
            .filter(|w| *w != "exit_reason")
            .collect();
        let known: Vec<&str> = ExitReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(listed, known);
        for reason in ExitReason::ALL {
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, format!("\"{reason}\""));
        }
    }
}
