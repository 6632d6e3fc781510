//! Ignored files as a checkpoint finds them: which exist (names, sizes and
//! times), and which of them are small enough to keep, within a budget.
//! Ignored folders can be huge (`node_modules/`, `target/`): the store lists
//! each as one entry, and the files walked inside them are capped; a folder
//! past the cap is recorded as present, its files neither listed nor kept.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Most files walked inside ignored folders, all folders together.
pub(super) const MAX_WALKED: usize = 10_000;
/// Most files walked inside one ignored folder: a bigger one is recorded as
/// present, not walked further.
pub(super) const MAX_FOLDER_FILES: usize = 1_000;
/// Largest ignored file whose content is kept, in bytes (256 KiB).
pub(super) const MAX_KEPT_FILE_BYTES: u64 = 256 * 1024;
/// Most ignored files whose content is kept.
pub(super) const MAX_KEPT_FILES: usize = 2_000;
/// Most bytes of ignored files kept, all together (8 MiB).
pub(super) const MAX_KEPT_BYTES: u64 = 8 * 1024 * 1024;
/// Largest secret file (`.env` and its kin) kept whatever the budget, in
/// bytes (1 MiB).
pub(super) const MAX_SECRET_BYTES: u64 = 1024 * 1024;

/// What a file looked like: enough to tell that it changed or went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    len: u64,
    /// Modification time, in nanoseconds since the epoch.
    modified: i128,
    /// Change time (set by the kernel on any write, rename or chmod; no
    /// program can set it back), in nanoseconds since the epoch.
    changed: i128,
}

impl Stamp {
    /// The stamp of the file (or link) at `path`; `None` when there is
    /// none, or it is a folder.
    pub(super) fn of(path: &Path) -> Option<Stamp> {
        let meta = path.symlink_metadata().ok()?;
        (!meta.is_dir()).then(|| Stamp {
            len: meta.len(),
            modified: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            changed: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        })
    }
}

/// The ignored paths of a workspace when the checkpoint was taken.
#[derive(Debug, Default)]
pub(super) struct Ignored {
    /// Files whose content the checkpoint keeps (within the budget, or a
    /// secret file), `/`-separated paths relative to the root.
    pub keep: Vec<String>,
    /// Files present whose content is not kept, with their stamps.
    pub seen: BTreeMap<String, Stamp>,
    /// Folders past [`MAX_FOLDER_FILES`] or [`MAX_WALKED`]: present, their files not listed. Each
    /// ends in `/`.
    pub folders: BTreeSet<String>,
}

impl Ignored {
    /// Whether `path` was present when the checkpoint was taken without its
    /// content kept: `Some(None)` for a file seen (whether it changed is
    /// [`Ignored::lost`]'s to say), `Some(folder)` for one inside a folder
    /// past the cap (whether it changed is not known).
    pub(super) fn present_not_kept(&self, path: &str) -> Option<Option<String>> {
        if self.seen.contains_key(path) {
            return Some(None);
        }
        folder_of(&self.folders, path).map(|folder| Some(folder.to_string()))
    }

    /// The ignored files not kept that changed or went since the checkpoint,
    /// and the folders past the cap that went: what undo cannot put back.
    pub(super) fn lost(&self, root: &Path) -> Vec<String> {
        let files = (self.seen.iter())
            .filter(|(path, stamp)| Stamp::of(&root.join(path)) != Some(**stamp))
            .map(|(path, _)| path.clone());
        let folders = (self.folders.iter())
            .filter(|folder| {
                !root
                    .join(folder)
                    .symlink_metadata()
                    .is_ok_and(|m| m.is_dir())
            })
            .cloned();
        files.chain(folders).collect()
    }
}

/// Surveys the ignored `entries` under `root` (files, and folders ending in
/// `/`, as `git ls-files --others --ignored --directory` lists them): the
/// folders are walked (links not followed), each up to
/// [`MAX_FOLDER_FILES`] files and all up to [`MAX_WALKED`], and the files split into kept and seen by the budget. Secret files
/// come first, then the files in the order listed.
pub(super) fn survey(root: &Path, entries: &[String]) -> Ignored {
    let mut ignored = Ignored::default();
    let folders: BTreeSet<String> = (entries.iter())
        .filter(|e| e.ends_with('/'))
        .cloned()
        .collect();
    // git lists a folder whose files are all ignored, and its files too.
    let mut files: Vec<(String, u64)> = (entries.iter())
        .filter(|e| !e.ends_with('/') && folder_of(&folders, e).is_none())
        .filter_map(|e| file_size(root, e).map(|size| (e.clone(), size)))
        .collect();
    let mut walked = 0;
    for folder in &folders {
        let mut found = Vec::new();
        let cap = MAX_FOLDER_FILES.min(MAX_WALKED - walked);
        let whole = walk(root, folder, &mut found, cap);
        walked += found.len();
        if whole {
            files.extend(found);
        } else {
            ignored.folders.insert(folder.clone());
        }
    }
    let secret = |path: &str| crate::secrets::files::is_secret_env_file(Path::new(path));
    let mut total = 0;
    let (secrets, others): (Vec<_>, Vec<_>) = files.into_iter().partition(|(p, _)| secret(p));
    for (path, size) in secrets.into_iter().chain(others) {
        let fits = if secret(&path) {
            size <= MAX_SECRET_BYTES
        } else {
            size <= MAX_KEPT_FILE_BYTES
                && total + size <= MAX_KEPT_BYTES
                && ignored.keep.len() < MAX_KEPT_FILES
        };
        if fits {
            total += size;
            ignored.keep.push(path);
        } else if let Some(stamp) = Stamp::of(&root.join(&path)) {
            ignored.seen.insert(path, stamp);
        }
    }
    ignored
}

/// The folder of `folders` (each ending in `/`, none inside another, as git
/// lists them) that holds `path`, found by order rather than by trying each.
fn folder_of<'a>(folders: &'a BTreeSet<String>, path: &str) -> Option<&'a str> {
    let below = (std::ops::Bound::Unbounded, std::ops::Bound::Included(path));
    let before = folders.range::<str, _>(below).next_back()?;
    path.starts_with(before.as_str()).then_some(before.as_str())
}

/// The size of the file or link at `rel`; `None` for a folder or nothing.
fn file_size(root: &Path, rel: &str) -> Option<u64> {
    let meta = root.join(rel).symlink_metadata().ok()?;
    (!meta.is_dir()).then_some(meta.len())
}

/// Adds the files (and links) below the folder `rel` (ending in `/`) to
/// `found`, with their sizes (names that are not UTF-8 left out: a session
/// cannot record them). Returns false when there are more than `cap`
/// (`found` is then partial).
fn walk(root: &Path, rel: &str, found: &mut Vec<(String, u64)>, cap: usize) -> bool {
    let mut stack = vec![rel.to_string()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = format!("{dir}{name}");
            if kind.is_dir() {
                stack.push(format!("{path}/"));
                continue;
            }
            if found.len() >= cap {
                return false;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            found.push((path, size));
        }
    }
    true
}
