//! The only code that writes to stdout and stderr. Writes never fail on a
//! closed pipe; model-controlled text is made safe for a terminal first.

use std::io::{IsTerminal, Write};

use console::Style;

use crate::env_vars;

/// Writes to stderr, ignoring errors: a closed stderr (`2>&1 | head`) must
/// not end the run.
pub fn err(text: &str) {
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

/// Writes one line to stderr, ignoring errors.
pub fn err_line(text: &str) {
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

/// `style` when colour is on, else no styling.
pub fn style(color: bool, style: Style) -> Style {
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

/// Prints a unified diff on stderr, `+` lines green and `-` lines red.
pub fn print_diff(diff: &str, color: bool) {
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
