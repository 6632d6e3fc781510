//! The streaming filter on the content: text that could still be a call is
//! held back until its block is complete, then either swallowed (a call to
//! an offered tool) or released unchanged; `<think>…</think>` is moved out
//! of the content. Correct however the stream is cut into chunks.

use crate::job::calls_in_text::fence_body;
use crate::job::calls_in_text::{TextCall, parse_block};
use crate::tools::ToolName;
use scan::{balanced_json_end, function_run_end, partial_marker_len, strip_tags};

mod scan;

/// Where a held-back block ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// A ``` fence: ends at the next ``` on its own.
    Fence,
    /// `<tool_call>` … `</tool_call>`.
    ToolCallTag,
    /// `[tool_call]` … `[/tool_call]`.
    BracketTag,
    /// `<function=` … the last `</function>`.
    Function,
    /// A bare JSON value at the start of the message: ends when balanced.
    Json,
    /// `<think>` … `</think>`.
    Think,
    /// A fence in another language, streaming until its closing ```.
    Code,
}

/// Fence labels that may hold a call; a fence with another label is code.
const CALL_LABELS: [&str; 7] = [
    "",
    "json",
    "JSON",
    "tool",
    "tool_call",
    "tool_code",
    "json5",
];

/// Text held back as a possible call is released (shown as text, and no
/// longer a call) once it grows past this many bytes: no plausible call is
/// that long, and a reply must not stay invisible while it runs on.
pub(crate) const MAX_HELD_BYTES: usize = 24 * 1024;

const OPENERS: [(&str, Block); 5] = [
    ("```", Block::Fence),
    ("<tool_call>", Block::ToolCallTag),
    ("[tool_call]", Block::BracketTag),
    ("<function=", Block::Function),
    ("<think>", Block::Think),
];

/// What a delta of content turned into.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Filtered {
    /// Text to show as the answer.
    pub content: String,
    /// Text to show as thinking (from `<think>` tags).
    pub thinking: String,
}

/// Separates a streamed content into visible text, thinking and text-form
/// calls. Feed it every delta with [`TextCallFilter::push`], then
/// [`TextCallFilter::finish`].
#[derive(Debug)]
pub(crate) struct TextCallFilter {
    offered: Vec<ToolName>,
    recover: bool,
    /// Text not yet decided.
    pending: String,
    /// The open block `pending` starts with, if any.
    open: Option<Block>,
    /// Whether anything but whitespace and calls has been shown (a bare
    /// JSON value counts only at the start, or after calls alone).
    started: bool,
    calls: Vec<TextCall>,
    content: String,
    thinking: String,
    /// Reasoning has ended (a `</think>`): a later one is text.
    ended_reasoning: bool,
}

impl TextCallFilter {
    /// A filter recovering calls to `offered` tools (none when `recover` is
    /// false: `--text-tools off`). `<think>` tags are handled either way.
    pub(crate) fn new(offered: &[ToolName], recover: bool) -> Self {
        TextCallFilter {
            offered: offered.to_vec(),
            recover: recover && !offered.is_empty(),
            pending: String::new(),
            open: None,
            started: false,
            ended_reasoning: false,
            calls: Vec::new(),
            content: String::new(),
            thinking: String::new(),
        }
    }

    /// Adds a delta; returns what can be shown now.
    pub(crate) fn push(&mut self, delta: &str) -> Filtered {
        self.pending.push_str(delta);
        let mut out = Filtered::default();
        self.drain(&mut out, false);
        out
    }

    /// The stream ended: decides what is still held back.
    pub(crate) fn finish(&mut self) -> Filtered {
        let mut out = Filtered::default();
        self.drain(&mut out, true);
        out
    }

    /// The visible content, the thinking found in tags, and the calls.
    pub(crate) fn into_parts(self) -> (String, String, Vec<TextCall>) {
        // The blank lines after reasoning are not part of the answer.
        let content = match self.ended_reasoning {
            true => self.content.trim_start().to_string(),
            false => self.content,
        };
        (content, self.thinking, self.calls)
    }

    fn show(&mut self, out: &mut Filtered, text: &str) {
        if !text.trim().is_empty() {
            self.started = true;
        }
        out.content.push_str(text);
        self.content.push_str(text);
    }

