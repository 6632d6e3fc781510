//! `read_file {path, offset?, limit?}`: numbered lines, a window for big
//! files, the total line count; binary files refused; non-UTF-8 text
//! decoded as Latin-1 with a note.

use schemars::JsonSchema;
use serde::Deserialize;

use super::outcome::ToolOutcome;
use super::workspace::Workspace;

/// Lines shown when the model gives no `limit`.
pub(crate) const DEFAULT_LIMIT: usize = 2000;
/// Longest line shown whole; longer ones are cut with a mark.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes sniffed for a NUL to call a file binary.
const SNIFF_BYTES: usize = 8192;

/// Arguments of `read_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// File path, relative to the workspace
    pub path: String,
    /// First line to show, 1-based
    #[serde(default)]
    pub offset: Option<usize>,
    /// Most lines to show (default 2000)
    #[serde(default)]
    pub limit: Option<usize>,
    /// For a long line: first character of line `offset` to show, 1-based
    #[serde(default)]
    pub column: Option<usize>,
}

/// Reads the file.
pub(crate) fn run(args: &Args, ws: &Workspace) -> ToolOutcome {
    let path = match ws.resolve(&args.path) {
        Ok(p) => p,
        Err(e) => return ToolOutcome::error(e),
    };
    let display = &path.display;
    if path.real.is_dir() {
        return ToolOutcome::error(format!(
            "{display} is a directory; use list_files to see what is in it"
        ));
    }
    if let Err(why) = super::file_text::regular_file(&path.real) {
        return ToolOutcome::error(format!("{display} {why}"));
    }
    let bytes = match crate::fsutil::read(&path.real) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutcome::error(format!(
                "{display} does not exist; use list_files to find the right path"
            ));
        }
        Err(e) => return ToolOutcome::error(format!("cannot read {display}: {e}")),
    };
    if bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) {
        return ToolOutcome::error(format!(
            "{display} is a binary file ({} bytes); it cannot be shown as text",
            bytes.len()
        ));
    }
    let (text, latin1) = super::file_text::decode_text(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let (offset, end) = window(args, total);
    if total == 0 {
        return ToolOutcome::ok(
            format!("{display} is empty (0 lines)"),
            format!("read {display} (empty)"),
        );
    }
    if offset > total {
        return ToolOutcome::error(format!(
            "offset {offset} is past the end of {display}, which has {total} lines"
        ));
    }
    let mut out = String::new();
    if latin1 {
        out.push_str(super::file_text::LATIN1_NOTE);
        out.push('\n');
    }
    for (i, line) in lines[offset - 1..end].iter().enumerate() {
        let number = offset + i;
        // `column` reaches into the first line shown; the others start at 1.
        let from = if i == 0 {
            args.column.unwrap_or(1).max(1)
        } else {
            1
        };
        out.push_str(&format!(
            "{number:>6}\t{}\n",
            line_window(line, number, from)
        ));
    }
    if offset == 1 && end == total {
        out.push_str(&format!("({total} lines)"));
    } else if end == total {
        out.push_str(&format!("(lines {offset}-{end} of {total}; end of file)"));
    } else {
        out.push_str(&format!(
            "(lines {offset}-{end} of {total}; use offset={} to read on)",
            end + 1
        ));
    }
    ToolOutcome::ok(out, format!("read {display} ({total} lines)"))
}

/// The first and last line (1-based) `args` show of a file of `total`
/// lines.
fn window(args: &Args, total: usize) -> (usize, usize) {
    let offset = args.offset.unwrap_or(1).max(1);
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    (
        offset,
        offset.saturating_sub(1).saturating_add(limit).min(total),
    )
}

/// For a read that showed only part of the file at `real`: the first and
/// last line it showed whole and the file's line count. `None` when it
/// showed the whole file (or the file cannot be read now).
pub(crate) fn shown_lines(args: &Args, real: &std::path::Path) -> Option<(usize, usize, usize)> {
    let bytes = crate::fsutil::read(real).ok()?;
    let text = super::file_text::decode_text(&bytes).0;
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let (offset, end) = window(args, total);
    // A line cut at MAX_LINE_CHARS was not seen whole: the window ends
    // before it.
    let cut = (offset..=end).find(|&n| {
        let from = if n == offset {
            args.column.unwrap_or(1).max(1)
        } else {
            1
        };
        lines
            .get(n - 1)
            .is_some_and(|l| l.chars().count() >= from + MAX_LINE_CHARS)
    });
    let end = cut.map_or(end, |n| n - 1);
    (offset > 1 || end < total).then_some((offset, end, total))
}

