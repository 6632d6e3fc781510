//! `write_file {path, content}`: creates or replaces a whole file,
//! atomically. An existing file is only replaced when the model has read (or
//! written) it in this run; a CRLF file stays CRLF and a BOM stays.

use schemars::JsonSchema;
use serde::Deserialize;

use super::change::{FileChange, FilesSeen};
use super::losses::{self, Loss};
use super::workspace::Workspace;

/// Arguments of `write_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// File path, relative to the workspace
    pub path: String,
    /// The whole new content of the file
    pub content: String,
    /// Set true to empty an existing file, or cut most of it, on purpose
    #[serde(default, alias = "allow_empty")]
    pub allow_shrink: Option<bool>,
}

/// Computes the change; nothing is written until [`FileChange::apply`].
///
/// Errors: a directory, an unreadable file, or an existing file not seen in
/// this run (read it first).
pub(crate) fn prepare(args: &Args, ws: &Workspace, seen: &FilesSeen) -> Result<FileChange, String> {
    if args.path.trim_end().ends_with('/') {
        return Err(format!(
            "`{}` ends with `/`; give the path of a file, not a directory",
            args.path
        ));
    }
    let path = ws.resolve(&args.path)?;
    if path.real.is_dir() {
        return Err(format!("{} is a directory; give a file path", path.display));
    }
    super::file_text::regular_file(&path.real).map_err(|why| format!("{} {why}", path.display))?;
    let before = match crate::fsutil::read(&path.real) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display)),
    };
    if let Some(before) = before
        .as_ref()
        .filter(|before| !seen.contains(&path.real) && **before != args.content)
    {
        let lines = before.lines().count();
        return Err(format!(
            "{} already exists ({lines} lines) and has not been read in this run; read it with read_file first, then change it with edit_file or write_file",
            path.display
        ));
    }
    if seen.changed_since(&path.real) {
        return Err(format!(
            "{} changed on disk since you read it; read it again and build the new content from what it is now",
            path.display
        ));
    }
    if let Some(before) = &before
        && args.content != *before
    {
        if let Some((shown, total)) = seen.partly(&path.real) {
            return Err(format!(
                "you have seen {shown} of the {total} lines of {}, so a whole write would replace lines you have not seen; read the rest with read_file (offset and limit), or change the lines you saw with edit_file",
                path.display
            ));
        }
        let first = seen.first_text(&path.real).unwrap_or(before);
        // A file this run created is the model's own to cut down.
        let shrink = args.allow_shrink == Some(true) || seen.created(&path.real);
        guard_losses(&path.display, first, &args.content, shrink)?;
    }
    let several_lines = before.as_ref().is_some_and(|b| b.trim_end().contains('\n'));
    if let Some(why) = escaped_line_breaks_from(&args.content, if several_lines { 1 } else { 2 }) {
        return Err(format!(
            "{} was not written: the content {why}",
            path.display
        ));
    }
    let after = match &before {
        Some(before) => keep_conventions(before, &args.content),
        None => args.content.clone(),
    };
    Ok(FileChange {
        path,
        before,
        after,
        note: String::new(),
    })
}

