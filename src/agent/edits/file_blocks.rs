//! The text edit formats as a conversation: the first message shows the
//! files and says which may change; each reply's file blocks become calls;
//! on the wire, those calls are written back as the blocks the model wrote
//! and their results as one user message. Deterministic, so the prefix of
//! the conversation stays byte-stable between turns.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::blocks;
use super::convert::{self, Scope};
use super::lookaround::{self, MAX_REQUESTS};
use super::shown::{ShownFile, with_newline};
use super::unseen::Revealed;
use crate::agent::excerpts::{self, Focus, Pointed};
use crate::agent::grounding::FileRole;
use crate::client::{Message, Role, ToolCall};
use crate::heuristics::{Heuristic, Heuristics};
use crate::tools::{ToolName, Workspace};
use answer::{unplaced_code, without_requests, without_spans};

mod answer;

/// Bytes of a big file shown in answer to a read.
const READ_BUDGET: usize = 6 * 1024;

/// The `whole` or `diff` format of one run.
#[derive(Debug, Clone)]
pub(crate) struct FileBlocks {
    /// SEARCH/REPLACE blocks instead of whole files.
    pub diff: bool,
    /// Which files may change.
    pub scope: Scope,
    root: PathBuf,
    /// File blocks of the last reply that changed nothing: a file sent back
    /// as it was shown or as it is now.
    pub echoes: usize,
    /// Code blocks of the last reply that named no file and could not be
    /// placed in one.
    pub unplaced: usize,
    /// What the task is about: a big file the model reads is shown by the
    /// parts this picks.
    pub focus: Focus,
    /// Tests may change (the task is about them); else a test the model
    /// reads is for reference.
    pub tests_editable: bool,
    /// The task is an answer ([`FileBlocks::answering`]): files are for
    /// reference, and blocks are part of the answer.
    answering: bool,
    /// Nothing shown may change: files the model reads are for reference.
    reference_only: bool,
    /// The reply is one JSON value (`--output-schema`): nothing in it is a
    /// request to look around, though it may look like one.
    json_answer: bool,
    /// Files shown whole, as their text was then: in an answer nothing
    /// changes, so reading one again shows nothing new.
    shown_whole: BTreeMap<String, String>,
    /// In an answer, the files its replies' blocks would have changed.
    withheld: BTreeSet<String>,
}

impl FileBlocks {
    /// The format for the workspace at `root`; the scope comes with the
    /// first message ([`FileBlocks::opening`]).
    pub(crate) fn new(diff: bool, root: &Path) -> Self {
        FileBlocks {
            diff,
            scope: Scope::default(),
            root: root.to_path_buf(),
            echoes: 0,
            unplaced: 0,
            focus: Focus::default(),
            tests_editable: false,
            answering: false,
            reference_only: false,
            json_answer: false,
            shown_whole: BTreeMap::new(),
            withheld: BTreeSet::new(),
        }
    }

    /// The format for an answer that must be one JSON value: files for
    /// reference, and no look-around requests read from the reply.
    pub(crate) fn answering_in_json(mut self) -> Self {
        self.answering = true;
        self.json_answer = true;
        self
    }

    /// The format for a run whose task is an answer: every file is shown
    /// for reference, and the reply's blocks are part of the answer.
    pub(crate) fn answering(mut self) -> Self {
        self.answering = true;
        self
    }

    /// The same, with only the heuristics `heuristics` has on.
    pub(crate) fn with_heuristics(mut self, heuristics: Heuristics) -> Self {
        self.scope.heuristics = heuristics;
        self
    }

    /// In an answer, the files its replies' blocks would have changed.
    pub(crate) fn withheld(&self) -> Vec<String> {
        self.withheld.iter().cloned().collect()
    }

    /// Whether the task is an answer.
    pub(crate) fn answers(&self) -> bool {
        self.answering
    }

