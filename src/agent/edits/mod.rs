//! How the model changes files (`--edit-format`), the one seam of the loop
//! that varies with the model: tool calls (native, or fenced for a model
//! without native tool calling), or file blocks in its text (`whole`,
//! `diff`) for small models that cannot drive tool calls but can rewrite a
//! file they are shown. Either way every change runs through the same write
//! path (permissions, hard rules, guards, diffs, records).

pub(crate) mod blocks;
pub(crate) mod convert;
pub(crate) mod file_blocks;
pub(crate) mod live;
pub(crate) mod lookaround;
pub(crate) mod partial;
pub(crate) mod shown;
pub(crate) mod splice;
pub(crate) mod unseen;

use std::borrow::Cow;

use serde_json::Value;

use super::normalize::normalize_calls;
use super::text_calls::TextCallFilter;
use crate::client::fenced::fenced_wire;
use crate::client::{Message, ToolCall};
use crate::job::calls_in_text::{holds_bare_call, is_call_written_as_text};
use crate::tools::ToolName;
use file_blocks::FileBlocks;

/// Per call of a reply: the arguments to run with (or why not) and the
/// repairs made.
pub(crate) type ReadCalls = Vec<(Result<Value, String>, Vec<String>)>;

/// The edit protocol of one run.
#[derive(Debug, Clone)]
pub(crate) enum Protocol {
    /// Tool calls to the `offered` tools; `fenced` when the model has no
    /// native tool calling and writes them as ```tool fences.
    ToolCalls {
        offered: Vec<ToolName>,
        fenced: bool,
    },
    /// File blocks (`whole` or `diff`).
    FileBlocks(Box<FileBlocks>),
}

impl Protocol {
    /// The tools the model may call through this protocol (what the call
    /// runner accepts).
    pub(crate) fn runnable(&self) -> Vec<ToolName> {
        match self {
            Protocol::ToolCalls { offered, .. } => offered.clone(),
            // Blocks become writes and edits; look-around requests reads,
            // searches and listings.
            Protocol::FileBlocks(_) => vec![
                ToolName::WriteFile,
                ToolName::EditFile,
                ToolName::ReadFile,
                ToolName::Search,
                ToolName::ListFiles,
            ],
        }
    }

    /// The tools whose calls are recovered from the reply's text.
    pub(crate) fn text_call_tools(&self) -> &[ToolName] {
        match self {
            Protocol::ToolCalls { offered, .. } => offered,
            Protocol::FileBlocks(_) => &[],
        }
    }

