//! The ShareGPT layout as LLaMA-Factory reads it: `conversations` of
//! `human` / `gpt` / `function_call` / `observation` entries, plus
//! `system` and `tools` (a JSON string). The layout has no per-turn mask
//! (LLaMA-Factory drops extra keys): with `mask`, the conversation ends
//! before the first failed reply. It has no field for reasoning either:
//! thinking is left out, never folded into the answer.

use serde_json::{Value, json};

use super::steps::{replies_ok, up_to_last_reply};
use crate::client::Role;
use crate::session::FinetuneRecord;

/// The record as a ShareGPT line.
pub fn sharegpt(record: &FinetuneRecord, mask: bool) -> Value {
    let mut messages = up_to_last_reply(record);
    if mask && let Some(first_failed) = replies_ok(record).iter().position(|ok| !ok) {
        let at = (messages.iter().enumerate())
            .filter(|(_, m)| m.role == Role::Assistant)
            .nth(first_failed)
            .map_or(messages.len(), |(i, _)| i);
        let end = messages[..at]
            .iter()
            .rposition(|m| m.role == Role::Assistant)
            .map_or(0, |i| i + 1);
        messages = &messages[..end];
    }
    let mut conversations: Vec<Value> = Vec::new();
    let mut results: Vec<String> = Vec::new();
    let flush = |results: &mut Vec<String>, conversations: &mut Vec<Value>| {
        if results.is_empty() {
            return;
        }
        let value = if results.len() == 1 {
            results[0].clone()
        } else {
            json!(results).to_string()
        };
        conversations.push(json!({"from": "observation", "value": value}));
        results.clear();
    };
    for m in messages {
        if m.role != Role::Tool {
            flush(&mut results, &mut conversations);
        }
        match m.role {
            Role::System | Role::User => {
                conversations.push(json!({"from": "human", "value": m.content}));
            }
            Role::Assistant if m.tool_calls.is_empty() => {
                conversations.push(json!({"from": "gpt", "value": m.content}));
            }
            Role::Assistant => {
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| json!({"name": c.function.name, "arguments": c.function.arguments}))
                    .collect();
                let value = if calls.len() == 1 {
                    calls[0].to_string()
                } else {
                    json!(calls).to_string()
                };
                conversations.push(json!({"from": "function_call", "value": value}));
            }
            Role::Tool => results.push(m.content.clone()),
        }
    }
    flush(&mut results, &mut conversations);
    json!({
        "conversations": conversations,
        "system": record.system_prompt,
        "tools": serde_json::to_string(&record.tools).unwrap_or_default(),
    })
}
