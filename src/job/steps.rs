//! Per-step truth for the fine-tuning record: for every reply the model
//! wrote, whether it did what it meant to. Read off the conversation after
//! the run: a reply's calls that failed or were refused (file blocks
//! included, as the calls they became), and the message `oc` sent after
//! it when the reply got one of the loop's nudges (it described the change
//! instead of making it, sent files back unchanged, named no file, was cut
//! off or empty) or the check failed after it. Trainers mask such steps
//! rather than learn from them.

use super::nudges as guards;
use crate::client::{Message, Role};
use crate::session::{Check, Session, Step, Trajectory, is_grounding_read};

/// The record's conversation of `session`: its messages as `wire` puts
/// them before the model, and the step of each reply.
pub(crate) fn trajectory(
    session: &Session,
    wire: &dyn Fn(&[Message]) -> Vec<Message>,
) -> Trajectory {
    let mut steps = of(
        session.messages(),
        &session.failed_tool_calls,
        session.check.as_ref(),
    );
    // The last replies have the last counts (compaction may have folded
    // the first replies into a summary).
    let replies = steps.iter_mut().rev().filter(|s| !s.synthetic);
    for (step, usage) in replies.zip(session.reply_usage.iter().rev()) {
        step.usage = Some(*usage);
    }
    Trajectory {
        messages: wire(session.messages()),
        steps,
    }
}

/// The steps of `messages` (a session's conversation, before it is put on
/// the wire), one per assistant message, in order. `failed` holds the ids
/// of the calls whose result was an error; `check` the last `--check` run,
/// which decides the last reply.
pub(crate) fn of(messages: &[Message], failed: &[String], check: Option<&Check>) -> Vec<Step> {
    let replies: Vec<usize> = (0..messages.len())
        .filter(|&i| messages[i].role == Role::Assistant)
        .collect();
    let mut steps: Vec<Step> = replies
        .iter()
        .enumerate()
        .map(|(n, &at)| {
            let until = replies.get(n + 1).copied().unwrap_or(messages.len());
            step(&messages[at], &messages[at + 1..until], failed)
        })
        .collect();
    if let (Some(last), Some(check)) = (steps.last_mut(), check)
        && !check.passed
    {
        last.fail(format!("the check `{}` failed after it", check.command));
    }
    steps
}

/// The step of one reply, given the messages that follow it up to the
/// next reply.
fn step(reply: &Message, after: &[Message], failed: &[String]) -> Step {
    let mut step = Step {
        synthetic: is_grounding_read(reply),
        ..Step::default()
    };
    for call in &reply.tool_calls {
        // Its own result says (a server may give every reply the same
        // call ids); without one, the failed ids do.
        let result = (after.iter()).find(|m| m.role == Role::Tool && m.tool_call_id == call.id);
        let failed = match result {
            Some(m) => m.content.starts_with("error"),
            None => call.id.as_ref().is_some_and(|id| failed.contains(id)),
        };
        if failed {
            let said = result.map(|m| first_line(&m.content)).unwrap_or_default();
            step.fail(format!("{}: {said}", call.function.name));
        }
    }
    let told = after.iter().find(|m| m.role == Role::User);
    if let Some(why) = told.and_then(|m| nudged(&m.content)) {
        step.fail(why);
    }
    step
}

/// What a message `oc` sent after a reply says of that reply, when it is
/// one of the loop's nudges or a failed check's output.
fn nudged(text: &str) -> Option<String> {
    let text = text.trim_start();
    let said = [
        (guards::UNPLACED, "its code blocks named no file"),
        (guards::NUDGE, "an empty reply"),
        (guards::NUDGE_IN_TEXT, "an empty reply"),
        (guards::NUDGE_TO_ANSWER, "an empty reply"),
        ("Your reply was cut off", "cut off at the length limit"),
    ];
    if let Some((_, why)) = said.iter().find(|(start, _)| text.starts_with(start)) {
        return Some((*why).to_string());
    }
    let check = text.strip_prefix("The check `")?;
    let (command, rest) = check.split_once("` failed (")?;
    rest.contains("The task is not done yet")
        .then(|| format!("the check `{command}` failed after it"))
}

