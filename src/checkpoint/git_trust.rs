//! Whether a repository's object store can hold a checkpoint, and whether
//! what it gives back is what was put in.
//!
//! `oc` writes the checkpoint's blobs outside the sandbox, and the model
//! can change everything in a `.git` inside the workspace: it could point
//! `.git` (a `gitdir:` file, a link, `commondir`) or `objects` (or one of
//! its fan-out folders) somewhere else, so that the next checkpoint writes
//! there; or rewrite a stored object, so that undo puts its bytes back. So
//! the object store is used only when it is a plain folder inside the work
//! tree's own `.git` folder, and every blob read back is hashed again.

use std::path::{Path, PathBuf};

use sha1::Digest as _;

/// Where a repository keeps its objects, as git reported it.
pub(super) struct Layout {
    /// The work tree's top (`git rev-parse --show-toplevel`).
    pub top: PathBuf,
    /// `git rev-parse --absolute-git-dir`.
    pub git_dir: PathBuf,
    /// `git rev-parse --git-common-dir`, made absolute.
    pub common_dir: PathBuf,
    /// `git rev-parse --git-path objects`, made absolute.
    pub objects: PathBuf,
}

/// Checks that the object store of `layout` is a plain folder `oc` may
/// write to: the top's `.git` is a real folder (not a link, nor a
/// `gitdir:` file), it is the git directory and the common directory,
/// `objects` is a real folder inside it, and none of the folders in
/// `objects` is a link.
///
/// Errors: a sentence saying which part is not plain (the checkpoint then
/// keeps copies under `OC_HOME` instead).
pub(super) fn check_plain(layout: &Layout) -> Result<(), String> {
    let dot_git = layout.top.join(".git");
    real_folder(&dot_git)?;
    let dot_git = canonical(&dot_git)?;
    if canonical(&layout.git_dir)? != dot_git || canonical(&layout.common_dir)? != dot_git {
        return Err(format!(
            "the git directory is not the work tree's own `{}`",
            dot_git.display()
        ));
    }
    let objects = dot_git.join("objects");
    if canonical(&layout.objects)? != objects {
        return Err("the object store is not the `.git/objects` folder".to_string());
    }
    real_folder(&objects)?;
    let entries = std::fs::read_dir(&objects)
        .map_err(|e| format!("cannot list `{}`: {e}", objects.display()))?;
    for entry in entries.flatten() {
        let kind = entry
            .file_type()
            .map_err(|e| format!("cannot read `{}`: {e}", entry.path().display()))?;
        if kind.is_symlink() {
            return Err(format!("`{}` is a link", entry.path().display()));
        }
    }
    Ok(())
}

/// Errors: `path` is missing, a link, or not a folder.
fn real_folder(path: &Path) -> Result<(), String> {
    let meta = path
        .symlink_metadata()
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(format!("`{}` is not a plain folder", path.display()));
    }
    Ok(())
}

fn canonical(path: &Path) -> Result<PathBuf, String> {
    path.canonicalize()
        .map_err(|e| format!("cannot resolve `{}`: {e}", path.display()))
}

/// Checks that `bytes` are the blob `id` names: git's object id (SHA-1,
/// or SHA-256 for a 64-digit id) of `blob <length>\0` and the bytes.
///
/// Errors: they are not (the stored object was changed after it was
/// written), or the id has neither length.
pub(super) fn verify_blob(id: &str, bytes: &[u8]) -> Result<(), String> {
    let header = format!("blob {}\0", bytes.len());
    let actual = match id.len() {
        40 => hex(&sha1::Sha1::new()
            .chain_update(header.as_bytes())
            .chain_update(bytes)
            .finalize()),
        64 => hex(&sha2::Sha256::new()
            .chain_update(header.as_bytes())
            .chain_update(bytes)
            .finalize()),
        _ => return Err(format!("`{id}` is not a git object id")),
    };
    if actual == id.to_ascii_lowercase() {
        Ok(())
    } else {
        Err(format!(
            "the stored content of blob {id} was changed after the checkpoint was taken \
             (it now hashes to {actual}); nothing is put back from it"
        ))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_is_checked_against_its_id() {
        // `printf 'hello\n' | git hash-object --stdin`
        let id = "ce013625030ba8dba906f756967f9e9ca394464a";
        assert_eq!(verify_blob(id, b"hello\n"), Ok(()));
        let err = verify_blob(id, b"EVIL\n").unwrap_err();
        assert!(err.contains("was changed after the checkpoint"), "{err}");
        assert!(verify_blob("abc", b"").is_err());
    }
}
