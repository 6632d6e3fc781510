//! Which replies of a record a trainer learns from: never one `oc` wrote
//! (`synthetic`), and with the mask not one that failed (see
//! [`crate::session::Step`]); each format marks them its own way. Records
//! from before steps were kept fall back to their failed calls and the
//! grounding's call ids.

use crate::client::{Message, Role};
use crate::session::record::FinetuneRecord;
use crate::session::step::is_grounding_read;

/// What each assistant message of a record is, in order.
#[derive(Debug, Clone)]
pub(super) struct Replies {
    /// It did what it meant to.
    pub ok: Vec<bool>,
    /// `oc` wrote it, not the model.
    pub synthetic: Vec<bool>,
    /// Failed replies are not learned from.
    pub mask: bool,
}

impl Replies {
    pub(super) fn of(record: &FinetuneRecord, mask: bool) -> Replies {
        let assistant: Vec<&Message> = (record.messages.iter())
            .filter(|m| m.role == Role::Assistant)
            .collect();
        let (ok, synthetic) = assistant
            .iter()
            .enumerate()
            .map(|(n, m)| match record.steps.get(n) {
                Some(step) => (step.ok, step.synthetic),
                None => (!made_a_failed_call(m, record), is_grounding_read(m)),
            })
            .unzip();
        Replies {
            ok,
            synthetic,
            mask,
        }
    }

    /// Whether reply `n` is learned from.
    pub(super) fn learned(&self, n: usize) -> bool {
        !self.synthetic.get(n).copied().unwrap_or(false)
            && (!self.mask || self.ok.get(n).copied().unwrap_or(true))
    }

    /// Whether reply `n` gets a mark (`weight`, `train`): every reply with
    /// the mask, and those `oc` wrote always.
    pub(super) fn marked(&self, n: usize) -> bool {
        self.mask || self.synthetic.get(n).copied().unwrap_or(false)
    }

    /// Whether reply `n` was written by `oc`.
    pub(super) fn synthetic(&self, n: usize) -> bool {
        self.synthetic.get(n).copied().unwrap_or(false)
    }

    /// Whether any reply is learned from.
    pub(super) fn any_learned(&self) -> bool {
        (0..self.ok.len()).any(|n| self.learned(n))
    }
}

/// The messages a chat-format line holds: up to the last reply and the
/// results of its calls (the user messages after it, such as the text
/// formats' results, teach nothing).
pub(super) fn up_to_last_reply(record: &FinetuneRecord) -> &[Message] {
    let messages = &record.messages;
    let Some(last) = messages.iter().rposition(|m| m.role == Role::Assistant) else {
        return &[];
    };
    let results = messages[last + 1..]
        .iter()
        .take_while(|m| m.role == Role::Tool)
        .count();
    &messages[..last + 1 + results]
}

/// Whether the assistant message made a call that failed.
fn made_a_failed_call(message: &Message, record: &FinetuneRecord) -> bool {
    message.tool_calls.iter().any(|c| {
        c.id.as_ref()
            .is_some_and(|id| record.failed_tool_calls.contains(id))
    })
}

/// A call's arguments as an object: arguments a record holds as a JSON
/// string of an object are that object; others are as they are.
pub(super) fn arguments(value: &serde_json::Value) -> serde_json::Value {
    match value
        .as_str()
        .map(serde_json::from_str::<serde_json::Value>)
    {
        Some(Ok(parsed)) if parsed.is_object() => parsed,
        _ => value.clone(),
    }
}
