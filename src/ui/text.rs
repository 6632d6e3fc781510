//! The text format (docs/output.md): the answer streams to stdout; thinking (dim),
//! tool activity, diffs, a spinner while waiting and the closing usage line
//! go to stderr.

use std::io::{IsTerminal, Write};

use console::Style;

use super::output::Output;
use super::term::{err, err_line, print_diff, print_warning, sanitize, stderr_colors, style};
use crate::permissions::PermissionRecord;
use crate::protocol::{AttemptSummary, Context, RunSummary};
use crate::session::{Session, Usage};

/// Where the last bytes of text went, so lines can be closed cleanly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Nothing,
    Thinking,
    Content,
    /// The reply of a run whose answer is JSON, shown on stderr.
    HeldContent,
}

/// The text format: the answer streams to stdout; thinking, tool activity,
/// diffs, a spinner while waiting and the closing line go to stderr.
/// `quiet` leaves only the answer, warnings and errors.
pub(crate) struct TextRenderer {
    color: bool,
    quiet: bool,
    open: Open,
    content_ends_with_newline: bool,
    spinner: Option<indicatif::ProgressBar>,
    /// When the first chunk of the current reply arrived.
    first_chunk: Option<std::time::Instant>,
    /// Chunks of the current reply so far.
    chunks: u64,
    /// The file block streaming now: its name and lines so far.
    block: Option<(String, usize)>,
    /// Show tool results, not only their summaries (`--verbose`).
    verbose: bool,
    /// `--output-schema`: the replies stream to stderr, and stdout gets
    /// only the validated JSON value at the end.
    json_answer: bool,
}

/// Most lines of a tool result shown on stderr.
const SHOWN_RESULT_LINES: usize = 20;

/// The first `max` lines of `text`, later lines indented under the mark,
/// with a count of what was left out.
fn indented_head(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown: Vec<String> = lines
        .iter()
        .take(max)
        .map(|l| l.chars().take(300).collect())
        .collect();
    if lines.len() > max {
        shown.push(format!("[… {} more lines]", lines.len() - max));
    }
    shown.join("\n    ")
}

/// `n` lines, in words: `1 line`, `12 lines`.
fn lines_of(n: usize) -> String {
    match n {
        1 => "1 line".to_string(),
        n => format!("{n} lines"),
    }
}

/// A spinner on stderr saying `message`, for a person watching it
/// (`watched`).
fn spinner(watched: bool, message: &str) -> Option<indicatif::ProgressBar> {
    if !watched {
        return None;
    }
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    spinner.set_message(message.to_string());
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(spinner)
}

impl TextRenderer {
    /// A renderer for this process's stdout and stderr; `verbose` shows
    /// every tool result, not only its summary.
    pub(crate) fn new(quiet: bool, verbose: bool) -> Self {
        TextRenderer {
            color: stderr_colors(),
            quiet,
            open: Open::Nothing,
            content_ends_with_newline: true,
            spinner: None,
            first_chunk: None,
            chunks: 0,
            block: None,
            verbose,
            json_answer: false,
        }
    }

    /// With `json_answer` (`--output-schema`), the replies stream to
    /// stderr and stdout holds only the validated JSON value, printed at
    /// the end; nothing when the answer did not match.
    pub(crate) fn answering_with_json(mut self, json_answer: bool) -> Self {
        self.json_answer = json_answer;
        self
    }

    /// The spinner's line while a reply streams: the file block coming,
    /// or the tokens so far and their rate.
    fn show_progress(&self) {
        let (Some(spinner), Some(first)) = (&self.spinner, self.first_chunk) else {
            return;
        };
        let seconds = first.elapsed().as_secs_f64().max(0.001);
        let rate = format!(
            "{} tokens ({:.0}/s)",
            self.chunks,
            self.chunks as f64 / seconds
        );
        spinner.set_message(match &self.block {
            Some((name, lines)) => format!("receiving {name}: {}, {rate}", lines_of(*lines)),
            None => format!("receiving the reply: {rate}"),
        });
    }

