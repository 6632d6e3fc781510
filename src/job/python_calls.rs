//! Tool calls written as Python in a fence (```` ```python ````
//! `read_file(path="README.md")`), as small models trained on Python tool
//! use send them in place of a real call. A fence body is such a call only
//! when the whole of it is calls, blank lines and comments aside: each a
//! statement `NAME(key=value, …)` whose name means one of oc's tools. Its
//! values are Python literals: strings (quoted any way, raw or not,
//! adjacent ones joined), numbers, `True`, `False`, `None`, lists, tuples
//! and dicts with string keys. A body with anything else (an import, an
//! assignment, a call of the call's result) is ordinary code.

use serde_json::{Map, Number, Value};

use super::calls_in_text::{TextCall, fence_body, repair_name};
use crate::tools::ToolName;

/// What a fence body written as Python calls amounts to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reading {
    /// Every call names an offered tool with keyword arguments that parse:
    /// they can run.
    Calls(Vec<TextCall>),
    /// A call that cannot run (a tool not offered, a positional argument,
    /// a value that is not a literal): the tool it names.
    Unusable(String),
}

/// The body read as Python calls to `offered` tools; `None` when it is
/// not only calls to oc's tools (ordinary code, or no call at all).
pub(crate) fn read(body: &str, offered: &[ToolName]) -> Option<Reading> {
    let mut text = Text::new(body);
    let mut calls = Vec::new();
    let mut unusable: Option<String> = None;
    loop {
        text.skip_space(true);
        if text.at_end() {
            break;
        }
        let name = text.word()?;
        let tool = repair_name(&name, &ToolName::ALL)?;
        text.skip_space(false);
        let open = text.pos;
        text.eat('(').then_some(())?;
        text.pos = open;
        let close = text.matching_close()?;
        let inner: String = text.chars[open + 1..close].iter().collect();
        text.pos = close + 1;
        text.skip_space(false);
        if !(text.at_end() || text.eat('\n') || text.eat(';') || text.peek() == Some('#')) {
            return None;
        }
        let arguments = keyword_arguments(&inner);
        match arguments {
            Some(arguments) if offered.contains(&tool) => calls.push(TextCall {
                name: tool.as_str().to_string(),
                arguments,
            }),
            _ => {
                unusable.get_or_insert_with(|| tool.as_str().to_string());
            }
        }
    }
    match (unusable, calls.is_empty()) {
        (Some(name), _) => Some(Reading::Unusable(name)),
        (None, false) => Some(Reading::Calls(calls)),
        (None, true) => None,
    }
}

/// The first fence of `content` whose body reads as Python calls to oc's
/// tools (see [`read`]), as it reads.
pub(crate) fn in_fences(content: &str, offered: &[ToolName]) -> Option<Reading> {
    let mut rest = content;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let end = after.find("```")?;
        let fence = &rest[start..start + 3 + end + 3];
        if let Some(reading) = fence_body(fence).and_then(|body| read(body, offered)) {
            return Some(reading);
        }
        rest = &after[end + 3..];
    }
    None
}

/// Whether a fence body starts like a Python call to one of oc's tools
/// (`read_file(`, after comment lines), or still may while it streams
/// (`read_fi`).
pub(crate) fn starts_like_a_call(body: &str, at_end: bool) -> bool {
    let mut body = body.trim_start();
    while body.starts_with('#') {
        match body.split_once('\n') {
            Some((_, rest)) => body = rest.trim_start(),
            None => return !at_end,
        }
    }
    let end = body
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(body.len());
    let (name, after) = body.split_at(end);
    let name = name.to_ascii_lowercase();
    if after.is_empty() {
        let spelled = |tool: &ToolName| {
            ["", "functions.", "tools."]
                .iter()
                .any(|prefix| format!("{prefix}{}", tool.as_str()).starts_with(&name))
        };
        return !at_end && ToolName::ALL.iter().any(spelled);
    }
    let after = after.trim_start_matches([' ', '\t']);
    repair_name(&name, &ToolName::ALL).is_some()
        && (after.starts_with('(') || (after.is_empty() && !at_end))
}

/// `key=value, …` as a JSON object; `None` when an argument is
/// positional, unpacked or not a literal, or a key repeats.
fn keyword_arguments(inner: &str) -> Option<Value> {
    let mut text = Text::new(inner);
    let mut arguments = Map::new();
    loop {
        text.skip_space(true);
        if text.at_end() {
            return Some(Value::Object(arguments));
        }
        let key = text.word().filter(|key| !key.contains('.'))?;
        text.skip_space(true);
        if !text.eat('=') || text.peek() == Some('=') {
            return None;
        }
        let value = text.value()?;
        if arguments.insert(key, value).is_some() {
            return None;
        }
        text.skip_space(true);
        if !text.eat(',') && !text.at_end() {
            return None;
        }
    }
}

