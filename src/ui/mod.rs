//! Human output (SPEC §8, text format): the assistant's answer streams to
//! stdout and nothing else goes there; thinking (dim), tool activity, diffs,
//! warnings and the closing usage line go to stderr. Colour only when stderr
//! is a terminal and `NO_COLOR` is unset. This is the only module that writes
//! to stdout and stderr, and it never fails on a closed pipe.

use std::io::{IsTerminal, Write};

use console::Style;

pub mod json;

pub use json::JsonOutput;

use crate::env_vars;
use crate::permissions::ApprovalRequest;

/// Writes to stderr, ignoring errors: a closed stderr (`2>&1 | head`) must
/// not end the run.
fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// Writes to stdout, ignoring errors (a closed pipe ends nothing).
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

fn err_line(text: &str) {
    err(&format!("{text}\n"));
}

/// Model-controlled text made safe for a terminal: control characters other
/// than newline and tab are shown escaped (`\x1b`), so escape sequences can
/// never disguise what is being approved.
pub fn sanitize(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// Whether stderr gets colour.
pub fn stderr_colors() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os(env_vars::NO_COLOR).is_none_or(|v| v.is_empty())
}

fn style(color: bool, style: Style) -> Style {
    if color {
        style.force_styling(true)
    } else {
        Style::new()
    }
}

/// Prints the error that ends the process, with its cause chain.
pub fn print_error(err: &anyhow::Error) {
    let red = style(stderr_colors(), Style::new().red().bold());
    err_line(&format!("{} {err:#}", red.apply_to("oc: error:")));
}

/// Prints a line of information on stderr.
pub fn print_note(message: &str) {
    err_line(message);
}

/// Prints a warning line on stderr.
pub fn print_warning(message: &str) {
    let yellow = style(stderr_colors(), Style::new().yellow());
    err_line(&format!("{} {message}", yellow.apply_to("oc: warning:")));
}

/// Shows what an approval prompt is about (tool, detail, coloured diff).
pub fn show_approval_request(request: &ApprovalRequest) {
    let color = stderr_colors();
    let bold = style(color, Style::new().bold());
    err_line(&format!(
        "{} {}",
        bold.apply_to(&request.tool),
        sanitize(&request.detail)
    ));
    if let Some(diff) = &request.diff {
        print_diff(diff, color);
    }
}

fn print_diff(diff: &str, color: bool) {
    let green = style(color, Style::new().green());
    let red = style(color, Style::new().red());
    let dim = style(color, Style::new().dim());
    for line in diff.lines() {
        let line = sanitize(line);
        let line = line.as_ref();
        if line.starts_with("+++") || line.starts_with("---") || line.starts_with("@@") {
            err_line(&dim.apply_to(line).to_string());
        } else if line.starts_with('+') {
            err_line(&green.apply_to(line).to_string());
        } else if line.starts_with('-') {
            err_line(&red.apply_to(line).to_string());
        } else {
            err_line(line);
        }
    }
}

/// Where a run's activity goes: the text renderer, or JSON on stdout
/// (`--output-format json` / `stream-json`). The agent calls these in
/// order; each output shows what its format needs.
pub trait Output {
    /// The run has a session.
    fn session_started(&mut self, session: &crate::session::Session, resumed: bool);
    /// A model request is about to be sent.
    fn turn_started(&mut self, turn: u32);
    /// A piece of thinking.
    fn thinking(&mut self, turn: u32, delta: &str);
    /// A piece of the answer.
    fn content(&mut self, turn: u32, delta: &str);
    /// The reply is complete.
    fn turn_completed(
        &mut self,
        turn: u32,
        usage: crate::session::Usage,
        done_reason: Option<&str>,
    );
    /// A tool call is about to be settled; `detail` is the path(s) or
    /// command, empty when the arguments could not be read.
    fn tool_call(
        &mut self,
        turn: u32,
        id: &str,
        name: &str,
        detail: &str,
        arguments: &serde_json::Value,
    );
    /// A permission decision.
    fn permission(&mut self, record: &crate::permissions::PermissionRecord);
    /// A tool call's result.
    fn tool_result(&mut self, turn: u32, id: &str, name: &str, ok: bool, summary: &str);
    /// The diff of an applied change.
    fn diff(&mut self, diff: &str);
    /// A warning; always on stderr.
    fn warn(&mut self, message: &str);
    /// Progress information.
    fn note(&mut self, message: &str);
    /// An error that ended the run.
    fn error(&mut self, message: &str);
    /// The run is over.
    fn session_completed(&mut self, summary: &crate::protocol::RunSummary);
}

