//! What the prompt's words say about files: paths it names, code names it
//! mentions, whether it creates files or lets tests change, whether piped
//! text is a diff.

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;

/// Whether the prompt asks for the tests to change: a rename everywhere,
/// tests to write, fix or update, or the tests rather than the code.
pub(crate) fn tests_may_change(prompt: &str) -> bool {
    let lower = prompt.to_ascii_lowercase();
    if lower.contains("not the test") {
        return false;
    }
    [
        "rename",
        "everywhere",
        "add a test",
        "add tests",
        "write a test",
        "write tests",
        "update the test",
        "update tests",
        "new test",
        "more tests",
        "tests for",
        "test for",
        "fix the test",
        "change the test",
        "not the code",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// Whether the prompt asks for something new (a file it names that does
/// not exist yet may be created): it says create, write, add, make,
/// generate or new.
pub(crate) fn creates_files(prompt: &str) -> bool {
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
pub(crate) fn path_tokens(prompt: &str) -> Vec<String> {
    let Ok(re) = Regex::new(r"[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]\.[A-Za-z][A-Za-z0-9]{0,9}\b") else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    re.find_iter(prompt)
        .map(|m| m.as_str().trim_start_matches("./").to_string())
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// Whether piped text is a diff (`git diff`, `diff -u`).
pub(crate) fn is_diff(piped: &str) -> bool {
    piped.lines().any(|l| l.starts_with("diff --git "))
        || (piped.lines().any(|l| l.starts_with("--- "))
            && piped.lines().any(|l| l.starts_with("+++ ")))
}

/// Names in the prompt that look like code: in backticks, with `_`, in
/// camelCase or PascalCase, or called (`name(`).
pub(crate) fn code_names(prompt: &str) -> Vec<String> {
    let Ok(word) = Regex::new(r"`([A-Za-z_][A-Za-z0-9_]+)[^`]*`|\b([A-Za-z_][A-Za-z0-9_]+)\b(\()?")
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
        // A short name counts only when it is called (`rx()`).
        let called = caps.get(3).is_some();
        let snake = w.contains('_') && w.chars().any(|c| c.is_ascii_alphabetic());
        let camel = w.chars().skip(1).any(|c| c.is_ascii_uppercase())
            && w.chars().any(|c| c.is_ascii_lowercase());
        if w.len() < 3 && !called {
            continue;
        }
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
