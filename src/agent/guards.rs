//! Guards against what small models do wrong in a loop (ARCHITECTURE.md): the same
//! call again and again, an empty reply, and calls in a reply cut off at the
//! length limit. Each guard decides; the turn loop acts on the decision.

use serde_json::Value;

use super::reply::Cut;
use crate::session::{CutReply, Session};
use crate::tools::{ToolInput, ToolName};
use crate::ui::Output;

pub(crate) use crate::job::nudges::{CUT_OFF, NUDGE, NUDGE_IN_TEXT, NUDGE_TO_ANSWER, UNPLACED};

/// The same call this many times in a row is not run again.
pub(crate) const REPEAT_BLOCK: u32 = 3;
/// The same call this many times in a row ends the run (exit 4).
pub(crate) const REPEAT_STOP: u32 = 5;

/// What to do with a call, given the calls before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// Not a repeat worth stopping: run it.
    Run,
    /// The same call this many times in a row: answer without running it.
    Block(u32),
    /// The same call [`REPEAT_STOP`] times in a row: end the run.
    Stop,
}

/// Counts identical calls (same name, same arguments in any key order) in a
/// row, across turns.
#[derive(Debug, Default)]
pub(crate) struct RepeatGuard {
    last: String,
    count: u32,
}

impl RepeatGuard {
    /// Notes the call and says what to do with it.
    pub(crate) fn check(&mut self, name: &str, arguments: &Value) -> Repeat {
        let signature = format!("{name} {}", canonical(arguments));
        if self.last == signature {
            self.count += 1;
        } else {
            self.last = signature;
            self.count = 1;
        }
        match self.count {
            n if n >= REPEAT_STOP => Repeat::Stop,
            n if n >= REPEAT_BLOCK => Repeat::Block(n),
            _ => Repeat::Run,
        }
    }
}

/// The text a blocked repeat gets instead of a result.
pub(crate) fn repeat_blocked(times: u32) -> String {
    format!(
        "not run: this is the same call with the same arguments {times} times in a row, and its result would not change. Use the results you already have, or take another approach."
    )
}

/// What to do after a reply, as far as emptiness goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EmptyReply {
    /// The reply has content or calls.
    Fine,
    /// The first empty reply in a row: ask the model once to go on.
    Nudge,
    /// A second empty reply in a row: give up.
    GiveUp,
}

/// One nudge for an empty reply, then failure.
#[derive(Debug, Default)]
pub(crate) struct EmptyReplyGuard {
    nudged: bool,
}

impl EmptyReplyGuard {
    /// Notes whether the reply was empty and says what to do.
    pub(crate) fn check(&mut self, empty: bool) -> EmptyReply {
        match (empty, self.nudged) {
            (false, _) => {
                self.nudged = false;
                EmptyReply::Fine
            }
            (true, false) => {
                self.nudged = true;
                EmptyReply::Nudge
            }
            (true, true) => EmptyReply::GiveUp,
        }
    }
}

/// Records a reply cut short (`cap`: the reply cap in tokens), and says so.
pub(crate) fn note_cut(session: &mut Session, cut: Cut, cap: Option<u32>, out: &mut dyn Output) {
    session.cut_replies.push(CutReply {
        turn: session.turns,
        reason: cut.as_str().to_string(),
    });
    out.warn(&match cut {
        Cut::Length => format!(
            "the reply reached the cap of {} tokens and was cut off; its calls are not run",
            cap.unwrap_or_default()
        ),
    });
}

/// What the model is told after a reply without calls that was cut short.
pub(crate) fn cut_message(cut: Cut, cap: Option<u32>) -> String {
    match cut {
        Cut::Length => format!(
            "Your reply was cut off at the length limit ({} tokens) and is incomplete. Make smaller changes, one file or one edit at a time.",
            cap.unwrap_or_default()
        ),
    }
}

/// `value` as JSON with object keys sorted: the same arguments in another
/// order give the same text.
fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// What a call not run is shown by (its path, its command): the tool's
/// own detail, or the `path` its arguments hold when they do not parse
/// whole (a call cut off at the length limit).
pub(crate) fn detail_of(name: &str, arguments: &Value) -> String {
    ToolName::from_name(name)
        .and_then(|t| ToolInput::parse(t, arguments).ok())
        .map(|input| input.detail())
        .or_else(|| arguments["path"].as_str().map(str::to_string))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_arguments_ignore_key_order() {
        assert_eq!(
            canonical(&json!({"b": 1, "a": {"d": 2, "c": 3}})),
            canonical(&json!({"a": {"c": 3, "d": 2}, "b": 1}))
        );
    }

    #[test]
    fn repeats_are_blocked_on_the_third_and_stopped_on_the_fifth() {
        let mut guard = RepeatGuard::default();
        let same = json!({"path": "a"});
        let seen: Vec<Repeat> = (0..5).map(|_| guard.check("read_file", &same)).collect();
        assert_eq!(
            seen,
            [
                Repeat::Run,
                Repeat::Run,
                Repeat::Block(3),
                Repeat::Block(4),
                Repeat::Stop
            ]
        );
        assert_eq!(guard.check("read_file", &json!({"path": "b"})), Repeat::Run);
    }

    #[test]
    fn one_nudge_per_run_of_empty_replies() {
        let mut guard = EmptyReplyGuard::default();
        assert_eq!(guard.check(true), EmptyReply::Nudge);
        assert_eq!(guard.check(true), EmptyReply::GiveUp);
        assert_eq!(guard.check(false), EmptyReply::Fine);
        assert_eq!(guard.check(true), EmptyReply::Nudge);
    }
}
