//! The chat layouts: `openai` (OpenAI's chat fine-tuning format) and `hf`
//! (the `messages` + `tools` layout of Hugging Face chat templates, TRL's
//! SFT trainer and axolotl's `chat_template` datasets). A line ends with
//! the last reply; a failed reply is masked: `weight: 0` (OpenAI), `train:
//! false` (`hf`, axolotl's `message_field_training: train`).

use serde_json::{Value, json};

use super::steps::{Replies, arguments, up_to_last_reply};
use crate::client::{Message, Role, ToolCall};
use crate::session::record::FinetuneRecord;

/// The record as an OpenAI chat fine-tuning line: `{"messages", "tools",
/// "parallel_tool_calls"}` (the last two when tools were offered);
/// assistant `tool_calls` with arguments as JSON strings, `tool` messages
/// with `tool_call_id`; with `mask`, `weight` 0 or 1 on every assistant
/// message (and `weight: 0` on a reply `oc` wrote, mask or not). The
/// format has no field for reasoning: it is left out.
pub(super) fn openai(record: &FinetuneRecord, mask: bool) -> Value {
    let assistant = |m: &Message| {
        let mut out = json!({"role": "assistant", "content": m.content});
        if !m.tool_calls.is_empty() {
            if m.content.is_empty() {
                out["content"] = Value::Null;
            }
            out["tool_calls"] = calls(&m.tool_calls, |a| json!(a.to_string()));
        }
        out
    };
    let tool =
        |m: &Message| json!({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content});
    let marks = |learned: bool| ("weight", json!(u8::from(learned)));
    let mut line = json!({"messages": messages(record, mask, &assistant, &tool, &marks)});
    if !record.tools.is_empty() {
        line["tools"] = json!(record.tools);
        line["parallel_tool_calls"] = json!(parallel(record));
    }
    line
}

/// The record as a Hugging Face chat line: `{"messages", "tools"}`;
/// assistant `tool_calls` with arguments as objects (strings with
/// `arguments_as_string`), `tool` messages with `name`, the model's
/// thinking as `reasoning_content`; with `mask`, `train` true or false on
/// every assistant message (and `train: false` on a reply `oc` wrote,
/// mask or not).
pub(super) fn hf(record: &FinetuneRecord, mask: bool, arguments_as_string: bool) -> Value {
    let assistant = |m: &Message| {
        let mut out = json!({"role": "assistant", "content": m.content});
        if let Some(thinking) = m.thinking.as_ref().filter(|t| !t.is_empty()) {
            out["reasoning_content"] = json!(thinking);
        }
        if !m.tool_calls.is_empty() {
            out["tool_calls"] = calls(&m.tool_calls, |a| match arguments_as_string {
                true => json!(a.to_string()),
                false => a.clone(),
            });
        }
        out
    };
    let tool = |m: &Message| json!({"role": "tool", "name": m.tool_name, "tool_call_id": m.tool_call_id, "content": m.content});
    let marks = |learned: bool| ("train", json!(learned));
    let messages = messages(record, mask, &assistant, &tool, &marks);
    json!({"messages": messages, "tools": record.tools})
}

/// The line's messages: the system prompt, then the record's up to its
/// last reply, each reply as `assistant` writes it with the mark `mark`
/// gives it (when it gets one), each result as `tool` writes it.
fn messages(
    record: &FinetuneRecord,
    mask: bool,
    assistant: &dyn Fn(&Message) -> Value,
    tool: &dyn Fn(&Message) -> Value,
    mark: &dyn Fn(bool) -> (&'static str, Value),
) -> Vec<Value> {
    let replies = Replies::of(record, mask);
    let mut n = 0;
    let mut out = vec![json!({"role": "system", "content": record.system_prompt})];
    for m in up_to_last_reply(record) {
        out.push(match m.role {
            Role::System | Role::User => json!({"role": role(m.role), "content": m.content}),
            Role::Assistant => {
                let mut reply = assistant(m);
                if replies.marked(n) {
                    let (key, value) = mark(replies.learned(n));
                    reply[key] = value;
                }
                n += 1;
                reply
            }
            Role::Tool => tool(m),
        });
    }
    out
}

/// `tool_calls` in the chat layout, arguments as `shape` gives them.
fn calls(calls: &[ToolCall], shape: impl Fn(&Value) -> Value) -> Value {
    calls
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": shape(&arguments(&c.function.arguments))},
            })
        })
        .collect()
}

/// Whether a reply of the record made more than one call.
fn parallel(record: &FinetuneRecord) -> bool {
    record.messages.iter().any(|m| m.tool_calls.len() > 1)
}

pub(super) fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}
