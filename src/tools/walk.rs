//! Walking the workspace for `list_files` and `search` with ripgrep's
//! `ignore` crate: `.gitignore`, `.ignore` and git excludes honoured (in a
//! git repository or not), `.git` skipped, symlinks not followed, and secret
//! `.env` files never listed (a hard rule, docs/permissions.md).

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use crate::secrets::is_secret_env_file;

/// The walker both tools share: hidden files included (`.github/` matters to
/// a coding agent), `.git/` skipped, ignore files honoured, links not followed.
pub(crate) fn builder(dir: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(dir);
    builder
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}

/// Whether a walked entry is a file a tool may look at (not a secret `.env`).
pub(crate) fn is_visible_file(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file()) && !is_secret_env_file(entry.path())
}

/// Every visible file under `dir`, sorted by path.
pub(crate) fn files_under(dir: &Path) -> Vec<PathBuf> {
    builder(dir)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build()
        .flatten()
        .filter(is_visible_file)
        .map(ignore::DirEntry::into_path)
        .collect()
}