/// Refuses a whole text that loses code of the file as the run first met
/// it: a blank text, `...` standing for kept code, or a fragment in place
/// of the file (unless `allow_shrink`, or the run created the file). Lines
/// the model added in this run are its own to take out.
fn guard_losses(
    display: &str,
    first: &str,
    content: &str,
    allow_shrink: bool,
) -> Result<(), String> {
    let Some(loss) = losses::loss(display, first, content, true) else {
        return Ok(());
    };
    let lines = first.lines().count();
    let intent = "send the whole new content, every line, unchanged ones too, or change only some lines with edit_file";
    match loss {
        Loss::Elision(line) => Err(format!(
            "the content leaves code of {display} out (`{line}` stands for lines that would be lost); {intent}"
        )),
        Loss::Blank if !allow_shrink => Err(format!(
            "the content is {}, which would erase {display} ({lines} lines); send the whole new content, or set \"allow_shrink\": true to empty it on purpose",
            if content.is_empty() {
                "empty"
            } else {
                "only blank lines"
            }
        )),
        Loss::Shrunk {
            new_lines,
            old_lines,
        } if !allow_shrink => Err(format!(
            "the content has {new_lines} lines and keeps under half of the {old_lines} lines {display} had when you first saw it in this run; {intent}; set \"allow_shrink\": true only if the task is to cut the file down"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
/// Why `text` looks like a multi-line text flattened into one line, its
/// line breaks sent as the two characters `\n`: no real line break, at
/// least two `\n`, and one of them outside any string literal. A `\n`
/// inside quotes belongs there (a `printf` format, a JSON or C string) and
/// is written as sent. Never unescaped silently: the model is told to send
/// real newlines.
pub(crate) fn escaped_line_breaks(text: &str) -> Option<String> {
    escaped_line_breaks_from(text, 2)
}

/// [`escaped_line_breaks`] with `at_least` `\n` pairs: 1 where the text
/// replaces several lines (an edit whose `old_string` spans lines, a whole
/// file that had more than one line).
pub(crate) fn escaped_line_breaks_from(text: &str, at_least: usize) -> Option<String> {
    let escaped = text.matches("\\n").count();
    (escaped >= at_least && !text.contains('\n') && unquoted_escape(text)).then(|| {
        format!(
            "it holds {escaped} `\\n` written as two characters (a backslash and n) and no real line break; send real line breaks (in JSON, `\\n` inside the string, not `\\\\n`)"
        )
    })
}

/// Whether a `\n` of one-line `text` stands where a line break would:
/// outside every string literal (`"…"`, `'…'` or `` `…` ``; an apostrophe
/// inside a word opens none, and a run of three quotes, a docstring's or a
/// Markdown fence's, neither opens nor closes one), and not amid regular
/// expression syntax (`[^\n]`, `\r\n`, `(\n|…)`, `\n+`).
fn unquoted_escape(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '"' | '\'' | '`') && at(i + 1) == Some(c) && at(i + 2) == Some(c) {
            i += 3;
            continue;
        }
        match (c, quote) {
            ('\\', None) if at(i + 1) == Some('n') => {
                let before = i.checked_sub(1).and_then(at);
                let after = at(i + 2);
                let carriage = i >= 2 && at(i - 2) == Some('\\') && before == Some('r');
                let pattern = matches!(before, Some('[' | '^' | '(' | '|'))
                    || matches!(
                        after,
                        Some(')' | ']' | '|' | '+' | '*' | '?' | '/' | '}' | '\\' | '$')
                    );
                if !carriage && !pattern {
                    return true;
                }
                i += 1;
            }
            ('\\', _) => i += 1,
            ('"' | '`', None) => quote = Some(c),
            ('\'', None) => {
                let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
                if !(i > 0 && word(at(i - 1)) && word(at(i + 1))) {
                    quote = Some(c);
                }
            }
            (_, Some(open)) if c == open => quote = None,
            _ => {}
        }
        i += 1;
    }
    false
}

/// `content` with the old file's conventions where `content` dropped them:
/// CRLF line endings, a BOM, and tab indentation (a tab-indented file
/// rewritten with spaces gets its tabs back).
fn keep_conventions(before: &str, content: &str) -> String {
    let content = keep_tabs(before, content);
    let content = content.as_str();
    let crlf = before.contains("\r\n") && !before.replace("\r\n", "").contains('\n');
    let mut after = if crlf && !content.contains("\r\n") {
        content.replace('\n', "\r\n")
    } else {
        content.to_string()
    };
    if before.starts_with('\u{feff}') && !after.starts_with('\u{feff}') {
        after.insert(0, '\u{feff}');
    }
    after
}

/// Whether most indented lines of `text` start with the given character.
fn indented_with(text: &str, c: char) -> bool {
    let (with, other) = text
        .lines()
        .filter(|l| l.starts_with([' ', '\t']) && !l.trim().is_empty())
        .fold((0, 0), |(w, o), l| {
            if l.starts_with(c) {
                (w + 1, o)
            } else {
                (w, o + 1)
            }
        });
    with > 0 && with >= other
}

/// `content` re-indented with tabs when `before` was indented with tabs
/// and `content` only with spaces: each leading run of `unit` spaces (the
/// smallest indent in `content`) becomes a tab.
fn keep_tabs(before: &str, content: &str) -> String {
    if !indented_with(before, '\t') || content.lines().any(|l| l.starts_with('\t')) {
        return content.to_string();
    }
    let unit = content
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .filter(|n| *n > 0)
        .min();
    let Some(unit) = unit else {
        return content.to_string();
    };
    content
        .split_inclusive('\n')
        .map(|line| {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            format!(
                "{}{}{}",
                "\t".repeat(spaces / unit),
                " ".repeat(spaces % unit),
                &line[spaces..]
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_parents_then_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let mut seen = FilesSeen::default();
        let args = Args {
            path: "a/b/c.txt".into(),
            content: "one\ntwo\n".into(),
            allow_shrink: None,
        };
        let out = prepare(&args, &ws, &seen).unwrap().apply();
        assert!(out.ok);
        assert_eq!(out.summary, "created a/b/c.txt (+2 -0)");
        assert_eq!(out.changed, vec!["a/b/c.txt".to_string()]);
        seen.insert(&ws.resolve("a/b/c.txt").unwrap().real);
        let args = Args {
            path: "a/b/c.txt".into(),
            content: "one\nTWO\n".into(),
            allow_shrink: None,
        };
        let out = prepare(&args, &ws, &seen).unwrap().apply();
        assert_eq!(out.summary, "updated a/b/c.txt (+1 -1)");
        assert_eq!(
            crate::fsutil::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
            "one\nTWO\n"
        );
        // As the call runner does after every write.
        seen.insert(&ws.resolve("a/b/c.txt").unwrap().real);
        let out = prepare(&args, &ws, &seen).unwrap().apply();
        assert_eq!(out.summary, "a/b/c.txt: no change");
        assert!(
            prepare(
                &Args {
                    path: "a".into(),
                    content: String::new(),
                    allow_shrink: None,
                },
                &ws,
                &seen
            )
            .is_err()
        );
        assert!(
            prepare(
                &Args {
                    path: "../x".into(),
                    content: String::new(),
                    allow_shrink: None,
                },
                &ws,
                &seen
            )
            .is_err()
        );
    }

    #[test]
    fn unread_files_are_not_replaced_and_conventions_stay() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=200).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("big.txt"), &text).unwrap();
        std::fs::write(dir.path().join("dos.txt"), "\u{feff}a\r\nb\r\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let mut seen = FilesSeen::default();
        let args = Args {
            path: "big.txt".into(),
            content: "short\n".into(),
            allow_shrink: None,
        };
        let err = prepare(&args, &ws, &seen).unwrap_err();
        assert!(err.contains("has not been read in this run"), "{err}");
        // Writing the same content is harmless and reports no change.
        let same = Args {
            path: "big.txt".into(),
            content: text,
            allow_shrink: None,
        };
        assert_eq!(
            prepare(&same, &ws, &seen).unwrap().apply().summary,
            "big.txt: no change"
        );
        seen.insert(&ws.resolve("dos.txt").unwrap().real);
        let args = Args {
            path: "dos.txt".into(),
            content: "a\nB\n".into(),
            allow_shrink: None,
        };
        assert!(prepare(&args, &ws, &seen).unwrap().apply().ok);
        assert_eq!(
            crate::fsutil::read_to_string(dir.path().join("dos.txt")).unwrap(),
            "\u{feff}a\r\nB\r\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn overwrite_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.sh");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let mut seen = FilesSeen::default();
        seen.insert(&file.canonicalize().unwrap());
        let args = Args {
            path: "run.sh".into(),
            content: "new".into(),
            allow_shrink: None,
        };
        assert!(prepare(&args, &ws, &seen).unwrap().apply().ok);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[test]
    fn new_files_get_ordinary_permissions_and_dirs_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let seen = FilesSeen::default();
        let args = Args {
            path: "new/deep/file.txt".into(),
            content: "x".into(),
            allow_shrink: None,
        };
        assert!(prepare(&args, &ws, &seen).unwrap().apply().ok);
        let mode = std::fs::metadata(dir.path().join("new/deep/file.txt"))
            .unwrap()
            .permissions()
            .mode();
        // 0o666 less the umask: readable by others, unlike a bare temp file.
        assert_eq!(mode & 0o044, 0o044 & !umask(), "mode {mode:o}");
        let args = Args {
            path: "newdir/".into(),
            content: "x".into(),
            allow_shrink: None,
        };
        assert!(
            prepare(&args, &ws, &seen)
                .unwrap_err()
                .contains("ends with `/`")
        );
    }

    fn umask() -> u32 {
        let status = crate::fsutil::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
        u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
    }

    fn write(path: &str, content: &str, allow_shrink: Option<bool>) -> Args {
        Args {
            path: path.into(),
            content: content.into(),
            allow_shrink,
        }
    }

    /// Regressions: writes that lost data without a word.
    #[test]
    fn empty_stale_and_escaped_content_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let file = dir.path().join("lib.py");
        std::fs::write(&file, "a = 1\n").unwrap();
        let mut seen = FilesSeen::default();
        seen.insert(&file);
        let err = prepare(&write("lib.py", "", None), &ws, &seen).unwrap_err();
        assert!(err.contains("set \"allow_shrink\": true"), "{err}");
        assert!(prepare(&write("lib.py", "", Some(true)), &ws, &seen).is_ok());
        let err =
            prepare(&write("doc.md", "# Title\\n\\nFirst.\\n", None), &ws, &seen).unwrap_err();
        assert!(err.contains("no real line break"), "{err}");
        assert!(prepare(&write("one.py", "print(\"a\\nb\")\n", None), &ws, &seen).is_ok());
        // Another process changes the file after it was read.
        std::fs::write(&file, "a = 1\nb = 2\n").unwrap();
        let err = prepare(&write("lib.py", "a = 3\n", None), &ws, &seen).unwrap_err();
        assert!(err.contains("changed on disk since you read it"), "{err}");
        seen.insert(&file);
        assert!(prepare(&write("lib.py", "a = 3\n", None), &ws, &seen).is_ok());
    }

    /// A `\n` inside a string literal belongs there; one outside every
    /// string is a flattened line break.
    #[test]
    fn only_unquoted_escapes_are_line_breaks() {
        for kept in [
            r"printf 'a\nb\n'",
            r#"{"text": "one\ntwo\nthree"}"#,
            r#"const char *s = "a\nb\n";"#,
            r#"print(f"it's {x}\n\n")"#,
            r"echo `printf 'x\ny'`",
        ] {
            assert_eq!(escaped_line_breaks(kept), None, "{kept}");
        }
        for flat in [
            r"# Title\n\nIt's the first paragraph.\n",
            r"def f():\n    return 'x'\n",
            r#"{\n  "a": 1\n}"#,
            r"printf 'a\nb'\n",
        ] {
            assert!(escaped_line_breaks(flat).is_some(), "{flat}");
        }
    }

    /// Regression: a tab-indented file rewritten whole with four spaces lost
    /// its tabs (the 1.5B model on `bench/tasks/py-tabs`).
    #[test]
    fn a_tab_indented_file_keeps_its_tabs() {
        let before = "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n";
        let spaces = "def f(x):\n    if x:\n        return 3\n    return 2\n";
        assert_eq!(
            keep_conventions(before, spaces),
            "def f(x):\n\tif x:\n\t\treturn 3\n\treturn 2\n"
        );
        let space_file = "def f(x):\n    return 1\n";
        assert_eq!(
            keep_conventions(space_file, spaces),
            spaces,
            "spaces stay spaces"
        );
    }
}