    /// The first user message: the files (reference ones marked, big ones
    /// in parts), `context` (the repository map, a failing check), the
    /// task, and which files may change. Sets the scope.
    pub(crate) fn opening(&mut self, prompt: &str, files: &[ShownFile], context: &str) -> String {
        let mut text = String::new();
        for file in files.iter().filter(|f| f.text.is_some()) {
            text.push_str(&file.render());
            text.push_str("\n\n");
            self.remember(file);
        }
        for file in files.iter().filter(|f| f.role == FileRole::New) {
            self.scope.new.push(file.path.clone());
        }
        if !context.is_empty() {
            text.push_str(context.trim_end());
            text.push_str("\n\n");
        }
        text.push_str(&format!("Task: {}\n", prompt.trim()));
        let lower = prompt.to_ascii_lowercase();
        self.scope.removal_allowed = ["remove", "delete", "drop", "strip", "get rid"]
            .iter()
            .any(|w| lower.contains(w));
        let writable = self.scope.writable();
        if self.answering {
            self.reference_only = true;
            text.push_str("\nReply with the answer only; change no file.");
        } else if writable.is_empty() && !files.is_empty() {
            // The shown files are evidence (a failing test): the code to
            // change is elsewhere.
            text.push_str(
                "\nThe files above are for reference. To see the file to change, write `READ path` on a line; then send its new content.",
            );
        } else if !writable.is_empty() {
            let new: Vec<&str> = self.scope.new.iter().map(String::as_str).collect();
            text.push_str(&format!("\nYou may change: {}.", writable.join(", ")));
            if !new.is_empty() {
                text.push_str(&format!(" Create: {}.", new.join(", ")));
            }
            text.push_str(if self.diff {
                " Reply with SEARCH/REPLACE blocks for the files to change."
            } else {
                " Reply with the complete new content of each file you change."
            });
            if let Some(note) = self.in_parts_note() {
                text.push(' ');
                text.push_str(&note);
            }
        }
        text
    }

    /// What the model is told of editable files shown in parts.
    fn in_parts_note(&self) -> Option<String> {
        let [first, rest @ ..] = self.scope.by_definition.as_slice() else {
            return None;
        };
        if self.diff {
            return None;
        }
        let names = if rest.is_empty() {
            format!("{first} is")
        } else {
            format!("{} are", self.scope.by_definition.join(", "))
        };
        Some(format!(
            "{names} too long to send whole: under its path, send only each whole function, method or class you change, from its first line to its last (new ones too), or SEARCH/REPLACE blocks."
        ))
    }

    /// Notes a file the model is shown (in the opening or as the answer to
    /// a read) in the scope.
    fn remember(&mut self, file: &ShownFile) {
        let path = file.path.clone();
        let list = match file.role {
            FileRole::Editable => &mut self.scope.editable,
            FileRole::ReadOnly => &mut self.scope.read_only,
            FileRole::New => &mut self.scope.new,
        };
        if !list.contains(&path) {
            list.push(path.clone());
        }
        if file.role == FileRole::Editable && file.parts.is_some() {
            if !self.scope.by_definition.contains(&path) {
                self.scope.by_definition.push(path.clone());
            }
        } else {
            self.scope.by_definition.retain(|p| p != &path);
        }
        if let (None, Some(text)) = (&file.parts, &file.text) {
            self.shown_whole.insert(path.clone(), text.clone());
        }
        let texts = self.scope.shown.entry(path.clone()).or_default();
        texts.extend(file.shown_texts());
        if !self.scope.first.contains_key(&path)
            && let Ok(bytes) = crate::fsutil::read(self.root.join(&path))
        {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            self.scope.first.insert(path.clone(), text);
        }
        let seen = self.scope.seen.entry(path).or_default();
        seen.definitions.extend(file.shown_definitions());
        seen.lines.extend(file.shown_lines());
    }

    /// The answer to a read: the file as the model is shown it, now in the
    /// scope (an editable file may then be changed).
    pub(crate) fn show(&mut self, file: &ShownFile) -> String {
        self.remember(file);
        let mut text = file.render();
        match (file.role, &file.parts) {
            (FileRole::ReadOnly, _) => {}
            (_, Some(_)) if !self.diff => text.push_str(
                "\nYou may change it: send only each whole function, method or class you change, under its path.",
            ),
            _ => text.push_str("\nYou may change it."),
        }
        text
    }

