//! Who answers when a call needs approval: the person at a terminal
//! (dialoguer on stderr), or nobody (CI, pipes), in which case the answer is
//! a denial that never waits.

use std::io::IsTerminal;

/// What is being asked.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    pub tool: String,
    /// The path(s) or command.
    pub detail: String,
    /// A unified diff for writes and edits.
    pub diff: Option<String>,
    /// The allow rules an "always" answer would save; empty when "always"
    /// is not offered (an `ask` rule demands asking every time).
    pub always_rules: Vec<String>,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Yes,
    /// Yes, and allow the same from now on (the request's `always_rules`
    /// are saved to the project config).
    Always,
    /// Refused, optionally with a reason passed on to the model.
    No {
        reason: Option<String>,
    },
    /// No one could be asked.
    Unavailable,
}

/// Answers approval requests.
pub trait Approver {
    fn approve(&mut self, request: &ApprovalRequest) -> Approval;
}

/// The approver for this process: a terminal prompt when stdin and stderr are
/// both terminals, else [`HeadlessApprover`].
pub fn for_this_process() -> Box<dyn Approver + Send> {
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Box::new(TerminalApprover)
    } else {
        Box::new(HeadlessApprover)
    }
}

/// Never asks: every request is [`Approval::Unavailable`].
#[derive(Debug, Default)]
pub struct HeadlessApprover;

impl Approver for HeadlessApprover {
    fn approve(&mut self, _request: &ApprovalRequest) -> Approval {
        Approval::Unavailable
    }
}

/// Asks on the terminal with a dialoguer prompt on stderr.
#[derive(Debug, Default)]
pub struct TerminalApprover;

impl Approver for TerminalApprover {
    fn approve(&mut self, request: &ApprovalRequest) -> Approval {
        let term = console::Term::stderr();
        crate::ui::show_approval_request(request);
        let mut items = vec![
            "yes".to_string(),
            "no".to_string(),
            "no, and tell the model why".to_string(),
        ];
        if !request.always_rules.is_empty() {
            items.push(format!(
                "always: add `allow {}` to {}",
                request.always_rules.join(", "),
                crate::config::PROJECT_CONFIG
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
