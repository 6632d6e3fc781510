//! Tool calls written as text, read the same way by both runtimes (oc's
//! loop runs them; the opencode runtime says a final answer that is only
//! such a call did nothing). Reading one block of text as tool calls: JSON objects or arrays of
//! `{"name", "arguments"}` (stray backslashes read literally), or
//! `<function=NAME>` blocks with `<parameter=K>V</parameter>`; names repaired
//! when exactly one offered tool is meant.

use serde_json::{Map, Value};

use crate::tools::ToolName;

/// A call recovered from text: the name (repaired to an offered tool's
/// when one is meant; an unknown name stays as written, and the call gets
/// the same error as a native call to an unknown tool) and the arguments as
/// sent (a JSON string when the call's JSON did not parse: it then gets the
/// JSON error).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextCall {
    pub name: String,
    pub arguments: Value,
}

/// Finds the offered tool a model-written name means: exact, or after
/// trimming, lower-casing and dropping a `functions.` / `tools.` prefix.
/// `None` unless exactly one offered tool matches.
pub(crate) fn repair_name(name: &str, offered: &[ToolName]) -> Option<ToolName> {
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
/// value), or `None` when it is not a call. A block is a call by its shape
/// (`{"name", "arguments"}` and nothing else, or `<function=…>`), whatever
/// the name.
pub(crate) fn parse_block(text: &str, offered: &[ToolName]) -> Option<Vec<TextCall>> {
    let trimmed = text.trim();
    if let Some(calls) = parse_function_tags(trimmed, offered) {
        return Some(calls);
    }
    // Small models write regexes with JSON-invalid escapes (`".*\.py$"`,
    // the 0.5B capture): read such a backslash as a literal one.
    let value: Value = serde_json::from_str(trimmed)
        .or_else(|_| serde_json::from_str(&escape_stray_backslashes(trimmed)))
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

/// The offered tool's name when `name` means one, else `name` as written.
fn named(name: &str, offered: &[ToolName]) -> String {
    repair_name(name, offered).map_or_else(|| name.trim().to_string(), |t| t.as_str().to_string())
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
    let name = named(object.get("name")?.as_str()?, offered);
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
    Some(TextCall { name, arguments })
}

/// `<function=NAME><parameter=K>V</parameter>…</function>` blocks. A
/// parameter without `</parameter>` runs to the next `<parameter=` or to
/// `</function>`.
fn parse_function_tags(text: &str, offered: &[ToolName]) -> Option<Vec<TextCall>> {
    if !text.starts_with("<function=") {
        return None;
    }
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<function=") {
        let after = &rest[start + "<function=".len()..];
        let name_end = after.find('>')?;
        let name = named(&after[..name_end], offered);
        let body_end = after.find("</function>")?;
        let body = &after[name_end + 1..body_end];
        let mut arguments = Map::new();
        let mut params = body;
        while let Some(p) = params.find("<parameter=") {
            let after_p = &params[p + "<parameter=".len()..];
            let key_end = after_p.find('>')?;
            let value_and_rest = &after_p[key_end + 1..];
            let (value, next) = match (
                value_and_rest.find("</parameter>"),
                value_and_rest.find("<parameter="),
            ) {
                (Some(close), Some(open)) if open < close => (&value_and_rest[..open], open),
                (Some(close), _) => (&value_and_rest[..close], close + "</parameter>".len()),
                (None, Some(open)) => (&value_and_rest[..open], open),
                (None, None) => (value_and_rest, value_and_rest.len()),
            };
            let key = after_p[..key_end].trim().to_string();
            let value = value.strip_prefix('\n').unwrap_or(value);
            let value = value.strip_suffix('\n').unwrap_or(value);
            arguments.insert(key, Value::String(value.to_string()));
            params = &value_and_rest[next..];
        }
        calls.push(TextCall {
            name,
            arguments: Value::Object(arguments),
        });
        rest = &after[body_end + "</function>".len()..];
    }
    rest.trim().is_empty().then_some(calls)
}

/// Whether `text` holds, at the start of one of its lines, a JSON object
/// that is a call to a tool (`{"name": "write_file", "arguments": {…}}`),
/// between prose or not.
pub(crate) fn holds_bare_call(text: &str) -> bool {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('{') {
            let start = at + (line.len() - line.trim_start().len());
            let mut values =
                serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
            if let Some(Ok(value)) = values.next()
                && is_tool_call(&value.to_string())
            {
                return true;
            }
        }
        at += line.len();
    }
    false
}

