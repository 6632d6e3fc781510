//! Following one opencode session's events: streamed text and reasoning,
//! one turn per model step, tool parts as oc's tool calls and results,
//! usage from completed assistant messages, errors, and the end
//! (`session.idle`). Events of other sessions are ignored.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::transcript::tool_output;
use super::wire::{Event, MessageInfo, Part, PermissionRequest};
use crate::protocol::Context;
use crate::session::Usage;
use crate::ui::Output;

/// What the run does after an event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Continue,
    /// A tool of this session waits for an answer.
    Ask(PermissionRequest),
    /// The session has nothing left to do.
    Idle,
}

/// The state of one followed session.
#[derive(Debug)]
pub(crate) struct Follower {
    session: String,
    root: PathBuf,
    /// Part id → its type (`text`, `reasoning`, `tool`, …): deltas of
    /// reasoning parts are thinking.
    kinds: HashMap<String, String>,
    /// Tool calls shown, and those whose result was shown.
    called: HashSet<String>,
    finished: HashSet<String>,
    /// Assistant messages whose usage was counted.
    counted: HashSet<String>,
    /// Model steps so far (oc's turns).
    pub turns: u32,
    pub usage: Usage,
    /// The last step's tokens (prompt + completion).
    pub context: u64,
    pub tool_calls: usize,
    /// Files the session changed, relative to the workspace.
    pub files_changed: Vec<String>,
    /// The last error of the session: `(name, message)`.
    pub error: Option<(String, String)>,
    /// The last step's reason to stop (`stop`, `tool-calls`, `length`, …).
    pub finish: Option<String>,
}

impl Follower {
    /// Follows `session` of a server working in `root`.
    pub(crate) fn new(session: &str, root: &Path) -> Self {
        Follower {
            session: session.to_string(),
            root: root.to_path_buf(),
            kinds: HashMap::new(),
            called: HashSet::new(),
            finished: HashSet::new(),
            counted: HashSet::new(),
            turns: 0,
            usage: Usage::default(),
            context: 0,
            tool_calls: 0,
            files_changed: Vec::new(),
            error: None,
            finish: None,
        }
    }

    /// Takes one event; reports on `out` what it shows.
    pub(crate) fn handle(&mut self, event: Event, out: &mut dyn Output) -> Step {
        match event {
            Event::Delta {
                session,
                part,
                delta,
            } if session == self.session => {
                match self.kinds.get(&part).map(String::as_str) {
                    Some("reasoning") => out.thinking(self.turns, &delta),
                    Some("text") => out.content(self.turns, &delta),
                    _ => {}
                }
                Step::Continue
            }
            Event::Part { session, part } if session == self.session => {
                self.part(part, out);
                Step::Continue
            }
            Event::Message { session, info } if session == self.session => {
                self.message(&info, out);
                Step::Continue
            }
            Event::PermissionAsked(request) if request.session == self.session => {
                Step::Ask(request)
            }
            Event::SessionError {
                session,
                name,
                message,
            } if session == self.session => {
                self.error = Some((name, message));
                Step::Continue
            }
            Event::SessionIdle { session } if session == self.session => Step::Idle,
            _ => Step::Continue,
        }
    }

    fn part(&mut self, part: Part, out: &mut dyn Output) {
        self.kinds.insert(part.id.clone(), part.kind.clone());
        match part.kind.as_str() {
            "step-start" => {
                self.turns += 1;
                out.turn_started(self.turns);
            }
            "tool" => self.tool(&part, out),
            "patch" => {
                // Files of the workspace only (the server works there).
                let inside: Vec<String> = (part.files.iter())
                    .filter(|f| Path::new(f).starts_with(&self.root))
                    .cloned()
                    .collect();
                for file in &inside {
                    self.changed(file);
                }
            }
            _ => {}
        }
    }

    /// A tool part: its call once it has its input, its result once done.
    fn tool(&mut self, part: &Part, out: &mut dyn Output) {
        let status = part.status();
        if status == "pending" {
            return;
        }
        let input = &part.state["input"];
        if self.called.insert(part.call_id.clone()) {
            self.tool_calls += 1;
            let detail = self.detail(input);
            out.tool_call(self.turns, &part.call_id, &part.tool, &detail, input);
        }
        if matches!(status, "completed" | "error") && self.finished.insert(part.call_id.clone()) {
            let ok = status == "completed";
            let content = tool_output(part);
            let summary = match content.lines().next() {
                Some(first) if !ok => first.to_string(),
                _ => format!("{} {}", part.tool, if ok { "done" } else { "failed" }),
            };
            out.tool_result(
                self.turns,
                &part.call_id,
                &part.tool,
                ok,
                &summary,
                &content,
            );
            if ok
                && matches!(part.tool.as_str(), "write" | "edit")
                && let Some(file) = input["filePath"].as_str()
            {
                self.changed(file);
            }
        }
    }

    /// A completed assistant message: its tokens, its end, its error.
    fn message(&mut self, info: &MessageInfo, out: &mut dyn Output) {
        if info.role != "assistant" || info.time.completed.is_none() {
            return;
        }
        if !self.counted.insert(info.id.clone()) {
            return;
        }
        let tokens = info.tokens.unwrap_or_default();
        let usage = Usage {
            prompt_tokens: tokens.input,
            completion_tokens: tokens.output,
        };
        self.usage.prompt_tokens += usage.prompt_tokens;
        self.usage.completion_tokens += usage.completion_tokens;
        self.context = tokens.input + tokens.output;
        self.finish = info.finish.clone();
        if let Some(error) = &info.error {
            let name = error["name"].as_str().unwrap_or("error").to_string();
            self.error = Some((name, super::wire::error_message(error)));
        }
        let context = Context {
            used: self.context,
            max: 0,
        };
        out.turn_completed(self.turns, usage, info.finish.as_deref(), None, context);
    }

