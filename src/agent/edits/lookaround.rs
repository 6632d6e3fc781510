//! Looking around without tools: in the text edit formats the model has no
//! tool calls, so it asks in words, one request a line (`READ path`,
//! `READ path 40-80`, `SEARCH text`, `LIST folder`), or with a call written
//! as JSON (`{"name": "read_file", "arguments": {…}}`, the form these
//! models fall into by themselves). Measured on qwen2.5-coder 1.5B and 0.5B
//! (docs/small-models.md): the request lines are what both write most
//! reliably, and in a third of the tokens of the JSON form.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use crate::job::calls_in_text::parse_block;
use crate::tools::ToolName;

/// Requests answered per reply; more are answered with an error.
pub(crate) const MAX_REQUESTS: usize = 3;

/// The request lines the system prompt shows as examples: a reply that
/// repeats them asks for nothing.
const EXAMPLES: [&str; 4] = [
    "path/to/file.py",
    "path/to/file",
    "some text",
    "some/folder",
];

/// One request of a reply, as the call it amounts to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub tool: ToolName,
    pub arguments: Value,
    /// The byte range of the request in the text it was read from.
    pub span: std::ops::Range<usize>,
}

static LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^[ \t>*`-]*(?:(READ|SEARCH|LIST)[:\s]|(Read|Search|List):)[ \t]*([^\n]*?)[ \t]*$",
    )
    .ok()
});

/// Whether `line` is a request line (`READ path`, `SEARCH text`, `LIST
/// folder`, or `Read: path` and the like).
pub(crate) fn is_request_line(line: &str) -> bool {
    LINE.as_ref().is_some_and(|re| re.is_match(line))
}

/// The requests in `prose` (the reply without its file blocks): request
/// lines, and JSON calls of `read_file`, `search` and `list_files`, in
/// order. `exists` tells whether a path names a workspace file. A reply
/// that is only a path is an answer ("which file defines `f`?"), not a
/// request.
pub(crate) fn parse(prose: &str, exists: &dyn Fn(&str) -> bool) -> Vec<Request> {
    let mut found: Vec<Request> = Vec::new();
    if let Some(line) = LINE.as_ref() {
        for caps in line.captures_iter(prose) {
            let verb = caps.get(1).or_else(|| caps.get(2));
            let (Some(whole), Some(verb), Some(rest)) = (caps.get(0), verb, caps.get(3)) else {
                continue;
            };
            let rest = rest.as_str().replace('`', "");
            let rest = rest.trim();
            if EXAMPLES.contains(&rest) {
                continue;
            }
            let verb = verb.as_str().to_ascii_uppercase();
            if let Some(request) = request_of(&verb, rest, whole.range(), exists) {
                found.push(request);
            }
        }
    }
    found.extend(json_calls(prose));
    found.sort_by_key(|r| r.span.start);
    found
}

/// `text` without the lines that repeat the system prompt's example
/// requests (`READ path/to/file.py`): small models echo them as a reply.
pub(crate) fn without_examples(text: &str) -> String {
    let Some(line) = LINE.as_ref() else {
        return text.to_string();
    };
    let example = |l: &str| {
        line.captures(l).is_some_and(|caps| {
            let rest = caps.get(3).map_or("", |r| r.as_str()).replace('`', "");
            EXAMPLES.contains(&rest.trim())
        })
    };
    text.lines()
        .filter(|l| !example(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The call a request line stands for.
fn request_of(
    verb: &str,
    rest: &str,
    span: std::ops::Range<usize>,
    exists: &dyn Fn(&str) -> bool,
) -> Option<Request> {
    let (tool, arguments) = match verb {
        "READ" => {
            let mut words = rest.split_whitespace();
            let path = words.next()?.trim_start_matches("./");
            // `/pkg/a.py` for the workspace's `pkg/a.py`.
            let path = path.strip_prefix('/').filter(|p| exists(p)).unwrap_or(path);
            let range = words.collect::<Vec<_>>().join(" ");
            let (path, inline) = match path.rsplit_once(':') {
                Some((p, r))
                    if r.chars().all(|c| c.is_ascii_digit() || c == '-') && !r.is_empty() =>
                {
                    (p, r.to_string())
                }
                _ => (path, String::new()),
            };
            let mut arguments = json!({"path": path});
            if let Some((offset, limit)) =
                line_range(if inline.is_empty() { &range } else { &inline })
            {
                arguments["offset"] = json!(offset);
                arguments["limit"] = json!(limit);
            }
            (ToolName::ReadFile, arguments)
        }
        "SEARCH" => {
            let text = rest.trim_matches(['"', '\'']);
            if text.is_empty() {
                return None;
            }
            (
                ToolName::Search,
                json!({"pattern": regex::escape(text), "ignore_case": true}),
            )
        }
        "LIST" => {
            let folder = rest.trim_matches(['"', '\'', '/']);
            let folder = if folder.is_empty() { "." } else { folder };
            (ToolName::ListFiles, json!({"pattern": "*", "path": folder}))
        }
        _ => return None,
    };
    Some(Request {
        tool,
        arguments,
        span,
    })
}

/// `40-80`, `lines 40-80`, `40` (with the lines after it) as `(offset,
/// limit)`.
fn line_range(text: &str) -> Option<(usize, usize)> {
    let digits: Vec<usize> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|d| d.parse().ok())
        .collect();
    match digits.as_slice() {
        [start, end, ..] if end >= start && *start > 0 => Some((*start, end - start + 1)),
        [start] if *start > 0 => Some((*start, 80)),
        _ => None,
    }
}

/// JSON calls of the look-around tools, bare or in a fence.
fn json_calls(prose: &str) -> Vec<Request> {
    let tools = [ToolName::ReadFile, ToolName::Search, ToolName::ListFiles];
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(open) = prose[at..].find('{').map(|i| i + at) {
        let Some(close) = balanced_end(&prose[open..]).map(|i| i + open) else {
            break;
        };
        let candidate = &prose[open..close];
        if let Some(calls) = parse_block(candidate, &tools) {
            for call in calls {
                if let Some(tool) = ToolName::from_name(&call.name).filter(|t| tools.contains(t))
                    && call.arguments.is_object()
                {
                    found.push(Request {
                        tool,
                        arguments: call.arguments,
                        span: open..close,
                    });
                }
            }
        }
        at = close;
    }
    found
}

/// The end (exclusive) of the JSON object `text` starts with.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match (in_string, c) {
            (true, '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (true, '"') if !escaped => in_string = false,
            (false, '"') => in_string = true,
            (false, '{') => depth += 1,
            (false, '}') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        escaped = false;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn requests(text: &str) -> Vec<(ToolName, Value)> {
        let exists = |p: &str| p == "itsdangerous/signer.py";
        parse(text, &exists)
            .into_iter()
            .map(|r| (r.tool, r.arguments))
            .collect()
    }

    /// The forms the real 1.5B and 0.5B models wrote when asked.
    #[test]
    fn request_lines_and_json_calls_but_not_a_lone_path() {
        assert_eq!(
            requests("READ itsdangerous/signer.py"),
            [(
                ToolName::ReadFile,
                json!({"path": "itsdangerous/signer.py"})
            )]
        );
        assert_eq!(
            requests("READ /itsdangerous/signer.py\n"),
            [(
                ToolName::ReadFile,
                json!({"path": "itsdangerous/signer.py"})
            )]
        );
        // Regression: the answer to "which file defines parse_date?" was
        // read as a request, again and again.
        assert_eq!(requests("itsdangerous/signer.py"), []);
        assert_eq!(
            requests(
                "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"itsdangerous/signer.py\"}}\n```"
            ),
            [(
                ToolName::ReadFile,
                json!({"path": "itsdangerous/signer.py"})
            )]
        );
        assert_eq!(
            requests(
                "READ itsdangerous/__init__.py\nSEARCH some text\nLIST some/folder\nSEARCH want_bytes(\nLIST itsdangerous/"
            ),
            [
                (
                    ToolName::ReadFile,
                    json!({"path": "itsdangerous/__init__.py"})
                ),
                (
                    ToolName::Search,
                    json!({"pattern": "want_bytes\\(", "ignore_case": true})
                ),
                (
                    ToolName::ListFiles,
                    json!({"pattern": "*", "path": "itsdangerous"})
                ),
            ]
        );
        assert_eq!(
            requests("READ `a.py` lines 40-79\nREAD b.py:12"),
            [
                (
                    ToolName::ReadFile,
                    json!({"path": "a.py", "offset": 40, "limit": 40})
                ),
                (
                    ToolName::ReadFile,
                    json!({"path": "b.py", "offset": 12, "limit": 80})
                ),
            ]
        );
        // Prose that mentions reading is not a request; unknown paths alone are not either.
        assert_eq!(requests("I read the file and fixed it."), []);
        assert_eq!(
            requests("{\"name\": \"write_file\", \"arguments\": {\"path\": \"x\"}}"),
            []
        );
    }
}
