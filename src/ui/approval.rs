//! The approval prompt on a terminal: what is asked (tool, detail, coloured
//! diff) and a line answered with a letter, on stderr.

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

/// Asks on the terminal, on stderr: a line answered with a letter or a
/// word (`y`, `n`, `r`, `a`); Enter alone, or anything unread, is no.
#[derive(Debug, Default)]
pub(crate) struct TerminalApprover;

/// An answer typed at the approval prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Yes,
    No,
    /// No, and a reason for the model.
    Reason,
    /// Yes, and save the `allow` rules for exactly this call.
    Always,
}

/// What `line` answers (`y`/`yes`, `n`/`no` or nothing, `r`/`reason`,
/// `a`/`always` where `always` is offered), in any case; `None` for
/// anything else.
fn answer(line: &str, always: bool) -> Option<Answer> {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(Answer::Yes),
        "" | "n" | "no" => Some(Answer::No),
        "r" | "reason" => Some(Answer::Reason),
        "a" | "always" if always => Some(Answer::Always),
        _ => None,
    }
}

/// How many times an answer that is none of the offered ones is asked
/// again before it counts as no.
const TRIES: usize = 3;

impl Approver for TerminalApprover {
    fn approve(&mut self, request: &ApprovalRequest) -> Approval {
        let term = console::Term::stderr();
        show_approval_request(request);
        let always = !request.always_rules.is_empty();
        let mut choices = "y yes · n no (Enter) · r no, and tell the model why".to_string();
        if always {
            choices.push_str(&format!(
                " · a always: add `allow {}` to {}",
                request.always_rules.join(", "),
                PROJECT_CONFIG
            ));
        }
        err_line(&choices);
        let letters = if always { "y/N/r/a" } else { "y/N/r" };
        for _ in 0..TRIES {
            let _ = term.write_str(&format!("Allow {}? [{letters}] ", request.tool));
            let Ok(line) = term.read_line() else {
                return Approval::No { reason: None };
            };
            match answer(&line, always) {
                Some(Answer::Yes) => return Approval::Yes,
                Some(Answer::Always) => return Approval::Always,
                Some(Answer::No) => return Approval::No { reason: None },
                Some(Answer::Reason) => {
                    let _ = term.write_str("Reason: ");
                    let reason = term.read_line().ok();
                    return Approval::No {
                        reason: reason.filter(|r| !r.trim().is_empty()),
                    };
                }
                None => err_line(&format!("answer one of {letters}")),
            }
        }
        err_line(&format!(
            "no answer of {letters} after {TRIES} tries: taken as no"
        ));
        Approval::No { reason: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_answers_are_read_and_enter_alone_is_no() {
        for (line, always, want) in [
            ("y\n", false, Some(Answer::Yes)),
            ("YES", false, Some(Answer::Yes)),
            ("\n", false, Some(Answer::No)),
            ("n", false, Some(Answer::No)),
            ("no", true, Some(Answer::No)),
            ("r", false, Some(Answer::Reason)),
            ("a", true, Some(Answer::Always)),
            ("a", false, None),
            ("yep", false, None),
        ] {
            assert_eq!(answer(line, always), want, "{line:?}");
        }
    }
}
