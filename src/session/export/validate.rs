//! What each chat layout requires of a line, checked before it is
//! written: a trainer's loader should never be the first to find out.

use serde_json::Value;

/// A `messages` line (`openai`: arguments as JSON strings of objects).
pub(super) fn messages(line: &Value, openai: bool) -> Result<(), String> {
    let messages = line["messages"].as_array().ok_or("no `messages` list")?;
    let mut open_calls: Vec<String> = Vec::new();
    let mut previous = "";
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"]
            .as_str()
            .ok_or(format!("message {i} has no role"))?;
        match role {
            "system" if i == 0 => {}
            "user" | "system" => {
                if !open_calls.is_empty() {
                    return Err(format!(
                        "message {i}: tool calls {open_calls:?} have no results"
                    ));
                }
            }
            "assistant" => {
                if !open_calls.is_empty() {
                    return Err(format!(
                        "message {i}: tool calls {open_calls:?} have no results"
                    ));
                }
                if previous == "assistant" {
                    return Err(format!("message {i}: two assistant messages in a row"));
                }
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    let id = call["id"]
                        .as_str()
                        .ok_or(format!("message {i}: a tool call has no id"))?;
                    let arguments = &call["function"]["arguments"];
                    let good = if openai {
                        arguments.as_str().is_some_and(|a| {
                            serde_json::from_str::<Value>(a).is_ok_and(|v| v.is_object())
                        })
                    } else {
                        arguments.is_object()
                            || arguments
                                .as_str()
                                .is_some_and(|a| serde_json::from_str::<Value>(a).is_ok())
                    };
                    if !good {
                        return Err(format!(
                            "message {i}: arguments of `{id}` are not in this format's shape"
                        ));
                    }
                    open_calls.push(id.to_string());
                }
                if m["tool_calls"].is_null() && !m["content"].is_string() {
                    return Err(format!(
                        "message {i}: an assistant message without content or tool calls"
                    ));
                }
            }
            "tool" => {
                let id = m["tool_call_id"]
                    .as_str()
                    .ok_or(format!("message {i}: a tool message without tool_call_id"))?;
                let Some(at) = open_calls.iter().position(|c| c == id) else {
                    return Err(format!(
                        "message {i}: tool_call_id `{id}` answers no open call"
                    ));
                };
                open_calls.remove(at);
            }
            other => return Err(format!("message {i}: unknown role `{other}`")),
        }
        previous = role;
    }
    if !open_calls.is_empty() {
        return Err(format!("tool calls {open_calls:?} have no results"));
    }
    if previous != "assistant" {
        return Err("the conversation does not end with an assistant message".into());
    }
    Ok(())
}

/// A ShareGPT line as LLaMA-Factory takes it.
pub(super) fn sharegpt(line: &Value) -> Result<(), String> {
    let turns = line["conversations"]
        .as_array()
        .ok_or("no `conversations` list")?;
    if turns.is_empty() {
        return Err("no conversation".into());
    }
    for (i, t) in turns.iter().enumerate() {
        let from = t["from"]
            .as_str()
            .ok_or(format!("entry {i} has no `from`"))?;
        let asking = matches!(from, "human" | "observation");
        let answering = matches!(from, "gpt" | "function_call");
        if !asking && !answering {
            return Err(format!("entry {i}: unknown `from` `{from}`"));
        }
        // Human and observation at even places, gpt and function_call at
        // odd ones, as LLaMA-Factory requires.
        if (i % 2 == 0) != asking {
            return Err(format!("entry {i}: `{from}` out of turn"));
        }
        if !t["value"].is_string() {
            return Err(format!("entry {i}: `value` is not text"));
        }
    }
    if turns.len() % 2 == 1 {
        return Err("the conversation does not end with an answer".into());
    }
    Ok(())
}
