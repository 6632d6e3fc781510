//! `edit_file {path, old_string, new_string, replace_all?}`: progressive
//! matching (see [`super::edit_match`]) with the uniqueness rule. Failures
//! say why and what to do.

use schemars::JsonSchema;
use serde::Deserialize;

use super::change::{FileChange, Seen};
use super::edit_match;
use super::workspace::Workspace;

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

/// Computes the edit; nothing is written until [`FileChange::apply`]. An
/// edit to a file that changed on disk since the model read it may still
/// apply (its `old_string` must match what the file is now); the result
/// then says so.
pub fn prepare(args: &Args, ws: &Workspace, seen: &Seen) -> Result<FileChange, String> {
    let path = ws.resolve(&args.path)?;
    let display = &path.display;
    super::file_text::regular_file(&path.real).map_err(|why| format!("{display} {why}"))?;
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
    if args.old_string.contains('\n')
        && let Some(why) = super::write_file::escaped_line_breaks(&args.new_string)
    {
        return Err(format!("{display} was not edited: new_string {why}"));
    }
    let edit = edit_match::apply(
        &text,
        &args.old_string,
        &args.new_string,
        args.replace_all.unwrap_or(false),
    )
    .map_err(|e| format!("{display}: {e}"))?;
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
    if seen.changed_since(&path.real) {
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
            prepare(&args("nope.rs", false), &ws, &Seen::default())
                .unwrap_err()
                .contains("write_file")
        );
        let change = prepare(&args("f.rs", true), &ws, &Seen::default()).unwrap();
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
