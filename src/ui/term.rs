//! The only code that writes to stdout and stderr. Writes never fail on a
//! closed pipe; model-controlled text is made safe for a terminal first.

use std::io::{IsTerminal, Write};

use console::Style;

use crate::env_vars;

/// Writes to stderr, ignoring errors: a closed stderr (`2>&1 | head`) must
/// not end the run.
pub(crate) fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// Writes to stdout, ignoring errors (a closed pipe ends nothing).
pub(crate) fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Writes one line to stderr, ignoring errors.
pub(crate) fn err_line(text: &str) {
    err(&format!("{text}\n"));
}

/// Model-controlled text made safe for a terminal: control characters other
/// than newline and tab are shown escaped (`\x1b`), so escape sequences can
/// never disguise what is being approved.
pub(crate) fn sanitize(text: &str) -> std::borrow::Cow<'_, str> {
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

/// A file name as it goes on one line of output: as it is, or, when it has
/// a control character (a newline would split the line) or starts with `"`,
/// in double quotes with C escapes (`"a\nb"`, `\"`, `\\`, `\t`,
/// `\u{1b}`), as git quotes names.
pub(crate) fn quoted_path(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.starts_with('"') && !path.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut quoted = String::from("\"");
    for c in path.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            c if c.is_control() => quoted.push_str(&c.escape_unicode().to_string()),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted.into()
}

/// Names joined by `, `, each quoted as [`quoted_path`] does.
pub(crate) fn quoted_paths<S: AsRef<str>>(paths: &[S]) -> String {
    (paths.iter())
        .map(|p| quoted_path(p.as_ref()).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether stderr gets colour.
pub(crate) fn stderr_colors() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os(env_vars::NO_COLOR).is_none_or(|v| v.is_empty())
}

/// `style` when colour is on, else no styling.
pub(crate) fn style(color: bool, style: Style) -> Style {
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
pub(crate) fn print_note(message: &str) {
    err_line(message);
}

/// Prints a warning line on stderr.
pub(crate) fn print_warning(message: &str) {
    let yellow = style(stderr_colors(), Style::new().yellow());
    err_line(&format!("{} {message}", yellow.apply_to("oc: warning:")));
}

/// Prints a unified diff on stderr, `+` lines green and `-` lines red.
pub(crate) fn print_diff(diff: &str, color: bool) {
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

/// The locked stdout, for a command that streams its output (`oc
/// export-ft`) and must know when a write fails.
pub(crate) fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

/// Asks a yes/no question on the terminal (default no). `None` when there
/// is no terminal to ask on (stdin or stderr is not one).
pub(crate) fn confirm(prompt: &str) -> Option<bool> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return None;
    }
    let answer = dialoguer::Confirm::new()
        .with_prompt(prompt)
        .default(false)
        .interact_on(&console::Term::stderr())
        .unwrap_or(false);
    Some(answer)
}

/// Rows as columns lined up with two spaces between them (the first row is
/// the header), one line per row.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c + 1 == columns {
                    cell.clone()
                } else {
                    format!("{cell:<width$}", width = widths[c])
                }
            })
            .collect();
        text.push_str(line.join("  ").trim_end());
        text.push('\n');
    }
    text
}

/// `2026-11-30T01:41:02.123Z` → `2026-11-30 01:41`.
pub(crate) fn short_time(rfc3339: &str) -> String {
    rfc3339.get(..16).unwrap_or(rfc3339).replace('T', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_control_characters_are_quoted_on_one_line() {
        assert_eq!(quoted_path("src/a b.rs"), "src/a b.rs");
        assert_eq!(quoted_path("new\nfile.txt"), "\"new\\nfile.txt\"");
        assert_eq!(quoted_path("\"x"), "\"\\\"x\"");
        assert_eq!(quoted_path("a\\b\tc\u{1b}"), "\"a\\\\b\\tc\\u{1b}\"");
        assert_eq!(quoted_paths(&["a", "b\nc"]), "a, \"b\\nc\"");
    }
}