/// Up to [`MAX_LINE_CHARS`] characters of `line` from character `from`
/// (1-based), with a note of what is left out and how to read on.
fn line_window(line: &str, number: usize, from: usize) -> String {
    let total = line.chars().count();
    if from == 1 && total <= MAX_LINE_CHARS {
        return line.to_string();
    }
    let shown: String = line.chars().skip(from - 1).take(MAX_LINE_CHARS).collect();
    let shown_end = (from - 1 + MAX_LINE_CHARS).min(total);
    let mut text = String::new();
    if from > 1 {
        text.push_str(&format!("[… characters 1-{} left out] ", from - 1));
    }
    text.push_str(&shown);
    if shown_end < total {
        text.push_str(&format!(
            " … [line cut: {} more characters; read on with offset={number}, column={}]",
            total - shown_end,
            shown_end + 1
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(
        dir: &std::path::Path,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> ToolOutcome {
        let ws = Workspace::new(dir).unwrap();
        run(
            &Args {
                path: path.into(),
                offset,
                limit,
                column: None,
            },
            &ws,
        )
    }

    #[test]
    fn numbered_window_with_total() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("a.txt"), text).unwrap();
        let out = read(dir.path(), "a.txt", Some(3), Some(2));
        assert!(out.ok);
        assert_eq!(
            out.content,
            "     3\tline 3\n     4\tline 4\n(lines 3-4 of 10; use offset=5 to read on)"
        );
        let out = read(dir.path(), "a.txt", None, None);
        assert!(out.content.ends_with("(10 lines)"), "{}", out.content);
        assert!(!read(dir.path(), "a.txt", Some(11), None).ok);
        let out = read(dir.path(), "a.txt", Some(9), Some(usize::MAX));
        assert!(
            out.content.ends_with("(lines 9-10 of 10; end of file)"),
            "{}",
            out.content
        );
    }

    #[test]
    fn binary_missing_and_latin1() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.bin"), [1u8, 0, 2]).unwrap();
        std::fs::write(dir.path().join("l.txt"), b"caf\xe9\n").unwrap();
        let out = read(dir.path(), "b.bin", None, None);
        assert!(!out.ok && out.content.contains("binary"), "{}", out.content);
        let out = read(dir.path(), "nope.txt", None, None);
        assert!(
            !out.ok && out.content.contains("does not exist"),
            "{}",
            out.content
        );
        let out = read(dir.path(), "l.txt", None, None);
        assert!(
            out.ok && out.content.contains("not valid UTF-8"),
            "{}",
            out.content
        );
        assert!(out.content.contains("     1\tcafé\n"), "{}", out.content);
    }

    /// Regression: a 2 MB single-line file (minified JSON) showed its first
    /// 2000 characters and nothing could reach the rest.
    #[test]
    fn long_lines_can_be_read_to_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let line: String = (0..300_000).map(|i| format!("k{i:05},")).collect();
        std::fs::write(dir.path().join("min.json"), format!("[{line}]\n")).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let first = read(dir.path(), "min.json", None, None).content;
        let total = line.chars().count() + 2;
        assert!(
            first.contains(&format!(
                "… [line cut: {} more characters; read on with offset=1, column=2001]",
                total - 2000
            )),
            "{}",
            &first[first.len() - 200..]
        );
        let args = Args {
            path: "min.json".into(),
            offset: Some(1),
            limit: Some(1),
            column: Some(total - 99),
        };
        let tail = run(&args, &ws).content;
        let left_out = format!("[… characters 1-{} left out] ", total - 100);
        assert!(tail.contains(&left_out), "{tail}");
        assert!(tail.contains("k299999,]"), "{tail}");
        assert!(!tail.contains("line cut"), "{tail}");
    }
}
