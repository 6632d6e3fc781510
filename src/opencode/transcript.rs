//! An opencode session's transcript (`GET /session/{id}/message`) in oc's
//! own message format, for the session file and the fine-tuning record:
//! user text; assistant text, reasoning as `thinking`, tool parts as
//! `tool_calls` (arguments as objects) each answered by a `tool` message.

use serde_json::Value;

use super::wire::{Part, TranscriptMessage, error_message};
use crate::client::{Message, Role, ToolCall};

/// The messages of `transcript`, oldest first. Parts other than text,
/// reasoning and finished tool calls (steps, patches, snapshots) leave no
/// trace.
pub(crate) fn to_messages(transcript: &[TranscriptMessage]) -> Vec<Message> {
    let mut messages = Vec::new();
    for message in transcript {
        match message.info.role.as_str() {
            "user" => messages.push(Message::text(Role::User, joined(&message.parts, "text"))),
            "assistant" => assistant(&message.parts, &mut messages),
            _ => {}
        }
    }
    messages
}

fn assistant(parts: &[Part], messages: &mut Vec<Message>) {
    let calls: Vec<&Part> = parts
        .iter()
        .filter(|p| p.kind == "tool" && matches!(p.status(), "completed" | "error"))
        .collect();
    let thinking = joined(parts, "reasoning");
    let mut reply = Message::text(Role::Assistant, joined(parts, "text"));
    reply.thinking = (!thinking.is_empty()).then_some(thinking);
    reply.tool_calls = calls
        .iter()
        .zip(0u32..)
        .map(|(part, index)| {
            let mut call = ToolCall::new(&part.tool, part.state["input"].clone());
            call.id = Some(part.call_id.clone());
            call.function.index = Some(index);
            call
        })
        .collect();
    if reply.content.is_empty() && reply.tool_calls.is_empty() && reply.thinking.is_none() {
        return;
    }
    messages.push(reply);
    for part in calls {
        messages.push(Message::tool_result(
            &part.tool,
            &part.call_id,
            tool_output(part),
        ));
    }
}

/// What the tool returned, or its error as `error: …`.
pub(crate) fn tool_output(part: &Part) -> String {
    match part.state.get("output").and_then(Value::as_str) {
        Some(output) if part.status() == "completed" => output.to_string(),
        _ => format!("error: {}", error_text(&part.state["error"])),
    }
}

fn error_text(error: &Value) -> String {
    match error {
        Value::String(text) => text.clone(),
        Value::Null => "the tool failed".to_string(),
        other => error_message(other),
    }
}

/// The texts of the parts of `kind`, one after another.
fn joined(parts: &[Part], kind: &str) -> String {
    parts
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<TranscriptMessage> {
        let path = format!("{}/fixtures/opencode/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_read_becomes_a_call_its_result_and_the_answer() {
        let messages = to_messages(&fixture("11-read-messages.json"));
        let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
        );
        assert_eq!(
            messages[0].content,
            "Read notes.txt and tell me its first line."
        );
        let call = &messages[1].tool_calls[0];
        assert_eq!(call.function.name, "read");
        assert_eq!(
            call.function.arguments["filePath"],
            "/home/user/project/notes.txt"
        );
        assert_eq!(messages[2].tool_call_id, call.id);
        assert!(
            messages[2]
                .content
                .contains("1: alpha: first line of notes")
        );
        assert!(!messages[3].content.is_empty());
    }

    #[test]
    fn an_aborted_reply_keeps_its_partial_text() {
        let messages = to_messages(&fixture("31-abort-messages.json"));
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert_eq!(messages[1].role, Role::Assistant);
        assert!(!messages[1].content.is_empty());
    }

    #[test]
    fn every_call_is_answered() {
        for name in ["21-prompt-messages.json", "22-prompt-messages.json"] {
            let messages = to_messages(&fixture(name));
            let calls: Vec<_> = messages
                .iter()
                .flat_map(|m| &m.tool_calls)
                .filter_map(|c| c.id.clone())
                .collect();
            let answered: Vec<_> = messages
                .iter()
                .filter_map(|m| m.tool_call_id.clone())
                .collect();
            assert!(!calls.is_empty(), "{name}");
            assert_eq!(calls, answered, "{name}");
        }
    }
}
