//! Grounding the first turn: which files of the workspace the task is about,
//! found before the model says a word, so that it starts from the actual
//! code instead of guessing it. Small models that are shown the file edit
//! it; small models that must ask for it rarely do.
//!
//! The files come from the prompt: paths it names (exactly, or by a unique
//! tail such as `ci.yml`), code names it mentions (`get_usr`, `Rectangle`),
//! the tests that import a file that may change, the modules a named test
//! imports, and, in a small repository where none
//! of that finds anything, every source file. Each file is *editable* or
//! *read-only*: tests and docs are context unless they hold a code name the
//! task is about (a rename) or nothing else could change.

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;

use crate::tools::walk;

/// Files read at most when looking for code names.
const MAX_SCANNED_FILES: usize = 400;
/// Largest file scanned or shown, in bytes.
const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Tests shown with one file that may change.
const MAX_TESTS_PER_FILE: usize = 2;
/// A repository with at most this many source files is shown whole when
/// the prompt names nothing.
const SMALL_REPO_FILES: usize = 8;

/// Why a file is part of the grounding, and whether it may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// The task is about changing it.
    Editable,
    /// Shown for reference (tests, docs, callers).
    ReadOnly,
    /// Named in the prompt, does not exist yet: to be created.
    New,
}

/// One file of the grounding, relative to the workspace (`/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grounded {
    pub path: String,
    pub role: Role,
}