    /// The answer to a read the model asked for: the file (`text`, its text
    /// now, secrets scrubbed when `scrubbed`) as the model is shown it:
    /// whole when it fits, else the lines asked for (`window`: first line
    /// and count), else the parts the task's focus picks. The file is then
    /// in the scope: a test (unless tests may change) or a scrubbed file
    /// for reference, anything else to change.
    pub(crate) fn present_read(
        &mut self,
        path: &str,
        text: &str,
        window: Option<(usize, usize)>,
        scrubbed: bool,
    ) -> String {
        let read_only = scrubbed
            || self.reference_only
            || (crate::agent::file_kind::is_test(path) && !self.tests_editable);
        let role = if read_only {
            FileRole::ReadOnly
        } else {
            FileRole::Editable
        };
        let seen = self.scope.seen.get(path).map(|s| s.lines.clone());
        let parts = match (window, seen) {
            _ if excerpts::fits_whole(text) => None,
            // Shown in parts already: more of it, never the same again.
            (None, Some(seen)) => {
                match excerpts::choose_more(path, text, &self.focus, &seen, READ_BUDGET) {
                    Some(more) => Some(more),
                    None => return excerpts::outline_note(path, text),
                }
            }
            (Some((offset, limit)), _) => Some(excerpts::lines(
                path,
                text,
                offset,
                offset + limit.max(1) - 1,
            )),
            (None, None) => Some(excerpts::choose(
                path,
                text,
                &self.focus,
                Pointed::default(),
                READ_BUDGET,
            )),
        };
        self.show(&ShownFile {
            parts,
            ..ShownFile::whole(path, role, Some(text.to_string()))
        })
    }

    /// The answer to a `read_file` call (its `arguments`) that ran in
    /// `workspace`: the file as [`FileBlocks::present_read`] shows it,
    /// `scrub` taking secrets out (and saying whether it did).
    pub(crate) fn answer_read(
        &mut self,
        arguments: &Value,
        workspace: &Workspace,
        scrub: &dyn Fn(&str) -> (bool, String),
    ) -> Option<String> {
        let resolved = workspace.resolve(arguments["path"].as_str()?).ok()?;
        let bytes = crate::fsutil::read(&resolved.real).ok()?;
        let (text, _) = crate::tools::decode_text(&bytes);
        let (scrubbed, text) = scrub(&text);
        let window = (arguments["offset"].as_u64()).map(|o| {
            (
                o as usize,
                arguments["limit"].as_u64().unwrap_or(80) as usize,
            )
        });
        Some(self.present_read(&resolved.display, &text, window, scrubbed))
    }

    /// Turns the reply's file blocks and look-around requests into calls:
    /// `message.content` keeps the answer (the prose, and the fenced blocks
    /// that are no file: a command, sample output), `message.tool_calls`
    /// the calls, `message.written` the reply as written. Blocks that
    /// change nothing (echoes) make no call; [`FileBlocks::echoes`] counts
    /// them. When the task is an answer, no block is a file: only the
    /// requests are calls. Returns per call the arguments to run with, or
    /// why it may not run.
    pub(crate) fn read_reply(
        &mut self,
        message: &mut Message,
        turn: u32,
    ) -> Vec<(Result<Value, String>, Vec<String>)> {
        // Native calls, from a server that parses them out of the text even
        // though no tool was offered: answered like requests, never left
        // without a result.
        let native = std::mem::take(&mut message.tool_calls);
        let parsed = blocks::parse(&message.content, &self.scope.known());
        let files = if self.answering {
            let withheld = convert::withheld(&parsed.blocks, &self.scope, &self.root);
            self.withheld.extend(withheld);
            &[][..]
        } else {
            &parsed.blocks[..]
        };
        let converted = convert::to_calls(files, &self.scope, &self.root);
        self.echoes = converted.echoes;
        self.see_revealed(&converted.revealed);
        // Blocks that name no file are asked about only when the reply is
        // nothing else; beside prose they are part of the answer.
        self.unplaced = match parsed.prose.trim().is_empty() {
            true => unplaced_code(files, &converted.unplaced),
            false => 0,
        };
        let (answer, requests) = self.answer_of(&message.content, files, &converted.unplaced);
        let nothing_to_run = converted.calls.is_empty()
            && converted.echoes == 0
            && requests.is_empty()
            && native.is_empty();
        if nothing_to_run && answer == message.content.trim() {
            return Vec::new();
        }
        message.written = Some(std::mem::take(&mut message.content));
        message.content = answer;
        if nothing_to_run {
            return Vec::new();
        }
        let (calls, verdicts) = self.calls_and_verdicts(converted.calls, requests, native);
        message.tool_calls = calls
            .into_iter()
            .enumerate()
            .map(|(n, c)| ToolCall {
                id: Some(format!("call_{turn}_{n}")),
                ..c
            })
            .collect();
        verdicts.into_iter().map(|v| (v, Vec::new())).collect()
    }

