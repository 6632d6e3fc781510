//! `search {pattern, path?, glob?, ignore_case?}`: regex search with
//! ripgrep's crates (parallel walk, .gitignore honoured, binary files
//! skipped); `path:line: text`, sorted by path, capped. Files that are not
//! UTF-8 are searched decoded as Latin-1, so their lines are still found.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;

use super::outcome::ToolOutcome;
use super::walk;
use super::workspace::Workspace;

/// Most matching lines shown; the rest are counted.
pub(crate) const MAX_MATCHES: usize = 200;
/// Longest line text shown.
const MAX_LINE_CHARS: usize = 300;
/// Files larger than this are searched streaming, without the Latin-1 fallback.
const MAX_IN_MEMORY: u64 = 64 * 1024 * 1024;

/// Arguments of `search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// Regular expression
    pub pattern: String,
    /// File or directory to search, relative to the workspace (default: the workspace)
    #[serde(default)]
    pub path: Option<String>,
    /// Only files whose path matches this glob
    #[serde(default)]
    pub glob: Option<String>,
    /// Case-insensitive (default false)
    #[serde(default)]
    pub ignore_case: Option<bool>,
}

/// The matches in one file.
struct FileMatches {
    path: PathBuf,
    /// `(line number, text)`, at most [`MAX_MATCHES`].
    lines: Vec<(u64, String)>,
    count: usize,
}

/// Searches the files.
pub(crate) fn run(args: &Args, ws: &Workspace) -> ToolOutcome {
    let target = match ws.resolve(args.path.as_deref().unwrap_or(".")) {
        Ok(p) => p,
        Err(e) => return ToolOutcome::error(e),
    };
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(args.ignore_case.unwrap_or(false))
        .build(&args.pattern)
    {
        Ok(m) => m,
        Err(e) => {
            return ToolOutcome::error(format!(
                "`{}` is not a valid regular expression: {e}",
                args.pattern
            ));
        }
    };
    let glob = match args
        .glob
        .as_deref()
        .map(str::trim)
        .filter(|g| !g.is_empty())
    {
        None => None,
        Some(g) => match globset::Glob::new(g) {
            Ok(g) => Some(g.compile_matcher()),
            Err(e) => return ToolOutcome::error(format!("`{g}` is not a valid glob: {e}")),
        },
    };
    let wanted = |path: &Path| match &glob {
        None => true,
        Some(glob) => {
            let rel = path.strip_prefix(&target.real).unwrap_or(path);
            path.file_name().is_some_and(|n| glob.is_match(n)) || glob.is_match(rel)
        }
    };

    let found: Mutex<Vec<FileMatches>> = Mutex::new(Vec::new());
    if target.real.is_dir() {
        walk::builder(&target.real).build_parallel().run(|| {
            let mut searcher = new_searcher();
            let matcher = matcher.clone();
            let found = &found;
            let wanted = &wanted;
            Box::new(move |entry| {
                if let Ok(entry) = entry
                    && walk::is_visible_file(&entry)
                    && wanted(entry.path())
                    && let Some(m) = search_file(&mut searcher, &matcher, entry.path())
                    && let Ok(mut found) = found.lock()
                {
                    found.push(m);
                }
                WalkState::Continue
            })
        });
    } else if let Some(m) = search_file(&mut new_searcher(), &matcher, &target.real)
        && let Ok(mut found) = found.lock()
    {
        found.push(m);
    }
    let mut found = found.into_inner().unwrap_or_default();
    found.sort_by(|a, b| a.path.cmp(&b.path));

    let total: usize = found.iter().map(|m| m.count).sum();
    if total == 0 {
        return ToolOutcome::ok(
            format!("no matches for /{}/ in {}", args.pattern, target.display),
            format!("no matches for /{}/", args.pattern),
        );
    }
    let mut lines = Vec::new();
    'files: for file in &found {
        let display = ws.display(&file.path);
        for (number, text) in &file.lines {
            if lines.len() == MAX_MATCHES {
                break 'files;
            }
            lines.push(format!("{display}:{number}: {text}"));
        }
    }
    let mut out = lines.join("\n");
    if total > MAX_MATCHES {
        out.push_str(&format!(
            "\n({} more matches not shown; narrow the pattern, path or glob)",
            total - MAX_MATCHES
        ));
    }
    let noun = if total == 1 { "match" } else { "matches" };
    ToolOutcome::ok(out, format!("{total} {noun} for /{}/", args.pattern))
}

