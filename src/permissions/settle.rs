//! Settling a verdict, the same for both runtimes (oc's own loop and the
//! opencode server's permission requests): an allow or a deny stands; an
//! ask goes to the approver; with no one to ask, the call is denied and the
//! denial says how the user could allow it (docs/permissions.md "Without a
//! terminal").

use super::approver::{Approval, ApprovalRequest, Approver};
use super::verdict::{Source, Verdict, allow_flags};

/// A verdict settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settlement {
    /// Whether the call may run.
    pub allowed: bool,
    pub source: Source,
    /// The rule that decided; after an "always" answer, the rules it added
    /// (joined with `, `).
    pub rule: Option<String>,
    /// Why it may not run, for the record and the model.
    pub reason: Option<String>,
    /// The user answered "always": the call's exact rules are allowed from
    /// now on (the runtime keeps them where it keeps rules).
    pub always: bool,
    /// No one could approve it: what would allow it (`--allow` flags,
    /// `--yes`, or the ask rule that needs a terminal), for the run's list
    /// of denials.
    pub unapproved: Option<String>,
}

/// Settles `verdict` for the call to `tool`. `request` makes what the
/// approver is shown, given the ask rule that demands approval (if one
/// does); `exact` are the rules that would allow exactly this call.
pub(crate) fn settle(
    verdict: Verdict,
    approver: &mut dyn Approver,
    request: impl FnOnce(Option<&str>) -> ApprovalRequest,
    tool: &str,
    exact: &[String],
) -> Settlement {
    let decided = |allowed, source, rule, reason| Settlement {
        allowed,
        source,
        rule,
        reason,
        always: false,
        unapproved: None,
    };
    let rule = match verdict {
        Verdict::Allow { source, rule } => return decided(true, source, rule, None),
        Verdict::Deny {
            source,
            reason,
            rule,
        } => return decided(false, source, rule, Some(reason)),
        Verdict::Ask { rule } => rule,
    };
    match approver.approve(&request(rule.as_deref())) {
        Approval::Yes => decided(true, Source::User, rule, None),
        Approval::Always => Settlement {
            always: true,
            ..decided(true, Source::User, Some(exact.join(", ")), None)
        },
        Approval::No { reason } => {
            let why = match reason {
                Some(r) => format!("the user declined this call: {r}"),
                None => "the user declined this call".to_string(),
            };
            decided(false, Source::User, rule, Some(why))
        }
        Approval::Unavailable => Settlement {
            unapproved: Some(what_would_allow(rule.as_deref(), exact)),
            ..decided(
                false,
                Source::NoApprover,
                rule.clone(),
                Some(no_one_to_ask(tool, rule.as_deref(), exact)),
            )
        },
    }
}

/// What would have allowed a call no one could approve.
fn what_would_allow(ask_rule: Option<&str>, exact: &[String]) -> String {
    match ask_rule {
        Some(rule) => format!("the rule `ask {rule}` needs a terminal"),
        None if exact.is_empty() => "--yes".to_string(),
        None => allow_flags(exact),
    }
}

/// The reason a call no one could approve was denied, for the model: how
/// the user could allow it, and to go on without it.
fn no_one_to_ask(tool: &str, ask_rule: Option<&str>, exact: &[String]) -> String {
    let how = match ask_rule {
        Some(rule) => format!(
            "the rule `ask {rule}` requires approval and no one is at a terminal to give it. \
             Only a person at a terminal can allow it"
        ),
        None if exact.is_empty() => format!(
            "`{tool}` needs approval and no one is at a terminal to give it. \
             The user can allow it by re-running with `--yes`"
        ),
        None => format!(
            "`{tool}` needs approval and no one is at a terminal to give it. \
             The user can allow it by re-running with `--yes` or `{}`",
            allow_flags(exact)
        ),
    };
    format!("{how}. Do not retry it; go on without it, or finish and say what is needed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::HeadlessApprover;

    struct Answer(Option<Approval>);

    impl Approver for Answer {
        fn approve(&mut self, _: &ApprovalRequest) -> Approval {
            self.0.take().unwrap_or(Approval::Unavailable)
        }
    }

    fn request(_: Option<&str>) -> ApprovalRequest {
        ApprovalRequest {
            tool: "bash".into(),
            detail: "ls".into(),
            diff: None,
            always_rules: Vec::new(),
        }
    }

    #[test]
    fn allow_and_deny_stand_without_asking() {
        let allow = Verdict::Allow {
            source: Source::Rule,
            rule: Some("bash(ls)".into()),
        };
        let s = settle(allow, &mut Answer(None), request, "bash", &[]);
        assert!(s.allowed && s.rule.as_deref() == Some("bash(ls)"));
        let deny = Verdict::Deny {
            source: Source::HardRule,
            reason: "no".into(),
            rule: None,
        };
        let s = settle(deny, &mut Answer(None), request, "bash", &[]);
        assert!(!s.allowed && s.reason.as_deref() == Some("no") && s.unapproved.is_none());
    }

    #[test]
    fn answers_settle_an_ask() {
        let ask = || Verdict::Ask { rule: None };
        let exact = ["bash(ls)".to_string()];
        let s = settle(
            ask(),
            &mut Answer(Some(Approval::Always)),
            request,
            "bash",
            &exact,
        );
        assert!(s.allowed && s.always && s.rule.as_deref() == Some("bash(ls)"));
        let no = Approval::No {
            reason: Some("not now".into()),
        };
        let s = settle(ask(), &mut Answer(Some(no)), request, "bash", &exact);
        assert_eq!(
            s.reason.as_deref(),
            Some("the user declined this call: not now")
        );
        let s = settle(ask(), &mut HeadlessApprover, request, "bash", &exact);
        assert_eq!(s.source, Source::NoApprover);
        assert_eq!(s.unapproved.as_deref(), Some("--allow 'bash(ls)'"));
        assert!(
            s.reason
                .unwrap()
                .contains("re-running with `--yes` or `--allow 'bash(ls)'`")
        );
        let s = settle(ask(), &mut HeadlessApprover, request, "webfetch", &[]);
        assert_eq!(s.unapproved.as_deref(), Some("--yes"));
        let by_rule = Verdict::Ask {
            rule: Some("bash(rm *)".into()),
        };
        let s = settle(by_rule, &mut HeadlessApprover, request, "bash", &exact);
        assert_eq!(
            s.unapproved.as_deref(),
            Some("the rule `ask bash(rm *)` needs a terminal")
        );
    }
}
