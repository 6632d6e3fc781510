//! Context bookkeeping: how many tokens the conversation takes (the
//! server's own count up to the last reply, an estimate for what was added
//! since), whether the server cut a prompt, and capping what a tool result
//! may add.

use serde_json::Value;

use crate::client::Message;

/// Bytes per token in estimates (about 4 for English and code).
pub(crate) const BYTES_PER_TOKEN: usize = 4;
/// Tokens counted for each message beyond its text (role, markers).
const MESSAGE_OVERHEAD_TOKENS: u64 = 4;

/// Estimated tokens of one message: its text, thinking and calls.
pub(crate) fn message_tokens(message: &Message) -> u64 {
    let calls: usize = message
        .tool_calls
        .iter()
        .map(|c| c.function.name.len() + c.function.arguments.to_string().len())
        .sum();
    let bytes = message.content.len() + message.thinking.as_ref().map_or(0, String::len) + calls;
    (bytes / BYTES_PER_TOKEN) as u64 + MESSAGE_OVERHEAD_TOKENS
}

/// Estimated tokens of a request: its messages and tool schemas.
pub(crate) fn request_tokens(messages: &[Message], schemas: &[Value]) -> u64 {
    let schema_bytes: usize = schemas.iter().map(|s| s.to_string().len()).sum();
    messages.iter().map(message_tokens).sum::<u64>() + (schema_bytes / BYTES_PER_TOKEN) as u64
}

/// Keeps count of the conversation's tokens: the server's figure for the
/// prompt of the last request and its reply, plus an estimate for what was
/// added since. After a compaction the figure no longer describes the
/// conversation; the estimate is then scaled by how far the last estimate
/// was off (chat templates and tool-call markup add tokens the estimate
/// does not see).
#[derive(Debug, Clone, Default)]
pub(crate) struct ContextMeter {
    /// `prompt_eval_count + eval_count` of the last reply.
    measured: Option<u64>,
    /// The estimate, at the time of that reply, of the conversation it
    /// covers (the request plus the reply).
    estimated_then: u64,
    /// Whether the conversation was compacted since that reply.
    stale: bool,
    /// Tokens after the last compaction, when it could not get below the
    /// limit: the next one waits until the conversation has grown.
    compacted_to: Option<u64>,
}

impl ContextMeter {
    /// Tokens a request of `estimate` (from [`request_tokens`]) takes: the
    /// measured figure plus what the estimate grew by since; the estimate
    /// scaled by the last measured ratio after a compaction; the estimate
    /// alone before the first reply.
    pub(crate) fn tokens(&self, estimate: u64) -> u64 {
        match self.measured {
            Some(measured) if self.stale && self.estimated_then > 0 => {
                // Never scaled down: an estimate that ran high stays safe.
                estimate.max(estimate * measured / self.estimated_then)
            }
            Some(measured) if !self.stale => {
                measured + estimate.saturating_sub(self.estimated_then)
            }
            _ => estimate,
        }
    }

    /// Takes the server's figures for a reply to a request estimated at
    /// `sent` tokens; `reply` is the reply's own estimate.
    pub(crate) fn measure(
        &mut self,
        prompt_eval_count: u64,
        eval_count: u64,
        sent: u64,
        reply: u64,
    ) {
        if prompt_eval_count == 0 {
            // A reply stopped early has no figures: keep estimating.
            return;
        }
        self.measured = Some(prompt_eval_count + eval_count);
        self.estimated_then = sent + reply;
        self.stale = false;
    }

    /// Notes a compaction that left `after` tokens, against `limit`.
    pub(crate) fn compacted(&mut self, after: u64, limit: u64) {
        self.compacted_to = (after > limit).then_some(after);
    }

    /// Whether a compaction that could not get below the limit was so
    /// recent that another would gain little: the conversation has grown
    /// by less than a tenth of `num_ctx` since, and is below 95 % of it.
    /// Each compaction breaks the server's cached prefix, so it should not
    /// run every turn.
    pub(crate) fn compacted_recently(&self, tokens: u64, num_ctx: u64) -> bool {
        self.compacted_to
            .is_some_and(|to| tokens < to + num_ctx / 10 && tokens <= num_ctx * 95 / 100)
    }

