//! `move_file {from, to, overwrite?}`: rename within the workspace; never
//! overwrites unless asked; parent directories created.

use schemars::JsonSchema;
use serde::Deserialize;

use super::change::FilesSeen;
use super::outcome::ToolOutcome;
use super::workspace::Workspace;

/// Arguments of `move_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// Current path, relative to the workspace
    pub from: String,
    /// New path, relative to the workspace
    pub to: String,
    /// Replace an existing file at `to` (default false)
    #[serde(default)]
    pub overwrite: Option<bool>,
}

/// Moves the file or directory.
/// Why moving the file at `from` over the file at `to` would lose code of
/// `to` as the run first met it (a blank or a fragment in its place, or a
/// placeholder line): a whole write by another name, under the same
/// guards as `write_file` (none for a file the run created).
fn replaced_loss(
    from: &std::path::Path,
    to: &std::path::Path,
    display: &str,
    seen: &FilesSeen,
) -> Option<String> {
    if seen.created(to) {
        return None;
    }
    let new = crate::fsutil::read(from).ok()?;
    let new = String::from_utf8_lossy(&new);
    let first = match seen.first_text(to) {
        Some(first) => first.to_string(),
        None => String::from_utf8_lossy(&crate::fsutil::read(to).ok()?).into_owned(),
    };
    super::losses::loss(display, &first, &new, true).map(|_| {
        format!(
            "moving over {display} would replace it with a file that keeps little of it; change it with edit_file, or replace it with write_file (\"allow_shrink\": true if the task is to cut it down)"
        )
    })
}