/// A matching line as shown: whole when short; otherwise the first match's
/// column and a window of text around it, with what was left out counted.
fn shown_line(matcher: &RegexMatcher, text: &str) -> String {
    if text.chars().count() <= MAX_LINE_CHARS {
        return text.to_string();
    }
    let Ok(Some(found)) = matcher.find(text.as_bytes()) else {
        let shown: String = text.chars().take(MAX_LINE_CHARS).collect();
        return format!("{shown} …");
    };
    let context = (MAX_LINE_CHARS - found.len().min(MAX_LINE_CHARS)) / 2;
    let mut start = found.start().saturating_sub(context);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (found.end() + context).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let column = text[..found.start()].chars().count() + 1;
    let before = text[..start].chars().count();
    let after = text[end..].chars().count();
    format!(
        "[column {column}] [… {before} characters] {} [{after} characters …]",
        &text[start..end]
    )
}

fn new_searcher() -> Searcher {
    SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build()
}

/// The matches in `path`, or `None` for none (or an unreadable file, which
/// is skipped as rg does).
fn search_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: &Path,
) -> Option<FileMatches> {
    let mut lines = Vec::new();
    let mut count = 0usize;
    let sink = Lossy(|number, text: &str| {
        count += 1;
        if lines.len() < MAX_MATCHES {
            let text = text.trim_end_matches(['\n', '\r']);
            lines.push((number, shown_line(matcher, text)));
        }
        Ok(true)
    });
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_IN_MEMORY);
    let searched = if small {
        let bytes = crate::fsutil::read(path).ok()?;
        let (text, _) = super::file_text::decode_text(&bytes);
        searcher.search_slice(matcher, text.as_bytes(), sink)
    } else {
        searcher.search_path(matcher, path, sink)
    };
    (searched.is_ok() && count > 0).then(|| FileMatches {
        path: path.to_path_buf(),
        lines,
        count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn finds_lines_skips_ignored_binary_and_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn main() {}\nlet TOKEN = 1;\n").unwrap();
        std::fs::write(root.join("notes.md"), "token here\n").unwrap();
        std::fs::write(root.join("latin.txt"), b"caf\xe9 token\n").unwrap();
        std::fs::write(root.join("bin.dat"), b"token\x00\x01").unwrap();
        std::fs::write(root.join(".env"), "TOKEN=secret\n").unwrap();
        std::fs::write(root.join("ignored.log"), "token\n").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        let ws = Workspace::new(root).unwrap();
        let search = |pattern: &str, path: Option<&str>, glob: Option<&str>, ic| {
            run(
                &Args {
                    pattern: pattern.into(),
                    path: path.map(Into::into),
                    glob: glob.map(Into::into),
                    ignore_case: Some(ic),
                },
                &ws,
            )
            .content
        };
        assert_eq!(
            search("token", None, None, true),
            "latin.txt:1: café token\nnotes.md:1: token here\nsrc/a.rs:2: let TOKEN = 1;"
        );
        assert_eq!(search("café", None, None, false), "latin.txt:1: café token");
        assert_eq!(
            search("TOKEN", None, Some("*.rs"), false),
            "src/a.rs:2: let TOKEN = 1;"
        );
        assert_eq!(
            search("fn", Some("src/a.rs"), None, false),
            "src/a.rs:1: fn main() {}"
        );
        assert!(search("(", None, None, false).contains("not a valid regular expression"));
        assert!(search("nothing-like-this", None, None, false).starts_with("no matches"));
    }

    #[test]
    fn many_matches_are_capped_with_a_count() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..150).map(|i| format!("hit {i}\n")).collect();
        std::fs::write(dir.path().join("a.txt"), &text).unwrap();
        std::fs::write(dir.path().join("b.txt"), &text).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let args = Args {
            pattern: "hit".into(),
            path: None,
            glob: None,
            ignore_case: None,
        };
        let out = run(&args, &ws);
        let lines: Vec<&str> = out.content.lines().collect();
        assert_eq!(lines.len(), MAX_MATCHES + 1);
        assert_eq!(lines[0], "a.txt:1: hit 0");
        assert_eq!(lines[150], "b.txt:1: hit 0");
        assert_eq!(
            lines[MAX_MATCHES],
            "(100 more matches not shown; narrow the pattern, path or glob)"
        );
        assert_eq!(out.summary, "300 matches for /hit/");
    }

    /// Regression: a match at character 2269 of a long line was shown as
    /// the line's first 300 characters, which did not contain it.
    #[test]
    fn a_match_in_a_long_line_is_shown_with_its_column() {
        let dir = tempfile::tempdir().unwrap();
        let line: String = (0..1000).map(|i| format!("k{i:05},")).collect();
        std::fs::write(dir.path().join("min.json"), format!("[{line}]\n")).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let args = Args {
            pattern: "k00042".into(),
            path: None,
            glob: None,
            ignore_case: None,
        };
        let out = run(&args, &ws).content;
        assert!(out.starts_with("min.json:1: [column 296] [… "), "{out}");
        assert!(out.contains("k00042,"), "{out}");
        assert!(out.len() < 500, "{out}");
    }
}
