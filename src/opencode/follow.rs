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
pub enum Step {
    Continue,
    /// A tool of this session waits for an answer.
    Ask(PermissionRequest),
    /// The session has nothing left to do.
    Idle,
}

/// The state of one followed session.
#[derive(Debug)]
pub struct Follower {
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
    pub fn new(session: &str, root: &Path) -> Self {
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
    pub fn handle(&mut self, event: Event, out: &mut dyn Output) -> Step {
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