/// The body of a ``` fence (`None` when `fence` is not one): what follows
/// its first line break, its label (```` ```json ````) whatever it is.
pub(crate) fn fence_body(fence: &str) -> Option<&str> {
    let inner = fence.strip_prefix("```")?.strip_suffix("```")?;
    Some(inner.split_once('\n').map_or(inner, |(_, body)| body))
}

/// Whether `text` is nothing but tool calls written as text: each fence
/// (any label) and each line outside fences is a call, or the text holds
/// a call in `<tool_call>` or `[tool_call]` tags (markup no answer
/// holds). A call is a JSON `{"name", "arguments" | "parameters"}` to any
/// tool (JSON that does not parse counts when it starts as one does), a
/// `<function=…>` block, or calls of oc's tools written as Python
/// (`read_file(path="a.py")`). What a model sends when its calls do not
/// reach the server as calls: a reply that explains a call among prose is
/// an answer. `oc_tools`: only calls that name one of oc's tools count
/// outside tags (JSON that names none is data), else any name does (the
/// opencode runtime's tools have other names).
pub(crate) fn is_call_written_as_text(text: &str, oc_tools: bool) -> bool {
    let is_call = |body: &str| is_call(body, oc_tools);
    let mut calls = 0;
    let mut outside = String::new();
    let parts: Vec<&str> = text.split("```").collect();
    for (n, part) in parts.iter().enumerate() {
        // An odd part is a fence's inside, unless it is the unclosed last.
        let fenced = n % 2 == 1 && n + 1 < parts.len();
        match (fenced, part.split_once('\n')) {
            (true, Some((_, body))) if is_call(body) => calls += 1,
            (true, _) => return false,
            (false, _) => outside.push_str(part),
        }
    }
    if tagged_call(&outside) || (!outside.trim().is_empty() && is_call(&outside)) {
        return true;
    }
    let mut lines = outside.lines().map(str::trim).filter(|l| !l.is_empty());
    lines.all(|line| {
        calls += 1;
        is_call(line)
    }) && calls > 0
}

/// Whether `body` is one call, or only calls, as [`is_call_written_as_text`]
/// reads them.
fn is_call(body: &str, oc_tools: bool) -> bool {
    let body = body.trim();
    let named = |name: &str| !oc_tools || repair_name(name, &ToolName::ALL).is_some();
    let parsed = parse_block(body, &ToolName::ALL);
    parsed.is_some_and(|calls| !calls.is_empty() && calls.iter().all(|c| named(&c.name)))
        || broken_call_name(body).is_some_and(named)
        || python_calls_only(body)
}

/// Whether `text` holds a call in `<tool_call>` or `[tool_call]` tags
/// (closed or not).
fn tagged_call(text: &str) -> bool {
    [
        ("<tool_call>", "</tool_call>"),
        ("[tool_call]", "[/tool_call]"),
    ]
    .iter()
    .any(|(open, close)| {
        text.split(open)
            .skip(1)
            .any(|after| is_call(after.split(close).next().unwrap_or_default(), false))
    })
}

/// Whether the lines of `body`, comments and blank ones aside, are each a
/// call of one of oc's tools written as Python (`read_file(path="a.py")`).
fn python_calls_only(body: &str) -> bool {
    let is_call = |line: &str| {
        let open = line.find('(').unwrap_or(0);
        line.ends_with(')') && repair_name(&line[..open], &ToolName::ALL).is_some()
    };
    let lines = body.lines().map(str::trim);
    let mut code = lines.filter(|l| !l.is_empty() && !l.starts_with('#'));
    code.clone().next().is_some() && code.all(is_call)
}

/// The NAME of JSON that may not parse but starts `{"name": "NAME"` and
/// holds `"arguments"` or `"parameters"`.
fn broken_call_name(text: &str) -> Option<&str> {
    let rest = text.trim_start_matches('[').trim_start();
    let rest = (rest.strip_prefix('{'))
        .and_then(|r| r.trim_start().strip_prefix("\"name\""))
        .and_then(|r| r.trim_start().strip_prefix(':'))
        .map(|r| r.trim_start().trim_start_matches('"'))?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(rest.len());
    let args = text.contains("\"arguments\"") || text.contains("\"parameters\"");
    (end > 0 && args).then(|| &rest[..end])
}

