//! Human output (SPEC §8, text format): the assistant's answer streams to
//! stdout and nothing else goes there; thinking (dim), tool activity, diffs,
//! warnings and the closing usage line go to stderr. Colour only when stderr
//! is a terminal and `NO_COLOR` is unset. This is the only module that writes
//! to stdout and stderr, and it never fails on a closed pipe.

use std::io::{IsTerminal, Write};

use console::Style;

use crate::env_vars;
use crate::permissions::ApprovalRequest;

/// Writes to stderr, ignoring errors: a closed stderr (`2>&1 | head`) must
/// not end the run.
fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
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

/// Where the last bytes of text went, so lines can be closed cleanly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Nothing,
    Thinking,
    Content,
}

/// Streams one run's activity in the text format.
#[derive(Debug)]
pub struct TextRenderer {
    color: bool,
    open: Open,
    content_ends_with_newline: bool,
}

impl Default for TextRenderer {
    fn default() -> Self {
        TextRenderer::new()
    }
}

impl TextRenderer {
    /// A renderer for this process's stdout and stderr.
    pub fn new() -> Self {
        TextRenderer {
            color: stderr_colors(),
            open: Open::Nothing,
            content_ends_with_newline: true,
        }
    }

    /// A thinking delta: dim, on stderr.
    pub fn thinking(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        if self.open == Open::Content {
            self.close_line();
        }
        self.open = Open::Thinking;
        let dim = style(self.color, Style::new().dim().italic());
        err(&dim.apply_to(sanitize(delta)).to_string());
    }

    /// A content delta of the answer: stdout, flushed at once. A closed pipe
    /// (e.g. `| head`) is not an error.
    pub fn content(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        if self.open == Open::Thinking {
            err("\n");
        }
        self.open = Open::Content;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(delta.as_bytes());
        let _ = out.flush();
        self.content_ends_with_newline = delta.ends_with('\n');
    }

    /// Ends any open line of thinking or content.
    pub fn close_line(&mut self) {
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

    /// A tool call about to run.
    pub fn tool_call(&mut self, name: &str, detail: &str) {
        self.close_line();
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

    /// A tool call's result.
    pub fn tool_result(&mut self, ok: bool, summary: &str) {
        let (mark, s) = if ok {
            ("✓", Style::new().green())
        } else {
            ("✗", Style::new().red())
        };
        let s = style(self.color, s);
        err_line(&format!("  {} {}", s.apply_to(mark), sanitize(summary)));
    }

    /// The diff of a file change that was applied.
    pub fn diff(&mut self, diff: &str) {
        print_diff(diff, self.color);
    }

    /// A warning during the run.
    pub fn warn(&mut self, message: &str) {
        self.close_line();
        print_warning(message);
    }

    /// A line of information on stderr.
    pub fn note(&mut self, message: &str) {
        self.close_line();
        let dim = style(self.color, Style::new().dim());
        err_line(&dim.apply_to(message).to_string());
    }
}
