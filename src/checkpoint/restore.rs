//! Putting a run's changes back: each file it changed gets its old content,
//! each file it created is removed, and a file changed since the run ended
//! is left alone unless forced.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::index::{self, IndexStep};
use super::record::{Blob, Change, CheckpointRecord};
use super::stores::store_of;

/// What undoing one changed file does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Write the file's old content back.
    Restore(String),
    /// Remove a file the run created.
    Remove(String),
    /// Nothing: the file is already as it was before the run.
    Unchanged(String),
    /// Left alone: the file changed after the run ended (`--force` puts it
    /// back anyway).
    Refused(String),
    /// Left alone even with `--force`: a folder on its path is now a link
    /// (or a file), so putting it back could write outside the workspace.
    Blocked(String),
}

/// The steps of an undo, in path order, and what it does to the git index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UndoPlan {
    pub steps: Vec<Step>,
    pub index: IndexStep,
}

impl UndoPlan {
    /// Files the undo writes back or removes.
    pub(crate) fn put_back(&self) -> Vec<String> {
        (self.steps.iter())
            .filter_map(|step| match step {
                Step::Restore(path) | Step::Remove(path) => Some(path.clone()),
                Step::Unchanged(_) | Step::Refused(_) | Step::Blocked(_) => None,
            })
            .collect()
    }

    /// Files the undo leaves alone because they changed since the run.
    pub(crate) fn refused(&self) -> Vec<&str> {
        (self.steps.iter())
            .filter_map(|s| match s {
                Step::Refused(path) => Some(path.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Files the undo leaves alone because a folder on their path is now a
    /// link or a file.
    pub(crate) fn blocked(&self) -> Vec<&str> {
        (self.steps.iter())
            .filter_map(|s| match s {
                Step::Blocked(path) => Some(path.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// What undoing `record` in the workspace `root` would do. With `force`,
/// files changed since the run are put back too; never a file whose path
/// goes through a link or a file the run did not make.
///
/// Errors: the store cannot say what a file holds now, or no longer holds
/// an old content (nothing is put back then).
pub(crate) fn plan(
    record: &CheckpointRecord,
    root: &Path,
    force: bool,
) -> Result<UndoPlan, String> {
    let store = store_of(record);
    // A link or file the run made where a folder was is removed first.
    let created: Vec<&str> = (record.changes.iter())
        .filter(|c| c.before.is_none())
        .map(|c| c.path.as_str())
        .collect();
    let mut steps = Vec::new();
    for change in &record.changes {
        let path = change.path.clone();
        let blocker = blocking_ancestor(root, &path);
        if blocker
            .as_ref()
            .is_some_and(|b| !created.contains(&b.as_str()))
        {
            steps.push(Step::Blocked(path));
            continue;
        }
        let now = match blocker {
            Some(_) => None,
            None => store.blob_of(root, &path)?,
        };
        let step = if now == change.before {
            Step::Unchanged(path)
        } else if now != change.after && !force {
            Step::Refused(path)
        } else if let Some(before) = &change.before {
            if !store.has(root, before) {
                return Err(format!(
                    "the old content of {path} is no longer in the store at `{}` (pruned?); nothing was put back",
                    record.location
                ));
            }
            Step::Restore(path)
        } else {
            Step::Remove(path)
        };
        steps.push(step);
    }
    let index = match &record.index {
        Some(change) => index::plan(root, change, force)?,
        None => IndexStep::Nothing,
    };
    Ok(UndoPlan { steps, index })
}

/// Carries out `plan`: first removes the files the run created (deepest
/// first, then the folders that leaves empty), then writes old contents
/// back (atomically, with their permission bits; links as links), then the
/// git index when the plan says so.
///
/// Errors: the first file that cannot be read from the store or written;
/// the files before it are already back.
pub(crate) fn undo(record: &CheckpointRecord, root: &Path, plan: &UndoPlan) -> Result<(), String> {
    let store = store_of(record);
    let mut removals: Vec<&String> = (plan.steps.iter())
        .filter_map(|s| match s {
            Step::Remove(path) => Some(path),
            _ => None,
        })
        .collect();
    removals.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
    for path in removals {
        let file = root.join(path);
        if blocking_ancestor(root, path).is_some() {
            return Err(format!(
                "cannot remove {path}: a folder on its path is a link"
            ));
        }
        std::fs::remove_file(&file).map_err(|e| format!("cannot remove {path}: {e}"))?;
        remove_empty_parents(root, &file);
    }
    for step in &plan.steps {
        let Step::Restore(path) = step else {
            continue;
        };
        let Some(Change {
            before: Some(blob), ..
        }) = record.changes.iter().find(|c| &c.path == path)
        else {
            continue;
        };
        if blocking_ancestor(root, path).is_some() {
            return Err(format!(
                "cannot put back {path}: a folder on its path is a link"
            ));
        }
        let bytes = store.read(root, path, blob)?;
        put_back(&root.join(path), &bytes, blob)
            .map_err(|e| format!("cannot put back {path}: {e}"))?;
    }
    match (&record.index, plan.index) {
        (Some(change), IndexStep::Restore) => index::put_back(root, change),
        _ => Ok(()),
    }
}

/// Puts a run's changes back in after they were undone: each file it
/// changed or made gets the content it had when the run ended, each file
/// it removed goes again (`--attempts` keeping a try that came closer than
/// the last). The record must come from [`super::Checkpoint::finish_kept`],
/// which keeps those contents; the git index is left as it is.
///
/// Errors: a content the store no longer holds, a path through a link, a
/// file that cannot be written or removed; the files before it are done.
pub(crate) fn redo(record: &CheckpointRecord, root: &Path) -> Result<(), String> {
    let store = store_of(record);
    for change in &record.changes {
        let path = &change.path;
        if blocking_ancestor(root, path).is_some() {
            return Err(format!(
                "cannot write {path}: a folder on its path is a link"
            ));
        }
        let file = root.join(path);
        match &change.after {
            Some(blob) => {
                let bytes = store.read(root, path, blob)?;
                put_back(&file, &bytes, blob).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            None => match std::fs::remove_file(&file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(format!("cannot remove {path}: {e}"));
                }
                _ => remove_empty_parents(root, &file),
            },
        }
    }
    Ok(())
}

/// The first folder on the path `rel` (below `root`) that is now a link or
/// not a folder: writing there could leave the workspace.
pub(super) fn blocking_ancestor(root: &Path, rel: &str) -> Option<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut dir = root.to_path_buf();
    for (n, part) in parts.iter().enumerate().take(parts.len().saturating_sub(1)) {
        dir.push(part);
        match dir.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Some(parts[..=n].join("/")),
            Err(_) => return None,
        }
    }
    None
}

/// Writes `bytes` at `path` as `blob` was: a link, or a file with its
/// permission bits.
fn put_back(path: &Path, bytes: &[u8], blob: &Blob) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let is_link = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    if blob.symlink || is_link {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    if blob.symlink {
        use std::os::unix::ffi::OsStrExt;
        return std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(bytes), path);
    }
    crate::fsutil::write_atomic(path, bytes, 0o600)?;
    if blob.mode != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(blob.mode))?;
    }
    Ok(())
}

/// Removes the directories above `file`, up to `root`, that are now empty.
fn remove_empty_parents(root: &Path, file: &Path) {
    let mut dir = file.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}
