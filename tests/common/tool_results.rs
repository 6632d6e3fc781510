//! The rule the fake servers hold every chat request to: each `tool`
//! message answers a call of the assistant message before it, and every
//! call is answered before the conversation goes on.
//!
//! What each wire carries (the real captures): Ollama's `/api/chat` sends a
//! result as `{"role": "tool", "tool_name", "tool_call_id"?, "content"}`
//! after the assistant message with `tool_calls` (`fixtures/ollama/` capture
//! 08's request; the call ids are Ollama's own, `call_…`, and older
//! servers sent none). OpenAI's `/v1/chat/completions` sends
//! `{"role": "tool", "tool_call_id", "content"}` whose `tool_call_id` is the
//! `id` of a call of the assistant message before it, and every call must
//! be answered before the next assistant or user message (capture
//! `fixtures/llama-server/raw/ls-07-…request.json`; OpenAI's API refuses a
//! conversation that breaks either rule).

use serde_json::Value;

/// Which wire a request body is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// Ollama's `/api/chat`: a result names its call by `tool_call_id` and
    /// `tool_name` when it has them, else it answers the next open call.
    Ollama,
    /// OpenAI's `/v1/chat/completions`: a result names its call by
    /// `tool_call_id`, always.
    OpenAi,
}

/// One call of the assistant message the following tool messages answer.
struct Open {
    id: Option<String>,
    name: Option<String>,
    answered: bool,
}

/// `Err(why)` when a tool message of `body` (a chat request in `wire`'s
/// shape) answers no call of the assistant message before it, answers one
/// twice, or a call is left unanswered; the reason ends with an outline of
/// the request's messages.
pub(crate) fn check(body: &Value, wire: Wire) -> Result<(), String> {
    let Some(messages) = body["messages"].as_array() else {
        return Ok(());
    };
    first_problem(messages, wire).map_or(Ok(()), |why| {
        Err(format!(
            "{why}\n  the request's messages:\n{}",
            outline(messages)
        ))
    })
}

fn first_problem(messages: &[Value], wire: Wire) -> Option<String> {
    // The index of the assistant message with calls that the tool messages
    // since answer, and its calls.
    let mut open: Option<(usize, Vec<Open>)> = None;
    for (i, message) in messages.iter().enumerate() {
        let role = message["role"].as_str().unwrap_or_default();
        if role == "tool" {
            let Some((from, calls)) = open.as_mut() else {
                return Some(format!(
                    "message {i} (tool) answers no call: the message before the results is not an assistant message with tool_calls"
                ));
            };
            if let Some(why) = answer(message, calls, wire) {
                return Some(format!(
                    "message {i} (tool) does not answer a call of message {from}: {why}"
                ));
            }
            continue;
        }
        if let Some(why) = unanswered(open.take(), &format!("message {i} ({role})")) {
            return Some(why);
        }
        let calls = message["tool_calls"].as_array().filter(|c| !c.is_empty());
        if let (true, Some(calls)) = (role == "assistant", calls) {
            let calls: Vec<Open> = calls
                .iter()
                .map(|call| Open {
                    id: call["id"].as_str().map(str::to_string),
                    name: call["function"]["name"].as_str().map(str::to_string),
                    answered: false,
                })
                .collect();
            if wire == Wire::OpenAi
                && let Some(why) = ids_problem(&calls)
            {
                return Some(format!("message {i} (assistant): {why}"));
            }
            open = Some((i, calls));
        }
    }
    unanswered(open, "the end of the request")
}

/// On the OpenAI wire each call has an id of its own to be answered by.
fn ids_problem(calls: &[Open]) -> Option<String> {
    for (n, call) in calls.iter().enumerate() {
        let id = call.id.as_deref().unwrap_or_default();
        if id.is_empty() {
            return Some(format!("call {n} has no id to be answered by"));
        }
        if calls[..n].iter().any(|c| c.id.as_deref() == Some(id)) {
            return Some(format!("two calls have the id `{id}`"));
        }
    }
    None
}

/// Marks the call `message` answers; why it answers none. A result with a
/// `tool_call_id` answers the first open call with that id (and its name,
/// when the result names one: the fake server's scripted chunks may give
/// two calls of one reply the same id, which real servers do not, and
/// Ollama's wire tells them apart by name and order); on Ollama's wire a
/// result without one answers the first open call of its name, or the first
/// open call.
fn answer(message: &Value, calls: &mut [Open], wire: Wire) -> Option<String> {
    let id = message["tool_call_id"].as_str().filter(|id| !id.is_empty());
    let name = match wire {
        Wire::Ollama => message["tool_name"].as_str().or(message["name"].as_str()),
        Wire::OpenAi => message["name"].as_str(),
    };
    if id.is_none() && wire == Wire::OpenAi {
        return Some("it has no tool_call_id".to_string());
    }
    let fits = |call: &Open| {
        id.is_none_or(|id| call.id.as_deref() == Some(id))
            && name.is_none_or(|name| call.name.as_deref() == Some(name))
    };
    if let Some(call) = calls.iter_mut().find(|c| !c.answered && fits(c)) {
        call.answered = true;
        return None;
    }
    let id_known = calls
        .iter()
        .any(|c| id.is_none_or(|id| c.id.as_deref() == Some(id)));
    let fit_known = calls.iter().any(fits);
    let why = match (id, name) {
        (Some(id), _) if !id_known => format!("no call has the id `{id}`"),
        (Some(id), Some(name)) if !fit_known => {
            format!("it is named `{name}`, the call `{id}` is not")
        }
        (None, Some(name)) if !fit_known => format!("no call is named `{name}`"),
        _ => "every call it fits is answered already: one is answered twice".to_string(),
    };
    Some(format!("{why} (calls: {})", list(calls)))
}

/// Why the calls of `open` are not all answered before `next`.
fn unanswered(open: Option<(usize, Vec<Open>)>, next: &str) -> Option<String> {
    let (from, calls) = open?;
    let left: Vec<&Open> = calls.iter().filter(|c| !c.answered).collect();
    if left.is_empty() {
        return None;
    }
    let left: Vec<String> = left.iter().map(|c| describe(c)).collect();
    Some(format!(
        "message {from} (assistant) has calls no tool message answers before {next}: {}",
        left.join(", ")
    ))
}

fn describe(call: &Open) -> String {
    format!(
        "`{}` {}",
        call.id.as_deref().unwrap_or("(no id)"),
        call.name.as_deref().unwrap_or("(no name)")
    )
}

fn list(calls: &[Open]) -> String {
    calls.iter().map(describe).collect::<Vec<_>>().join(", ")
}

/// One line per message: its index, role, calls or the call it answers,
/// and the start of its text.
fn outline(messages: &[Value]) -> String {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut line = format!("    {i}: {}", m["role"].as_str().unwrap_or("?"));
            for call in m["tool_calls"].as_array().into_iter().flatten() {
                line.push_str(&format!(
                    " [call `{}` {}]",
                    call["id"].as_str().unwrap_or("(no id)"),
                    call["function"]["name"].as_str().unwrap_or("(no name)")
                ));
            }
            for key in ["tool_call_id", "tool_name", "name"] {
                if let Some(value) = m[key].as_str() {
                    line.push_str(&format!(" {key}=`{value}`"));
                }
            }
            let text = match &m["content"] {
                Value::String(text) => text.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            let head: String = text.chars().take(70).collect();
            let head = head.replace('\n', "⏎");
            if !head.is_empty() {
                line.push_str(&format!(" {head:?}"));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}
