//! The fenced-tool protocol's side of the wire: a model without native tool
//! calling gets its tools in the system prompt and writes calls as ```tool
//! fences; here the conversation is put into the form it can read.

use super::message::{Message, Role};

/// The conversation as a model without native tool calling sees it: its
/// calls as the ```tool fences it wrote, their results as user messages in
/// a fixed frame. Deterministic, so the prefix stays byte-stable.
pub(crate) fn fenced_wire(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|m| match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut content = m.content.trim_end().to_string();
                for call in &m.tool_calls {
                    let body = serde_json::json!({
                        "name": call.function.name,
                        "arguments": call.function.arguments,
                    });
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    content.push_str(&format!("```tool\n{body}\n```"));
                }
                Message {
                    tool_calls: Vec::new(),
                    ..Message::text(Role::Assistant, content)
                }
            }
            Role::Tool => Message::text(
                Role::User,
                format!(
                    "[result of {} {}]\n{}",
                    m.tool_name.as_deref().unwrap_or("tool"),
                    m.tool_call_id.as_deref().unwrap_or(""),
                    m.content
                ),
            ),
            Role::System | Role::User | Role::Assistant => m.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::message::ToolCall;
    use serde_json::{Value, json};

    fn call(id: Option<&str>, name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: id.map(str::to_string),
            ..ToolCall::new(name, arguments)
        }
    }

    #[test]
    fn fenced_wire_turns_calls_into_fences_and_results_into_user_messages() {
        let mut assistant = Message::text(Role::Assistant, "Looking.");
        assistant.tool_calls = vec![call(Some("call_1"), "list_files", json!({"pattern": "*"}))];
        let messages = vec![
            assistant,
            Message::tool_result("list_files", "call_1", "a.py"),
        ];
        let wire = fenced_wire(&messages);
        assert_eq!(
            wire[0].content,
            "Looking.\n```tool\n{\"name\":\"list_files\",\"arguments\":{\"pattern\":\"*\"}}\n```"
        );
        assert!(wire[0].tool_calls.is_empty());
        assert_eq!(wire[1].role, Role::User);
        assert_eq!(wire[1].content, "[result of list_files call_1]\na.py");
    }
}
