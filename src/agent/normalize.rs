//! Tool calls as the loop runs them: every call with an id, its name and
//! arguments repaired where that is unambiguous (and the repairs noted), its
//! arguments a JSON object, as they go back on the wire.

use serde_json::Value;

use super::text_calls;
use crate::client::{Message, ToolCall};
use crate::session::{Repair, Session};
use crate::tools::{self, ToolName};
use crate::ui::Output;

/// Gives every call an id (`call_<turn>_<n>` when the server sent none),
/// repairs its name and arguments where that is unambiguous, and turns
/// `arguments` into a JSON object, which is what goes back on the wire.
/// Returns, per call, the arguments to run with (or the error for the model
/// when they were not usable; the wire then carries `{}`) and the repairs.
pub(crate) fn normalize_calls(
    calls: &mut [ToolCall],
    turn: u32,
    offered: &[ToolName],
) -> Vec<(Result<Value, String>, Vec<String>)> {
    calls
        .iter_mut()
        .enumerate()
        .map(|(n, call)| {
            if call.id.as_deref().is_none_or(str::is_empty) {
                call.id = Some(format!("call_{turn}_{n}"));
            }
            let mut notes = Vec::new();
            let tool = text_calls::repair_name(&call.function.name, offered);
            if let Some(tool) = tool.filter(|t| t.as_str() != call.function.name) {
                notes.push(format!("name `{}` read as `{}`", call.function.name, tool.as_str()));
                call.function.name = tool.as_str().to_string();
            }
            let mut arguments = std::mem::take(&mut call.function.arguments);
            if let Some(tool) = tool {
                let (repaired, repairs) = tools::lenient::repair(tool, arguments);
                arguments = repaired;
                notes.extend(repairs);
            }
            let parsed = match arguments {
                Value::Object(map) => Ok(Value::Object(map)),
                Value::Null => Ok(Value::Object(Default::default())),
                Value::String(text) => match serde_json::from_str::<Value>(&text) {
                    Ok(Value::Object(map)) => Ok(Value::Object(map)),
                    Ok(_) => Err(format!(
                        "the arguments of `{}` were the string {text:?}, which is not a JSON object; send an object such as {}",
                        call.function.name,
                        example(&call.function.name)
                    )),
                    Err(e) => Err(format!(
                        "the arguments of `{}` were a string that is not valid JSON ({e}); send an object such as {}",
                        call.function.name,
                        example(&call.function.name)
                    )),
                },
                other => Err(format!(
                    "the arguments of `{}` must be a JSON object, not {other}; send an object such as {}",
                    call.function.name,
                    example(&call.function.name)
                )),
            };
            call.function.arguments = match &parsed {
                Ok(value) => value.clone(),
                Err(_) => Value::Object(Default::default()),
            };
            (parsed, notes)
        })
        .collect()
}

fn example(name: &str) -> String {
    ToolName::from_name(name).map_or_else(|| "{\"key\": \"value\"}".to_string(), tools::signature)
}

/// Notes the repairs made to the reply's calls, in the session and on
/// `out`.
pub(crate) fn record_repairs(
    session: &mut Session,
    out: &mut dyn Output,
    message: &Message,
    parsed: &[(std::result::Result<Value, String>, Vec<String>)],
) {
    for (call, (_, notes)) in message.tool_calls.iter().zip(parsed) {
        if notes.is_empty() {
            continue;
        }
        out.note(&format!(
            "repaired {}: {}",
            call.function.name,
            notes.join("; ")
        ));
        session.repairs.push(Repair {
            turn: session.turns,
            tool_call_id: call.id.clone().unwrap_or_default(),
            notes: notes.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: Option<&str>, name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: id.map(str::to_string),
            ..ToolCall::new(name, arguments)
        }
    }

    #[test]
    fn arguments_become_objects_ids_are_filled_and_repairs_noted() {
        let mut calls = vec![
            call(Some("call_a"), "read_file", json!({"path": "a"})),
            call(None, "read_file", json!("{\"path\": \"b\"}")),
            call(Some(""), "read_file", json!("{not json")),
            call(None, "read_file", json!([1])),
            call(None, "read_file", Value::Null),
            call(
                None,
                "Functions.Read_File",
                json!({"path": {"type": "string", "value": "c"}, "limit": "5"}),
            ),
        ];
        let parsed = normalize_calls(&mut calls, 3, &ToolName::ALL);
        assert_eq!(parsed[0], (Ok(json!({"path": "a"})), vec![]));
        assert_eq!(parsed[1].0, Ok(json!({"path": "b"})));
        assert!(parsed[2].0.as_ref().unwrap_err().contains("not valid JSON"));
        assert!(
            parsed[3]
                .0
                .as_ref()
                .unwrap_err()
                .contains("must be a JSON object")
        );
        assert_eq!(parsed[4].0, Ok(json!({})));
        assert_eq!(parsed[5].0, Ok(json!({"path": "c", "limit": 5})));
        assert_eq!(parsed[5].1.len(), 3, "{:?}", parsed[5].1);
        assert_eq!(calls[5].function.name, "read_file");
        let ids: Vec<_> = calls.iter().map(|c| c.id.clone().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "call_a", "call_3_1", "call_3_2", "call_3_3", "call_3_4", "call_3_5"
            ]
        );
        assert!(calls.iter().all(|c| c.function.arguments.is_object()));
    }
}