/// Whether `text` is a call to one of oc's tools written as JSON (a
/// `{"name": "mean", …}` object that names no tool is an answer).
pub(crate) fn is_tool_call(text: &str) -> bool {
    parse_block(text, &ToolName::ALL).is_some_and(|calls| {
        !calls.is_empty() && calls.iter().all(|c| ToolName::from_name(&c.name).is_some())
    })
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
        )
        .unwrap();
        assert_eq!(calls[0].arguments, json!({"pattern": r".*\.py$"}));
        let calls = parse_block(
            r#"{"name": "search", "arguments": {"pattern": "a\nb\\c"}}"#,
            &ALL,
        )
        .unwrap();
        assert_eq!(calls[0].arguments, json!({"pattern": "a\nb\\c"}));
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

    /// Regression: calls that could not run were shown as the answer and the
    /// run counted as a success. A call is a call by its shape, whatever
    /// its name.
    #[test]
    fn unknown_names_are_calls_that_get_errors() {
        let calls = parse_block(
            r#"{"name": "create_goal", "arguments": {"goal": "x"}}"#,
            &ALL,
        )
        .unwrap();
        assert_eq!(calls[0].name, "create_goal");
        assert!(
            parse_block(r#"{"name": "Ada", "age": 3}"#, &ALL).is_none(),
            "data"
        );
        assert!(
            parse_block("{\"name\": \"x\"", &ALL).is_none(),
            "no arguments: not a call"
        );
    }

    #[test]
    fn function_parameters_without_closing_tags() {
        let calls = parse_block(
            "<function=write_file><parameter=path>a.txt<parameter=content>hi\nthere\n</function>",
            &ALL,
        )
        .unwrap();
        assert_eq!(
            calls[0].arguments,
            json!({"path": "a.txt", "content": "hi\nthere"})
        );
    }

    /// Regression: a correct answer that shows how to call a function
    /// named like a tool (`read_file("settings.ini")` after a sentence)
    /// ended as a call left unrun, and so did a made change whose last
    /// reply showed an example call.
    #[test]
    fn calls_alone_are_calls_and_calls_in_answers_are_answers() {
        for reply in [
            "```python\nread_file(path=\"README.md\")\n```",
            "```py\n# first\nfunctions.search(pattern='x')\nread_file(\"a\")\n```\n\n```\nlist_files()\n```",
            "```python\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}\n```",
            "read_file(path=\"a.py\")",
            "Let me read the file first.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}</tool_call>",
            "{\"arguments\": {\"path\": \"a\"}, \"name\": \"read_file\"}",
        ] {
            assert!(is_call_written_as_text(reply, true), "{reply}");
        }
        for reply in [
            "Call it with the path:\n```python\nread_file(\"settings.ini\")\n```",
            "Added `search`.\n```python\nsearch([1, 2, 3], 2)\n```",
            "```python\nimport json\nsearch(pattern=\"x\")\n```",
            "```python\nprint(read_file(\"a\"))\n```",
            "```python\n\n```",
            "It prints the sum.",
            "",
            r#"{"name": "myapp", "arguments": {"port": 8080}}"#,
        ] {
            assert!(!is_call_written_as_text(reply, true), "{reply}");
        }
    }

    /// What qwen2.5-coder:1.5b answered through opencode 1.18.33 and
    /// Ollama's `/v1` with the registry template (a real run).
    #[test]
    fn a_call_written_as_text_is_seen() {
        let real = r#"{"name": "read", "arguments": {"filePath": "/tmp/ws/note.txt", "limit": 2000, "offset": 1}}"#;
        assert!(is_call_written_as_text(real, false));
        assert!(is_call_written_as_text(
            &format!("```json\n{real}\n```"),
            false
        ));
        assert!(is_call_written_as_text(
            &format!("<tool_call>\n{real}\n</tool_call>"),
            false
        ));
        // Another real answer: arguments as a string, closed with a stray backtick.
        let string_arguments = r#"{"name": "read", "arguments": "{\"filePath\":\"/tmp/notes.txt\", \"offset\":1, \"limit\":1}`}"#;
        assert!(is_call_written_as_text(string_arguments, false));
        assert!(is_call_written_as_text(
            r#"{"name": "read", "arguments": {"filePath": "a"}"#,
            false
        ));
        for answer in [
            "The first line is `alpha: first line of notes`.",
            r#"{"name": "config", "version": 2}"#,
            "",
        ] {
            assert!(!is_call_written_as_text(answer, false), "{answer}");
        }
    }
}