    fn stop_spinner(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }

    /// Ends any open line of thinking or content.
    fn close_line(&mut self) {
        self.stop_spinner();
        match self.open {
            Open::Thinking => err("\n"),
            Open::HeldContent if !self.content_ends_with_newline => {
                err("\n");
                self.content_ends_with_newline = true;
            }
            Open::Content if !self.content_ends_with_newline => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(b"\n");
                let _ = out.flush();
                self.content_ends_with_newline = true;
            }
            Open::Content | Open::HeldContent | Open::Nothing => {}
        }
        self.open = Open::Nothing;
    }
}

impl Output for TextRenderer {
    fn session_started(&mut self, _session: &Session, _resumed: bool) {}

    fn turn_started(&mut self, _turn: u32) {
        self.close_line();
        self.block = None;
        self.chunks = 0;
        self.spinner = spinner(
            !self.quiet && std::io::stderr().is_terminal(),
            "waiting for the model",
        );
    }

    fn thinking(&mut self, _turn: u32, delta: &str) {
        if delta.is_empty() || self.quiet {
            return;
        }
        self.stop_spinner();
        if self.open == Open::Content {
            self.close_line();
        }
        self.open = Open::Thinking;
        let dim = style(self.color, Style::new().dim().italic());
        err(&dim.apply_to(sanitize(delta)).to_string());
    }

    fn content(&mut self, _turn: u32, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.stop_spinner();
        if self.open == Open::Thinking {
            err("\n");
        }
        if self.json_answer {
            // Only the validated value is the answer; `--quiet` leaves it alone.
            if self.quiet {
                return;
            }
            self.open = Open::HeldContent;
            err(&sanitize(delta));
            self.content_ends_with_newline = delta.ends_with('\n');
            return;
        }
        self.open = Open::Content;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(delta.as_bytes());
        let _ = out.flush();
        self.content_ends_with_newline = delta.ends_with('\n');
    }

    /// On a terminal the answer streams; piped (a script, CI), each reply's
    /// text is written once it is read, its reasoning taken out.
    fn streams_content(&self) -> bool {
        std::io::stdout().is_terminal()
    }

    fn compacted(&mut self, _turn: u32, _before: u64, _after: u64) {}

    fn progress(&mut self, _turn: u32, chunks: u64) {
        if chunks <= 1 {
            self.first_chunk = Some(std::time::Instant::now());
        }
        self.chunks = chunks;
        self.show_progress();
    }

    /// A spinner line while a block streams (`receiving utils.py: 12
    /// lines`), and one dim line on stderr once it closes; its diff follows
    /// when it is applied.
    fn file_block(&mut self, _turn: u32, path: Option<&str>, lines: usize, closed: bool) {
        if self.quiet {
            return;
        }
        let name = sanitize(path.unwrap_or("a code block")).to_string();
        if closed {
            self.block = None;
            self.close_line();
            let dim = style(self.color, Style::new().dim());
            let line = format!("[{name} in the reply: {}]", lines_of(lines));
            err_line(&dim.apply_to(line).to_string());
            return;
        }
        if self.spinner.is_none() {
            self.close_line();
            self.spinner = spinner(std::io::stderr().is_terminal(), "receiving the reply");
        }
        self.block = Some((name, lines));
        self.show_progress();
    }

    fn turn_completed(
        &mut self,
        _turn: u32,
        _usage: Usage,
        _done_reason: Option<&str>,
        _cut: Option<&str>,
        _context: Context,
    ) {
        self.close_line();
    }

    fn tool_call(
        &mut self,
        _turn: u32,
        _id: &str,
        name: &str,
        detail: &str,
        _arguments: &serde_json::Value,
    ) {
        self.close_line();
        if self.quiet {
            return;
        }
        let cyan = style(self.color, Style::new().cyan().bold());
        let detail: String = detail
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(160)
            .collect();
        err_line(&format!(
            "{} {}",
            cyan.apply_to(format!("● {}", sanitize(name))),
            sanitize(&detail)
        ));
    }

