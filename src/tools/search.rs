//! `search {pattern, path?, glob?, ignore_case?}`: regex search with
//! ripgrep's crates, honouring .gitignore; `path:line: text`, capped.

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{ToolOutcome, Workspace, walk};

/// Most matching lines shown; the rest are counted.
pub const MAX_MATCHES: usize = 200;
/// Longest line text shown.
const MAX_LINE_CHARS: usize = 300;

/// Arguments of `search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Args {
    /// Regular expression (Rust regex syntax)
    pub pattern: String,
    /// File or directory to search, relative to the workspace (default: the workspace)
    #[serde(default)]
    pub path: Option<String>,
    /// Only files matching this glob, e.g. *.rs
    #[serde(default)]
    pub glob: Option<String>,
    /// Case-insensitive (default false)
    #[serde(default)]
    pub ignore_case: Option<bool>,
}

/// Searches the files.
pub fn run(args: &Args, ws: &Workspace) -> ToolOutcome {
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
    let files = if target.real.is_dir() {
        walk::files_under(&target.real)
    } else {
        vec![target.real.clone()]
    };
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build();
    let mut lines = Vec::new();
    let mut total = 0usize;
    for file in files {
        if let Some(glob) = &glob {
            let rel = file.strip_prefix(&target.real).unwrap_or(&file);
            let name_matches = file.file_name().is_some_and(|n| glob.is_match(n));
            if !name_matches && !glob.is_match(rel) {
                continue;
            }
        }
        let display = ws.display(&file);
        // A file that cannot be read is skipped, as rg does.
        let _ = searcher.search_path(
            &matcher,
            &file,
            Lossy(|line_number, text| {
                total += 1;
                if lines.len() < MAX_MATCHES {
                    let text = text.trim_end_matches(['\n', '\r']);
                    let shown: String = text.chars().take(MAX_LINE_CHARS).collect();
                    let cut = if shown.len() < text.len() { " …" } else { "" };
                    lines.push(format!("{display}:{line_number}: {shown}{cut}"));
                }
                Ok(true)
            }),
        );
    }
    if total == 0 {
        return ToolOutcome::ok(
            format!("no matches for /{}/ in {}", args.pattern, target.display),
            format!("no matches for /{}/", args.pattern),
        );
    }
    let mut out = lines.join("\n");
    if total > MAX_MATCHES {
        out.push_str(&format!(
            "\n({} more matches not shown; narrow the pattern, path or glob)",
            total - MAX_MATCHES
        ));
    }
    ToolOutcome::ok(out, format!("{total} matches for /{}/", args.pattern))
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
        let search = |pattern: &str, glob: Option<&str>, ic| {
            run(
                &Args {
                    pattern: pattern.into(),
                    path: None,
                    glob: glob.map(Into::into),
                    ignore_case: Some(ic),
                },
                &ws,
            )
            .content
        };
        assert_eq!(
            search("token", None, true),
            "latin.txt:1: caf� token\nnotes.md:1: token here\nsrc/a.rs:2: let TOKEN = 1;"
        );
        assert_eq!(
            search("TOKEN", Some("*.rs"), false),
            "src/a.rs:2: let TOKEN = 1;"
        );
        assert!(search("(", None, false).contains("not a valid regular expression"));
        assert!(search("nothing-like-this", None, false).starts_with("no matches"));
    }
}