    /// Marks the measured figure as describing an older conversation (after
    /// a compaction); [`Self::tokens`] then scales the estimate.
    pub(crate) fn reset(&mut self) {
        self.stale = true;
    }
}

/// How the server's count of prompt tokens compares with what was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PromptCount {
    /// About what was sent.
    Whole,
    /// The prompt was longer than `num_ctx` and the server evaluated
    /// clearly fewer tokens: Ollama cuts such a prompt silently, keeping
    /// its end.
    CutAtNumCtx,
    /// The prompt fit in `num_ctx`, yet the server evaluated less than a
    /// third of it: the server (or a proxy) ignores `num_ctx` and runs a
    /// smaller context.
    CutBelowNumCtx,
}

/// Prompts estimated shorter than this are never judged by their gap
/// alone: the estimate (4 bytes a token) is rough.
const MIN_JUDGED_PROMPT: u64 = 1_500;

/// Compares the server's `prompt_eval_count` with the estimate of what was
/// sent. A rough estimate of a short prompt never raises a false alarm.
pub(crate) fn prompt_count(
    sent_estimate: u64,
    prompt_eval_count: u64,
    num_ctx: u32,
) -> PromptCount {
    let num_ctx = u64::from(num_ctx);
    if prompt_eval_count == 0 {
        PromptCount::Whole
    } else if sent_estimate * 10 >= num_ctx * 11 && prompt_eval_count * 10 < sent_estimate * 8 {
        PromptCount::CutAtNumCtx
    } else if sent_estimate >= MIN_JUDGED_PROMPT && prompt_eval_count * 3 < sent_estimate {
        PromptCount::CutBelowNumCtx
    } else {
        PromptCount::Whole
    }
}

/// Largest tool result sent to the model, in bytes (about 8,000 tokens at
/// 4 characters a token). The head and tail are kept.
pub(crate) const TOOL_OUTPUT_CAP: usize = 32 * 1024;

/// `text` itself when it fits in `cap` bytes; else its head and tail with the
/// omitted size stated between them. Cuts only at character boundaries.
pub(crate) fn cap_output(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_string();
    }
    let half = cap / 2;
    let mut head_end = half;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - half;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    format!(
        "{}\n[… {} bytes omitted …]\n{}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched_and_long_text_keeps_both_ends() {
        assert_eq!(cap_output("abc", 10), "abc");
        let text = format!("{}{}", "é".repeat(100), "z".repeat(100));
        let capped = cap_output(&text, 50);
        assert!(capped.starts_with("éé"));
        assert!(capped.ends_with("zz"));
        assert!(capped.contains("bytes omitted"));
    }

    #[test]
    fn the_count_is_measured_then_estimated() {
        let mut meter = ContextMeter::default();
        assert_eq!(meter.tokens(1000), 1000, "an estimate before any reply");
        meter.measure(1200, 100, 1000, 80);
        assert_eq!(meter.tokens(1080), 1300, "the server's figure");
        assert_eq!(meter.tokens(1580), 1800, "plus what was added since");
        meter.measure(0, 40, 2000, 10);
        assert_eq!(meter.tokens(1580), 1800, "a stopped reply changes nothing");
        meter.reset();
        assert_eq!(
            meter.tokens(540),
            650,
            "after a compaction: scaled by 1300/1080"
        );
        meter.measure(500, 20, 540, 30);
        assert_eq!(meter.tokens(570), 520, "measured again");
    }

    /// The case: a 4,096-token context, about 8,500 tokens sent,
    /// 2,051 evaluated.
    #[test]
    fn a_cut_prompt_is_recognised_and_a_short_one_never() {
        use PromptCount::*;
        assert_eq!(prompt_count(8_500, 2_051, 4_096), CutAtNumCtx);
        assert_eq!(prompt_count(8_500, 4_000, 32_768), Whole, "it fit");
        assert_eq!(
            prompt_count(900, 253, 32_768),
            Whole,
            "a short prompt, a rough estimate"
        );
        assert_eq!(
            prompt_count(4_600, 4_090, 4_096),
            Whole,
            "within the estimate's error"
        );
        assert_eq!(
            prompt_count(12_000, 2_051, 32_768),
            CutBelowNumCtx,
            "a server that ignores num_ctx"
        );
        assert_eq!(
            prompt_count(1_200, 300, 32_768),
            Whole,
            "too short to judge"
        );
    }
}