/// Replacing an existing file needs `overwrite` and, as for `write_file`,
/// that the model has read (or written) it in this run.
pub(crate) fn run(args: &Args, ws: &Workspace, seen: &FilesSeen) -> ToolOutcome {
    // A symlink is moved as a link; its target stays where it is.
    let from = match ws.resolve_link(&args.from) {
        Ok(p) => p,
        Err(e) => return ToolOutcome::error(e),
    };
    let to = match ws.resolve_link(&args.to) {
        Ok(p) => p,
        Err(e) => return ToolOutcome::error(e),
    };
    if from.real == ws.root() {
        return ToolOutcome::error("the workspace root itself cannot be moved");
    }
    if from.real.symlink_metadata().is_err() {
        return ToolOutcome::error(format!(
            "{} does not exist; use list_files to find the right path",
            from.display
        ));
    }
    let same_file = |a: &std::path::Path, b: &std::path::Path| {
        a.canonicalize()
            .ok()
            .is_some_and(|a| b.canonicalize().ok() == Some(a))
    };
    if from.real == to.real || same_file(&from.real, &to.real) {
        return ToolOutcome::error(format!(
            "{} and {} are the same file; nothing to move",
            from.display, to.display
        ));
    }
    if to.real.symlink_metadata().is_ok() {
        if to.real.is_dir() && !to.real.is_symlink() {
            return ToolOutcome::error(format!(
                "{} is a directory; give the full new path, e.g. {}/{}",
                to.display,
                to.display,
                from.real
                    .file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            ));
        }
        if !args.overwrite.unwrap_or(false) {
            return ToolOutcome::error(format!(
                "{} already exists; set overwrite to true to replace it, or choose another name",
                to.display
            ));
        }
        if !seen.contains(&to.real) && to.real.is_file() {
            return ToolOutcome::error(format!(
                "{} already exists and has not been read in this run; read it with read_file before replacing it",
                to.display
            ));
        }
        if to.real.is_dir() {
            return ToolOutcome::error(format!(
                "{} is a directory; it is never replaced",
                to.display
            ));
        }
        if let Some(why) = replaced_loss(&from.real, &to.real, &to.display, seen) {
            return ToolOutcome::error(why);
        }
    }
    if to.real.starts_with(&from.real) {
        return ToolOutcome::error(format!(
            "cannot move {} into itself ({})",
            from.display, to.display
        ));
    }
    if let Some(Err(e)) = to.real.parent().map(std::fs::create_dir_all) {
        return ToolOutcome::error(format!(
            "cannot create the directory for {}: {e}",
            to.display
        ));
    }
    if let Err(e) = std::fs::rename(&from.real, &to.real) {
        return ToolOutcome::error(format!(
            "cannot move {} to {}: {e}",
            from.display, to.display
        ));
    }
    let summary = format!("moved {} → {}", from.display, to.display);
    ToolOutcome {
        ok: true,
        content: summary.clone(),
        summary,
        changed: vec![from.display, to.display],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs with every file counted as read, as after read_file.
    fn run_seen(args: &Args, ws: &Workspace) -> ToolOutcome {
        let mut seen = FilesSeen::default();
        for entry in std::fs::read_dir(ws.root()).unwrap().flatten() {
            seen.insert(&entry.path());
        }
        seen.insert(&ws.root().join("deep/er/a.txt"));
        run(args, ws, &seen)
    }

    #[test]
    fn replacing_an_unread_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        std::fs::write(dir.path().join("b.txt"), "b").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let args = Args {
            from: "a.txt".into(),
            to: "b.txt".into(),
            overwrite: Some(true),
        };
        let out = run(&args, &ws, &FilesSeen::default());
        assert!(
            !out.ok && out.content.contains("has not been read"),
            "{}",
            out.content
        );
        assert_eq!(
            crate::fsutil::read_to_string(dir.path().join("b.txt")).unwrap(),
            "b"
        );
    }

    #[test]
    fn moves_and_refuses_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        std::fs::write(dir.path().join("b.txt"), "b").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let args = |from: &str, to: &str, overwrite| Args {
            from: from.into(),
            to: to.into(),
            overwrite: Some(overwrite),
        };
        let out = run_seen(&args("a.txt", "b.txt", false), &ws);
        assert!(
            !out.ok && out.content.contains("already exists"),
            "{}",
            out.content
        );
        let out = run_seen(&args("a.txt", "deep/er/a.txt", false), &ws);
        assert!(out.ok, "{}", out.content);
        assert!(dir.path().join("deep/er/a.txt").exists());
        let out = run_seen(&args("b.txt", "deep/er/a.txt", true), &ws);
        assert!(out.ok, "{}", out.content);
        assert_eq!(
            crate::fsutil::read_to_string(dir.path().join("deep/er/a.txt")).unwrap(),
            "b"
        );
        assert!(!run_seen(&args("missing", "x", false), &ws).ok);
        assert!(!run_seen(&args("deep", "deep/inner", false), &ws).ok);
        assert!(!run_seen(&args("deep", "../out", false), &ws).ok);
        std::fs::write(dir.path().join("target.txt"), "t").unwrap();
        std::os::unix::fs::symlink(dir.path().join("target.txt"), dir.path().join("link")).unwrap();
        let out = run_seen(&args("link", "renamed-link", false), &ws);
        assert!(out.ok, "{}", out.content);
        assert!(dir.path().join("target.txt").exists(), "the target stays");
        let moved = dir.path().join("renamed-link").symlink_metadata().unwrap();
        assert!(moved.file_type().is_symlink());
        // A link moved onto its own target would destroy the content.
        std::os::unix::fs::symlink(dir.path().join("target.txt"), dir.path().join("lnk")).unwrap();
        let out = run_seen(&args("lnk", "target.txt", true), &ws);
        assert!(
            !out.ok && out.content.contains("same file"),
            "{}",
            out.content
        );
        assert_eq!(
            crate::fsutil::read_to_string(dir.path().join("target.txt")).unwrap(),
            "t"
        );
        let out = run_seen(&args("target.txt", "deep", true), &ws);
        assert!(
            !out.ok && out.content.contains("is a directory"),
            "{}",
            out.content
        );
    }
}