    fn think(&mut self, out: &mut Filtered, text: &str) {
        out.thinking.push_str(text);
        self.thinking.push_str(text);
    }

    fn drain(&mut self, out: &mut Filtered, at_end: bool) {
        loop {
            match self.open {
                None => {
                    if !self.find_opener(out, at_end) {
                        return;
                    }
                }
                Some(block) => {
                    if !self.close_block(block, out, at_end) {
                        return;
                    }
                }
            }
        }
    }

    /// Where a `</think>` without `<think>` ends reasoning the template
    /// opened: the first one of the reply, on a line boundary (reasoning
    /// models write `…\n</think>\n\n`), outside any fence. One inside a
    /// sentence, in backticks or in code is text.
    fn lone_think_close(&self, at_end: bool) -> Option<usize> {
        if self.ended_reasoning {
            return None;
        }
        let at = self.pending.find("</think>")?;
        let before = &self.pending[..at];
        let after = &self.pending[at + "</think>".len()..];
        let line_start = match before.trim_end_matches([' ', '\t']) {
            "" => self.content.trim_end_matches([' ', '\t']).ends_with('\n'),
            text => text.ends_with('\n'),
        };
        let line_end = after.trim_start_matches([' ', '\t']).starts_with('\n')
            || (at_end && after.trim().is_empty());
        let fences = self.content.matches("```").count() + before.matches("```").count();
        let in_code = fences % 2 == 1;
        ((line_start || line_end) && !in_code).then_some(at)
    }

    /// Shows text up to the next opener and opens it. Returns whether a
    /// block was opened (and draining should go on).
    fn find_opener(&mut self, out: &mut Filtered, at_end: bool) -> bool {
        let lone_close = self.lone_think_close(at_end);
        if !self.started && self.recover {
            let lead = self.pending.len() - self.pending.trim_start().len();
            let rest = &self.pending[lead..];
            // `[` may still become `[tool_call]`: wait for more.
            if !at_end && !rest.is_empty() && "[tool_call]".starts_with(rest) {
                return false;
            }
            if matches!(rest.chars().next(), Some('{' | '[')) && !rest.starts_with("[tool_call]") {
                let head = self.pending[..lead].to_string();
                self.pending.drain(..lead);
                self.show(out, &head);
                self.open = Some(Block::Json);
                return true;
            }
        }
        let started = self.started;
        let first = OPENERS
            .iter()
            .filter(|(marker, block)| self.recover || *block == Block::Think || marker.is_empty())
            .filter_map(|(marker, block)| self.pending.find(marker).map(|i| (i, *block)))
            // `<think>` opens thinking only at the start of the reply; in
            // prose it is just text.
            .filter(|(i, block)| {
                *block != Block::Think || (!started && self.pending[..*i].trim().is_empty())
            })
            .min_by_key(|(i, _)| *i);
        if let Some(close) = lone_close.filter(|c| first.is_none_or(|(i, _)| *c < i)) {
            // `</think>` without `<think>`: what came before was thinking.
            let before = self.pending[..close].to_string();
            self.think(out, &before);
            let moved = std::mem::take(&mut self.content);
            self.thinking.insert_str(0, &moved);
            self.pending.drain(..close + "</think>".len());
            self.ended_reasoning = true;
            return true;
        }
        match first {
            Some((i, block)) => {
                let head = self.pending[..i].to_string();
                self.pending.drain(..i);
                self.show(out, &head);
                self.open = Some(block);
                true
            }
            None => {
                // Keep a tail that may be the start of a marker.
                let keep = if at_end {
                    0
                } else {
                    partial_marker_len(&self.pending)
                };
                let cut = self.pending.len() - keep;
                let text = self.pending[..cut].to_string();
                self.pending.drain(..cut);
                self.show(out, &text);
                false
            }
        }
    }