/// Picks the files for `prompt` in the workspace at `root`, most important
/// first: editable, then read-only, then new.
pub fn select(prompt: &str, root: &Path) -> Vec<Grounded> {
    let files: Vec<String> = walk::files_under(root)
        .into_iter()
        .filter(|p| p.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .filter_map(|p| {
            p.strip_prefix(root)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    let mut picked: Vec<Grounded> = Vec::new();
    let creating = creates_files(prompt);
    for token in path_tokens(prompt) {
        match resolve_named(&token, &files) {
            Some(path) => add(&mut picked, &path, default_role(&path)),
            None if creating && is_source_name(&token) => add(&mut picked, &token, Role::New),
            None => {}
        }
    }
    for name in code_names(prompt) {
        for path in files_mentioning(&name, root, &files) {
            let role = if is_doc(&path) {
                Role::ReadOnly
            } else {
                Role::Editable
            };
            add(&mut picked, &path, role);
        }
    }
    // The tests of a file that may change say what it must do.
    let editable: Vec<String> = picked
        .iter()
        .filter(|g| g.role == Role::Editable && !is_test(&g.path))
        .map(|g| g.path.clone())
        .collect();
    for path in editable {
        for test in tests_of(&path, root, &files) {
            add(&mut picked, &test, Role::ReadOnly);
        }
    }
    // The modules a shown test imports are what the test is about.
    let tests: Vec<String> = picked
        .iter()
        .filter(|g| is_test(&g.path))
        .map(|g| g.path.clone())
        .collect();
    for test in tests {
        for path in imported_by(&test, root, &files) {
            add(&mut picked, &path, Role::Editable);
        }
    }
    if picked.is_empty() {
        let sources: Vec<&String> = files.iter().filter(|f| is_source_name(f)).collect();
        if sources.len() <= SMALL_REPO_FILES {
            for path in sources {
                add(&mut picked, path, default_role(path));
            }
        }
    }
    // Nothing editable but context: the context is what may change.
    if !picked.iter().any(|g| g.role != Role::ReadOnly) {
        for g in &mut picked {
            g.role = Role::Editable;
        }
    }
    picked.sort_by_key(|g| g.role);
    picked
}

/// Adds `path` with `role`; editable wins over read-only when two reasons
/// meet.
fn add(picked: &mut Vec<Grounded>, path: &str, role: Role) {
    match picked.iter_mut().find(|g| g.path == path) {
        Some(g) if role < g.role => g.role = role,
        Some(_) => {}
        None => picked.push(Grounded {
            path: path.to_string(),
            role,
        }),
    }
}

/// Tests and docs are context by default; everything else may change.
fn default_role(path: &str) -> Role {
    if is_test(path) || is_doc(path) {
        Role::ReadOnly
    } else {
        Role::Editable
    }
}

/// Whether the prompt asks for something new (a file it names that does
/// not exist yet may be created): it says create, write, add, make,
/// generate or new.
fn creates_files(prompt: &str) -> bool {
    let lower = prompt.to_ascii_lowercase();
    lower.split(|c: char| !c.is_ascii_alphabetic()).any(|w| {
        matches!(
            w,
            "create" | "write" | "add" | "make" | "generate" | "new" | "scaffold"
        )
    })
}

/// Words of the prompt that look like file paths: `utils.py`,
/// `src/sum.js`, `.github/workflows/ci.yml`, `` `Cargo.toml` ``.
fn path_tokens(prompt: &str) -> Vec<String> {
    let Ok(re) = Regex::new(r"[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]\.[A-Za-z][A-Za-z0-9]{0,9}\b") else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    re.find_iter(prompt)
        .map(|m| m.as_str().trim_start_matches("./").to_string())
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// The workspace file `token` names: the exact path, or the one file whose
/// path ends with `/token`.
fn resolve_named(token: &str, files: &[String]) -> Option<String> {
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

/// Names in the prompt that look like code: in backticks, with `_`, in
/// camelCase or PascalCase, or called (`name(`).
fn code_names(prompt: &str) -> Vec<String> {
    let Ok(word) =
        Regex::new(r"`([A-Za-z_][A-Za-z0-9_]{2,})[^`]*`|\b([A-Za-z_][A-Za-z0-9_]{2,})\b(\()?")
    else {
        return Vec::new();
    };
    let mut names = BTreeSet::new();
    for caps in word.captures_iter(prompt) {
        if let Some(quoted) = caps.get(1) {
            names.insert(quoted.as_str().to_string());
            continue;
        }
        let Some(w) = caps.get(2).map(|m| m.as_str()) else {
            continue;
        };
        let called = caps.get(3).is_some();
        let snake = w.contains('_') && w.chars().any(|c| c.is_ascii_alphabetic());
        let camel = w.chars().skip(1).any(|c| c.is_ascii_uppercase())
            && w.chars().any(|c| c.is_ascii_lowercase());
        if called || snake || camel {
            names.insert(w.to_string());
        }
    }
    // A file name is not a code name (`test_utils` of `test_utils.py`).
    let stems: BTreeSet<String> = path_tokens(prompt)
        .iter()
        .filter_map(|t| {
            Path::new(t)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .collect();
    names.retain(|n| !stems.contains(n));
    names.into_iter().collect()
}

/// Source files that hold `name` as a whole word.
fn files_mentioning(name: &str, root: &Path, files: &[String]) -> Vec<String> {
    let Ok(re) = Regex::new(&format!(r"\b{}\b", regex::escape(name))) else {
        return Vec::new();
    };
    files
        .iter()
        .filter(|f| is_source_name(f))
        .take(MAX_SCANNED_FILES)
        .filter(|f| {
            std::fs::read_to_string(root.join(f.as_str())).is_ok_and(|text| re.is_match(&text))
        })
        .cloned()
        .collect()
}

/// Files of the workspace whose module name a test file uses as a word
/// (`from inventory import …`, `require("./src/sum")`).
fn imported_by(test: &str, root: &Path, files: &[String]) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(root.join(test)) else {
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
fn tests_of(path: &str, root: &Path, files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter(|f| is_test(f) && is_source_name(f))
        .take(MAX_SCANNED_FILES)
        .filter(|test| imported_by(test, root, files).iter().any(|p| p == path))
        .take(MAX_TESTS_PER_FILE)
        .cloned()
        .collect()
}

/// A test file: `test_x.py`, `x_test.go`, `x.test.js`, `x.spec.ts`, or a
/// file under `tests/`, `test/`, `__tests__/` or `spec/`.
pub fn is_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem == "test"
        || stem == "tests"
        || name.contains(".test.")
        || name.contains(".spec.")
        || path
            .split('/')
            .rev()
            .skip(1)
            .any(|d| matches!(d, "tests" | "test" | "__tests__" | "spec"))
}

/// Prose: Markdown, reStructuredText, plain text, licences.
pub fn is_doc(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".rst", ".txt", ".adoc"]
        .iter()
        .any(|e| lower.ends_with(e))
        || lower
            .rsplit('/')
            .next()
            .is_some_and(|n| n.starts_with("license"))
}

/// Whether a path looks like a text file worth showing: known source,
/// config and doc extensions, and a few extension-less names.
pub fn is_source_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if matches!(
        name,
        "Makefile" | "Dockerfile" | "Justfile" | "Rakefile" | "Gemfile"
    ) {
        return true;
    }
    let Some((_, ext)) = name.rsplit_once('.') else {
        return false;
    };
    matches!(
        ext.to_ascii_lowercase().as_str(),
        "py" | "pyi"
            | "rs"
            | "go"
            | "js"
            | "mjs"
            | "cjs"
            | "jsx"
            | "ts"
            | "tsx"
            | "java"
            | "kt"
            | "c"
            | "h"
            | "cc"
            | "cpp"
            | "hpp"
            | "cs"
            | "rb"
            | "php"
            | "swift"
            | "scala"
            | "lua"
            | "sh"
            | "bash"
            | "zsh"
            | "sql"
            | "html"
            | "css"
            | "scss"
            | "vue"
            | "svelte"
            | "json"
            | "toml"
            | "yaml"
            | "yml"
            | "ini"
            | "cfg"
            | "conf"
            | "xml"
            | "md"
            | "rst"
            | "txt"
            | "env.example"
            | "gradle"
            | "tf"
            | "proto"
            | "graphql"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        dir
    }

    fn picked(prompt: &str, dir: &tempfile::TempDir) -> Vec<(String, Role)> {
        select(prompt, dir.path())
            .into_iter()
            .map(|g| (g.path, g.role))
            .collect()
    }

    #[test]
    fn named_files_with_tests_as_context() {
        let dir = repo(&[
            ("utils.py", "def last_n(items, n):\n    return items[-n:]\n"),
            ("test_utils.py", "from utils import last_n\n"),
            ("other.py", "x = 1\n"),
        ]);
        assert_eq!(
            picked(
                "Fix the bug in utils.py so the tests in test_utils.py pass.",
                &dir
            ),
            [
                ("utils.py".to_string(), Role::Editable),
                ("test_utils.py".to_string(), Role::ReadOnly)
            ]
        );
        // A named file brings the tests that import it, for reference.
        assert_eq!(
            picked("Fix the bug in utils.py", &dir),
            [
                ("utils.py".to_string(), Role::Editable),
                ("test_utils.py".to_string(), Role::ReadOnly)
            ]
        );
        // A named test brings the module it imports.
        assert_eq!(
            picked("Make test_utils.py pass", &dir),
            [
                ("utils.py".to_string(), Role::Editable),
                ("test_utils.py".to_string(), Role::ReadOnly)
            ]
        );
    }

    #[test]
    fn tails_code_names_and_new_files() {
        let dir = repo(&[
            (".github/workflows/ci.yml", "python-version: 3.10\n"),
            ("users.py", "def get_usr(i):\n    pass\n"),
            ("api.py", "from users import get_usr\n"),
            ("tests/test_api.py", "get_usr(1)\n"),
            ("README.md", "Call `get_usr`.\n"),
        ]);
        assert_eq!(
            picked("In ci.yml, use Python 3.12.", &dir),
            [(".github/workflows/ci.yml".to_string(), Role::Editable)]
        );
        let rename = picked("Rename `get_usr` to get_user everywhere.", &dir);
        assert_eq!(
            rename,
            [
                ("api.py".to_string(), Role::Editable),
                ("tests/test_api.py".to_string(), Role::Editable),
                ("users.py".to_string(), Role::Editable),
                ("README.md".to_string(), Role::ReadOnly),
            ]
        );
        assert_eq!(
            picked("Create a file validators.py with is_email(text).", &dir),
            [("validators.py".to_string(), Role::New)]
        );
        assert!(
            picked("Write test_users.py with tests for users.py.", &dir)
                .contains(&("test_users.py".to_string(), Role::New))
        );
        // Without a creating verb a missing name is not a file to make.
        assert!(
            !picked("Does Node.js matter here?", &dir)
                .iter()
                .any(|(_, role)| *role == Role::New)
        );
    }

    #[test]
    fn a_small_repository_is_shown_when_nothing_is_named() {
        let dir = repo(&[
            ("inventory.py", "class Inventory: pass\n"),
            ("test_inventory.py", "from inventory import Inventory\n"),
            ("logo.png", "\u{89}PNG"),
        ]);
        assert_eq!(
            picked("The tests fail. Fix the code, not the tests.", &dir),
            [
                ("inventory.py".to_string(), Role::Editable),
                ("test_inventory.py".to_string(), Role::ReadOnly)
            ]
        );
    }

    #[test]
    fn tests_and_docs_are_recognised() {
        for test in [
            "test_a.py",
            "a_test.go",
            "a.test.js",
            "src/a.spec.ts",
            "tests/helpers.py",
        ] {
            assert!(is_test(test), "{test}");
        }
        for not in ["contest.py", "latest.rs", "src/testing_tools.py"] {
            assert!(!is_test(not), "{not}");
        }
        assert!(is_doc("README.md") && is_doc("docs/LICENSE") && !is_doc("main.rs"));
    }
}
