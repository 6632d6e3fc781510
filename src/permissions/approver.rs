//! The approver seam: who answers when a call needs approval. The person at
//! a terminal ([`crate::ui::TerminalApprover`]), or nobody (CI, pipes:
//! [`HeadlessApprover`]), whose answer is a denial that never waits.

/// What is being asked.
#[derive(Debug, Clone)]
pub(crate) struct ApprovalRequest {
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
pub(crate) enum Approval {
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
pub(crate) trait Approver {
    fn approve(&mut self, request: &ApprovalRequest) -> Approval;
}

/// Never asks: every request is [`Approval::Unavailable`].
#[derive(Debug, Default)]
pub(crate) struct HeadlessApprover;

impl Approver for HeadlessApprover {
    fn approve(&mut self, _request: &ApprovalRequest) -> Approval {
        Approval::Unavailable
    }
}
