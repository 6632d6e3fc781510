//! Making room before a request: the conversation's tokens counted (see
//! [`super::context::ContextMeter`]), and compacted when they would pass
//! `--compact-at` of `num_ctx` (see [`super::compaction`]).

use serde_json::Value;

use super::compaction::{self, SUMMARY_PROMPT, TARGET_PERCENT};
use super::context::{BYTES_PER_TOKEN, ContextMeter, message_tokens, request_tokens};
use crate::client::{ChatOptions, ChatRequest, Message, ModelClient, Role};
use crate::error::{Error, Result};
use crate::session::{Compaction, Session, Usage};
use crate::ui::Output;

/// What the room check needs of the run.
pub(crate) struct Room<'a> {
    pub client: &'a ModelClient,
    pub model: &'a str,
    pub options: ChatOptions,
    /// The tool schemas sent with every request.
    pub schemas: &'a [Value],
    /// Compact past this share of `num_ctx` (percent); `None`: never.
    pub compact_at: Option<u8>,
}

/// Why there is no room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContextFull {
    /// Tokens the conversation still takes.
    pub tokens: u64,
    /// The context it does not fit in (tokens).
    pub num_ctx: u64,
}

impl Room<'_> {
    /// Compacts `session.messages` when a request of them (as `wire` puts
    /// them on the wire) would pass `compact_at`, down to about half of
    /// `num_ctx`. Errors: `Ok(Err(ContextFull))` when nothing more can be
    /// removed and the conversation still does not fit; server errors from
    /// the summary request.
    pub(crate) async fn make(
        &self,
        session: &mut Session,
        wire: &dyn Fn(&[Message]) -> Vec<Message>,
        meter: &mut ContextMeter,
        out: &mut dyn Output,
    ) -> Result<std::result::Result<(), ContextFull>> {
        let num_ctx = u64::from(self.options.num_ctx);
        let tokens = |messages: &[Message], meter: &ContextMeter| {
            meter.tokens(request_tokens(&wire(messages), self.schemas))
        };
        let Some(limit) = self.compact_at.map(|pct| num_ctx * u64::from(pct) / 100) else {
            return Ok(Ok(()));
        };
        let measured = tokens(session.messages(), meter);
        if measured <= limit || meter.compacted_recently(measured, num_ctx) {
            return Ok(Ok(()));
        }
        let estimate_before = request_tokens(&wire(session.messages()), self.schemas);
        let target = (num_ctx * TARGET_PERCENT / 100).min(limit * 2 / 3);
        let turn = session.turns + 1;
        let mut markers = compaction::stub_old_results(session.messages_unsaved(), turn);
        // The measured figure described the old conversation; before and
        // after are both told on the same (scaled) estimate.
        meter.reset();
        let before = meter.tokens(estimate_before);
        // A summary costs a model request: only when the stubs were not
        // enough, and only of a part worth it.
        if tokens(session.messages(), meter) > limit
            && let Some(range) = compaction::summarisable(session.messages())
            && worth_summarising(&session.messages()[range.clone()], num_ctx)
        {
            let text = compaction::transcript(
                &session.messages()[range.clone()],
                (num_ctx as usize * BYTES_PER_TOKEN) / 2,
            );
            let (summary, usage) = self.summarise(&text).await?;
            session.usage.prompt_tokens += usage.prompt_tokens;
            session.usage.completion_tokens += usage.completion_tokens;
            markers.push(compaction::replace_with_summary(
                session.messages_unsaved(),
                range,
                &summary,
                turn,
            ));
        }
        let mut now = tokens(session.messages(), meter);
        while now > num_ctx * 95 / 100 {
            let Some(marker) =
                compaction::cut_largest_result(session.messages_unsaved(), now - target, turn)
            else {
                break;
            };
            markers.push(marker);
            now = tokens(session.messages(), meter);
        }
        meter.compacted(now, limit);
        if !markers.is_empty() {
            out.note(&format!(
                "compacted the conversation from about {before} to {now} tokens of {num_ctx} ({})",
                describe(&markers)
            ));
            out.compacted(turn, before, now);
            session.compactions.extend(markers);
        }
        if now > num_ctx {
            return Ok(Err(ContextFull {
                tokens: now,
                num_ctx,
            }));
        }
        Ok(Ok(()))
    }

    /// One request for a summary of `transcript`; its text and tokens.
    async fn summarise(&self, transcript: &str) -> Result<(String, Usage)> {
        let messages = [
            Message::text(Role::System, SUMMARY_PROMPT),
            Message::text(Role::User, transcript),
        ];
        let request = ChatRequest {
            model: self.model,
            messages: &messages,
            tools: &[],
            stream: true,
            think: None,
            options: ChatOptions {
                num_predict: Some(1024),
                ..self.options
            },
            format: None,
            first_byte: None,
        };
        let mut stream = self.client.chat(&request).await?;
        let mut summary = String::new();
        loop {
            let Some(chunk) = stream.next().await? else {
                return Err(Error::Server(
                    "the summary request's stream ended before its `done` chunk".into(),
                ));
            };
            if let Some(text) = chunk.message.and_then(|m| m.content) {
                summary.push_str(&text);
            }
            if chunk.done {
                let usage = Usage {
                    prompt_tokens: chunk.prompt_eval_count.unwrap_or(0),
                    completion_tokens: chunk.eval_count.unwrap_or(0),
                };
                return Ok((summary, usage));
            }
        }
    }
}

/// Whether `messages` take enough of the context to be worth a summary
/// request (an eighth of `num_ctx`).
fn worth_summarising(messages: &[Message], num_ctx: u64) -> bool {
    messages.iter().map(message_tokens).sum::<u64>() >= num_ctx / 8
}

/// What the compaction did, in words.
fn describe(markers: &[Compaction]) -> String {
    let count = |kind: &str| markers.iter().filter(|m| m.kind == kind).count();
    let mut parts = Vec::new();
    let stubbed = count("stubbed");
    if stubbed > 0 {
        parts.push(format!("{stubbed} old tool results dropped"));
    }
    if count("summarized") > 0 {
        parts.push("older messages summarised".to_string());
    }
    let cut = count("cut");
    if cut > 0 {
        parts.push(format!("{cut} results cut"));
    }
    parts.join(", ")
}
