//! Checkpoints: the workspace as a run found it, kept so that `oc undo` (or
//! `oc run --on-fail revert`) can put back what the run changed, whether a
//! tool or a bash command changed it. Nothing touches the user's branches,
//! index or stash: in a git repository the file contents go to the
//! repository's object store ([`git::GitObjects`]); elsewhere copies go
//! under `OC_HOME/checkpoints/` ([`files::FileCopies`]). Ignored files are
//! never covered, nor, outside git, files over [`files::MAX_FILE_BYTES`]
//! when the run starts.
//! What is covered is documented in docs/sessions.md "Undo".

mod files;
mod git;
mod git_trust;
mod record;
mod restore;
mod store;
mod stores;

use std::path::{Path, PathBuf};

pub(crate) use record::{Change, CheckpointRecord, Snapshot};
pub(crate) use restore::{Step, plan, undo};
use store::Store;
use stores::store_for;

/// The workspace as a run found it.
pub(crate) struct Checkpoint {
    store: Box<dyn Store>,
    root: PathBuf,
    start: Snapshot,
    skipped: Vec<String>,
    /// When the checkpoint was taken, by the clock file times are stamped
    /// with (coarser than the system clock, so a file made just after
    /// `SystemTime::now()` may carry an earlier time).
    taken_at: std::time::SystemTime,
}

/// The time the kernel stamps on a file made now: the birth (or
/// modification) time of a new temporary file.
///
/// Errors: no temporary file can be made.
fn file_clock_now() -> Result<std::time::SystemTime, String> {
    let marker =
        tempfile::NamedTempFile::new().map_err(|e| format!("cannot make a temporary file: {e}"))?;
    let meta = marker
        .as_file()
        .metadata()
        .map_err(|e| format!("cannot read a temporary file: {e}"))?;
    meta.created()
        .or_else(|_| meta.modified())
        .map_err(|e| format!("cannot read a file time: {e}"))
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("store", &self.store.kind())
            .field("root", &self.root)
            .field("files", &self.start.len())
            .finish()
    }
}

impl Checkpoint {
    /// Checkpoints the workspace at `root` before a run changes anything.
    ///
    /// Errors: a sentence saying why the workspace could not be read or
    /// the contents not stored (the run goes on without undo).
    pub(crate) fn take(root: &Path, home: &Path) -> Result<Checkpoint, String> {
        let store = store_for(root, home);
        let taken_at = file_clock_now()?;
        let taken = store.snapshot(root, true)?;
        Ok(Checkpoint {
            store,
            root: root.to_path_buf(),
            start: taken.files,
            skipped: taken.skipped,
            taken_at,
        })
    }

    /// Whether the file at `path` was made before the checkpoint (its birth
    /// time, or its modification time where there is none; a rename keeps
    /// both).
    fn existed_before(&self, path: &str) -> bool {
        let Ok(meta) = self.root.join(path).symlink_metadata() else {
            return false;
        };
        let made = meta.created().or_else(|_| meta.modified());
        made.is_ok_and(|made| made <= self.taken_at)
    }

    /// Compares the workspace now with the checkpoint: the record of what
    /// the run changed.
    ///
    /// Errors: as [`Checkpoint::take`].
    pub(crate) fn finish(&self) -> Result<CheckpointRecord, String> {
        let end = self.store.snapshot(&self.root, false)?;
        let mut changes = Vec::new();
        let mut not_covered = self.skipped.clone();
        for (path, before) in &self.start {
            match end.files.get(path) {
                Some(after) if after == before => {}
                after => changes.push(Change {
                    path: path.clone(),
                    before: Some(before.clone()),
                    after: after.cloned(),
                }),
            }
        }
        for (path, after) in &end.files {
            if self.start.contains_key(path) || self.skipped.contains(path) {
                continue;
            }
            // Not in the checkpoint but older than it: a file that was
            // ignored, or renamed from one, not one the run made.
            if self.existed_before(path) {
                not_covered.push(path.clone());
                continue;
            }
            changes.push(Change {
                path: path.clone(),
                before: None,
                after: Some(after.clone()),
            });
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(CheckpointRecord {
            store: self.store.kind(),
            location: self.store.location(),
            changes,
            not_covered,
            undone_at: None,
        })
    }
}

#[cfg(test)]
mod tests;
