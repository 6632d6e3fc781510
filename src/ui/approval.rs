//! The approval prompt on a terminal: what is asked (tool, detail, coloured
//! diff) and a dialoguer menu on stderr.

use std::io::IsTerminal;

use console::Style;

use super::term::{err_line, print_diff, sanitize, stderr_colors, style};
use crate::permissions::approver::{Approval, ApprovalRequest, Approver, HeadlessApprover};
use crate::permissions::project_config::PROJECT_CONFIG;

/// The approver for this process: a terminal prompt when stdin and stderr are
/// both terminals, else [`HeadlessApprover`].
pub(crate) fn approver_for_this_process() -> Box<dyn Approver + Send> {
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Box::new(TerminalApprover)
    } else {
        Box::new(HeadlessApprover)
    }
}

/// Shows what an approval prompt is about (tool, detail, coloured diff).
fn show_approval_request(request: &ApprovalRequest) {
    let color = stderr_colors();
    let bold = style(color, Style::new().bold());
    err_line(&format!(
        "{} {}",
        bold.apply_to(&request.tool),
        sanitize(&request.detail)
    ));
    if let Some(diff) = &request.diff {
        print_diff(diff, color);
    }
}

/// Asks on the terminal with a dialoguer prompt on stderr.
#[derive(Debug, Default)]
pub(crate) struct TerminalApprover;

impl Approver for TerminalApprover {
    fn approve(&mut self, request: &ApprovalRequest) -> Approval {
        let term = console::Term::stderr();
        show_approval_request(request);
        let mut items = vec![
            "yes".to_string(),
            "no".to_string(),
            "no, and tell the model why".to_string(),
        ];
        if !request.always_rules.is_empty() {
            items.push(format!(
                "always: add `allow {}` to {}",
                request.always_rules.join(", "),
                PROJECT_CONFIG
            ));
        }
        let choice = dialoguer::Select::new()
            .with_prompt(format!("Allow {}?", request.tool))
            .items(&items)
            .default(0)
            .interact_on_opt(&term);
        match choice {
            Ok(Some(0)) => Approval::Yes,
            Ok(Some(3)) => Approval::Always,
            Ok(Some(2)) => {
                let reason: Result<String, _> = dialoguer::Input::new()
                    .with_prompt("Reason")
                    .allow_empty(true)
                    .interact_text_on(&term);
                Approval::No {
                    reason: reason.ok().filter(|r| !r.trim().is_empty()),
                }
            }
            Ok(_) | Err(_) => Approval::No { reason: None },
        }
    }
}
