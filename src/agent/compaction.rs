//! Compaction: before a request that would pass `--compact-at` (75 %) of
//! `num_ctx`, the conversation is made smaller, down to about half the
//! context: first old tool results become one-line stubs (the call can be
//! made again); then, if that is not enough, the older part is summarised
//! by one model request; then a single result too big to fit is cut. The
//! system prompt and the user's prompt are never cut. Every step is kept in
//! the session as a marker: what was replaced, by what.

use super::context::{BYTES_PER_TOKEN, cap_output};
use crate::client::{Message, Role};
use crate::session::Compaction;

/// The last turns whose tool results stay whole.
pub(crate) const KEEP_TURNS: usize = 2;
/// Compaction aims at this share of `num_ctx`, so the next one is far away.
pub(crate) const TARGET_PERCENT: u64 = 50;

/// The fixed request for a summary of the older part of a conversation.
pub(crate) const SUMMARY_PROMPT: &str = "You summarise a coding session so far for the agent that will continue it. Write a short summary: the goal, the files read and changed (with what changed), decisions made, and open problems. Facts only, no advice.";

/// Where the recent turns begin: the index of the `keep`-th assistant
/// message from the end (the messages from there on stay whole); 0 when
/// the conversation has fewer turns than that (all of it is recent).
fn recent_start(messages: &[Message], keep: usize) -> usize {
    messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role == Role::Assistant)
        .nth(keep.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

/// The stub a dropped tool result becomes.
fn stub(message: &Message) -> Message {
    let name = message.tool_name.as_deref().unwrap_or("tool");
    Message {
        content: format!(
            "[the output of this {name} call ({} bytes) was dropped to save context; make the call again if you need it]",
            message.content.len()
        ),
        ..message.clone()
    }
}

/// Replaces every tool result before the last [`KEEP_TURNS`] turns with a
/// stub. Returns the markers (one per run of replaced results).
pub(crate) fn stub_old_results(messages: &mut [Message], turn: u32) -> Vec<Compaction> {
    let end = recent_start(messages, KEEP_TURNS);
    let mut markers = Vec::new();
    for (i, m) in messages.iter_mut().enumerate().take(end) {
        if m.role != Role::Tool || m.content.starts_with("[the output of this ") {
            continue;
        }
        let replacement = stub(m);
        if replacement.content.len() >= m.content.len() {
            continue;
        }
        markers.push(Compaction {
            turn,
            kind: "stubbed".into(),
            at: i,
            replaced: vec![m.clone()],
            by: vec![replacement.clone()],
        });
        *m = replacement;
    }
    markers
}

/// The part of the conversation a summary replaces: after the system
/// prompt and the first user message, before the recent turns. `None` when
/// there is nothing to summarise.
pub(crate) fn summarisable(messages: &[Message]) -> Option<std::ops::Range<usize>> {
    let first_user = messages.iter().position(|m| m.role == Role::User)?;
    let start = first_user + 1;
    let end = recent_start(messages, KEEP_TURNS);
    (end > start + 1).then_some(start..end)
}

/// The messages of `range` as a plain transcript for the summary request,
/// at most `max_bytes` (head and tail).
pub(crate) fn transcript(messages: &[Message], max_bytes: usize) -> String {
    let mut text = String::new();
    for m in messages {
        let who = match m.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool result",
        };
        text.push_str(&format!("[{who}]\n{}\n", m.content.trim()));
        for call in &m.tool_calls {
            text.push_str(&format!(
                "(calls {} {})\n",
                call.function.name, call.function.arguments
            ));
        }
    }
    cap_output(&text, max_bytes)
}

/// Puts `summary` in place of `range`, as one user message, and returns
/// the marker.
pub(crate) fn replace_with_summary(
    messages: &mut Vec<Message>,
    range: std::ops::Range<usize>,
    summary: &str,
    turn: u32,
) -> Compaction {
    let by = Message::text(
        Role::User,
        format!(
            "[Earlier messages of this session were replaced by this summary to save context.]\n{}",
            summary.trim()
        ),
    );
    let replaced: Vec<Message> = messages.splice(range.clone(), [by.clone()]).collect();
    Compaction {
        turn,
        kind: "summarized".into(),
        at: range.start,
        replaced,
        by: vec![by],
    }
}

