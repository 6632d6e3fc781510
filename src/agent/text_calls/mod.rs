//! Tool calls written as text. Small models served with tools often put the
//! call in `message.content` instead of `tool_calls` (captures in
//! `fixtures/ollama/real-model/`): a ```json fence holding
//! `{"name", "arguments"}`, `<tool_call>…</tool_call>` tags, `<function=NAME>`
//! blocks with `<parameter=K>V</parameter>`, a bare JSON object, or a JSON
//! array of calls. Models without native tool calling are asked for a
//! ```tool fence (the fenced-tool protocol) and parsed the same way.
//!
//! [`TextCallFilter`] sits on the content stream: text that could still be a
//! call is held back until its block is complete, then either swallowed (a
//! call to an offered tool) or released unchanged. It also moves
//! `<think>…</think>` out of the content.

pub(crate) mod filter;

pub(crate) use crate::job::calls_in_text::repair_name;
pub(crate) use filter::{Filtered, TextCallFilter};