/// The first line of a result, at most 200 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::check::feedback;
    use crate::client::ToolCall;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn reply(calls: &[(&str, &str)]) -> Message {
        let mut m = Message::text(Role::Assistant, "");
        m.tool_calls = calls
            .iter()
            .map(|(name, id)| ToolCall {
                id: Some(id.to_string()),
                ..ToolCall::new(*name, json!({"path": "a.py"}))
            })
            .collect();
        m
    }

    fn check(command: &str, passed: bool) -> Check {
        Check {
            command: command.into(),
            exit_code: Some(if passed { 0 } else { 1 }),
            passed,
            attempts: 1,
            failing: None,
            passed_tests: None,
        }
    }

    #[test]
    fn failed_calls_nudges_and_checks_mark_their_step() {
        let messages = vec![
            Message::text(Role::User, "Fix a.py"),
            reply(&[("write_file", "c1"), ("read_file", "c2")]),
            Message::tool_result("write_file", "c1", "error: a.py was not shown to you\nmore"),
            Message::tool_result("read_file", "c2", "x = 1"),
            Message::text(Role::Assistant, "```\nx = 2\n```"),
            Message::text(Role::User, format!("{} Reply with a.py.", guards::UNPLACED)),
            reply(&[("write_file", "c3")]),
            Message::tool_result("write_file", "c3", "Changed a.py"),
            Message::text(
                Role::User,
                feedback(&check("pytest -q", false), "1 failed", "Reply with a.py."),
            ),
            reply(&[("write_file", "c4")]),
            Message::tool_result("write_file", "c4", "Changed a.py"),
        ];
        let failed = vec!["c1".to_string()];
        let steps = of(&messages, &failed, Some(&check("pytest -q", true)));
        let notes: Vec<(bool, Vec<String>)> =
            steps.iter().map(|s| (s.ok, s.notes.clone())).collect();
        assert_eq!(
            notes,
            [
                (
                    false,
                    vec!["write_file: error: a.py was not shown to you".to_string()]
                ),
                (false, vec!["its code blocks named no file".to_string()]),
                (
                    false,
                    vec!["the check `pytest -q` failed after it".to_string()]
                ),
                (true, vec![]),
            ]
        );
        // The last check failed: the last reply is marked too.
        let steps = of(&messages, &failed, Some(&check("pytest -q", false)));
        assert_eq!(
            steps[3].notes,
            ["the check `pytest -q` failed after it".to_string()]
        );
        // Ids a server gives every reply: each reply's own result decides.
        let reused = vec![
            reply(&[("edit_file", "x0")]),
            Message::tool_result("edit_file", "x0", "error: old_string was not found"),
            reply(&[("edit_file", "x0")]),
            Message::tool_result("edit_file", "x0", "updated a.py (+1 -1)"),
        ];
        let oks: Vec<bool> = of(&reused, &["x0".to_string()], None)
            .iter()
            .map(|s| s.ok)
            .collect();
        assert_eq!(oks, [false, true]);
        // The opening's reads are `oc`'s, not the model's.
        let read = vec![reply(&[("read_file", "call_g1_0")])];
        let steps = of(&read, &[], None);
        assert!(steps[0].ok && steps[0].synthetic && !steps[0].learnable());
        // Each reply's tokens go to it, never to `oc`'s reads (a continued
        // session reads again in the middle).
        let mut session = Session::new(
            crate::vocab::Mode::Code,
            "m",
            "h",
            std::path::Path::new("/w"),
            "p",
            4096,
        );
        *session.messages_unsaved() = vec![
            reply(&[("read_file", "call_g1_0")]),
            Message::tool_result("read_file", "call_g1_0", "x"),
            Message::text(Role::Assistant, "Fixed."),
            reply(&[("read_file", "call_g2_0")]),
            Message::tool_result("read_file", "call_g2_0", "x"),
            Message::text(Role::Assistant, "It adds."),
        ];
        let usage = |p, c| crate::session::Usage {
            prompt_tokens: p,
            completion_tokens: c,
        };
        session.reply_usage = vec![usage(100, 5), usage(200, 7)];
        let steps = trajectory(&session, &|m| m.to_vec()).steps;
        let got: Vec<Option<u64>> = steps
            .iter()
            .map(|s| s.usage.map(|u| u.prompt_tokens))
            .collect();
        assert_eq!(got, [None, Some(100), None, Some(200)]);
        // A user's own next prompt says nothing of the reply before it.
        let own = vec![
            Message::text(Role::Assistant, "Done."),
            Message::text(Role::User, "Now add a test."),
            Message::text(Role::Assistant, "Added."),
        ];
        assert!(of(&own, &[], None).iter().all(|s| s.ok));
    }
}