/// Cuts the largest tool result after the first user message so that the
/// conversation loses `excess` tokens (head and tail kept). `None` when no
/// result can give that much.
pub(crate) fn cut_largest_result(
    messages: &mut [Message],
    excess: u64,
    turn: u32,
) -> Option<Compaction> {
    let (i, m) = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::Tool)
        .max_by_key(|(_, m)| m.content.len())?;
    let keep = m
        .content
        .len()
        .checked_sub(excess as usize * BYTES_PER_TOKEN + 200)?;
    if keep < 400 {
        return None;
    }
    let replacement = Message {
        content: cap_output(&m.content, keep),
        ..m.clone()
    };
    let marker = Compaction {
        turn,
        kind: "cut".into(),
        at: i,
        replaced: vec![m.clone()],
        by: vec![replacement.clone()],
    };
    messages[i] = replacement;
    Some(marker)
}

#[cfg(test)]
/// Estimated tokens of `messages` (see [`message_tokens`]).
pub(crate) fn tokens_of(messages: &[Message]) -> u64 {
    messages.iter().map(super::context::message_tokens).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::ToolCall;
    use serde_json::json;

    fn conversation(turns: usize) -> Vec<Message> {
        let mut messages = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "read them all"),
        ];
        for n in 0..turns {
            let id = format!("call_{n}");
            messages.push(Message {
                tool_calls: vec![ToolCall {
                    id: Some(id.clone()),
                    ..ToolCall::new("read_file", json!({"path": format!("f{n}.txt")}))
                }],
                ..Message::text(Role::Assistant, "")
            });
            messages.push(Message::tool_result("read_file", &id, "x".repeat(4000)));
        }
        messages
    }

    #[test]
    fn old_results_become_stubs_and_recent_ones_stay() {
        let mut messages = conversation(5);
        let before = tokens_of(&messages);
        let markers = stub_old_results(&mut messages, 6);
        assert_eq!(markers.len(), 3, "five turns, the last two kept");
        assert!(
            messages[3]
                .content
                .starts_with("[the output of this read_file call (4000 bytes)")
        );
        assert_eq!(messages[11].content.len(), 4000);
        assert!(tokens_of(&messages) < before / 2);
        assert_eq!(markers[0].replaced[0].content.len(), 4000);
        assert!(
            stub_old_results(&mut messages, 7).is_empty(),
            "stubs stay stubs"
        );
    }

    #[test]
    fn a_conversation_shorter_than_the_kept_turns_is_all_recent() {
        let mut messages = conversation(1);
        assert!(stub_old_results(&mut messages, 2).is_empty());
        assert_eq!(messages[3].content.len(), 4000, "the one result stays");
        assert!(summarisable(&messages).is_none());
    }

    #[test]
    fn the_older_part_is_summarised_and_a_result_cut() {
        let mut messages = conversation(5);
        let range = summarisable(&messages).unwrap();
        assert_eq!(range, 2..8);
        let text = transcript(&messages[range.clone()], 10_000);
        assert!(text.contains("(calls read_file {\"path\":\"f0.txt\"})"));
        let marker = replace_with_summary(&mut messages, range, "Read f0 to f2.", 6);
        assert_eq!(marker.replaced.len(), 6);
        assert_eq!(messages.len(), 7);
        assert_eq!(
            messages[1].content, "read them all",
            "the prompt is never cut"
        );
        assert!(messages[2].content.ends_with("Read f0 to f2."));
        let cut = cut_largest_result(&mut messages, 500, 6).unwrap();
        assert_eq!(cut.kind, "cut");
        assert!(messages.iter().any(|m| m.content.contains("bytes omitted")));
        assert!(cut_largest_result(&mut messages, 100_000, 6).is_none());
    }
}
