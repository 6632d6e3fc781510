//! `edit_file {path, old_string, new_string, replace_all?}`: exact
//! replacement with the uniqueness rule. Failures say why and what to do.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{FileChange, Workspace};

/// Arguments of `edit_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Args {
    /// File path, relative to the workspace
    pub path: String,
    /// Exact text to replace, with enough context to be unique
    pub old_string: String,
    /// Replacement text
    pub new_string: String,
    /// Replace every occurrence (default false)
    #[serde(default)]
    pub replace_all: Option<bool>,
}

/// Computes the edit; nothing is written until [`FileChange::apply`].
pub fn prepare(args: &Args, ws: &Workspace) -> Result<FileChange, String> {
    let path = ws.resolve(&args.path)?;
    let display = &path.display;
    let text = match std::fs::read(&path.real) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            format!("{display} is not UTF-8 text; rewrite it with write_file instead")
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "{display} does not exist; create it with write_file"
            ));
        }
        Err(e) => return Err(format!("cannot read {display}: {e}")),
    };
    let after = replace(
        &text,
        &args.old_string,
        &args.new_string,
        args.replace_all.unwrap_or(false),
    )
    .map_err(|e| format!("{display}: {e}"))?;
    let count = text.matches(args.old_string.as_str()).count();
    let note = if count == 1 {
        "replaced 1 occurrence".to_string()
    } else {
        format!("replaced {count} occurrences")
    };
    Ok(FileChange {
        path,
        before: Some(text),
        after,
        note,
    })
}

/// Replaces `old` with `new` in `text`: exactly one occurrence, or all of
/// them with `replace_all`. Pure.
///
/// Errors: empty or identical strings, no occurrence (with the lines that
/// look closest), several occurrences without `replace_all` (with their line
/// numbers).
pub fn replace(text: &str, old: &str, new: &str, replace_all: bool) -> Result<String, String> {
    if old.is_empty() {
        return Err("old_string is empty; to create or replace a whole file use write_file".into());
    }
    if old == new {
        return Err("old_string and new_string are the same; nothing would change".into());
    }
    let starts: Vec<usize> = text.match_indices(old).map(|(i, _)| i).collect();
    match starts.len() {
        0 => Err(not_found(text, old)),
        1 => Ok(text.replacen(old, new, 1)),
        n if replace_all => {
            debug_assert!(n > 1);
            Ok(text.replace(old, new))
        }
        n => {
            let lines: Vec<String> = starts
                .iter()
                .map(|&i| (text[..i].matches('\n').count() + 1).to_string())
                .collect();
            Err(format!(
                "old_string occurs {n} times (lines {}); add surrounding lines to make it unique, or set replace_all to true",
                lines.join(", ")
            ))
        }
    }
}

fn not_found(text: &str, old: &str) -> String {
    let mut message =
        "old_string was not found; it must match the file exactly, whitespace included".to_string();
    let probe = old.lines().map(str::trim).find(|l| !l.is_empty());
    let candidates: Vec<String> = match probe {
        Some(probe) => text
            .lines()
            .enumerate()
            .filter(|(_, line)| {
                line.contains(probe) || (!line.trim().is_empty() && probe.contains(line.trim()))
            })
            .take(3)
            .map(|(i, line)| format!("{:>6}\t{}", i + 1, line.replace('\t', "→")))
            .collect(),
        None => Vec::new(),
    };
    if candidates.is_empty() {
        message.push_str(
            ". No line resembles it: read the file again with read_file and copy the text exactly",
        );
    } else {
        message.push_str(". Closest lines (tabs shown as →):\n");
        message.push_str(&candidates.join("\n"));
        message.push_str("\nRead the file again with read_file and copy the text exactly");
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn replace_table() {
        let text = "a\nx += 1;\nb\nx += 1;\n";
        assert_eq!(replace("a\nb\n", "b", "c", false).unwrap(), "a\nc\n");
        let err = replace(text, "x += 1;", "y", false).unwrap_err();
        assert!(err.contains("occurs 2 times (lines 2, 4)"), "{err}");
        assert_eq!(replace(text, "x += 1;", "y", true).unwrap(), "a\ny\nb\ny\n");
        assert!(
            replace(text, "", "y", false)
                .unwrap_err()
                .contains("write_file")
        );
        assert!(replace(text, "a", "a", false).unwrap_err().contains("same"));
        let err = replace(
            "fn main() {\n\tlet x = 1;\n}\n",
            "    let x = 1;",
            "",
            false,
        )
        .unwrap_err();
        assert!(err.contains("     2\t→let x = 1;"), "{err}");
        let err = replace("abc\n", "zzz", "y", false).unwrap_err();
        assert!(err.contains("No line resembles it"), "{err}");
    }

    #[test]
    fn prepare_reports_missing_file_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.rs"), "a\na\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let args = |path: &str, all| Args {
            path: path.into(),
            old_string: "a".into(),
            new_string: "b".into(),
            replace_all: Some(all),
        };
        assert!(
            prepare(&args("nope.rs", false), &ws)
                .unwrap_err()
                .contains("write_file")
        );
        let change = prepare(&args("f.rs", true), &ws).unwrap();
        assert_eq!(change.note, "replaced 2 occurrences");
        assert_eq!(
            change.apply().summary,
            "updated f.rs (+2 -2) replaced 2 occurrences"
        );
    }
}
