//! `edit_file {path, old_string, new_string, replace_all?}`: progressive
//! matching (see [`super::edit_match`]) with the uniqueness rule. Failures
//! say why and what to do.

use schemars::JsonSchema;
use serde::Deserialize;

use super::change::{FileChange, FilesSeen};
use super::edit_match;
use super::workspace::Workspace;

/// Arguments of `edit_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Args {
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

/// Computes the edit; nothing is written until [`FileChange::apply`]. An
/// edit to a file that changed on disk since the model read it applies only
/// where `old_string` matches the file exactly and once (never with
/// `replace_all`), and the result says so; otherwise the error shows the
/// lines as they are now. The same edit sent again once it is in the file
/// is "already applied" and changes nothing.
pub(crate) fn prepare(args: &Args, ws: &Workspace, seen: &FilesSeen) -> Result<FileChange, String> {
    let path = ws.resolve(&args.path)?;
    let display = &path.display;
    super::file_text::regular_file(&path.real).map_err(|why| format!("{display} {why}"))?;
    let text = match crate::fsutil::read(&path.real) {
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
    if args.old_string.contains('\n')
        && let Some(why) = super::write_file::escaped_line_breaks_from(&args.new_string, 1)
    {
        return Err(format!(
            "{display} was not edited: old_string spans lines, but new_string {why}"
        ));
    }
    if seen.applied(&path.real, &args.old_string, &args.new_string)
        && text.contains(args.new_string.as_str())
    {
        return Ok(FileChange {
            after: text.clone(),
            before: Some(text),
            path,
            note: "this edit was already applied; the file has it".to_string(),
        });
    }
    let changed = seen.changed_since(&path.real);
    let replace_all = args.replace_all.unwrap_or(false);
    if changed && replace_all {
        return Err(format!(
            "{display} changed on disk since you read it, so replace_all could change text you have not seen; read it again, then edit"
        ));
    }
    let edit = edit_match::apply(&text, &args.old_string, &args.new_string, replace_all)
        .map_err(|e| format!("{display}: {e}"))?;
    if changed && edit.stage != edit_match::Stage::Exact {
        return Err(format!(
            "{display} changed on disk since you read it, and old_string is not in it exactly; it now reads:\n{}\nsend old_string exactly as it is now",
            around(&text, edit.lines.first().copied().unwrap_or(1))
        ));
    }
    if let Some(line) = super::losses::elision(display, &args.old_string, &args.new_string) {
        return Err(format!(
            "{display} was not edited: new_string leaves code out (`{line}` stands for lines that would be lost); write every line of new_string in full"
        ));
    }
    if edit.text.trim().is_empty() && !text.trim().is_empty() {
        return Err(format!(
            "this edit would leave {display} empty; to empty a file on purpose, use write_file with \"allow_shrink\": true"
        ));
    }
    let places: Vec<String> = edit.lines.iter().map(usize::to_string).collect();
    let count = edit.lines.len();
    let mut note = format!(
        "replaced {count} occurrence{} at line{} {} (match: {}",
        if count == 1 { "" } else { "s" },
        if count == 1 { "" } else { "s" },
        places.join(", "),
        edit.stage
    );
    if let Some(similarity) = edit.similarity {
        note.push_str(&format!(", similarity {similarity:.2}"));
    }
    note.push(')');
    if changed {
        note.push_str(
            "; note: the file had changed on disk since you last read it; read it again before further edits",
        );
    }
    Ok(FileChange {
        path,
        before: Some(text),
        after: edit.text,
        note,
    })
}

/// The lines of `text` around line `line` (1-based), numbered as
/// `read_file` shows them: three before, the line, and three after.
fn around(text: &str, line: usize) -> String {
    let from = line.saturating_sub(3).max(1);
    text.lines()
        .enumerate()
        .skip(from - 1)
        .take(7)
        .map(|(i, l)| format!("{:>6}\t{l}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

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
            prepare(&args("nope.rs", false), &ws, &FilesSeen::default())
                .unwrap_err()
                .contains("write_file")
        );
        let change = prepare(&args("f.rs", true), &ws, &FilesSeen::default()).unwrap();
        assert_eq!(
            change.note,
            "replaced 2 occurrences at lines 1, 2 (match: exact)"
        );
        assert_eq!(
            change.apply().summary,
            "updated f.rs (+2 -2) replaced 2 occurrences at lines 1, 2 (match: exact)"
        );
    }
}
