//! A `permission.asked` of the opencode server, decided by oc's own
//! permission engine: the request as the oc call it amounts to (`edit` a
//! write of its paths, `bash` its command, `read` a read), then the hard
//! rules, plan mode, the rules, `--yes` and the approver, as for the
//! native runtime. Permissions oc has no tool for (`external_directory`,
//! `webfetch`, …) are settled by the mode alone: allowed with `--yes`,
//! refused in plan mode, asked otherwise.

use serde_json::Value;

use super::client::Reply;
use super::wire::PermissionRequest;
use crate::config::Settings;
use crate::permissions::{
    self, ApprovalRequest, Approver, PermissionMode, PermissionRecord, Source, Verdict,
};
use crate::protocol::Denial;
use crate::tools::{ResolvedPath, ToolInput, Workspace, bash, read_file, write_file};

/// The answer to one request, and what to record about it.
#[derive(Debug, Clone)]
pub(crate) struct Decision {
    pub reply: Reply,
    pub record: PermissionRecord,
    /// Set when it needed approval and no one could give it (exit 5).
    pub denial: Option<Denial>,
}

/// Decides `request` (made in turn `turn`).
pub(crate) fn decide(
    request: &PermissionRequest,
    settings: &Settings,
    workspace: &Workspace,
    approver: &mut dyn Approver,
    turn: u32,
) -> Decision {
    let detail = detail_of(request);
    let call = as_call(request, workspace);
    let (verdict, exact) = match &call {
        Ok(Some((input, paths))) => {
            let request = permissions::Request {
                input,
                paths,
                root: workspace.root(),
            };
            permissions::decide(settings.permission_mode, &settings.rules, &request)
        }
        Ok(None) => (
            by_mode(settings.permission_mode, &request.permission),
            Vec::new(),
        ),
        Err(reason) => (
            Verdict::Deny {
                source: Source::HardRule,
                reason: reason.clone(),
                rule: None,
            },
            Vec::new(),
        ),
    };
    let asked = |_: Option<&str>| ApprovalRequest {
        tool: request.permission.clone(),
        detail: detail.clone(),
        diff: request.metadata["diff"].as_str().map(str::to_string),
        always_rules: Vec::new(),
    };
    let settled = permissions::settle(verdict, approver, asked, &request.permission, &exact);
    let denial = settled.unapproved.map(|allow| Denial {
        tool: request.permission.clone(),
        detail: detail.clone(),
        allow,
    });
    Decision {
        reply: if settled.allowed {
            Reply::Once
        } else {
            Reply::Reject
        },
        record: PermissionRecord {
            turn,
            tool_call_id: request
                .tool
                .as_ref()
                .map(|t| t.call_id.clone())
                .unwrap_or_default(),
            tool: request.permission.clone(),
            detail,
            allowed: settled.allowed,
            source: settled.source,
            rule: settled.rule,
            reason: settled.reason,
        },
        denial,
    }
}

/// The path(s) or command the request is about.
fn detail_of(request: &PermissionRequest) -> String {
    match request.metadata["command"].as_str() {
        Some(command) if request.permission == "bash" => command.to_string(),
        _ => request.patterns.join(", "),
    }
}

/// The oc call a request amounts to, with its paths resolved; `None` for
/// a permission oc has no tool for.
///
/// Errors: a path outside the workspace (the reason, for a hard-rule
/// refusal).
fn as_call(
    request: &PermissionRequest,
    workspace: &Workspace,
) -> Result<Option<(ToolInput, Vec<ResolvedPath>)>, String> {
    let paths = || -> Result<Vec<ResolvedPath>, String> {
        // `patterns` are relative to the server's directory, the
        // workspace (`metadata.filepath` is the same file, absolute).
        request
            .patterns
            .iter()
            .map(|p| workspace.resolve(p))
            .collect()
    };
    let first =
        |paths: &[ResolvedPath]| paths.first().map(|p| p.display.clone()).unwrap_or_default();
    Ok(match request.permission.as_str() {
        "edit" => {
            let paths = paths()?;
            let input = ToolInput::WriteFile(write_file::Args {
                path: first(&paths),
                content: String::new(),
                allow_shrink: None,
            });
            Some((input, paths))
        }
        "read" => {
            let paths = paths()?;
            let input = ToolInput::ReadFile(read_file::Args {
                path: first(&paths),
                offset: None,
                limit: None,
                column: None,
            });
            Some((input, paths))
        }
        "bash" => {
            let command = match &request.metadata["command"] {
                Value::String(command) => command.clone(),
                _ => request.patterns.join(" && "),
            };
            let input = ToolInput::Bash(bash::Args {
                command,
                timeout_secs: None,
            });
            Some((input, Vec::new()))
        }
        _ => None,
    })
}

/// A permission oc has no rules for: the mode decides.
fn by_mode(mode: PermissionMode, permission: &str) -> Verdict {
    match mode {
        PermissionMode::Yolo => Verdict::Allow {
            source: Source::Yes,
            rule: None,
        },
        PermissionMode::Plan => Verdict::Deny {
            source: Source::Mode,
            reason: format!("`{permission}` is not available in plan mode"),
            rule: None,
        },
        PermissionMode::Normal => Verdict::Ask { rule: None },
    }
}
