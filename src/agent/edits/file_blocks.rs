//! The text edit formats as a conversation: the first message shows the
//! files and says which may change; each reply's file blocks become calls;
//! on the wire, those calls are written back as the blocks the model wrote
//! and their results as one user message. Deterministic, so the prefix of
//! the conversation stays byte-stable between turns.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::blocks;
use super::convert::{self, Scope};
use crate::agent::grounding::Role as FileRole;
use crate::client::{Message, Role, ToolCall};

/// A file shown in the first message, with its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownFile {
    pub path: String,
    pub role: FileRole,
    /// The text; `None` for a file to create.
    pub text: Option<String>,
}

/// The `whole` or `diff` format of one run.
#[derive(Debug, Clone)]
pub struct FileBlocks {
    /// SEARCH/REPLACE blocks instead of whole files.
    pub diff: bool,
    /// Which files may change.
    pub scope: Scope,
    root: PathBuf,
}

impl FileBlocks {
    /// The format for the workspace at `root`; the scope comes with the
    /// first message ([`FileBlocks::opening`]).
    pub fn new(diff: bool, root: &Path) -> Self {
        FileBlocks {
            diff,
            scope: Scope::default(),
            root: root.to_path_buf(),
        }
    }

    /// The first user message: the files (reference ones marked), the task,
    /// and which files may change. Sets the scope.
    pub fn opening(&mut self, prompt: &str, files: &[ShownFile]) -> String {
        let mut text = String::new();
        for file in files.iter().filter(|f| f.text.is_some()) {
            let Some(content) = &file.text else { continue };
            let mark = if file.role == FileRole::ReadOnly {
                " (for reference, do not change)"
            } else {
                ""
            };
            text.push_str(&format!("{}{mark}\n", file.path));
            text.push_str(&fence(&file.path, content));
            text.push_str("\n\n");
            match file.role {
                FileRole::Editable => self.scope.editable.push(file.path.clone()),
                FileRole::ReadOnly => self.scope.read_only.push(file.path.clone()),
                FileRole::New => {}
            }
        }
        for file in files.iter().filter(|f| f.role == FileRole::New) {
            self.scope.new.push(file.path.clone());
        }
        text.push_str(&format!("Task: {}\n", prompt.trim()));
        let lower = prompt.to_ascii_lowercase();
        self.scope.removal_allowed = ["remove", "delete", "drop", "strip", "get rid"]
            .iter()
            .any(|w| lower.contains(w));
        let writable = self.scope.writable();
        if writable.is_empty() && !files.is_empty() {
            text.push_str("\nAnswer in words; change no file.");
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
        }
        text
    }

    /// Turns the reply's file blocks into calls: `message.content` keeps the
    /// prose, `message.tool_calls` the calls. Returns per call the arguments
    /// to run with, or why it may not run.
    pub fn read_reply(
        &self,
        message: &mut Message,
        turn: u32,
    ) -> Vec<(Result<Value, String>, Vec<String>)> {
        let parsed = blocks::parse(&message.content, &self.scope.known());
        let calls = convert::to_calls(&parsed.blocks, &self.scope, &self.root);
        if calls.is_empty() {
            return Vec::new();
        }
        message.content = parsed.prose;
        message.tool_calls = calls
            .iter()
            .enumerate()
            .map(|(n, c)| ToolCall {
                id: Some(format!("call_{turn}_{n}")),
                ..c.call.clone()
            })
            .collect();
        calls.into_iter().map(|c| (c.verdict, Vec::new())).collect()
    }

    /// How to go on after a failed check.
    pub fn check_hint(&self) -> &'static str {
        if self.diff {
            "Reply with SEARCH/REPLACE blocks for the files to change."
        } else {
            "Reply with the complete corrected content of each file to change."
        }
    }

    /// The conversation as the model sees it: calls written back as file
    /// blocks, each run of results as one user message (with the user
    /// message that follows it, if any).
    pub fn wire(&self, messages: &[Message]) -> Vec<Message> {
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
            if m.role == Role::Assistant && !m.tool_calls.is_empty() {
                m.content = self.render_reply(&m);
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
            text.push_str(&format!("{path}\n```{}\n{block}```", lang_of(path)));
            last_path = path;
        }
        text
    }
}

