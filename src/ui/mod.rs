//! Human output (SPEC §8, text format): the assistant's answer streams to
//! stdout and nothing else goes there; thinking (dim), tool activity, diffs,
//! warnings and the closing usage line go to stderr. Colour only when stderr
//! is a terminal and `NO_COLOR` is unset. This is the only module that prints.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Write};

use console::Style;

use crate::env_vars;
use crate::permissions::ApprovalRequest;

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
    eprintln!("{} {err:#}", red.apply_to("oc: error:"));
}

/// Prints a warning line on stderr.
pub fn print_warning(message: &str) {
    let yellow = style(stderr_colors(), Style::new().yellow());
    eprintln!("{} {message}", yellow.apply_to("oc: warning:"));
}

/// Shows what an approval prompt is about (tool, detail, coloured diff).
pub fn show_approval_request(request: &ApprovalRequest) {
    let color = stderr_colors();
    let bold = style(color, Style::new().bold());
    eprintln!("{} {}", bold.apply_to(&request.tool), request.detail);
    if let Some(diff) = &request.diff {
        print_diff(diff, color);
    }
}

fn print_diff(diff: &str, color: bool) {
    let green = style(color, Style::new().green());
    let red = style(color, Style::new().red());
    let dim = style(color, Style::new().dim());
    for line in diff.lines() {
        if line.starts_with("+++") || line.starts_with("---") || line.starts_with("@@") {
            eprintln!("{}", dim.apply_to(line));
        } else if line.starts_with('+') {
            eprintln!("{}", green.apply_to(line));
        } else if line.starts_with('-') {
            eprintln!("{}", red.apply_to(line));
        } else {
            eprintln!("{line}");
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
        eprint!("{}", dim.apply_to(delta));
    }

    /// A content delta of the answer: stdout, flushed at once. A closed pipe
    /// (e.g. `| head`) is not an error.
    pub fn content(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        if self.open == Open::Thinking {
            eprintln!();
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
            Open::Thinking => eprintln!(),
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
        eprintln!("{} {detail}", cyan.apply_to(format!("● {name}")));
    }

    /// A tool call's result.
    pub fn tool_result(&mut self, ok: bool, summary: &str) {
        let (mark, s) = if ok {
            ("✓", Style::new().green())
        } else {
            ("✗", Style::new().red())
        };
        let s = style(self.color, s);
        eprintln!("  {} {summary}", s.apply_to(mark));
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
        eprintln!("{}", dim.apply_to(message));
    }
}
