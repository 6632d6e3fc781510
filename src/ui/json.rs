//! `--output-format json` (one object at the end) and `stream-json` (one
//! event per line) on stdout; warnings and errors also go to stderr as text.

use std::io::Write;

use serde_json::Value;

use super::output::Output;
use super::term::{err_line, print_warning, sanitize};
use crate::permissions::PermissionRecord;
use crate::protocol::{AttemptSummary, Context, Event, RunSummary, SCHEMA_VERSION};
use crate::session::{Session, Usage};

/// Most bytes of a tool result in a `tool.result` event.
pub(crate) const RESULT_CONTENT_CAP: usize = 4000;

/// `text` cut to `max` bytes (at a character boundary) with a note of what
/// was left out.
fn cap(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[… {} more bytes]", &text[..end], text.len() - end).into()
}

/// JSON on stdout.
pub(crate) struct JsonOutput {
    /// Every event (`stream-json`), or only the final summary (`json`).
    stream: bool,
}

impl JsonOutput {
    /// `stream`: one line per event; else one object at the end.
    pub(crate) fn new(stream: bool) -> Self {
        JsonOutput { stream }
    }

    fn emit(&self, event: &Event<'_>) {
        if self.stream {
            write_line(event);
        }
    }
}

/// Writes one value as one line on stdout; a closed stdout is not an error.
pub(crate) fn write_line(value: &impl serde::Serialize) {
    if let Ok(mut line) = serde_json::to_string(value) {
        line.push('\n');
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(line.as_bytes());
        let _ = out.flush();
    }
}

/// Writes the `error` event (docs/output.md) as one line on stdout: how
/// every error reaches a script that reads JSON, whether a run fails
/// before it starts, the arguments are bad, or the run itself fails.
pub fn write_error(message: &str, exit_code: Option<i32>) {
    write_line(&Event::Error {
        schema_version: SCHEMA_VERSION,
        message,
        exit_code,
    });
}

impl Output for JsonOutput {
    fn session_started(&mut self, session: &Session, resumed: bool) {
        self.emit(&Event::SessionStarted {
            schema_version: SCHEMA_VERSION,
            session_id: &session.id,
            model: &session.model,
            mode: session.mode.as_str(),
            cwd: &session.cwd,
            resumed,
        });
    }

    fn turn_started(&mut self, turn: u32) {
        self.emit(&Event::TurnStarted {
            schema_version: SCHEMA_VERSION,
            turn,
        });
    }

    fn thinking(&mut self, turn: u32, delta: &str) {
        if !delta.is_empty() {
            self.emit(&Event::ThinkingDelta {
                schema_version: SCHEMA_VERSION,
                turn,
                text: delta,
            });
        }
    }

    fn content(&mut self, turn: u32, delta: &str) {
        if !delta.is_empty() {
            self.emit(&Event::ContentDelta {
                schema_version: SCHEMA_VERSION,
                turn,
                text: delta,
            });
        }
    }

    fn file_block(&mut self, turn: u32, path: Option<&str>, lines: usize, closed: bool) {
        self.emit(&Event::FileBlock {
            schema_version: SCHEMA_VERSION,
            turn,
            path,
            lines,
            closed,
        });
    }

    fn turn_completed(
        &mut self,
        turn: u32,
        usage: Usage,
        done_reason: Option<&str>,
        cut: Option<&str>,
        context: Context,
    ) {
        self.emit(&Event::TurnCompleted {
            schema_version: SCHEMA_VERSION,
            turn,
            usage,
            done_reason,
            cut,
            context,
        });
    }

    fn compacted(&mut self, turn: u32, before: u64, after: u64) {
        self.emit(&Event::Compaction {
            schema_version: SCHEMA_VERSION,
            turn,
            before,
            after,
        });
    }

    fn progress(&mut self, _turn: u32, _chunks: u64) {}

    fn tool_call(&mut self, turn: u32, id: &str, name: &str, _detail: &str, arguments: &Value) {
        self.emit(&Event::ToolCall {
            schema_version: SCHEMA_VERSION,
            turn,
            id,
            name,
            arguments,
        });
    }

    fn permission(&mut self, record: &PermissionRecord) {
        self.emit(&Event::permission(record));
    }

    fn tool_result(
        &mut self,
        turn: u32,
        id: &str,
        name: &str,
        ok: bool,
        summary: &str,
        content: &str,
    ) {
        if self.stream {
            let content = cap(content, RESULT_CONTENT_CAP);
            self.emit(&Event::ToolResult {
                schema_version: SCHEMA_VERSION,
                turn,
                id,
                name,
                ok,
                summary,
                content: &content,
            });
        }
    }

    fn diff(&mut self, _diff: &str) {}

    fn warn(&mut self, message: &str) {
        print_warning(&sanitize(message));
    }

    fn note(&mut self, _message: &str) {}

    fn error(&mut self, message: &str) {
        err_line(&format!("oc: error: {message}"));
        if self.stream {
            write_error(message, None);
        }
    }

    fn attempt_completed(&mut self, attempt: &AttemptSummary, of: u32) {
        // A try that failed is a warning, on stderr as in text mode.
        if !attempt.check_passed {
            print_warning(&sanitize(&super::text::attempt_line(attempt, of)));
        }
        self.emit(&Event::AttemptCompleted {
            schema_version: SCHEMA_VERSION,
            of,
            attempt,
        });
    }

    fn session_completed(&mut self, summary: &RunSummary) {
        if let Some(text) = super::output::denials_warning(&summary.permission_denials) {
            print_warning(&text);
        }
        if self.stream {
            write_line(&Event::SessionCompleted(summary));
        } else {
            write_line(summary);
        }
    }
}
