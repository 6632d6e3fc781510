//! Which replies of a record a trainer learns from: a reply whose step
//! failed (see [`crate::session::Step`]) is masked, each format its own
//! way; records from before steps were kept fall back to their failed
//! calls.

use crate::client::{Message, Role};
use crate::session::FinetuneRecord;

/// Whether each assistant message of `record` is one to learn from (the
/// model wrote it and it worked), in order.
pub fn replies_ok(record: &FinetuneRecord) -> Vec<bool> {
    record
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .enumerate()
        .map(|(n, m)| match record.steps.get(n) {
            Some(step) => step.learnable(),
            None => !made_a_failed_call(m, record),
        })
        .collect()
}

/// The messages a chat-format line holds: up to the last reply and the
/// results of its calls (the user messages after it, such as the text
/// formats' results, teach nothing).
pub fn up_to_last_reply(record: &FinetuneRecord) -> &[Message] {
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
