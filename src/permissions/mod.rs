//! Permission decisions (SPEC §7): hard rules → plan mode → `--yes` →
//! defaults (reads allowed; writes, edits, moves and bash ask).

pub mod approver;
pub mod hard_rules;
pub mod rules;
pub mod secrets;
pub mod shell;

use serde::{Deserialize, Serialize};

use crate::config::PermissionMode;
use crate::tools::{ResolvedPath, ToolInput};

pub use approver::{Approval, ApprovalRequest, Approver, HeadlessApprover, TerminalApprover};

/// What settled a permission question; recorded in the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A rule nothing overrides (`.env` files, destructive commands).
    HardRule,
    /// The permission mode (plan refuses writes, `--yes` allows).
    Mode,
    /// The default policy (reads are allowed).
    Default,
    /// The person at the terminal.
    User,
    /// Approval was needed and no one could give it (no terminal).
    NoApprover,
}

/// The first-stage verdict, before anyone is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow(Source),
    Deny { source: Source, reason: String },
    Ask,
}

/// Decides a call from the hard rules, the mode and the defaults. `paths` are
/// the call's paths as resolved by the workspace (their real names are
/// checked too, so a symlink to `.env` is caught).
pub fn check(
    mode: PermissionMode,
    input: &ToolInput,
    paths: &[ResolvedPath],
    root: &std::path::Path,
) -> Verdict {
    if let Some(reason) = hard_rule(input, paths, root) {
        return Verdict::Deny {
            source: Source::HardRule,
            reason,
        };
    }
    let read_only = input.tool().is_read_only();
    match mode {
        PermissionMode::Plan if !read_only => Verdict::Deny {
            source: Source::Mode,
            reason: format!(
                "{} is not available in plan mode (read-only)",
                input.tool().as_str()
            ),
        },
        PermissionMode::Yolo => Verdict::Allow(Source::Mode),
        PermissionMode::Plan | PermissionMode::Normal if read_only => {
            Verdict::Allow(Source::Default)
        }
        PermissionMode::Normal => Verdict::Ask,
        PermissionMode::Plan => Verdict::Allow(Source::Default),
    }
}

fn hard_rule(input: &ToolInput, paths: &[ResolvedPath], root: &std::path::Path) -> Option<String> {
    let given = input.paths();
    let secret = given
        .iter()
        .map(|p| std::path::Path::new(p).to_path_buf())
        .chain(paths.iter().map(|p| p.real.clone()))
        .find(|p| hard_rules::is_secret_env_file(p));
    if let Some(path) = secret {
        return Some(format!(
            "`{}` is a secret environment file; no tool may read, write, list or search it",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ));
    }
    let writes = matches!(
        input,
        ToolInput::WriteFile(_) | ToolInput::EditFile(_) | ToolInput::MoveFile(_)
    );
    let config = paths
        .iter()
        .find(|p| hard_rules::is_project_config(&p.real));
    if let (true, Some(config)) = (writes, config) {
        return Some(format!(
            "`{}` is oc's project config; the agent may read it but never change it",
            config.display
        ));
    }
    if let ToolInput::Bash(args) = input {
        if args.command.contains(crate::config::PROJECT_CONFIG) {
            return Some(format!(
                "the command names `{}`, oc's project config, which the agent may not change",
                crate::config::PROJECT_CONFIG
            ));
        }
        if let Some(file) = hard_rules::env_file_in_command(&args.command, root) {
            return Some(format!(
                "the command names `{file}`, a secret environment file; commands may not touch it"
            ));
        }
        if let Some(why) = hard_rules::destructive_command(&args.command) {
            return Some(format!(
                "the command {why}; destructive commands are never run"
            ));
        }
    }
    None
}

/// One permission decision, as stored in the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRecord {
    /// 1-based turn the call was made in.
    pub turn: u32,
    pub tool_call_id: String,
    pub tool: String,
    /// The path(s) or command.
    pub detail: String,
    /// `true` when the call ran.
    pub allowed: bool,
    pub source: Source,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{ToolName, Workspace};
    use serde_json::json;

    fn verdict(mode: PermissionMode, tool: ToolName, args: serde_json::Value) -> Verdict {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let input = ToolInput::parse(tool, &args).unwrap();
        let paths: Vec<ResolvedPath> = input
            .paths()
            .iter()
            .filter_map(|p| ws.resolve(p).ok())
            .collect();
        check(mode, &input, &paths, ws.root())
    }

    #[test]
    fn decision_table() {
        use PermissionMode::*;
        let read = || (ToolName::ReadFile, json!({"path": "a.txt"}));
        let write = || (ToolName::WriteFile, json!({"path": "a.txt", "content": ""}));
        let bash = || (ToolName::Bash, json!({"command": "cargo test"}));
        let env_read = || (ToolName::ReadFile, json!({"path": ".env.local"}));
        let rm = || {
            (
                ToolName::Bash,
                json!({"command": "echo ok && rm -rf build"}),
            )
        };
        let config = || {
            (
                ToolName::WriteFile,
                json!({"path": ".ollama-code.json", "content": "{}"}),
            )
        };
        let config_read = || (ToolName::ReadFile, json!({"path": ".ollama-code.json"}));
        let cases = [
            (Normal, read(), "allow:default"),
            (Normal, write(), "ask"),
            (Normal, bash(), "ask"),
            (Plan, read(), "allow:default"),
            (Plan, write(), "deny:mode"),
            (Plan, bash(), "deny:mode"),
            (Yolo, read(), "allow:mode"),
            (Yolo, write(), "allow:mode"),
            (Yolo, bash(), "allow:mode"),
            (Yolo, env_read(), "deny:hard"),
            (Normal, env_read(), "deny:hard"),
            (Plan, env_read(), "deny:hard"),
            (Yolo, rm(), "deny:hard"),
            (Normal, rm(), "deny:hard"),
            (Yolo, config(), "deny:hard"),
            (Normal, config_read(), "allow:default"),
        ];
        for (mode, (tool, args), want) in cases {
            let got = match verdict(mode, tool, args.clone()) {
                Verdict::Allow(Source::Default) => "allow:default",
                Verdict::Allow(Source::Mode) => "allow:mode",
                Verdict::Deny {
                    source: Source::Mode,
                    ..
                } => "deny:mode",
                Verdict::Deny {
                    source: Source::HardRule,
                    ..
                } => "deny:hard",
                Verdict::Ask => "ask",
                other => panic!("unexpected {other:?}"),
            };
            assert_eq!(got, want, "{mode:?} {tool:?} {args}");
        }
    }

    #[test]
    fn symlink_to_env_is_caught_by_its_real_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "KEY=1").unwrap();
        std::os::unix::fs::symlink(dir.path().join(".env"), dir.path().join("notes.txt")).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let input = ToolInput::parse(ToolName::ReadFile, &json!({"path": "notes.txt"})).unwrap();
        let paths = vec![ws.resolve("notes.txt").unwrap()];
        assert!(matches!(
            check(PermissionMode::Yolo, &input, &paths, ws.root()),
            Verdict::Deny {
                source: Source::HardRule,
                ..
            }
        ));
    }
}
