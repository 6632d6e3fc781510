//! How the workspace's files link to each other and to names: which files
//! a path or a code name resolves to, which modules a test imports, which
//! tests import a module.

use std::path::Path;

use regex::Regex;

use crate::agent::file_kind::{is_doc, is_source_name, is_test};
use crate::tools::walk;

/// Files read at most when looking for code names.
pub(crate) const MAX_SCANNED_FILES: usize = 400;

/// Largest file scanned or shown, in bytes.
pub(crate) const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Tests shown with one file that may change.
pub(crate) const MAX_TESTS_PER_FILE: usize = 2;

/// The workspace's files at most [`MAX_FILE_BYTES`] long, relative to
/// `root` and `/`-separated.
pub(crate) fn workspace_files(root: &Path) -> Vec<String> {
    walk::files_under(root)
        .into_iter()
        .filter(|p| p.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .filter_map(|p| {
            p.strip_prefix(root)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .collect()
}

/// Whether the file `path` defines `name` (a function, class, type or
/// variable of that name).
pub(crate) fn defines(name: &str, root: &Path, path: &str) -> bool {
    let Ok(text) = crate::fsutil::read_to_string(root.join(path)) else {
        return false;
    };
    match crate::tools::outline::definitions(path, &text) {
        Some(defs) => defs.iter().any(|d| d.name == name),
        None => text.contains(name),
    }
}

/// The workspace file a path in piped text names: as [`resolve_named`],
/// also without a diff header's `a/` or `b/`.
pub(crate) fn resolve_piped(token: &str, files: &[String]) -> Option<String> {
    let bare = token
        .strip_prefix("a/")
        .or_else(|| token.strip_prefix("b/"));
    bare.and_then(|t| resolve_named(t, files))
        .or_else(|| resolve_named(token, files))
}

/// The workspace file `token` names: the exact path, or the one file whose
/// path ends with `/token`.
pub(crate) fn resolve_named(token: &str, files: &[String]) -> Option<String> {
    if files.iter().any(|f| f == token) {
        return Some(token.to_string());
    }
    let suffix = format!("/{token}");
    let mut tails = files.iter().filter(|f| f.ends_with(&suffix));
    match (tails.next(), tails.next()) {
        (Some(one), None) => Some(one.clone()),
        _ => None,
    }
}

/// Source files that hold `name` as a whole word outside comment lines
/// (binary files, with a NUL byte, are none).
pub(crate) fn files_mentioning(name: &str, root: &Path, files: &[String]) -> Vec<String> {
    let Ok(re) = Regex::new(&format!(r"\b{}\b", regex::escape(name))) else {
        return Vec::new();
    };
    files
        .iter()
        .filter(|f| is_source_name(f))
        .take(MAX_SCANNED_FILES)
        .filter(|f| {
            read_source(root, f).is_some_and(|text| {
                text.lines()
                    .any(|line| re.is_match(line) && !is_comment(line))
            })
        })
        .cloned()
        .collect()
}

/// The text of the workspace file `path`, unless it cannot be read or is
/// binary (holds a NUL byte).
pub(crate) fn read_source(root: &Path, path: &str) -> Option<String> {
    crate::fsutil::read_to_string(root.join(path))
        .ok()
        .filter(|text| !text.contains('\0'))
}

/// Whether `line` is a comment line (`#`, `//`, `/*`, `*`, `--`).
pub(crate) fn is_comment(line: &str) -> bool {
    let code = line.trim_start();
    ["#", "//", "/*", "*", "--"]
        .iter()
        .any(|m| code.starts_with(m))
}

/// Files of the workspace whose module name a test file uses as a word
/// (`from inventory import …`, `require("./src/sum")`).
pub(crate) fn imported_by(test: &str, root: &Path, files: &[String]) -> Vec<String> {
    let Ok(text) = crate::fsutil::read_to_string(root.join(test)) else {
        return Vec::new();
    };
    files
        .iter()
        .filter(|f| f.as_str() != test && is_source_name(f) && !is_test(f) && !is_doc(f))
        .filter(|f| {
            Path::new(f.as_str())
                .file_stem()
                .map(|s| s.to_string_lossy())
                .filter(|stem| stem.len() >= 2 && stem != "__init__" && stem != "mod")
                .and_then(|stem| Regex::new(&format!(r"\b{}\b", regex::escape(&stem))).ok())
                .is_some_and(|re| re.is_match(&text))
        })
        .cloned()
        .collect()
}

/// Test files that import `path`'s module (at most [`MAX_TESTS_PER_FILE`]).
pub(crate) fn tests_of(path: &str, root: &Path, files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter(|f| is_test(f) && is_source_name(f))
        .take(MAX_SCANNED_FILES)
        .filter(|test| imported_by(test, root, files).iter().any(|p| p == path))
        .take(MAX_TESTS_PER_FILE)
        .cloned()
        .collect()
}