    fn permission(&mut self, _record: &PermissionRecord) {}

    fn tool_result(
        &mut self,
        _turn: u32,
        _id: &str,
        _name: &str,
        ok: bool,
        summary: &str,
        content: &str,
    ) {
        if self.quiet {
            return;
        }
        let (mark, s) = if ok {
            ("✓", Style::new().green())
        } else {
            ("✗", Style::new().red())
        };
        let s = style(self.color, s);
        // An error is shown whole (it says what to do); with `--verbose`,
        // every result.
        let shown = if ok && !self.verbose {
            summary.to_string()
        } else {
            let text = content.strip_prefix("error: ").unwrap_or(content);
            indented_head(text, SHOWN_RESULT_LINES)
        };
        err_line(&format!("  {} {}", s.apply_to(mark), sanitize(&shown)));
    }

    fn diff(&mut self, diff: &str) {
        if !self.quiet {
            print_diff(diff, self.color);
        }
    }

    fn warn(&mut self, message: &str) {
        self.close_line();
        print_warning(message);
    }

    fn note(&mut self, message: &str) {
        self.close_line();
        if !self.quiet {
            let dim = style(self.color, Style::new().dim());
            err_line(&dim.apply_to(message).to_string());
        }
    }

    fn error(&mut self, message: &str) {
        self.close_line();
        let red = style(self.color, Style::new().red().bold());
        err_line(&format!("{} {message}", red.apply_to("oc: error:")));
    }

    fn attempt_completed(&mut self, attempt: &AttemptSummary, of: u32) {
        self.close_line();
        let line = attempt_line(attempt, of);
        match attempt.check_passed {
            true => self.note(&line),
            false => self.warn(&line),
        }
    }

    fn session_completed(&mut self, summary: &RunSummary) {
        self.close_line();
        if let Some(value) = &summary.structured_output {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{value}");
            let _ = out.flush();
        }
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        self.note(&format!(
            "{} turn{} · {} prompt + {} completion tokens · ctx {}% · {} tool call{} · {} file{} changed · {:.1}s · {}",
            summary.turns,
            plural(summary.turns as usize),
            summary.usage.prompt_tokens,
            summary.usage.completion_tokens,
            (summary.context.used * 100)
                .checked_div(u64::from(summary.context.max))
                .unwrap_or(0),
            summary.tool_calls,
            plural(summary.tool_calls),
            summary.files_changed.len(),
            plural(summary.files_changed.len()),
            summary.duration_ms as f64 / 1000.0,
            if summary.saved {
                format!("session {}", summary.session_id)
            } else {
                "not saved (--no-save)".to_string()
            }
        ));
        if let Some(text) = super::output::denials_warning(&summary.permission_denials) {
            print_warning(&text);
        }
    }
}

/// One line for a try of a run with `--attempts`: its model, how its check
/// went, what it cost, and whether the workspace keeps it.
pub(super) fn attempt_line(attempt: &AttemptSummary, of: u32) -> String {
    let check = match (attempt.check_passed, attempt.failing) {
        (true, _) => "the check passed".to_string(),
        (false, Some(n)) => format!("the check failed ({n} failing)"),
        (false, None) => format!("{} (exit {})", attempt.exit_detail, attempt.exit_code),
    };
    let session = match attempt.saved {
        true => format!("session {}", attempt.session_id),
        false => "not saved".to_string(),
    };
    format!(
        "attempt {} of {of} ({}): {check} · {} turn{} · {} tokens · {:.1}s · {} ({session})",
        attempt.number,
        attempt.model,
        attempt.turns,
        if attempt.turns == 1 { "" } else { "s" },
        attempt.usage.prompt_tokens + attempt.usage.completion_tokens,
        attempt.duration_ms as f64 / 1000.0,
        if attempt.kept { "kept" } else { "set aside" },
    )
}
