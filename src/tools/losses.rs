//! The ways a new whole text of a file loses what the old one had: a
//! blank text, `...` in place of kept code, a top-level definition gone,
//! or a fragment in place of the file. Shared by `write_file` and the
//! whole-file blocks of the text formats, each of which words the refusal.

use super::similarity::Bigrams;

/// Why a whole new text loses code of the old one, if it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Loss {
    /// Blank where the old text had content.
    Blank,
    /// A line that stands for left-out code (`# ... rest unchanged`).
    Elision(String),
    /// A top-level line of the old text with nothing like it in the new.
    Dropped(String),
    /// Few of the old lines kept, in far fewer lines: a fragment.
    Shrunk { new_lines: usize, old_lines: usize },
}

/// The first way `new` loses code of `old`, checked in the order of
/// [`Loss`] (for the file at `path`, whose kind says what a comment is);
/// dropped definitions only when `removal_allowed` is false.
pub(crate) fn loss(path: &str, old: &str, new: &str, removal_allowed: bool) -> Option<Loss> {
    if new.trim().is_empty() && !old.trim().is_empty() {
        return Some(Loss::Blank);
    }
    if let Some(line) = elision(path, old, new) {
        return Some(Loss::Elision(line));
    }
    if !removal_allowed && let Some(line) = dropped_definition(old, new) {
        return Some(Loss::Dropped(line));
    }
    shrunk(old, new)
}

/// `new` as a fragment of `old`: an old text of 8 or more non-blank lines
/// of which fewer than half are kept, in under 70% of the lines.
pub(crate) fn shrunk(old: &str, new: &str) -> Option<Loss> {
    let old_lines = non_blank(old).len();
    let new_lines = non_blank(new).len();
    (old_lines >= 8 && kept_share(old, new) < 0.5 && new_lines * 10 < old_lines * 7).then_some(
        Loss::Shrunk {
            new_lines,
            old_lines,
        },
    )
}

/// A top-level line of `old` (no indentation: a definition, a section, a
/// key) that `new` has lost: nothing in `new` is like it. Small models cut
/// files short and leave the last class or section out.
pub(crate) fn dropped_definition(old: &str, new: &str) -> Option<String> {
    let top_level = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with(char::is_whitespace))
            .map(str::trim)
            .filter(|l| l.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
            .filter(|l| !l.starts_with(['#', '/', '*', '-']))
            .map(str::to_string)
            .collect()
    };
    let new_lines: Vec<Bigrams> = new
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(Bigrams::of)
        .collect();
    let words: std::collections::HashSet<&str> = new
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    top_level(old).into_iter().find(|line| {
        let grams = Bigrams::of(line);
        let best = new_lines
            .iter()
            .map(|n| n.dice(&grams))
            .fold(0.0_f64, f64::max);
        // Kept: the name it defines is still there and a line is like it,
        // or a line is nearly it (a rename changes only the name).
        let named = defined_name(line).is_some_and(|name| words.contains(name));
        !((named && best >= 0.6) || best >= 0.85)
    })
}

/// The name a top-level line defines: the first word that is not a
/// keyword (`class Square(…)` → `Square`, `[tool.ruff]` → `tool`).
fn defined_name(line: &str) -> Option<&str> {
    const KEYWORDS: [&str; 18] = [
        "class",
        "def",
        "async",
        "fn",
        "pub",
        "function",
        "struct",
        "enum",
        "impl",
        "const",
        "let",
        "var",
        "type",
        "interface",
        "export",
        "func",
        "static",
        "default",
    ];
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .find(|w| !KEYWORDS.contains(w))
}

/// The trimmed non-blank lines of `text`.
pub(crate) fn non_blank(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The share of the old text's non-blank lines that the new text keeps.
pub(crate) fn kept_share(old: &str, new: &str) -> f64 {
    let old = non_blank(old);
    if old.is_empty() {
        return 1.0;
    }
    let mut new = non_blank(new);
    let mut kept = 0;
    for line in &old {
        if let Some(i) = new.iter().position(|n| n == line) {
            new.swap_remove(i);
            kept += 1;
        }
    }
    kept as f64 / old.len() as f64
}

/// A line of `new` that stands for left-out code and is not in `old`: a
/// comment (whole-line or trailing) that says code is left out
/// (`# ... rest unchanged`, `// existing code`, `# snip`, `# …`), or a bare
/// `...` that is not a Python body (the line before it ends with `:`).
/// In prose (`.md`, `.rst`, `.txt`) a `#` line is a heading, not a
/// comment; in YAML a bare `...` ends a document.
pub(crate) fn elision(path: &str, old: &str, new: &str) -> Option<String> {
    let extension = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    let prose = ["md", "markdown", "rst", "txt", "adoc"].contains(&extension.as_str());
    let yaml = ["yml", "yaml"].contains(&extension.as_str());
    const PHRASES: [&str; 15] = [
        "rest of the",
        "rest of file",
        "rest of the file",
        "stay the same",
        "stays the same",
        "rest unchanged",
        "existing code",
        "unchanged code",
        "remains unchanged",
        "same as before",
        "previous code",
        "remaining code",
        "code here",
        "code omitted",
        "omitted for brevity",
    ];
    // Single words count in a short placeholder: `# <existing f6>`,
    // `# [snip]`, `# ... unchanged`, or the word alone.
    const WORDS: [&str; 5] = ["existing", "unchanged", "snip", "omitted", "elided"];
    let old: Vec<&str> = non_blank(old);
    let lines = non_blank(new);
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !old.contains(line))
        .find(|(n, line)| {
            let lower = line.to_lowercase().replace('…', "...");
            if lower == "..." {
                return !yaml && !(n.checked_sub(1)).is_some_and(|p| lines[p].ends_with(':'));
            }
            if prose && !lower.starts_with("<!--") {
                return false;
            }
            let Some(comment) = comment_of(&lower) else {
                return false;
            };
            let text = comment.trim_start_matches(['#', '/', '*', '-', ' ', '<', '!', '[', '(']);
            let placeholder = text.len() <= 30
                && (comment.contains(['<', '[', '(']) || comment.contains("...") || {
                    let bare = text.trim_end_matches(['>', ']', ')', '-', '*', '/', ' ']);
                    WORDS.contains(&bare)
                });
            text.len() < 80
                && (text.starts_with("...")
                    || PHRASES.iter().any(|m| text.contains(m))
                    || (placeholder && WORDS.iter().any(|w| text.contains(w))))
        })
        .map(|(_, line)| line.to_string())
}

/// The comment of a line: the whole line when it starts as one (`#`,
/// `//`, `/*`, `<!--`, `--`), else what follows a trailing `#` or `//`.
fn comment_of(line: &str) -> Option<&str> {
    let starts = ["#", "//", "/*", "{/*", "<!--", "--"];
    if starts.iter().any(|s| line.starts_with(s)) {
        return Some(line);
    }
    ["# ", "// "].iter().find_map(|m| {
        let at = line.find(m)?;
        line[..at].ends_with([' ', '\t']).then(|| &line[at..])
    })
}
