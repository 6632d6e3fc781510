//! The git index as a run found it: what it stages (`git ls-files --stage`)
//! and the index file's bytes, so that undo puts back what a `git add` or
//! `git mv` of the run staged. Read through the hardened git of `git.rs`;
//! written back only whole, through git's own lock file.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::git::{git, hash_stdin, plain_git_dir};
use super::git_trust::verify_blob;
use super::record::IndexChange;

/// The index when the checkpoint was taken.
pub(super) struct IndexAtStart {
    /// Where the index file is (absolute).
    path: PathBuf,
    /// The index file's bytes; `None`: there was none.
    bytes: Option<Vec<u8>>,
    /// See [`staged`].
    staged: String,
}

/// The path of the index file of the repository holding `root` (absolute).
///
/// Errors: git cannot say.
fn index_path(root: &Path) -> Result<PathBuf, String> {
    let out = git(
        root,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    )?;
    let path = String::from_utf8(out).map_err(|_| "the index's path is not UTF-8".to_string())?;
    Ok(PathBuf::from(path.trim_end_matches(['\n', '\r'])))
}

/// What the index stages, without the file times it caches: the SHA-256
/// (hex) of `git ls-files --stage -z` for the whole repository.
///
/// Errors: git cannot list the index.
fn staged(root: &Path) -> Result<String, String> {
    let listed = git(root, &["ls-files", "--stage", "-z", "--", ":/"])?;
    Ok(format!("{:x}", Sha256::digest(&listed)))
}

impl IndexAtStart {
    /// Reads the index of the repository holding `root`.
    ///
    /// Errors: git cannot list it, or the file cannot be read.
    pub(super) fn read(root: &Path) -> Result<IndexAtStart, String> {
        let path = index_path(root)?;
        let bytes = match crate::fsutil::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
        };
        Ok(IndexAtStart {
            path,
            bytes,
            staged: staged(root)?,
        })
    }

    /// What the run changed in the index: `None` when it stages what it
    /// did; else the old index file is kept as a blob in the object store.
    ///
    /// Errors: git cannot list the index or keep the blob.
    pub(super) fn finish(&self, root: &Path) -> Result<Option<IndexChange>, String> {
        // The same bytes stage the same (no git to run for it).
        if crate::fsutil::read(&self.path).ok() == self.bytes {
            return Ok(None);
        }
        let now = staged(root)?;
        if now == self.staged {
            return Ok(None);
        }
        let before = match &self.bytes {
            Some(bytes) => Some(hash_stdin(root, bytes, true)?),
            None => None,
        };
        Ok(Some(IndexChange {
            before,
            staged_before: self.staged.clone(),
            staged_after: now,
        }))
    }
}

/// What undoing the index does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IndexStep {
    /// Nothing: the run left the index alone, or it is as before again.
    Nothing,
    /// Put the index file back as the run found it.
    Restore,
    /// Left alone: the index stages something else since the run ended
    /// (`--force` puts it back anyway).
    Refused,
}

/// What undoing `change` in the repository holding `root` would do.
///
/// Errors: git cannot list the index, or the old index is no longer in the
/// object store.
pub(super) fn plan(root: &Path, change: &IndexChange, force: bool) -> Result<IndexStep, String> {
    let now = staged(root)?;
    if now == change.staged_before {
        return Ok(IndexStep::Nothing);
    }
    if now != change.staged_after && !force {
        return Ok(IndexStep::Refused);
    }
    if let Some(blob) = &change.before
        && git(root, &["cat-file", "-e", blob]).is_err()
    {
        return Err(
            "the old git index is no longer in the object store (pruned?); nothing was put back"
                .to_string(),
        );
    }
    Ok(IndexStep::Restore)
}

/// Puts the index file back as `change` recorded it (removed when there was
/// none), through git's lock file.
///
/// Errors: the blob cannot be read, or the index written (a git command
/// holds its lock).
pub(super) fn put_back(root: &Path, change: &IndexChange) -> Result<(), String> {
    let path = index_path(root)?;
    // `oc` writes here outside the sandbox: only in a plain `.git`, which
    // the run's commands may have turned into a link or a `gitdir:` file.
    let git_dir = plain_git_dir(root)?;
    if path.parent() != Some(git_dir.as_path()) {
        return Err(format!(
            "the git index `{}` is not in the repository's `.git`; it was not put back",
            path.display()
        ));
    }
    let Some(blob) = &change.before else {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(format!("cannot remove the git index: {e}"))
            }
            _ => Ok(()),
        };
    };
    let bytes = git(root, &["cat-file", "blob", blob])?;
    verify_blob(blob, &bytes)?;
    crate::fsutil::write_through_lock(&path, &bytes)
        .map_err(|e| format!("cannot put back the git index `{}`: {e}", path.display()))
}
