//! Counting a reply: its tokens into the session and the context meter,
//! the server's speed (from Ollama's `prompt_eval_duration` and
//! `eval_duration`, llama.cpp's `timings`) into the speed meter, and the
//! warnings when the server cut the prompt or it filled the context.

use std::time::Duration;

use super::context::{ContextMeter, PromptCount, message_tokens, prompt_count};
use super::reply::{Cut, Reply};
use crate::client::{ChatOptions, FirstByteWait};
use crate::protocol::Context;
use crate::session::{Session, Usage};
use crate::ui::Output;

/// Prompt tokens a second assumed before the server's speed is measured:
/// slower than a 2-core CPU reads a 1.5B model's prompt (about 30 a
/// second), so that a long first prompt is waited for.
pub(crate) const ASSUMED_PROMPT_RATE: f64 = 10.0;

/// How fast the server reads prompts and writes replies, as the run goes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Speed {
    /// Prompt tokens a second: the slowest request so far (a request whose
    /// prompt the server had mostly cached reads as fast).
    pub prompt_rate: Option<f64>,
    /// Generated tokens a second, of the last reply.
    pub eval_rate: Option<f64>,
    /// Tokens of the last request and its reply: what the server may have
    /// in its cache for the next one.
    cached: u64,
}

impl Speed {
    /// Notes a reply's counts and durations (nanoseconds).
    pub(crate) fn measure(&mut self, reply: &Reply) {
        let rate = |count: u64, nanos: Option<u64>| {
            nanos
                .filter(|&n| n > 0 && count > 0)
                .map(|n| count as f64 / (n as f64 / 1e9))
        };
        if let Some(prompt) = rate(reply.prompt_eval_count, reply.prompt_eval_duration) {
            self.prompt_rate = Some(self.prompt_rate.map_or(prompt, |r| r.min(prompt)));
        }
        if let Some(eval) = rate(reply.eval_count, reply.eval_duration) {
            self.eval_rate = Some(eval);
        }
        self.cached = reply.prompt_eval_count + reply.eval_count;
    }

    /// The speeds as the run's result reports them (rounded to a tenth).
    pub(crate) fn report(&self) -> crate::protocol::Speed {
        let round = |r: f64| (r * 10.0).round() / 10.0;
        crate::protocol::Speed {
            prompt_tokens_per_second: self.prompt_rate.map(round),
            eval_tokens_per_second: self.eval_rate.map(round),
        }
    }

    /// The wait for the first chunk of a request of about `sent` tokens:
    /// `base` (a model still loading) and the time to read what the server
    /// does not have cached at the slowest rate seen (or
    /// [`ASSUMED_PROMPT_RATE`]). `None` when that adds less than a second.
    pub(crate) fn first_byte(&self, sent: u64, base: Duration) -> Option<FirstByteWait> {
        let new = sent.saturating_sub(self.cached);
        let (rate, how) = match self.prompt_rate {
            Some(rate) => (rate, "measured"),
            None => (ASSUMED_PROMPT_RATE, "assumed"),
        };
        let reading = Duration::from_secs_f64(new as f64 / rate.max(0.1));
        (reading >= Duration::from_secs(1)).then(|| FirstByteWait {
            wait: base.saturating_add(reading),
            why: format!("about {new} prompt tokens to read at {rate:.0} tokens/s ({how})"),
        })
    }
}