/// Where the last bytes of text went, so lines can be closed cleanly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Nothing,
    Thinking,
    Content,
}

/// The text format: the answer streams to stdout; thinking, tool activity,
/// diffs, a spinner while waiting and the closing line go to stderr.
/// `quiet` leaves only the answer, warnings and errors.
pub struct TextRenderer {
    color: bool,
    quiet: bool,
    open: Open,
    content_ends_with_newline: bool,
    spinner: Option<indicatif::ProgressBar>,
}

impl TextRenderer {
    /// A renderer for this process's stdout and stderr.
    pub fn new(quiet: bool) -> Self {
        TextRenderer {
            color: stderr_colors(),
            quiet,
            open: Open::Nothing,
            content_ends_with_newline: true,
            spinner: None,
        }
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
            Open::Content if !self.content_ends_with_newline => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(b"\n");
                let _ = out.flush();
                self.content_ends_with_newline = true;
            }
            Open::Content | Open::Nothing => {}
        }
        self.open = Open::Nothing;
    }
}

impl Output for TextRenderer {
    fn session_started(&mut self, _session: &crate::session::Session, _resumed: bool) {}

    fn turn_started(&mut self, _turn: u32) {
        self.close_line();
        // A spinner only for a person watching stderr.
        if !self.quiet && std::io::stderr().is_terminal() {
            let spinner = indicatif::ProgressBar::new_spinner();
            spinner.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            spinner.set_message("waiting for the model");
            spinner.enable_steady_tick(std::time::Duration::from_millis(120));
            self.spinner = Some(spinner);
        }
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
        self.open = Open::Content;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(delta.as_bytes());
        let _ = out.flush();
        self.content_ends_with_newline = delta.ends_with('\n');
    }

    fn turn_completed(
        &mut self,
        _turn: u32,
        _usage: crate::session::Usage,
        _done_reason: Option<&str>,
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

    fn permission(&mut self, _record: &crate::permissions::PermissionRecord) {}

    fn tool_result(&mut self, _turn: u32, _id: &str, _name: &str, ok: bool, summary: &str) {
        if self.quiet {
            return;
        }
        let (mark, s) = if ok {
            ("✓", Style::new().green())
        } else {
            ("✗", Style::new().red())
        };
        let s = style(self.color, s);
        err_line(&format!("  {} {}", s.apply_to(mark), sanitize(summary)));
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

    fn session_completed(&mut self, summary: &crate::protocol::RunSummary) {
        self.close_line();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        self.note(&format!(
            "{} turn{} · {} prompt + {} completion tokens · {} tool call{} · {} file{} changed · {:.1}s · session {}",
            summary.turns,
            plural(summary.turns as usize),
            summary.usage.prompt_tokens,
            summary.usage.completion_tokens,
            summary.tool_calls,
            plural(summary.tool_calls),
            summary.files_changed.len(),
            plural(summary.files_changed.len()),
            summary.duration_ms as f64 / 1000.0,
            summary.session_id
        ));
        let denials = &summary.permission_denials;
        if !denials.is_empty() {
            let mut text = format!(
                "{} action{} needed approval and no one could give it (no terminal):",
                denials.len(),
                plural(denials.len())
            );
            for d in denials {
                text.push_str(&format!(
                    "\n  - {} {}    ({})",
                    d.tool,
                    sanitize(&d.detail),
                    d.allow
                ));
            }
            text.push_str(
                "\nRe-run with `--yes`, or with the `--allow` rules shown, to allow them.",
            );
            print_warning(&text);
        }
    }
}