/// One line per result: the summary of a change, or the whole error.
fn result_line(m: &Message) -> String {
    let content = m.content.trim();
    if content.starts_with("error:") {
        format!("- {content}")
    } else {
        format!("- {}", content.lines().next().unwrap_or_default())
    }
}

fn fence(path: &str, content: &str) -> String {
    let ticks = if content.contains("```") {
        "````"
    } else {
        "```"
    };
    format!("{ticks}{}\n{}{ticks}", lang_of(path), with_newline(content))
}

fn with_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// The fence label for a file, from its extension.
fn lang_of(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "py" | "pyi" => "python",
        "rs" => "rust",
        "js" | "mjs" | "cjs" => "javascript",
        "ts" => "typescript",
        "go" => "go",
        "java" => "java",
        "c" | "h" => "c",
        "cc" | "cpp" | "hpp" => "cpp",
        "rb" => "ruby",
        "sh" | "bash" => "bash",
        "json" => "json",
        "toml" => "toml",
        "yml" | "yaml" => "yaml",
        "md" => "markdown",
        "html" => "html",
        "css" => "css",
        "sql" => "sql",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn shown(path: &str, role: FileRole, text: Option<&str>) -> ShownFile {
        ShownFile {
            path: path.into(),
            role,
            text: text.map(str::to_string),
        }
    }

    #[test]
    fn the_opening_shows_files_task_and_scope() {
        let dir = tempfile::tempdir().unwrap();
        let mut blocks = FileBlocks::new(false, dir.path());
        let text = blocks.opening(
            "Fix last_n.",
            &[
                shown("utils.py", FileRole::Editable, Some("x = 1\n")),
                shown("test_utils.py", FileRole::ReadOnly, Some("import utils")),
                shown("new.py", FileRole::New, None),
            ],
        );
        assert_eq!(
            text,
            "utils.py\n```python\nx = 1\n```\n\ntest_utils.py (for reference, do not change)\n```python\nimport utils\n```\n\nTask: Fix last_n.\n\nYou may change: utils.py, new.py. Create: new.py. Reply with the complete new content of each file you change."
        );
        assert_eq!(blocks.scope.read_only, ["test_utils.py"]);
    }

    #[test]
    fn replies_become_calls_and_go_back_as_blocks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("utils.py"), "x = 1\n").unwrap();
        let mut blocks = FileBlocks::new(false, dir.path());
        blocks.opening(
            "t",
            &[shown("utils.py", FileRole::Editable, Some("x = 1\n"))],
        );
        let written = "Fixed.\n\nutils.py\n```python\nx = 2\n```";
        let mut reply = Message::text(Role::Assistant, written);
        let parsed = blocks.read_reply(&mut reply, 2);
        assert_eq!(parsed.len(), 1);
        assert_eq!(reply.content, "Fixed.");
        assert_eq!(reply.tool_calls[0].id.as_deref(), Some("call_2_0"));
        let conversation = vec![
            Message::text(Role::User, "task"),
            reply,
            Message::tool_result(
                "write_file",
                "call_2_0",
                "updated utils.py (+1 -1)\n@@ -1 +1 @@",
            ),
            Message::text(Role::User, "The check failed."),
        ];
        let wire = blocks.wire(&conversation);
        assert_eq!(wire.len(), 3);
        assert_eq!(wire[1].content, written);
        assert!(wire[1].tool_calls.is_empty());
        assert_eq!(
            wire[2].content,
            "Results:\n- updated utils.py (+1 -1)\n\nThe check failed."
        );
    }
}
