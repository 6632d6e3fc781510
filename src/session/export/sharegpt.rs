//! The ShareGPT layout as LLaMA-Factory reads it: `conversations` of
//! `human` / `gpt` / `function_call` / `observation` entries, plus
//! `system` and `tools` (a JSON string). The layout has no per-turn mask
//! (LLaMA-Factory drops extra keys): with `mask`, the conversation ends
//! before the first failed reply. It has no field for reasoning either:
//! thinking is left out, never folded into the answer.

use serde_json::{Value, json};

use super::steps::{Replies, arguments, up_to_last_reply};
use crate::client::{Message, Role};
use crate::session::record::FinetuneRecord;

/// The record as a ShareGPT line. The reads `oc` made for the model
/// (`synthetic` replies) are no turn of its: their results go into the
/// human turn before them.
pub(super) fn sharegpt(record: &FinetuneRecord, mask: bool) -> Value {
    let replies = Replies::of(record, mask);
    let mut messages = up_to_last_reply(record);
    let assistant: Vec<usize> = (0..messages.len())
        .filter(|&i| messages[i].role == Role::Assistant)
        .collect();
    // The conversation ends with the last reply of the model's before the
    // first one not to learn from.
    let first_unlearned =
        (0..assistant.len()).find(|&n| !replies.synthetic(n) && !replies.learned(n));
    if let Some(n) = first_unlearned {
        let end = (0..n)
            .rev()
            .find(|&k| !replies.synthetic(k))
            .map_or(0, |k| assistant[k] + 1);
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
    let mut reply = 0;
    let mut by_oc = false;
    for m in messages {
        if m.role != Role::Tool {
            flush(&mut results, &mut conversations);
        }
        match m.role {
            Role::Tool if by_oc => {
                // A result of `oc`'s read: context of the human turn.
                if let Some(human) = conversations.last_mut() {
                    let text = human["value"].as_str().unwrap_or_default();
                    human["value"] = json!(format!("{text}\n\n{}", m.content));
                }
            }
            Role::Tool => results.push(m.content.clone()),
            Role::Assistant if replies.synthetic(reply) => {
                by_oc = true;
                reply += 1;
            }
            Role::System | Role::User => {
                by_oc = false;
                conversations.push(json!({"from": "human", "value": m.content}));
            }
            Role::Assistant => {
                by_oc = false;
                reply += 1;
                conversations.push(turn(m));
            }
        }
    }
    flush(&mut results, &mut conversations);
    json!({
        "conversations": conversations,
        "system": record.system_prompt,
        "tools": serde_json::to_string(&record.tools).unwrap_or_default(),
    })
}

/// A reply's turn: `gpt` with its text, or `function_call` with its calls.
fn turn(m: &Message) -> Value {
    if m.tool_calls.is_empty() {
        return json!({"from": "gpt", "value": m.content});
    }
    let calls: Vec<Value> = m
        .tool_calls
        .iter()
        .map(|c| json!({"name": c.function.name, "arguments": arguments(&c.function.arguments)}))
        .collect();
    let value = if calls.len() == 1 {
        calls[0].to_string()
    } else {
        json!(calls).to_string()
    };
    json!({"from": "function_call", "value": value})
}