/// A cursor over the characters of a piece of Python.
struct Text {
    chars: Vec<char>,
    pos: usize,
}

impl Text {
    fn new(text: &str) -> Self {
        Text {
            chars: text.chars().collect(),
            pos: 0,
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let here = self.peek() == Some(c);
        self.pos += usize::from(here);
        here
    }

    /// Skips spaces and comments; line breaks too when `lines`.
    fn skip_space(&mut self, lines: bool) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' => self.pos += 1,
                '\n' if lines => self.pos += 1,
                '#' if lines => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// A name, dotted or not (`functions.read_file`).
    fn word(&mut self) -> Option<String> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            self.pos += 1;
        }
        let word: String = self.chars[start..self.pos].iter().collect();
        let first = word.chars().next()?;
        (first.is_alphabetic() || first == '_').then_some(word)
    }

    /// Where the bracket at the cursor closes, strings skipped.
    fn matching_close(&self) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = self.pos;
        while let Some(&c) = self.chars.get(i) {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                '\'' | '"' => i = self.string_end(i)? - 1,
                '#' => {
                    while self.chars.get(i + 1).is_some_and(|c| *c != '\n') {
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// The index after the string literal whose opening quote is at `at`.
    fn string_end(&self, at: usize) -> Option<usize> {
        let quote = self.chars[at];
        let triple =
            self.chars.get(at + 1) == Some(&quote) && self.chars.get(at + 2) == Some(&quote);
        let mut i = at + if triple { 3 } else { 1 };
        while let Some(&c) = self.chars.get(i) {
            match c {
                '\\' => i += 2,
                '\n' if !triple => return None,
                c if c == quote && !triple => return Some(i + 1),
                c if c == quote
                    && self.chars.get(i + 1) == Some(&quote)
                    && self.chars.get(i + 2) == Some(&quote) =>
                {
                    return Some(i + 3);
                }
                _ => i += 1,
            }
        }
        None
    }

    /// A Python literal as JSON.
    fn value(&mut self) -> Option<Value> {
        self.skip_space(true);
        match self.peek()? {
            '[' | '(' => {
                let close = if self.peek() == Some('[') { ']' } else { ')' };
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_space(true);
                    if self.eat(close) {
                        return Some(Value::Array(items));
                    }
                    items.push(self.value()?);
                    self.skip_space(true);
                    if !self.eat(',') && self.peek() != Some(close) {
                        return None;
                    }
                }
            }
            '{' => {
                self.pos += 1;
                let mut object = Map::new();
                loop {
                    self.skip_space(true);
                    if self.eat('}') {
                        return Some(Value::Object(object));
                    }
                    let Value::String(key) = self.value()? else {
                        return None;
                    };
                    self.skip_space(true);
                    self.eat(':').then_some(())?;
                    object.insert(key, self.value()?);
                    self.skip_space(true);
                    if !self.eat(',') && self.peek() != Some('}') {
                        return None;
                    }
                }
            }
            c if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => self.number(),
            _ => self.word_or_string(),
        }
    }

    /// `True`, `False`, `None`, or strings (adjacent ones joined).
    fn word_or_string(&mut self) -> Option<Value> {
        let start = self.pos;
        let word = self.word().unwrap_or_default();
        match (word.as_str(), self.peek()) {
            ("True", _) => return Some(Value::Bool(true)),
            ("False", _) => return Some(Value::Bool(false)),
            ("None", _) => return Some(Value::Null),
            ("" | "r" | "R" | "u" | "U", Some('\'' | '"')) => {}
            _ => return None,
        }
        self.pos = start;
        let mut joined = String::new();
        loop {
            let raw = matches!(self.peek(), Some('r' | 'R'));
            if matches!(self.peek(), Some('r' | 'R' | 'u' | 'U')) {
                self.pos += 1;
            }
            let at = self.pos;
            let end = self.string_end(at)?;
            let quote = self.chars[at];
            let triple = end - at >= 6
                && self.chars.get(at + 1) == Some(&quote)
                && self.chars.get(at + 2) == Some(&quote);
            let skip = if triple { 3 } else { 1 };
            let body: String = self.chars[at + skip..end - skip].iter().collect();
            joined.push_str(&if raw { body } else { unescape(&body) });
            self.pos = end;
            let before = self.pos;
            self.skip_space(true);
            let next = self.peek();
            let prefixed = matches!(next, Some('r' | 'R' | 'u' | 'U'))
                && matches!(self.chars.get(self.pos + 1), Some('\'' | '"'));
            if !(matches!(next, Some('\'' | '"')) || prefixed) {
                self.pos = before;
                return Some(Value::String(joined));
            }
        }
    }

    /// An integer or a float (`_` separators allowed).
    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+'))
        {
            let sign = matches!(self.peek(), Some('-' | '+'));
            let after_exponent =
                matches!(self.chars.get(self.pos.wrapping_sub(1)), Some('e' | 'E'));
            if sign && self.pos != start && !after_exponent {
                break;
            }
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        let text = text.strip_prefix('+').unwrap_or(&text);
        match text.parse::<i64>() {
            Ok(n) => Some(Value::Number(n.into())),
            Err(_) => text
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map(Value::Number),
        }
    }
}

/// The text of a Python string literal's body with its escapes read.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            out.push('\\');
            break;
        };
        let hex = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, n: usize| {
            let digits: String = (0..n).filter_map(|_| chars.next()).collect();
            u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32)
        };
        match next {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' => out.push(next),
            '\n' => {}
            'x' => out.extend(hex(&mut chars, 2)),
            'u' => out.extend(hex(&mut chars, 4)),
            'U' => out.extend(hex(&mut chars, 8)),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const ALL: [ToolName; 7] = ToolName::ALL;

    fn calls(body: &str) -> Vec<(String, Value)> {
        match read(body, &ALL) {
            Some(Reading::Calls(calls)) => {
                calls.into_iter().map(|c| (c.name, c.arguments)).collect()
            }
            other => panic!("{body}: {other:?}"),
        }
    }

    #[test]
    fn keyword_calls_with_literals_are_calls() {
        assert_eq!(
            calls("read_file(path=\"README.md\")\n"),
            [("read_file".to_string(), json!({"path": "README.md"}))]
        );
        assert_eq!(
            calls(
                "# look first\nread_file(path='a.py', offset=10, limit=5)\nsearch(pattern=r\"\\bdef\\b\", ignore_case=True,)"
            ),
            [
                (
                    "read_file".to_string(),
                    json!({"path": "a.py", "offset": 10, "limit": 5})
                ),
                (
                    "search".to_string(),
                    json!({"pattern": "\\bdef\\b", "ignore_case": true})
                ),
            ]
        );
        let write = "write_file(\n    path=\"hello.py\",\n    content=\"\"\"def hello():\n    return 'hi'  # (not a paren)\n\"\"\",\n)";
        assert_eq!(
            calls(write),
            [(
                "write_file".to_string(),
                json!({"path": "hello.py", "content": "def hello():\n    return 'hi'  # (not a paren)\n"})
            )]
        );
        assert_eq!(
            calls(
                "edit_file(path='a.txt', old_string='a\\tb' 'c', new_string=\"x\\ny\", replace_all=None)"
            ),
            [(
                "edit_file".to_string(),
                json!({"path": "a.txt", "old_string": "a\tbc", "new_string": "x\ny", "replace_all": null})
            )]
        );
        assert_eq!(
            calls(
                "functions.bash(command=\"ls\", timeout_secs=1_0, extra=[1, -2.5, (3,), {'k': False}])"
            ),
            [(
                "bash".to_string(),
                json!({"command": "ls", "timeout_secs": 10, "extra": [1, -2.5, [3], {"k": false}]})
            )]
        );
    }

    #[test]
    fn calls_that_cannot_run_are_unusable() {
        for (body, name) in [
            ("read_file(\"README.md\")", "read_file"),
            ("read_file(path=open('x').read())", "read_file"),
            ("read_file(path=f\"{name}.md\")", "read_file"),
            ("read_file(**args)", "read_file"),
            ("read_file(path='a', path='b')", "read_file"),
        ] {
            assert_eq!(
                read(body, &ALL),
                Some(Reading::Unusable(name.into())),
                "{body}"
            );
        }
        let offered = [ToolName::ReadFile];
        assert_eq!(
            read("bash(command='ls')", &offered),
            Some(Reading::Unusable("bash".into()))
        );
    }

    /// Code that calls a function named like a tool, in a longer program,
    /// is code: the fence must be nothing but calls.
    #[test]
    fn ordinary_code_is_not_a_call() {
        for body in [
            "import os\nread_file(path=\"README.md\")",
            "text = read_file(path=\"README.md\")",
            "print(read_file(path=\"README.md\"))",
            "read_file(path=\"README.md\").splitlines()",
            "def search(pattern):\n    return []\n\nsearch(pattern='x')",
            "read_file(path=\"README.md\"",
            "open_file(path=\"README.md\")",
            "read_file",
            "",
            "# nothing",
        ] {
            assert_eq!(read(body, &ALL), None, "{body}");
        }
    }
}