    /// The path(s) or command of a tool's input, paths relative to the
    /// workspace.
    fn detail(&self, input: &Value) -> String {
        if let Some(command) = input["command"].as_str() {
            return command.to_string();
        }
        ["filePath", "path", "pattern"]
            .iter()
            .find_map(|key| input[*key].as_str())
            .map(|path| self.relative(path))
            .unwrap_or_default()
    }

    fn changed(&mut self, path: &str) {
        let shown = self.relative(path);
        if !self.files_changed.contains(&shown) {
            self.files_changed.push(shown);
        }
    }

    fn relative(&self, path: &str) -> String {
        Path::new(path)
            .strip_prefix(&self.root)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| path.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::PermissionRecord;
    use crate::protocol::RunSummary;
    use crate::session::Session;

    /// What reached the output: `(kind, text)`.
    #[derive(Default)]
    struct Seen(Vec<(&'static str, String)>);

    impl Output for Seen {
        fn session_started(&mut self, _: &Session, _: bool) {}
        fn attempt_completed(&mut self, _: &crate::protocol::AttemptSummary, _: u32) {}
        fn turn_started(&mut self, turn: u32) {
            self.0.push(("turn", turn.to_string()));
        }
        fn thinking(&mut self, _: u32, delta: &str) {
            self.0.push(("thinking", delta.to_string()));
        }
        fn content(&mut self, _: u32, delta: &str) {
            self.0.push(("content", delta.to_string()));
        }
        fn turn_completed(
            &mut self,
            _: u32,
            usage: Usage,
            _: Option<&str>,
            _: Option<&str>,
            _: Context,
        ) {
            self.0.push(("usage", usage.prompt_tokens.to_string()));
        }
        fn compacted(&mut self, _: u32, _: u64, _: u64) {}
        fn file_block(&mut self, _: u32, _: Option<&str>, _: usize, _: bool) {}
        fn progress(&mut self, _: u32, _: u64) {}
        fn tool_call(&mut self, _: u32, _: &str, name: &str, detail: &str, _: &Value) {
            self.0.push(("call", format!("{name} {detail}")));
        }
        fn permission(&mut self, _: &PermissionRecord) {}
        fn tool_result(&mut self, _: u32, _: &str, _: &str, ok: bool, _: &str, _: &str) {
            self.0.push(("result", ok.to_string()));
        }
        fn diff(&mut self, _: &str) {}
        fn warn(&mut self, _: &str) {}
        fn note(&mut self, _: &str) {}
        fn error(&mut self, _: &str) {}
        fn session_completed(&mut self, _: &RunSummary) {}
    }

    fn event(value: serde_json::Value) -> Event {
        Event::parse(&value.to_string())
    }

    fn part(session: &str, id: &str, kind: &str) -> Event {
        event(
            serde_json::json!({"type": "message.part.updated", "properties": {
            "sessionID": session,
            "part": {"id": id, "messageID": "msg_1", "sessionID": session, "type": kind}}}),
        )
    }

    fn delta(session: &str, part: &str, text: &str) -> Event {
        event(
            serde_json::json!({"type": "message.part.delta", "properties": {
            "sessionID": session, "messageID": "msg_1", "partID": part, "field": "text", "delta": text}}),
        )
    }

    #[test]
    fn reasoning_is_thinking_and_other_sessions_are_ignored() {
        let mut follower = Follower::new("ses_a", Path::new("/w"));
        let mut seen = Seen::default();
        for e in [
            part("ses_a", "prt_s", "step-start"),
            part("ses_a", "prt_r", "reasoning"),
            delta("ses_a", "prt_r", "hmm"),
            part("ses_a", "prt_t", "text"),
            delta("ses_a", "prt_t", "Hello"),
            delta("ses_b", "prt_t", "not ours"),
            part("ses_b", "prt_x", "step-start"),
        ] {
            assert_eq!(follower.handle(e, &mut seen), Step::Continue);
        }
        assert_eq!(
            seen.0,
            [
                ("turn", "1".to_string()),
                ("thinking", "hmm".to_string()),
                ("content", "Hello".to_string()),
            ]
        );
        let idle = event(
            serde_json::json!({"type": "session.idle", "properties": {"sessionID": "ses_b"}}),
        );
        assert_eq!(follower.handle(idle, &mut seen), Step::Continue);
        let idle = event(
            serde_json::json!({"type": "session.idle", "properties": {"sessionID": "ses_a"}}),
        );
        assert_eq!(follower.handle(idle, &mut seen), Step::Idle);
    }

    #[test]
    fn a_completed_message_counts_once() {
        let mut follower = Follower::new("ses_a", Path::new("/w"));
        let mut seen = Seen::default();
        let done = || {
            event(
                serde_json::json!({"type": "message.updated", "properties": {"sessionID": "ses_a",
                "info": {"id": "msg_1", "role": "assistant", "time": {"created": 1, "completed": 2},
                         "tokens": {"input": 600, "output": 40}, "finish": "stop"}}}),
            )
        };
        follower.handle(done(), &mut seen);
        follower.handle(done(), &mut seen);
        assert_eq!(follower.usage.prompt_tokens, 600);
        assert_eq!(follower.usage.completion_tokens, 40);
        assert_eq!(seen.0, [("usage", "600".to_string())]);
    }
}