    /// Decides an open block once it is complete (or the stream ended).
    /// Returns whether draining should go on.
    fn close_block(&mut self, block: Block, out: &mut Filtered, at_end: bool) -> bool {
        if block == Block::Fence
            && let Some(go_on) = self.read_fence_label(out, at_end)
        {
            return go_on;
        }
        if block == Block::Code {
            return self.stream_code(out, at_end);
        }
        let end = match (self.block_end(block), at_end) {
            (Some(end), _) => end,
            (None, true) => self.pending.len(),
            (None, false) if self.pending.len() > MAX_HELD_BYTES && block != Block::Think => {
                let held = std::mem::take(&mut self.pending);
                self.show(out, &held);
                // A fence goes on streaming as code; other blocks as text.
                self.open = (block == Block::Fence).then_some(Block::Code);
                return true;
            }
            (None, false) => return false,
        };
        let block_text: String = self.pending.drain(..end).collect();
        self.open = None;
        self.decide(block, &block_text, out);
        true
    }

    /// Reads the label of an open fence once it is known: a fence in
    /// another language is code, and it streams as it comes instead of
    /// waiting for its end. Returns whether draining should go on when
    /// that is decided here (code opened, or more text needed), `None`
    /// when the fence is held until its end as a possible call.
    fn read_fence_label(&mut self, out: &mut Filtered, at_end: bool) -> Option<bool> {
        match self.pending.find('\n') {
            Some(newline) => {
                let label = self.pending[3..newline].trim();
                if !CALL_LABELS.contains(&label) {
                    let opener: String = self.pending.drain(..=newline).collect();
                    self.show(out, &opener);
                    self.open = Some(Block::Code);
                    return Some(true);
                }
                None
            }
            None if !at_end => Some(false),
            None => None,
        }
    }

    /// Shows an open code block as it streams: up to its closing ```
    /// (which closes it), else all but a tail of backticks that may be the
    /// start of one (all at the end). Returns whether draining should go on.
    fn stream_code(&mut self, out: &mut Filtered, at_end: bool) -> bool {
        match self.pending.find("```") {
            Some(i) => {
                let code: String = self.pending.drain(..i + 3).collect();
                self.show(out, &code);
                self.open = None;
                true
            }
            None => {
                let keep = if at_end {
                    0
                } else {
                    self.pending.len() - self.pending.trim_end_matches('`').len()
                };
                let cut = self.pending.len() - keep;
                let code: String = self.pending.drain(..cut).collect();
                self.show(out, &code);
                if at_end {
                    self.open = None;
                }
                false
            }
        }
    }

    /// Where the open `block` that `pending` starts with ends, once its
    /// end has come.
    fn block_end(&self, block: Block) -> Option<usize> {
        match block {
            Block::Fence => self.pending[3..].find("```").map(|i| i + 6),
            Block::ToolCallTag => self
                .pending
                .find("</tool_call>")
                .map(|i| i + "</tool_call>".len()),
            Block::BracketTag => self
                .pending
                .find("[/tool_call]")
                .map(|i| i + "[/tool_call]".len()),
            Block::Function => function_run_end(&self.pending),
            Block::Json => balanced_json_end(&self.pending),
            Block::Think => self.pending.find("</think>").map(|i| i + "</think>".len()),
            // Handled above: code streams and never reaches here.
            Block::Code => Some(0),
        }
    }