    /// Notes the definitions shown with a refusal as seen: the next reply
    /// may change them.
    fn see_revealed(&mut self, revealed: &[(String, Revealed)]) {
        for (path, shown) in revealed {
            let seen = self.scope.seen.entry(path.clone()).or_default();
            seen.definitions.push(shown.unseen.name.clone());
            seen.lines
                .push((shown.unseen.start_line, shown.unseen.end_line));
            let texts = self.scope.shown.entry(path.clone()).or_default();
            texts.push(shown.text.clone());
        }
    }

    /// The answer the reply `content` gives (without the `files` blocks
    /// that were applied, those `unplaced` stay), and its look-around
    /// requests (none when the answer is one JSON value).
    fn answer_of(
        &self,
        content: &str,
        files: &[blocks::FileBlock],
        unplaced: &[usize],
    ) -> (String, Vec<lookaround::Request>) {
        let applied = (0..files.len()).filter(|n| !unplaced.contains(n));
        let answer = without_spans(content, applied.map(|n| files[n].span.clone()));
        let root = self.root.clone();
        let exists = |p: &str| root.join(p).is_file();
        let look_around = self.scope.heuristics.on(Heuristic::LookAround);
        match self.json_answer || !look_around {
            true => (answer.trim().to_string(), Vec::new()),
            false => without_requests(&answer, &exists),
        }
    }

    /// The calls to record, in order (the edits, the look-around requests,
    /// the native calls), and per call the arguments to run with or why it
    /// may not run.
    fn calls_and_verdicts(
        &self,
        edits: Vec<convert::EditCall>,
        requests: Vec<lookaround::Request>,
        native: Vec<ToolCall>,
    ) -> (Vec<ToolCall>, Vec<Result<Value, String>>) {
        let mut verdicts = Vec::new();
        let mut calls = Vec::new();
        for c in edits {
            calls.push(c.call);
            verdicts.push(c.verdict);
        }
        for (n, request) in requests.into_iter().enumerate() {
            calls.push(ToolCall {
                recovered: Some(true),
                ..ToolCall::new(request.tool.as_str(), request.arguments.clone())
            });
            verdicts.push(if let Some(shown) = self.shown_already(&request) {
                Err(format!(
                    "not run: {shown} is shown above, whole and unchanged; answer from it"
                ))
            } else if n < MAX_REQUESTS {
                Ok(request.arguments)
            } else {
                Err(format!(
                    "not run: at most {MAX_REQUESTS} requests are answered at a time; ask again after reading these"
                ))
            });
        }
        for call in native {
            let read_only =
                ToolName::from_name(&call.function.name).is_some_and(ToolName::is_read_only);
            verdicts.push(if read_only {
                Ok(call.function.arguments.clone())
            } else {
                Err(self.no_tools_here().to_string())
            });
            calls.push(call);
        }
        (calls, verdicts)
    }

    /// In an answer, the file a read asks for when it was shown whole and
    /// is still as shown: small models ask for the file they were given
    /// instead of answering from it.
    fn shown_already(&self, request: &lookaround::Request) -> Option<String> {
        if !self.answering || request.tool != ToolName::ReadFile {
            return None;
        }
        let path = request.arguments["path"].as_str()?;
        // An absolute path names a shown file only inside the root.
        let path = match Path::new(path).strip_prefix(&self.root) {
            Ok(inside) => inside.to_str()?,
            Err(_) if Path::new(path).is_absolute() => return None,
            Err(_) => path.trim_start_matches("./"),
        };
        let shown = self.shown_whole.get(path)?;
        let now = crate::fsutil::read(self.root.join(path)).ok()?;
        (crate::tools::decode_text(&now).0 == *shown).then(|| path.to_string())
    }