    /// The conversation as the model sees it.
    pub(crate) fn wire<'m>(&self, messages: &'m [Message]) -> Cow<'m, [Message]> {
        match self {
            Protocol::ToolCalls { fenced: true, .. } => Cow::Owned(fenced_wire(messages)),
            Protocol::ToolCalls { fenced: false, .. } => Cow::Borrowed(messages),
            Protocol::FileBlocks(blocks) => Cow::Owned(blocks.wire(messages)),
        }
    }

    /// The paths a reply's file blocks may name, when its blocks are
    /// changes (the text edit formats, a task that is not an answer): then
    /// a reply streams without them ([`live::LiveBlocks`]). `None` when
    /// every byte of a reply is the answer.
    pub(crate) fn block_paths(&self) -> Option<Vec<String>> {
        match self {
            Protocol::FileBlocks(blocks) if !blocks.answers() => Some(blocks.scope.known()),
            _ => None,
        }
    }

    /// In an answer, the files the model's replies would have changed: the
    /// files its blocks rewrite, or those its `write_file` and `edit_file`
    /// calls name (not offered in an answer, so never run).
    pub(crate) fn withheld_changes(&self, messages: &[Message]) -> Vec<String> {
        match self {
            Protocol::FileBlocks(blocks) => blocks.withheld(),
            Protocol::ToolCalls { .. } => {
                let mut paths: Vec<String> = (messages.iter())
                    .flat_map(|m| &m.tool_calls)
                    .filter(|c| matches!(c.function.name.as_str(), "write_file" | "edit_file"))
                    .filter_map(|c| Some(c.function.arguments["path"].as_str()?.to_string()))
                    .collect();
                paths.sort();
                paths.dedup();
                paths
            }
        }
    }

    /// Reads the calls of a reply into `message.tool_calls` (ids given,
    /// repairs made) and returns what each may run with.
    pub(crate) fn read_reply(&mut self, message: &mut Message, turn: u32) -> ReadCalls {
        match self {
            Protocol::ToolCalls { offered, .. } => {
                normalize_calls(&mut message.tool_calls, turn, offered)
            }
            Protocol::FileBlocks(blocks) => blocks.read_reply(message, turn),
        }
    }

    /// Why the answer `content` (a reply that made no call) is or holds a
    /// tool call written as text that nothing runs, if it does: in the
    /// text edit formats no tool is offered and only look-around requests
    /// (read, search, list) are answered, so any call there; in the
    /// tool-call protocol, a reply that is only calls in a shape that does
    /// not run (Python, JSON that does not parse, a fence of another
    /// language, see [`is_call_written_as_text`]).
    pub(crate) fn unrun_call(&self, content: &str) -> Option<&'static str> {
        let only_calls = is_call_written_as_text(content, true);
        let Protocol::FileBlocks(_) = self else {
            return only_calls.then_some(
                "written in a shape that does not run: Python, JSON that does not parse, or a fence of another language",
            );
        };
        let mut probe = TextCallFilter::new(&ToolName::ALL, true);
        probe.push(content);
        probe.finish();
        let (_, _, calls) = probe.into_parts();
        let tools = calls.iter().any(|c| ToolName::from_name(&c.name).is_some());
        (tools || only_calls || holds_bare_call(content)).then_some(
            "no tool is offered in the whole-file and diff formats; files change by file blocks, and only READ, SEARCH and LIST requests are answered",
        )
    }

    /// What an empty reply is told once, to go on: tools only where some
    /// are offered.
    pub(crate) fn empty_reply_nudge(&self) -> &'static str {
        match self {
            Protocol::ToolCalls { offered, .. } if !offered.is_empty() => {
                crate::agent::guards::NUDGE
            }
            Protocol::ToolCalls { .. } => crate::agent::guards::NUDGE_TO_ANSWER,
            Protocol::FileBlocks(blocks) if blocks.answers() => {
                crate::agent::guards::NUDGE_TO_ANSWER
            }
            Protocol::FileBlocks(_) => crate::agent::guards::NUDGE_IN_TEXT,
        }
    }

    /// Whether a reply whose calls all succeeded is the model's last word:
    /// true for file blocks (the reply was the change), false for tool calls
    /// (the model answers after seeing the results).
    pub(crate) fn done_when_calls_succeed(&self) -> bool {
        matches!(self, Protocol::FileBlocks(_))
    }

    /// Whether the reply asked to look around (read, search, list) in a
    /// text edit format: the model goes on once it has the answers.
    pub(crate) fn looked_around(&self, message: &Message) -> bool {
        matches!(self, Protocol::FileBlocks(_))
            && message
                .tool_calls
                .iter()
                .any(|c| ToolName::from_name(&c.function.name).is_some_and(ToolName::is_read_only))
    }

    /// File blocks of the last reply that changed nothing (echoes of shown
    /// files, or files sent back as they are).
    pub(crate) fn echoes(&self) -> usize {
        match self {
            Protocol::ToolCalls { .. } => 0,
            Protocol::FileBlocks(blocks) => blocks.echoes,
        }
    }

    /// Code blocks of the last reply that named no file and could not be
    /// placed in one (several files may change).
    pub(crate) fn unplaced(&self) -> usize {
        match self {
            Protocol::ToolCalls { .. } => 0,
            Protocol::FileBlocks(blocks) => blocks.unplaced,
        }
    }

    /// Whether a failed call needs no second try: a file block for a file
    /// shown for reference only, beside blocks that did apply, is refused
    /// and that is all.
    pub(crate) fn refusal_is_final(&self, call: &ToolCall) -> bool {
        match self {
            Protocol::ToolCalls { .. } => false,
            Protocol::FileBlocks(blocks) => {
                let path = call.function.arguments["path"].as_str().unwrap_or_default();
                blocks.scope.read_only.iter().any(|p| p == path)
            }
        }
    }

    /// How the model should go on after a failed check or a description.
    pub(crate) fn how_to_change(&self) -> &'static str {
        match self {
            Protocol::ToolCalls { .. } => {
                "Make the change with the tools (edit_file or write_file), then say briefly what you changed."
            }
            Protocol::FileBlocks(blocks) => blocks.check_hint(),
        }
    }
}
