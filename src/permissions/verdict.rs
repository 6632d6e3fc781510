//! The words of a permission decision: the mode, what settled it, the
//! verdict before anyone is asked, and the record kept in the session.

use serde::{Deserialize, Serialize};

/// How permission requests are settled when no rule decides (docs/permissions.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PermissionMode {
    /// Reads allowed; writes, moves and bash ask.
    Normal,
    /// Read-only: every write and bash is refused.
    Plan,
    /// `--yes`: everything allowed except the hard rules.
    Yolo,
}

/// What settled a permission question; recorded in the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Source {
    /// A rule nothing overrides (`.env` files, destructive commands, paths
    /// outside the workspace).
    HardRule,
    /// The permission mode: plan mode refuses writes and bash.
    Mode,
    /// `--yes` allowed it.
    Yes,
    /// A rule from a config file or `--allow` / `--deny`.
    Rule,
    /// The default policy (reads are allowed).
    Default,
    /// The person at the terminal.
    User,
    /// Approval was needed and no one could give it (no terminal).
    NoApprover,
}

/// The first-stage verdict, before anyone is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Runs; `rule` names the allow rule(s) that decided, if any.
    Allow {
        source: Source,
        rule: Option<String>,
    },
    Deny {
        source: Source,
        reason: String,
        /// The deny rule that decided, if one did.
        rule: Option<String>,
    },
    /// Needs approval; `rule` names the ask rule that demands it, if any.
    Ask { rule: Option<String> },
}

/// One permission decision, as stored in the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PermissionRecord {
    /// 1-based turn the call was made in.
    pub turn: u32,
    pub tool_call_id: String,
    pub tool: String,
    /// The path(s) or command.
    pub detail: String,
    /// `true` when the call ran.
    pub allowed: bool,
    pub source: Source,
    /// The rule(s) that decided, when a rule did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `--allow '…'` for each rule, quoted for a POSIX shell.
pub(crate) fn allow_flags(rules: &[String]) -> String {
    rules
        .iter()
        .map(|r| format!("--allow '{}'", r.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}
