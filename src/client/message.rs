//! The chat message types: Ollama's `/api/chat` wire format, which is also
//! what sessions and fine-tuning records store.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One chat message as Ollama's `/api/chat` takes it in `messages`:
/// `{"role", "content", "thinking"?, "tool_calls"?, "tool_name"?, "tool_call_id"?}`.
/// Tool results are `role: "tool"` with `tool_name` and the `tool_call_id`
/// they answer (capture `08-chat-stream-after-tool-result`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Message {
    pub role: Role,
    #[serde(default)]
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Images for a vision model: base64 without a `data:` prefix on the
    /// wire; in saved sessions and records, `images/<sha256>.<ext>` names
    /// of files under `OC_HOME` (see `crate::images::ImageStore`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
    /// An assistant reply exactly as the model wrote it, when `oc` read
    /// calls out of its text (file blocks, look-around requests): `content`
    /// then holds only its prose. The text edit formats send this back
    /// instead, so the model sees its own words and the server's cache of
    /// the conversation holds. Not part of Ollama's format (it ignores the
    /// field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
}

impl Message {
    /// A plain message with only a role and text.
    pub(crate) fn text(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            thinking: None,
            tool_calls: Vec::new(),
            tool_name: None,
            tool_call_id: None,
            images: Vec::new(),
            written: None,
        }
    }

    /// A `role: "tool"` result answering the call `id` of tool `name`.
    pub(crate) fn tool_result(name: &str, id: &str, content: impl Into<String>) -> Self {
        Message {
            tool_name: Some(name.to_string()),
            tool_call_id: Some(id.to_string()),
            ..Message::text(Role::Tool, content)
        }
    }
}

/// A tool call as Ollama streams it:
/// `{"id": "call_xxxxxxxx", "function": {"index": 0, "name": "read_file", "arguments": {…}}}`.
/// `arguments` is normally an object; some servers and models send a JSON
/// string, which the agent parses before anything runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub function: FunctionCall,
    /// Set by `oc` when the call was recovered from the model's text rather
    /// than sent as `tool_calls` (Ollama ignores the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<bool>,
}

impl ToolCall {
    /// A call of `name` with `arguments`, with no id yet (the agent gives
    /// each call one) and not marked as recovered.
    pub(crate) fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: None,
            function: FunctionCall {
                index: None,
                name: name.into(),
                arguments,
            },
            recovered: None,
        }
    }
}

/// The `function` part of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FunctionCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
}
