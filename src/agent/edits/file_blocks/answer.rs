//! What of a reply is its answer: the text without the blocks that were
//! applied and without the look-around requests, and how many blocks are
//! code that could not be placed.

use crate::agent::edits::blocks::{BlockKind, FileBlock};
use crate::agent::edits::lookaround;

/// How many of the `unplaced` blocks among `files` are code: a tool call
/// in a fence is no code to place (it is reported unrun).
pub(super) fn unplaced_code(files: &[FileBlock], unplaced: &[usize]) -> usize {
    let code = |n: &&usize| match &files[**n].kind {
        BlockKind::Whole(content) => !crate::job::calls_in_text::is_tool_call(content),
        BlockKind::Replace(_) => true,
    };
    unplaced.iter().filter(code).count()
}

/// `text` without the byte ranges `spans` (in order, not overlapping).
pub(super) fn without_spans(
    text: &str,
    spans: impl Iterator<Item = std::ops::Range<usize>>,
) -> String {
    let mut kept = String::new();
    let mut at = 0;
    for span in spans {
        kept.push_str(&text[at..span.start]);
        at = span.end;
    }
    kept.push_str(&text[at..]);
    kept
}

/// `prose` without its look-around requests (and the fence left empty
/// where a request was fenced) and without echoes of the example requests,
/// and the requests.
pub(super) fn without_requests(
    prose: &str,
    exists: &dyn Fn(&str) -> bool,
) -> (String, Vec<lookaround::Request>) {
    let requests = lookaround::parse(prose, exists);
    let kept = without_spans(prose, requests.iter().map(|r| r.span.clone()));
    let kept = lookaround::without_examples(&kept);
    let kept = if requests.is_empty() {
        kept
    } else {
        without_empty_fences(&kept)
    };
    (kept.trim().to_string(), requests)
}

/// `text` without fenced blocks that hold nothing but blank lines.
fn without_empty_fences(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let fence = |l: &str| l.trim().starts_with("```");
    let mut kept = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if fence(lines[i]) {
            let close = (i + 1..lines.len()).find(|&j| !lines[j].trim().is_empty());
            if let Some(j) = close.filter(|&j| lines[j].trim() == "```") {
                i = j + 1;
                continue;
            }
        }
        kept.push(lines[i]);
        i += 1;
    }
    kept.join("\n")
}
