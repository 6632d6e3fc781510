//! Putting a run's changes back: each file it changed gets its old content,
//! each file it created is removed, and a file changed since the run ended
//! is left alone unless forced.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::record::{Blob, Change, CheckpointRecord};
use super::stores::store_of;

/// What undoing one changed file does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Write the file's old content back.
    Restore(String),
    /// Remove a file the run created.
    Remove(String),
    /// Nothing: the file is already as it was before the run.
    Unchanged(String),
    /// Left alone: the file changed after the run ended (`--force` puts it
    /// back anyway).
    Refused(String),
}

/// The steps of an undo, in path order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UndoPlan {
    pub steps: Vec<Step>,
}

impl UndoPlan {
    /// Files the undo leaves alone because they changed since the run.
    pub fn refused(&self) -> Vec<&str> {
        (self.steps.iter())
            .filter_map(|s| match s {
                Step::Refused(path) => Some(path.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// What undoing `record` in the workspace `root` would do. With `force`,
/// files changed since the run are put back too.
///
/// Errors: the store cannot say what a file holds now.
pub fn plan(record: &CheckpointRecord, root: &Path, force: bool) -> Result<UndoPlan, String> {
    let store = store_of(record);
    let mut steps = Vec::new();
    for change in &record.changes {
        let now = store.blob_of(root, &change.path)?;
        let path = change.path.clone();
        let step = if same(&now, &change.before) {
            Step::Unchanged(path)
        } else if !same(&now, &change.after) && !force {
            Step::Refused(path)
        } else if change.before.is_some() {
            Step::Restore(path)
        } else {
            Step::Remove(path)
        };
        steps.push(step);
    }
    Ok(UndoPlan { steps })
}

/// Carries out `plan`: writes old contents back (atomically, with their
/// executable bit; links as links) and removes created files, then their
/// directories left empty.
///
/// Errors: the first file that cannot be read from the store or written;
/// the files before it are already back.
pub fn undo(record: &CheckpointRecord, root: &Path, plan: &UndoPlan) -> Result<(), String> {
    let store = store_of(record);
    for step in &plan.steps {
        match step {
            Step::Restore(path) => {
                let Some(Change {
                    before: Some(blob), ..
                }) = record.changes.iter().find(|c| &c.path == path)
                else {
                    continue;
                };
                let bytes = store.read(root, path, blob)?;
                put_back(&root.join(path), &bytes, blob)
                    .map_err(|e| format!("cannot put back {path}: {e}"))?;
            }
            Step::Remove(path) => {
                let file = root.join(path);
                std::fs::remove_file(&file).map_err(|e| format!("cannot remove {path}: {e}"))?;
                remove_empty_parents(root, &file);
            }
            Step::Unchanged(_) | Step::Refused(_) => {}
        }
    }
    Ok(())
}

/// Whether a file's current blob is `expected` (both absent counts).
fn same(now: &Option<Blob>, expected: &Option<Blob>) -> bool {
    match (now, expected) {
        (None, None) => true,
        (Some(a), Some(b)) => a.id == b.id && a.symlink == b.symlink,
        _ => false,
    }
}

/// Writes `bytes` at `path` as `blob` was: a link, or a file with its
/// executable bit.
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
    let mode = if blob.executable { 0o777 } else { 0o666 };
    crate::fsutil::write_atomic(path, bytes, mode)?;
    let mut permissions = std::fs::metadata(path)?.permissions();
    let executable = permissions.mode() & 0o111 != 0;
    if executable != blob.executable {
        let bits = if blob.executable {
            permissions.mode() | 0o111
        } else {
            permissions.mode() & !0o111
        };
        permissions.set_mode(bits);
        std::fs::set_permissions(path, permissions)?;
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