/// Adds the reply's tokens to the session and the meters; says so when the
/// server cut the prompt (`sent`: its estimate) or it filled the whole
/// context. `configured` is the `num_ctx` asked for (the model may allow
/// less).
#[allow(clippy::too_many_arguments)]
pub(crate) fn count(
    session: &mut Session,
    reply: &Reply,
    sent: u64,
    meter: &mut ContextMeter,
    speed: &mut Speed,
    options: ChatOptions,
    configured: u32,
    out: &mut dyn Output,
) {
    session.usage.prompt_tokens += reply.prompt_eval_count;
    session.usage.completion_tokens += reply.eval_count;
    session.reply_usage.push(Usage {
        prompt_tokens: reply.prompt_eval_count,
        completion_tokens: reply.eval_count,
    });
    speed.measure(reply);
    let reply_tokens = message_tokens(&reply.message);
    meter.measure(
        reply.prompt_eval_count,
        reply.eval_count,
        sent,
        reply_tokens,
    );
    let num_ctx = options.num_ctx;
    let evaluated = reply.prompt_eval_count;
    let cut = match prompt_count(sent, evaluated, num_ctx) {
        PromptCount::Whole => None,
        PromptCount::CutAtNumCtx => Some(format!(
            "the server cut the prompt: about {sent} tokens were sent and it evaluated {evaluated} (num_ctx {num_ctx}); the model did not see all of the conversation, so this run counts as a success only if `--check` passes. Raise `--num-ctx`, or let compaction work (`--compact-at`)"
        )),
        PromptCount::CutBelowNumCtx => Some(format!(
            "the server cut the prompt: about {sent} tokens were sent and it evaluated {evaluated}, although num_ctx is {num_ctx}: the server (or a proxy before it) ignores num_ctx and runs a smaller context; the model did not see all of the conversation, so this run counts as a success only if `--check` passes. Give the server a larger context (Ollama: `OLLAMA_CONTEXT_LENGTH`; llama.cpp: `-c`), or set `--num-ctx` to the size it runs"
        )),
    };
    if let Some(warning) = cut {
        session.truncated_turns.push(session.turns);
        out.warn(&warning);
    }
    out.turn_completed(
        session.turns,
        Usage {
            prompt_tokens: reply.prompt_eval_count,
            completion_tokens: reply.eval_count,
        },
        reply.done_reason.as_deref(),
        reply.cut.map(Cut::as_str),
        Context {
            used: meter.tokens(sent + reply_tokens),
            max: num_ctx,
        },
    );
    if reply.prompt_eval_count >= u64::from(num_ctx) {
        let advice = if num_ctx < configured {
            "this is the model's whole context; split the task or use a model with a longer context"
        } else {
            "raise `--num-ctx`"
        };
        out.warn(&format!(
            "the prompt filled the whole context ({} tokens, num_ctx {num_ctx}); the server may have cut it: {advice}",
            reply.prompt_eval_count
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{Message, Role};

    fn reply(prompt: u64, prompt_ms: u64, eval: u64, eval_ms: u64) -> Reply {
        Reply {
            message: Message::text(Role::Assistant, ""),
            done_reason: Some("stop".into()),
            prompt_eval_count: prompt,
            prompt_eval_duration: Some(prompt_ms * 1_000_000),
            eval_count: eval,
            eval_duration: Some(eval_ms * 1_000_000),
            cut: None,
        }
    }

    /// Regression: an 8,514-token first request ended at the 300 s
    /// first-byte timeout while a real server was still reading it.
    #[test]
    fn the_first_wait_grows_with_the_prompt_and_the_measured_speed() {
        let base = Duration::from_secs(300);
        let mut speed = Speed::default();
        let wait = speed.first_byte(8514, base).unwrap();
        assert_eq!(wait.wait.as_secs(), 300 + 851);
        assert!(
            wait.why.contains("8514 prompt tokens") && wait.why.contains("(assumed)"),
            "{}",
            wait.why
        );
        assert_eq!(speed.first_byte(5, base), None);
        // 1,000 tokens read in 25 s: 40 a second; generation 16 a second.
        speed.measure(&reply(1000, 25_000, 160, 10_000));
        assert_eq!(speed.prompt_rate.map(|r| r.round()), Some(40.0));
        assert_eq!(speed.eval_rate.map(|r| r.round()), Some(16.0));
        // The next request adds 2,000 tokens to the 1,160 the server has.
        let wait = speed.first_byte(3160, base).unwrap();
        assert_eq!(wait.wait.as_secs(), 350);
        assert!(wait.why.contains("(measured)"), "{}", wait.why);
        // A mostly cached request reads fast; the slowest rate is kept.
        speed.measure(&reply(3200, 1_000, 10, 600));
        assert_eq!(speed.prompt_rate.map(|r| r.round()), Some(40.0));
    }

    /// A first-byte timeout as long as a config file may set it
    /// (`first_byte_timeout_secs`: any u64) is held, not overflowed.
    #[test]
    fn the_longest_first_byte_timeout_does_not_overflow() {
        let speed = Speed::default();
        let wait = speed.first_byte(1_000_000, Duration::from_secs(u64::MAX));
        assert_eq!(wait.map(|w| w.wait), Some(Duration::MAX));
    }
}