    /// The refusal of a tool call that is not a look-around request: no
    /// tool is offered in this format, and what to send instead.
    fn no_tools_here(&self) -> &'static str {
        match (self.answering, self.diff) {
            (true, _) => {
                "not run: no tool is offered here; answer in text (a READ, SEARCH or LIST line looks around)"
            }
            (false, true) => {
                "not run: no tool is offered in this format; to change a file, write its path on a line, then a fenced block of SEARCH/REPLACE edits (a READ, SEARCH or LIST line looks around)"
            }
            (false, false) => {
                "not run: no tool is offered in this format; to change a file, write its path on a line, then a fenced block with its complete new content (a READ, SEARCH or LIST line looks around)"
            }
        }
    }

    /// How to go on after a failed check.
    pub(crate) fn check_hint(&self) -> &'static str {
        if self.diff {
            "Reply with SEARCH/REPLACE blocks for the files to change."
        } else if !self.scope.by_definition.is_empty() {
            "Reply with each corrected whole function, method or class under its file's path (or the complete corrected content of a short file)."
        } else {
            "Reply with the complete corrected content of each file to change."
        }
    }

    /// The conversation as the model sees it: calls written back as file
    /// blocks, each run of results as one user message (with the user
    /// message that follows it, if any).
    pub(crate) fn wire(&self, messages: &[Message]) -> Vec<Message> {
        let mut wire: Vec<Message> = Vec::new();
        let mut results: Vec<String> = Vec::new();
        for m in messages {
            if m.role == Role::Tool {
                results.push(result_line(m));
                continue;
            }
            let mut m = m.clone();
            if !results.is_empty() {
                let summary = format!("Results:\n{}", results.join("\n"));
                results.clear();
                if m.role == Role::User {
                    m.content = format!("{summary}\n\n{}", m.content);
                } else {
                    wire.push(Message::text(Role::User, summary));
                }
            }
            if m.role == Role::Assistant && (!m.tool_calls.is_empty() || m.written.is_some()) {
                m.content = match m.written.take() {
                    Some(written) => written,
                    None => self.render_reply(&m),
                };
                m.tool_calls.clear();
            }
            wire.push(m);
        }
        if !results.is_empty() {
            wire.push(Message::text(
                Role::User,
                format!("Results:\n{}", results.join("\n")),
            ));
        }
        wire
    }

    /// The reply as the model wrote it: its prose, then its blocks.
    fn render_reply(&self, message: &Message) -> String {
        let mut text = message.content.trim_end().to_string();
        let mut last_path = "";
        for call in &message.tool_calls {
            let args = &call.function.arguments;
            let path = args["path"].as_str().unwrap_or_default();
            let block = match call.function.name.as_str() {
                "edit_file" => format!(
                    "<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n",
                    with_newline(args["old_string"].as_str().unwrap_or_default()),
                    with_newline(args["new_string"].as_str().unwrap_or_default())
                ),
                _ if self.diff => format!(
                    "<<<<<<< SEARCH\n=======\n{}>>>>>>> REPLACE\n",
                    with_newline(args["content"].as_str().unwrap_or_default())
                ),
                _ => with_newline(args["content"].as_str().unwrap_or_default()),
            };
            // Several edits to one file share its fence.
            if self.diff && path == last_path && text.ends_with("```") {
                text.truncate(text.len() - 3);
                text.push_str(&format!("{block}```"));
                continue;
            }
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&format!(
                "{path}\n```{}\n{block}```",
                super::shown::lang_of(path)
            ));
            last_path = path;
        }
        text
    }
}

/// One line per result: the summary of a change, or the whole error; the
/// answer to a look-around request whole.
fn result_line(m: &Message) -> String {
    let content = m.content.trim();
    let looked = m
        .tool_name
        .as_deref()
        .and_then(ToolName::from_name)
        .is_some_and(ToolName::is_read_only);
    if content.starts_with("error:") || looked {
        format!("- {content}")
    } else {
        format!("- {}", content.lines().next().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests;