    /// Decides a complete `block` (`block_text`, taken out of `pending`):
    /// thinking is moved out, calls to offered tools are taken, and
    /// anything else is shown as it was.
    fn decide(&mut self, block: Block, block_text: &str, out: &mut Filtered) {
        if block == Block::Think {
            let inner = block_text
                .trim_start_matches("<think>")
                .trim_end_matches("</think>");
            self.think(out, inner);
            self.ended_reasoning = true;
            return;
        }
        let body = match block {
            Block::Fence => fence_body(block_text),
            Block::ToolCallTag => Some(strip_tags(block_text, "<tool_call>", "</tool_call>")),
            Block::BracketTag => Some(strip_tags(block_text, "[tool_call]", "[/tool_call]")),
            Block::Function | Block::Json | Block::Think => Some(block_text),
            Block::Code => None,
        };
        let calls = body.and_then(|b| parse_block(b, &self.offered));
        match calls {
            Some(calls) => {
                // Calls alone leave the reply at its start: a bare call
                // on the next line is one too.
                self.calls.extend(calls);
            }
            None => self.show(out, block_text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::Value;
    use serde_json::json;

    const ALL: [ToolName; 7] = ToolName::ALL;

    /// Feeds `text` in pieces of `size` characters.
    fn run(text: &str, size: usize) -> (String, String, Vec<TextCall>, String) {
        let mut filter = TextCallFilter::new(&ALL, true);
        let mut shown = String::new();
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(size) {
            shown.push_str(&filter.push(&piece.iter().collect::<String>()).content);
        }
        shown.push_str(&filter.finish().content);
        let (content, thinking, calls) = filter.into_parts();
        (content, thinking, calls, shown)
    }

    fn call(tool: ToolName, arguments: Value) -> TextCall {
        TextCall {
            name: tool.as_str().to_string(),
            arguments,
        }
    }

    #[test]
    fn shapes_small_models_write() {
        let list = call(ToolName::ListFiles, json!({"pattern": "*.py"}));
        let cases: Vec<(&str, &str, Vec<TextCall>)> = vec![
            (
                "```json\n{\"name\": \"list_files\", \"arguments\": {\"pattern\": \"*.py\"}}\n```",
                "",
                vec![list.clone()],
            ),
            (
                "```\n{\"name\": \"list_files\", \"parameters\": {\"pattern\": \"*.py\"}}\n```",
                "",
                vec![list.clone()],
            ),
            (
                "Let me look.\n```json\n{\"name\": \"list_files\", \"arguments\": {\"pattern\": \"*.py\"}}\n```",
                "Let me look.\n",
                vec![list.clone()],
            ),
            (
                "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}</tool_call>",
                "",
                vec![call(ToolName::ReadFile, json!({"path": "a.py"}))],
            ),
            (
                "[tool_call]{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}[/tool_call]",
                "",
                vec![call(ToolName::ReadFile, json!({"path": "a.py"}))],
            ),
            (
                "{\"name\": \"list_files\", \"arguments\": {\"pattern\": \"*.py\"}}",
                "",
                vec![list.clone()],
            ),
            // Regression: the second of two bare calls, one a line, was
            // shown as the answer and never ran (a real 0.5B reply).
            (
                "{\"name\": \"list_files\", \"arguments\": {\"pattern\": \"*.py\"}}\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}",
                "\n",
                vec![list.clone(), call(ToolName::ReadFile, json!({"path": "a"}))],
            ),
            (
                "[{\"name\": \"list_files\", \"arguments\": {\"pattern\": \"*.py\"}}, {\"name\": \"Read_File\", \"arguments\": {\"path\": \"a\"}}]",
                "",
                vec![list.clone(), call(ToolName::ReadFile, json!({"path": "a"}))],
            ),
            (
                "<function=write_file><parameter=path>t.txt</parameter><parameter=content>hi</parameter></function>",
                "",
                vec![call(
                    ToolName::WriteFile,
                    json!({"path": "t.txt", "content": "hi"}),
                )],
            ),
            (
                "{\"type\": \"function\", \"function\": {\"name\": \"functions.bash\", \"arguments\": \"{\\\"command\\\": \\\"ls\\\"}\"}}",
                "",
                vec![call(ToolName::Bash, json!("{\"command\": \"ls\"}"))],
            ),
            // A call to a tool that does not exist is still a call: it gets
            // the unknown-tool error instead of passing for an answer.
            (
                "{\"name\": \"x\", \"arguments\": {}}",
                "",
                vec![TextCall {
                    name: "x".into(),
                    arguments: json!({}),
                }],
            ),
        ];
        for (text, visible, calls) in cases {
            for size in [1, 3, 1000] {
                let (content, _, got, shown) = run(text, size);
                assert_eq!(got, calls, "{text:?} in pieces of {size}");
                assert_eq!(content, visible, "{text:?} in pieces of {size}");
                assert_eq!(shown, visible, "nothing raw is shown: {text:?} / {size}");
            }
        }
    }

    #[test]
    fn prose_and_code_stay_as_they_are() {
        for text in [
            "Use {\"name\": \"x\"} as the body.",
            "```rust\nfn main() {}\n```\nDone.",
            "```json\n{\"name\": \"Ada\", \"age\": 3}\n```",
            "```python\n{\"a\": 1}\n```\nA dict.",
            "```python\n{\"name\": \"list_files\", \"arguments\": {}}\n```\nCode, not a call.",
            "```py\nlist_files(pattern=\"*.py\")\n```",
            "```python\n[1, 2]\n```",
            "```python\nimport os\nread_file(path=\"a.py\")\n```",
            "```python\nresult = search(pattern=\"x\")\n```",
            "```python\nread_file(\"a.py\")\n```\nA call that cannot run is shown.",
            "```python\nrepr(x)\n```",
            "Plain answer with a < and a ` and [brackets].",
            "unclosed ``` fence",
        ] {
            for size in [1, 4, 1000] {
                let (content, _, calls, shown) = run(text, size);
                assert!(calls.is_empty(), "{text:?}");
                assert_eq!(content, text, "{text:?} / {size}");
                assert_eq!(shown, text, "{text:?} / {size}");
            }
        }
    }

    #[test]
    fn code_fences_stream_before_they_close() {
        let mut filter = TextCallFilter::new(&ALL, true);
        let first = filter.push("Here:\n```python\nprint(1)\n");
        assert_eq!(first.content, "Here:\n```python\nprint(1)\n");
        let rest = filter.push("x = 2\n``");
        assert_eq!(rest.content, "x = 2\n");
        let end = filter.push("`\nDone.");
        assert_eq!(end.content, "```\nDone.");
        // `<think>` in prose is text.
        let (content, thinking, _, _) = run("Text mentioning <think> tag literally.", 2);
        assert_eq!(
            (content.as_str(), thinking.as_str()),
            ("Text mentioning <think> tag literally.", "")
        );
    }

    /// Regression: a reply that began like a fenced call was held back for
    /// 5,600 tokens, and nothing reached stdout.
    #[test]
    fn a_held_block_is_released_once_it_outgrows_any_call() {
        let mut filter = TextCallFilter::new(&ALL, true);
        let mut shown =
            filter.push("```json\n{\"name\": \"write_file\", \"arguments\": {\"content\": \"");
        assert_eq!(shown.content, "");
        let filler = "x".repeat(1024);
        for _ in 0..30 {
            shown.content.push_str(&filter.push(&filler).content);
        }
        assert!(
            shown.content.starts_with("```json\n{\"name\""),
            "released as text"
        );
        let more = filter.push("tail");
        assert_eq!(more.content, "tail", "and goes on streaming");
        filter.push("\"}}\n```");
        filter.finish();
        assert!(filter.into_parts().2.is_empty(), "no longer a call");
    }

    #[test]
    fn think_tags_become_thinking() {
        let (content, thinking, _, shown) = run("<think>plan it</think>The answer.", 2);
        assert_eq!(
            (content.as_str(), thinking.as_str(), shown.as_str()),
            ("The answer.", "plan it", "The answer.")
        );
        // Reasoning the template opened ends with a lone `</think>` on a
        // line boundary.
        let (content, thinking, _, _) = run("plan it\n</think>\n\nThe answer.", 3);
        assert_eq!(
            (content.trim(), thinking.trim()),
            ("The answer.", "plan it")
        );
        // One inside a sentence, in backticks, in code, or after the
        // reasoning ended is text.
        for text in [
            "Models end it with the tag </think> and then answer.",
            "The line you need is: `</think>`.",
            "strip.py\n```python\nEND = \"\n</think>\n\"\n```\n",
            "<think>plan</think>Then write\n</think>\nas the marker.",
        ] {
            let (content, _, _, shown) = run(text, 4);
            assert!(content.contains("</think>"), "{text:?}: {content:?}");
            assert!(shown.contains("</think>"), "{text:?}: {shown:?}");
        }
    }

    #[test]
    fn off_recovers_nothing() {
        let text = "```json\n{\"name\": \"list_files\", \"arguments\": {}}\n```";
        let mut filter = TextCallFilter::new(&ALL, false);
        let mut shown = filter.push(text).content;
        shown.push_str(&filter.finish().content);
        assert_eq!(shown, text);
        assert!(filter.into_parts().2.is_empty());
    }
}
