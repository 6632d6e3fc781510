//! A checkpoint store for a workspace outside git: a copy of each covered
//! file under `OC_HOME/checkpoints/objects/`, named by the SHA-256 of its
//! bytes (so a file kept by many runs is stored once). Files `.gitignore`
//! and `.ignore` leave out are not covered, nor files over
//! [`MAX_FILE_BYTES`], nor any past [`MAX_FILES`] or [`MAX_TOTAL_BYTES`].

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::record::{Blob, StoreKind};
use super::store::{Store, Taken};

/// Largest file a checkpoint copies, in bytes (1 MiB).
pub(super) const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Most files a checkpoint covers.
pub(super) const MAX_FILES: usize = 20_000;
/// Most bytes a checkpoint reads (256 MiB).
pub(super) const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;

/// Copies under a directory of `OC_HOME`.
pub(super) struct FileCopies {
    objects: PathBuf,
}

impl FileCopies {
    /// The store of the `oc` home `home`.
    pub(super) fn new(home: &Path) -> Self {
        FileCopies::at(home.join("checkpoints").join("objects"))
    }

    /// The store whose copies are in `objects`.
    pub(super) fn at(objects: PathBuf) -> Self {
        FileCopies { objects }
    }

    fn object_path(&self, id: &str) -> PathBuf {
        let (head, tail) = id.split_at(2.min(id.len()));
        self.objects.join(head).join(tail)
    }
}

impl Store for FileCopies {
    fn kind(&self) -> StoreKind {
        StoreKind::Files
    }

    fn location(&self) -> String {
        self.objects.display().to_string()
    }

    fn snapshot(&self, root: &Path, keep: bool) -> Result<Taken, String> {
        let mut taken = Taken {
            files: Default::default(),
            skipped: Vec::new(),
        };
        let mut total = 0;
        let mut written = false;
        let walk = ignore::WalkBuilder::new(root)
            .hidden(false)
            .require_git(false)
            .filter_entry(|entry| entry.file_name() != ".git")
            .build();
        for entry in walk {
            let entry = entry.map_err(|e| format!("cannot list the workspace: {e}"))?;
            let Some(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                continue;
            }
            let Some(rel) = relative(root, entry.path()) else {
                // A name that is not UTF-8 cannot be recorded in the session.
                taken
                    .skipped
                    .push(entry.path().to_string_lossy().into_owned());
                continue;
            };
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            let too_many = taken.files.len() >= MAX_FILES || total >= MAX_TOTAL_BYTES;
            if keep && (meta.len() > MAX_FILE_BYTES || too_many) {
                taken.skipped.push(rel);
                continue;
            }
            total += meta.len();
            let Some(blob) = self.blob_of(root, &rel)? else {
                continue;
            };
            let object = self.object_path(&blob.id);
            if keep && !object.exists() {
                let bytes = content(&root.join(&rel), blob.symlink)?;
                crate::fsutil::write_atomic_unsynced(&object, &bytes, 0o600)
                    .map_err(|e| format!("cannot keep a copy in `{}`: {e}", object.display()))?;
                written = true;
            }
            taken.files.insert(rel, blob);
        }
        // One flush for all the copies: a copy must be on disk before the
        // run changes the file it keeps.
        if written {
            crate::fsutil::sync_filesystem(&self.objects)
                .map_err(|e| format!("cannot flush the copies to disk: {e}"))?;
        }
        Ok(taken)
    }

    fn blob_of(&self, root: &Path, rel: &str) -> Result<Option<Blob>, String> {
        let path = root.join(rel);
        let Ok(meta) = path.symlink_metadata() else {
            return Ok(None);
        };
        let symlink = meta.file_type().is_symlink();
        if !symlink && !meta.is_file() {
            return Ok(None);
        }
        let bytes = content(&path, symlink)?;
        Ok(Some(Blob {
            id: format!("{:x}", Sha256::digest(&bytes)),
            mode: if symlink {
                0
            } else {
                meta.permissions().mode() & 0o7777
            },
            symlink,
        }))
    }

    fn has(&self, _root: &Path, blob: &Blob) -> bool {
        self.object_path(&blob.id).is_file()
    }

    fn read(&self, _root: &Path, _rel: &str, blob: &Blob) -> Result<Vec<u8>, String> {
        let object = self.object_path(&blob.id);
        std::fs::read(&object)
            .map_err(|e| format!("the copy `{}` cannot be read: {e}", object.display()))
    }
}

/// A file's bytes, or a link's target.
fn content(path: &Path, symlink: bool) -> Result<Vec<u8>, String> {
    let read = if symlink {
        std::fs::read_link(path).map(|target| target.as_os_str().as_encoded_bytes().to_vec())
    } else {
        std::fs::read(path)
    };
    read.map_err(|e| format!("cannot read `{}`: {e}", path.display()))
}

/// `path` relative to `root`, `/`-separated; `None` for a name that is not
/// UTF-8.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}
