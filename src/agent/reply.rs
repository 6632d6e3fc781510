//! Streaming one reply: thinking and content deltas shown as they come
//! (content through the text-call filter), and text-form calls recovered.

use super::edits::live::{LiveBlocks, Piece};
use super::text_calls::{Filtered, TextCallFilter};
use crate::client::{ChatRequest, Message, ModelClient, Role, ToolCall};
use crate::error::{Error, Result};
use crate::tools::ToolName;
use crate::ui::Output;

/// Why a reply is incomplete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// It reached the cap (`options.num_predict`): `done_reason: "length"`.
    Length,
}

impl Cut {
    /// The name in sessions and events: `length` (sessions of earlier
    /// versions may hold `repetition`: a reply stopped for looping).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Cut::Length => "length",
        }
    }
}

/// One streamed reply.
pub(crate) struct Reply {
    pub message: Message,
    pub done_reason: Option<String>,
    pub prompt_eval_count: u64,
    /// Nanoseconds the server spent reading the prompt, when it says.
    pub prompt_eval_duration: Option<u64>,
    /// Tokens generated.
    pub eval_count: u64,
    /// Nanoseconds the server spent generating, when it says.
    pub eval_duration: Option<u64>,
    /// Set when the reply is incomplete.
    pub cut: Option<Cut>,
}

/// The reply being streamed, kept outside the stream's future so that an
/// interrupt does not lose it.
#[derive(Debug, Default)]
pub(crate) struct PartialReply {
    pub thinking: String,
    /// Every content delta as it came, held-back text included, for a reply
    /// cut short.
    pub raw: String,
}

/// How the content is read.
#[derive(Debug, Clone)]
pub(crate) struct Reading {
    /// Tools whose calls are recovered from the text.
    pub tools: Vec<ToolName>,
    /// `--text-tools auto`.
    pub recover: bool,
    /// Content is shown after the reply is read, not as it streams
    /// (nobody watches it).
    pub hold_content: bool,
    /// The paths file blocks may name, when a reply's file blocks are
    /// shown as progress while its prose streams (whole-file and diff
    /// formats); `None` when the reply is all answer.
    pub block_paths: Option<Vec<String>>,
}

impl Reading {
    /// The splitter for one reply's file blocks, when it is shown live.
    fn live(&self) -> Option<LiveBlocks> {
        self.block_paths
            .clone()
            .filter(|_| !self.hold_content)
            .map(LiveBlocks::new)
    }

    fn filter(&self) -> TextCallFilter {
        TextCallFilter::new(&self.tools, self.recover)
    }
}

/// Sends `request` and streams the reply of turn `turn`, printing as it
/// comes; `partial` keeps what arrived in case the run is interrupted.
pub(crate) async fn stream(
    client: &ModelClient,
    request: &ChatRequest<'_>,
    reading: &Reading,
    turn: u32,
    partial: &mut PartialReply,
    out: &mut dyn Output,
) -> Result<Reply> {
    *partial = PartialReply::default();
    let mut stream = client.chat(request).await?;
    let mut tool_calls: Vec<ToolCall> = Vec::new();
    let mut native_thinking = String::new();
    let mut filter = reading.filter();
    let mut live = reading.live();
    let mut chunks = 0u64;
    loop {
        let Some(chunk) = stream.next().await? else {
            return Err(Error::Server(format!(
                "the chat stream from {} ended before its final chunk; the reply is incomplete and none of its tool calls were run",
                client.host()
            )));
        };
        chunks += 1;
        out.progress(turn, chunks);
        if let Some(message) = chunk.message {
            if let Some(delta) = message.thinking {
                out.thinking(turn, &delta);
                partial.thinking.push_str(&delta);
                native_thinking.push_str(&delta);
            }
            if let Some(delta) = message.content {
                partial.raw.push_str(&delta);
                let shown = filter.push(&delta);
                show(out, turn, &shown, reading, live.as_mut(), partial);
            }
            tool_calls.extend(message.tool_calls.unwrap_or_default());
        }
        if chunk.done {
            let shown = filter.finish();
            show(out, turn, &shown, reading, live.as_mut(), partial);
            if let Some(live) = live.as_mut() {
                show_pieces(out, turn, live.finish());
            }
            let _ = std::mem::take(partial);
            let (content, tag_thinking, text_calls) = filter.into_parts();
            let mut thinking = native_thinking;
            thinking.push_str(&tag_thinking);
            tool_calls.extend(text_calls.into_iter().map(|call| ToolCall {
                recovered: Some(true),
                ..ToolCall::new(call.name, call.arguments)
            }));
            let cut = (chunk.done_reason.as_deref() == Some("length")).then_some(Cut::Length);
            return Ok(Reply {
                message: Message {
                    thinking: (!thinking.is_empty()).then_some(thinking),
                    tool_calls,
                    ..Message::text(Role::Assistant, content)
                },
                done_reason: chunk.done_reason,
                prompt_eval_count: chunk.prompt_eval_count.unwrap_or(0),
                prompt_eval_duration: chunk.prompt_eval_duration,
                eval_count: chunk.eval_count.unwrap_or(0),
                eval_duration: chunk.eval_duration,
                cut,
            });
        }
    }
}

/// Shows filtered text and keeps its thinking in case the reply is cut
/// short. With `live` blocks, the prose streams and a file block shows as
/// progress (its diff is shown as it is applied, once the reply is read).
fn show(
    out: &mut dyn Output,
    turn: u32,
    shown: &Filtered,
    reading: &Reading,
    live: Option<&mut LiveBlocks>,
    partial: &mut PartialReply,
) {
    if !shown.thinking.is_empty() {
        out.thinking(turn, &shown.thinking);
        partial.thinking.push_str(&shown.thinking);
    }
    if shown.content.is_empty() || reading.hold_content {
        return;
    }
    match live {
        Some(live) => show_pieces(out, turn, live.push(&shown.content)),
        None => out.content(turn, &shown.content),
    }
}

/// Shows the `answer` once the reply is read, when its content was held
/// (nobody watches it as it streams).
pub(crate) fn show_held(out: &mut dyn Output, turn: u32, answer: &str) {
    if !out.streams_content() && !answer.is_empty() {
        out.content(turn, answer);
    }
}

fn show_pieces(out: &mut dyn Output, turn: u32, pieces: Vec<Piece>) {
    for piece in pieces {
        match piece {
            Piece::Prose(text) => out.content(turn, &text),
            Piece::Block(block) => {
                out.file_block(turn, block.path.as_deref(), block.lines, block.closed)
            }
        }
    }
}
