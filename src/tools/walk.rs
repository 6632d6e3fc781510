//! Walking the workspace for `list_files` and `search` with ripgrep's
//! `ignore` crate: `.gitignore`, `.ignore` and git excludes honoured (in a
//! git repository or not), `.git` skipped, symlinks not followed, and secret
//! `.env` files never listed (a hard rule, SPEC §7).

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use crate::permissions::hard_rules::is_secret_env_file;

/// Every file under `dir`, sorted by path. Hidden files are included
/// (`.github/` matters to a coding agent); `.git/` and secret `.env` files are not.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let walker = WalkBuilder::new(dir)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    for entry in walker.flatten() {
        let is_file = entry.file_type().is_some_and(|t| t.is_file());
        if is_file && !is_secret_env_file(entry.path()) {
            files.push(entry.into_path());
        }
    }
    files
}
