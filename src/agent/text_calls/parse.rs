//! Reading one block of text as tool calls: JSON objects or arrays of
//! `{"name", "arguments"}` (stray backslashes read literally), or
//! `<function=NAME>` blocks with `<parameter=K>V</parameter>`; names repaired
//! when exactly one offered tool is meant.

use serde_json::{Map, Value};

use crate::tools::ToolName;

/// A call recovered from text: the tool (its name repaired) and arguments
/// as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCall {
    pub tool: ToolName,
    pub arguments: Value,
}

/// Finds the offered tool a model-written name means: exact, or after
/// trimming, lower-casing and dropping a `functions.` / `tools.` prefix.
/// `None` unless exactly one offered tool matches.
pub fn repair_name(name: &str, offered: &[ToolName]) -> Option<ToolName> {
    if let Some(tool) = offered.iter().find(|t| t.as_str() == name) {
        return Some(*tool);
    }
    let cleaned = name.trim().to_ascii_lowercase();
    let cleaned = cleaned
        .strip_prefix("functions.")
        .or_else(|| cleaned.strip_prefix("tools."))
        .unwrap_or(&cleaned)
        .replace('-', "_");
    let matches: Vec<ToolName> = offered
        .iter()
        .copied()
        .filter(|t| t.as_str() == cleaned)
        .collect();
    match matches.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The calls in one block of text (a fence body, a tag body, a bare JSON
/// value), or `None` when it is not a call to offered tools. Every call in
/// the block must name an offered tool.
pub fn parse_block(text: &str, offered: &[ToolName], bare_names: bool) -> Option<Vec<TextCall>> {
    let trimmed = text.trim();
    if let Some(calls) = parse_function_tags(trimmed, offered) {
        return Some(calls);
    }
    // Small models write regexes with JSON-invalid escapes (`".*\.py$"`,
    // the 0.5B capture): read such a backslash as a literal one.
    let value: Value = serde_json::from_str(trimmed)
        .or_else(|_| serde_json::from_str(&escape_stray_backslashes(trimmed)))
        .or_else(|e| match bare_names {
            true => serde_json::from_str(&quote_bare_names(trimmed, offered)),
            false => Err(e),
        })
        .ok()?;
    let items = match value {
        Value::Array(items) if !items.is_empty() => items,
        Value::Object(_) => vec![value],
        _ => return None,
    };
    items
        .into_iter()
        .map(|item| call_from_json(item, offered))
        .collect()
}

/// `text` with a bare word after `"name":` quoted when the word is exactly
/// an offered tool's name: `{"name": edit_file, …}` is how small models
/// sometimes write it.
fn quote_bare_names(text: &str, offered: &[ToolName]) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut rest = text;
    while let Some(i) = rest.find("\"name\"") {
        let (head, tail) = rest.split_at(i + "\"name\"".len());
        out.push_str(head);
        let after_colon = tail.trim_start().strip_prefix(':');
        let word = after_colon.map(|a| {
            let a = a.trim_start();
            let end = a
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(a.len());
            (a, &a[..end])
        });
        match word {
            Some((a, word)) if offered.iter().any(|t| t.as_str() == word) => {
                out.push_str(&format!(": \"{word}\""));
                rest = &a[word.len()..];
            }
            _ => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

/// `text` with every backslash that does not start a valid JSON escape
/// doubled.
fn escape_stray_backslashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u') => {
                    out.push(c);
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                _ => out.push_str("\\\\"),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `{"name", "arguments" | "parameters"}`, or the OpenAI shape
/// `{"type": "function", "function": {"name", "arguments"}}`.
fn call_from_json(item: Value, offered: &[ToolName]) -> Option<TextCall> {
    let Value::Object(mut object) = item else {
        return None;
    };
    if let Some(Value::Object(inner)) = object.remove("function") {
        object = inner;
    }
    let name = object.get("name")?.as_str()?;
    let tool = repair_name(name, offered)?;
    let arguments = object
        .remove("arguments")
        .or_else(|| object.remove("parameters"))
        .unwrap_or(Value::Object(Map::new()));
    // Only keys a call has: an object with other keys is data, not a call.
    if object
        .keys()
        .any(|k| k != "name" && k != "type" && k != "id")
    {
        return None;
    }
    Some(TextCall { tool, arguments })
}

/// `<function=NAME><parameter=K>V</parameter>…</function>` blocks.
fn parse_function_tags(text: &str, offered: &[ToolName]) -> Option<Vec<TextCall>> {
    if !text.starts_with("<function=") {
        return None;
    }
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<function=") {
        let after = &rest[start + "<function=".len()..];
        let name_end = after.find('>')?;
        let tool = repair_name(&after[..name_end], offered)?;
        let body_end = after.find("</function>")?;
        let body = &after[name_end + 1..body_end];
        let mut arguments = Map::new();
        let mut params = body;
        while let Some(p) = params.find("<parameter=") {
            let after_p = &params[p + "<parameter=".len()..];
            let key_end = after_p.find('>')?;
            let value_end = after_p.find("</parameter>")?;
            let key = after_p[..key_end].trim().to_string();
            let value = after_p[key_end + 1..value_end]
                .strip_prefix('\n')
                .unwrap_or(&after_p[key_end + 1..value_end]);
            let value = value.strip_suffix('\n').unwrap_or(value);
            arguments.insert(key, Value::String(value.to_string()));
            params = &after_p[value_end + "</parameter>".len()..];
        }
        calls.push(TextCall {
            tool,
            arguments: Value::Object(arguments),
        });
        rest = &after[body_end + "</function>".len()..];
    }
    rest.trim().is_empty().then_some(calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const ALL: [ToolName; 7] = ToolName::ALL;

    #[test]
    fn stray_backslashes_are_read_literally() {
        let calls = parse_block(
            r#"{"name": "search", "arguments": {"pattern": ".*\.py$"}}"#,
            &ALL,
            true,
        )
        .unwrap();
        assert_eq!(calls[0].arguments, json!({"pattern": r".*\.py$"}));
        let calls = parse_block(
            r#"{"name": "search", "arguments": {"pattern": "a\nb\\c"}}"#,
            &ALL,
            true,
        )
        .unwrap();
        assert_eq!(calls[0].arguments, json!({"pattern": "a\nb\\c"}));
    }

    /// Regression: the 1.5B model wrote `{"name": edit_file, …}`, which
    /// is not JSON.
    #[test]
    fn a_bare_tool_name_is_read_as_the_name() {
        let calls = parse_block(
            r#"{"name": edit_file, "arguments": {"path": "a.py", "old_string": "x", "new_string": "y"}}"#,
            &ALL,
            true,
        )
        .unwrap();
        assert_eq!(calls[0].tool, ToolName::EditFile);
        assert_eq!(calls[0].arguments["path"], "a.py");
        assert!(parse_block(r#"{"name": rm_rf, "arguments": {}}"#, &ALL, true).is_none());
    }

    #[test]
    fn names_are_repaired_only_when_unambiguous() {
        assert_eq!(repair_name(" Read_File ", &ALL), Some(ToolName::ReadFile));
        assert_eq!(
            repair_name("functions.search", &ALL),
            Some(ToolName::Search)
        );
        assert_eq!(repair_name("list-files", &ALL), Some(ToolName::ListFiles));
        assert_eq!(repair_name("run_shell", &ALL), None);
        assert_eq!(repair_name("write_file", &[ToolName::ReadFile]), None);
    }
}
