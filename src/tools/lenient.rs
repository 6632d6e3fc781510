//! Lenient arguments, strict execution: the few repairs of a call's
//! arguments that cannot change what the model meant, each recorded.
//! Anything else fails validation with the expected shape.

use serde_json::{Map, Value};

use super::name::ToolName;

/// The arguments with unambiguous repairs applied, and a note per repair:
///
/// - `{"type": …, "value": X}` (a schema echoed back) → `X`;
/// - a number or boolean sent as a string where the schema wants one → the
///   number or boolean;
/// - a lone string where an array of strings is wanted → a one-item array;
/// - arguments sent as a JSON string holding an object → the object.
pub(crate) fn repair(tool: ToolName, arguments: Value) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let arguments = match arguments {
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(object)) => {
                notes.push("arguments were a JSON string; parsed it".to_string());
                Value::Object(object)
            }
            _ => Value::String(text),
        },
        other => other,
    };
    let Value::Object(object) = arguments else {
        return (arguments, notes);
    };
    let schema = tool.schema();
    let properties = &schema["function"]["parameters"]["properties"];
    let mut repaired = Map::new();
    for (key, value) in object {
        let expected = properties[&key]["type"].as_str().unwrap_or("");
        let items = properties[&key]["items"]["type"].as_str().unwrap_or("");
        let value = match value {
            Value::Object(mut inner)
                if inner.len() == 2
                    && inner.contains_key("type")
                    && inner.contains_key("value") =>
            {
                notes.push(format!(
                    "`{key}` was {{\"type\", \"value\"}}; used its value"
                ));
                inner.remove("value").unwrap_or(Value::Null)
            }
            other => other,
        };
        let value = match (expected, value) {
            ("integer", Value::String(s)) if s.trim().parse::<i64>().is_ok() => {
                notes.push(format!("`{key}` was the string {s:?}; used the number"));
                s.trim().parse::<i64>().map_or(Value::Null, Value::from)
            }
            ("number", Value::String(s)) if s.trim().parse::<f64>().is_ok_and(f64::is_finite) => {
                notes.push(format!("`{key}` was the string {s:?}; used the number"));
                s.trim().parse::<f64>().map_or(Value::Null, Value::from)
            }
            ("boolean", Value::String(s)) if matches!(s.trim(), "true" | "false") => {
                notes.push(format!("`{key}` was the string {s:?}; used the boolean"));
                Value::Bool(s.trim() == "true")
            }
            ("array", Value::String(s)) if items == "string" => {
                notes.push(format!("`{key}` was one string; used a list of it"));
                Value::Array(vec![Value::String(s)])
            }
            (_, value) => value,
        };
        repaired.insert(key, value);
    }
    (Value::Object(repaired), notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn unambiguous_repairs_only() {
        // The real 1.5B capture: a schema echo around the value.
        let (args, notes) = repair(
            ToolName::ReadFile,
            json!({"path": {"type": "string", "value": "README.md"}}),
        );
        assert_eq!(args, json!({"path": "README.md"}));
        assert_eq!(notes.len(), 1);
        let (args, notes) = repair(
            ToolName::ReadFile,
            json!({"path": "a", "offset": "3", "limit": " 10 "}),
        );
        assert_eq!(args, json!({"path": "a", "offset": 3, "limit": 10}));
        assert_eq!(notes.len(), 2);
        let (args, _) = repair(ToolName::EditFile, json!({"replace_all": "true"}));
        assert_eq!(args, json!({"replace_all": true}));
        let (args, notes) = repair(ToolName::Bash, json!("{\"command\": \"ls\"}"));
        assert_eq!(args, json!({"command": "ls"}));
        assert_eq!(notes.len(), 1);
        // Not unambiguous: left for validation to refuse.
        let (args, notes) = repair(ToolName::ReadFile, json!({"offset": "three", "path": 7}));
        assert_eq!(args, json!({"offset": "three", "path": 7}));
        assert!(notes.is_empty());
    }
}
