//! Where a file the run made may have come from. A path absent at the
//! start is one the run made, but its content may be a file the checkpoint
//! saw without keeping (a big or ignored file renamed): undo must not
//! remove the only copy. A rename keeps the inode, so the inodes of the
//! files present at the start tell; a move out of an ignored folder past
//! the walk's cap (whose files were not listed) keeps the birth time too.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::SystemTime;

/// The inodes of the files present when the checkpoint was taken.
pub(super) struct Origins {
    /// `(device, inode)` → whether that file's content is kept.
    inodes: HashMap<(u64, u64), bool>,
    /// When the checkpoint was taken, by the clock file times are stamped
    /// with; only when some ignored folder was not walked.
    taken_at: Option<SystemTime>,
}

impl Origins {
    /// The inodes of `kept` and `not_kept` (paths under `root`); with
    /// `unwalked` (folders whose files were not listed), the file clock
    /// too.
    ///
    /// Errors: no temporary file can be made to read the file clock.
    pub(super) fn take<'a>(
        root: &Path,
        kept: impl Iterator<Item = &'a String>,
        not_kept: impl Iterator<Item = &'a String>,
        unwalked: bool,
    ) -> Result<Origins, String> {
        let mut inodes = HashMap::new();
        let marked = kept.map(|p| (p, true)).chain(not_kept.map(|p| (p, false)));
        for (path, is_kept) in marked {
            if let Ok(meta) = root.join(path).symlink_metadata() {
                // A hard link to a kept file is kept.
                *inodes.entry((meta.dev(), meta.ino())).or_insert(is_kept) |= is_kept;
            }
        }
        let taken_at = match unwalked {
            true => Some(file_clock_now()?),
            false => None,
        };
        Ok(Origins { inodes, taken_at })
    }

    /// Whether the file at `rel` (absent at the start) may hold content the
    /// checkpoint did not keep: it is a file present but not kept, renamed
    /// (or linked); or, not being a kept one renamed, it is older than the
    /// checkpoint while some ignored folder was not walked.
    pub(super) fn may_hold_unkept(&self, root: &Path, rel: &str) -> bool {
        let Ok(meta) = root.join(rel).symlink_metadata() else {
            return false;
        };
        match self.inodes.get(&(meta.dev(), meta.ino())) {
            Some(kept) => !kept,
            None => self.taken_at.is_some_and(|taken_at| {
                let made = meta.created().or_else(|_| meta.modified());
                made.is_ok_and(|made| made <= taken_at)
            }),
        }
    }
}

/// The time the kernel stamps on a file made now: the birth (or
/// modification) time of a new temporary file (coarser than the system
/// clock, so a file made just after `SystemTime::now()` may carry an
/// earlier time).
///
/// Errors: no temporary file can be made.
fn file_clock_now() -> Result<SystemTime, String> {
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
