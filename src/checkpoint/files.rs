//! A checkpoint store for a workspace outside git: a copy of each covered
//! file under `OC_HOME/checkpoints/objects/`, named by the SHA-256 of its
//! bytes (so a file kept by many runs is stored once). Files `.gitignore`
//! and `.ignore` leave out are not covered, nor files over
//! [`MAX_FILE_BYTES`], nor any past [`MAX_FILES`] or [`MAX_TOTAL_BYTES`].

use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::record::{Blob, Snapshot, StoreKind};
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

    /// Keeps a copy of the file at `rel` (whose blob is `blob`) unless one
    /// is kept already; whether one was written (not yet flushed to disk).
    ///
    /// Errors: the file cannot be read, or the copy written.
    fn keep_copy(&self, root: &Path, rel: &str, blob: &Blob) -> Result<bool, String> {
        let object = self.object_path(&blob.id);
        if object.exists() {
            return Ok(false);
        }
        let bytes = content(&root.join(rel), blob.symlink)?;
        crate::fsutil::write_atomic_unsynced(&object, &bytes, 0o600)
            .map_err(|e| format!("cannot keep a copy in `{}`: {e}", object.display()))?;
        Ok(true)
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
            if keep {
                written |= self.keep_copy(root, &rel, &blob)?;
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

    fn ignored(&self, root: &Path, covered: &Taken) -> Result<Vec<String>, String> {
        let files: HashSet<&str> = (covered.files.keys())
            .chain(&covered.skipped)
            .map(String::as_str)
            .collect();
        // The folders the walker went into: every one above a covered file.
        let mut folders: HashSet<PathBuf> = HashSet::new();
        for file in &files {
            let mut dir = Path::new(file).parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                if !folders.insert(d.to_path_buf()) {
                    break;
                }
                dir = d.parent();
            }
        }
        let mut entries = Vec::new();
        unwalked(root, "", &files, &folders, &mut entries);
        Ok(entries)
    }

    fn blobs(&self, root: &Path, paths: &[String], keep: bool) -> Result<Snapshot, String> {
        let mut files = Snapshot::new();
        let mut written = false;
        for rel in paths {
            let Some(blob) = self.blob_of(root, rel)? else {
                continue;
            };
            if keep {
                written |= self.keep_copy(root, rel, &blob)?;
            }
            files.insert(rel.clone(), blob);
        }
        if written {
            crate::fsutil::sync_filesystem(&self.objects)
                .map_err(|e| format!("cannot flush the copies to disk: {e}"))?;
        }
        Ok(files)
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
        crate::fsutil::read(&object)
            .map_err(|e| format!("the copy `{}` cannot be read: {e}", object.display()))
    }
}

/// Adds to `entries` what the walker left out below the folder `dir`
/// (relative to `root`, empty or ending in `/`): files not in `files`, and
/// folders not in `folders` (each as one entry ending in `/`, not entered).
/// Links are not followed; `.git` is left out; so are names that are not
/// UTF-8 (a session cannot record them).
fn unwalked(
    root: &Path,
    dir: &str,
    files: &HashSet<&str>,
    folders: &HashSet<PathBuf>,
    entries: &mut Vec<String>,
) {
    let Ok(listing) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in listing.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let rel = format!("{dir}{name}");
        if !kind.is_dir() {
            if !files.contains(rel.as_str()) {
                entries.push(rel);
            }
            continue;
        }
        if name == ".git" {
            continue;
        }
        if folders.contains(Path::new(&rel)) {
            unwalked(root, &format!("{rel}/"), files, folders, entries);
        } else {
            entries.push(format!("{rel}/"));
        }
    }
}

/// A file's bytes, or a link's target.
fn content(path: &Path, symlink: bool) -> Result<Vec<u8>, String> {
    let read = if symlink {
        std::fs::read_link(path).map(|target| target.as_os_str().as_encoded_bytes().to_vec())
    } else {
        crate::fsutil::read(path)
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
