//! Where the prompt's code names lead besides their definitions.
//!
//! - A name no file defines (an option, a key, an attribute such as
//!   `quotingType`) is code only where it is used: its uses are shown.
//! - A name nothing in the workspace mentions yet is new (`peekn`, a
//!   `forceQuotes` option): what the task adds joins the names the prompt
//!   gives beside it, so the places that list those at the top level of a
//!   module (`__all__`, imports and re-exports, registries) are shown, as
//!   the new name belongs there too.

use std::path::Path;

use regex::Regex;

use super::links::{MAX_SCANNED_FILES, defines, is_comment, read_source};
use crate::agent::file_kind::{is_doc, is_source_name, is_test};
use crate::tools::outline::{self, Kind};

/// A name found in more files than this leads nowhere in particular.
const MAX_FILES_A_NAME: usize = 6;
/// Lines of one file shown for one name, at most.
const MAX_LINES_A_FILE: usize = 8;

/// A file a name leads to, with the lines that mention it (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Trail {
    pub path: String,
    pub lines: Vec<usize>,
    /// Why it is shown, for the note on stderr.
    pub why: String,
}

/// The trails of the prompt's code `names` in the workspace at `root`
/// (`files`: relative, `/`-separated): the uses of each name no source
/// file defines, and, when `adding` (the task changes code) and some name
/// is new, the top-level mentions of the names that are defined. Tests
/// and docs are no trail: they are evidence, shown by other rules.
pub(crate) fn follow(names: &[String], root: &Path, files: &[String], adding: bool) -> Vec<Trail> {
    let found: Vec<(&String, Vec<Mention>)> = names
        .iter()
        .map(|name| (name, mentions(name, root, files)))
        .collect();
    let new = found.iter().find(|(_, m)| m.is_empty()).map(|(n, _)| *n);
    let mut trails = Vec::new();
    for (name, mentions) in &found {
        let code: Vec<&Mention> = mentions
            .iter()
            .filter(|m| !is_test(&m.path) && !is_doc(&m.path))
            .collect();
        if code.is_empty() || mentions.len() > MAX_FILES_A_NAME {
            continue;
        }
        let defined = code.iter().any(|m| defines(name, root, &m.path));
        // A capitalised name no file defines is a library's or a proper
        // noun (`CommonMark`), not this code's.
        let ours = !name.starts_with(|c: char| c.is_uppercase());
        for mention in code {
            let (lines, why) = match (defined, new) {
                (false, _) if ours => (
                    mention.lines.clone(),
                    format!("it uses `{name}`, which the prompt names"),
                ),
                (true, Some(new)) if adding => (
                    mention.top_level.clone(),
                    format!("it lists `{name}`, beside which the new `{new}` goes"),
                ),
                _ => continue,
            };
            if !lines.is_empty() {
                trails.push(Trail {
                    path: mention.path.clone(),
                    lines: lines.into_iter().take(MAX_LINES_A_FILE).collect(),
                    why,
                });
            }
        }
    }
    trails
}

/// Where a source file mentions a name.
struct Mention {
    path: String,
    /// Every line that holds it as a word.
    lines: Vec<usize>,
    /// Those outside every function and class.
    top_level: Vec<usize>,
}

/// The source files (at most [`MAX_SCANNED_FILES`] read) that hold `name`
/// as a whole word, and where.
fn mentions(name: &str, root: &Path, files: &[String]) -> Vec<Mention> {
    let Ok(word) = Regex::new(&format!(r"\b{}\b", regex::escape(name))) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for path in files
        .iter()
        .filter(|f| is_source_name(f))
        .take(MAX_SCANNED_FILES)
    {
        let Some(text) = read_source(root, path) else {
            continue;
        };
        let lines: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, line)| word.is_match(line) && !is_comment(line))
            .map(|(i, _)| i + 1)
            .collect();
        if lines.is_empty() {
            continue;
        }
        let defs = outline::definitions(path, &text).unwrap_or_default();
        let inside = |line: usize| {
            defs.iter()
                .any(|d| d.kind != Kind::Value && d.start_line <= line && line <= d.end_line)
        };
        let top_level = lines.iter().copied().filter(|&l| !inside(l)).collect();
        found.push(Mention {
            path: path.clone(),
            lines,
            top_level,
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let paths = files.iter().map(|(p, _)| p.to_string()).collect();
        (dir, paths)
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_name_no_file_defines_leads_to_its_uses() {
        let (dir, files) = repo(&[
            (
                "lib/dumper.js",
                "// quotingType: see State\nfunction State(options) {\n  this.quotingType = options['quotingType'];\n}\n\nfunction write(state) {\n  return state.quotingType; // as CommonMark says\n}\n",
            ),
            ("test/dump.js", "dump({quotingType: '\"'});\n"),
            ("README.md", "- `quotingType`: the quotes.\n"),
        ]);
        let trails = follow(&names(&["quotingType"]), dir.path(), &files, true);
        // A capitalised one is a library's or a proper noun.
        assert!(follow(&names(&["CommonMark"]), dir.path(), &files, true).is_empty());
        assert_eq!(
            trails,
            [Trail {
                path: "lib/dumper.js".into(),
                lines: vec![3, 7],
                why: "it uses `quotingType`, which the prompt names".into(),
            }]
        );
    }

    #[test]
    fn a_new_name_leads_to_where_its_neighbours_are_listed() {
        let (dir, files) = repo(&[
            (
                "pkg/iters.py",
                "__all__ = ('first', 'peek')\n\n\ndef peek(seq):\n    return seq\n\n\ndef first(seq):\n    return peek(seq)\n",
            ),
            (
                "pkg/curried.py",
                "from pkg.iters import (\n    first,\n    peek,\n)\n",
            ),
            ("pkg/other.py", "def use(seq):\n    return peek(seq)\n"),
            ("tests/test_iters.py", "from pkg.iters import peek\n"),
        ]);
        let trails = follow(&names(&["peek", "peekn"]), dir.path(), &files, true);
        let found: Vec<(&str, &[usize])> = trails
            .iter()
            .map(|t| (t.path.as_str(), t.lines.as_slice()))
            .collect();
        // Calls inside functions are no listing; the test is evidence only.
        assert_eq!(
            found,
            [("pkg/iters.py", &[1][..]), ("pkg/curried.py", &[3][..])]
        );
        assert!(trails[0].why.contains("the new `peekn`"), "{trails:?}");
        // Without a new name, or when nothing is to change, no listing.
        assert!(follow(&names(&["peek"]), dir.path(), &files, true).is_empty());
        assert!(follow(&names(&["peek", "peekn"]), dir.path(), &files, false).is_empty());
    }

    #[test]
    fn a_name_in_many_files_leads_nowhere() {
        let many: Vec<(String, String)> = (0..8)
            .map(|n| (format!("m{n}.py"), "x = options['mode']\n".to_string()))
            .collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let (dir, files) = repo(&many);
        assert!(follow(&names(&["mode"]), dir.path(), &files, true).is_empty());
    }
}
