//! The repository map: when the prompt names no file the grounding can
//! find and the repository is too big to show, the first message lists
//! the files most related to the task with their top-level definitions
//! (tree-sitter outlines), so the model knows where to look and what to
//! ask for. Files are ranked by the task's words they share (in their
//! path, their definitions' names and their text, rare words weighing
//! more), then by being imported by the best of them; the list is cut to
//! a token budget that grows with `num_ctx`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::file_kind::{is_doc, is_source_name, is_test};
use super::relevance::{self, score};
use crate::tools::outline::{self, Kind};

/// Files read at most to rank them.
const MAX_FILES: usize = 600;
/// Largest file read to rank it, in bytes.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The map's budget in tokens for a context of `num_ctx`: a 128th of it,
/// between 256 and 1,024. Measured on `bench/repo-tasks` (docs/small-models.md):
/// 256 tokens held the file to change, within the first three
/// lines, for every prompt that got a map, and each 256 tokens more cost
/// a small model on a CPU about 8 seconds before its first word.
pub(crate) fn budget_tokens(num_ctx: u32) -> usize {
    (num_ctx as usize / 128).clamp(256, 1024)
}

/// One ranked file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranked {
    pub path: String,
    pub score: f64,
    /// `def a(x)`, `class B [m1, m2]`: the file's top-level definitions.
    pub entries: Vec<String>,
}

/// The workspace's source files (`files`, relative to `root`; not tests
/// and docs: the map is where to change code) ranked for the task's
/// `wanted` words, best first; files that share no word keep their order
/// after those that do.
pub(crate) fn rank(root: &Path, files: &[String], wanted: &BTreeSet<String>) -> Vec<Ranked> {
    let read: Vec<FileWords> = files
        .iter()
        .filter(|f| is_source_name(f) && !is_doc(f) && !is_test(f))
        .take(MAX_FILES)
        .map(|path| FileWords::read(root, path))
        .collect();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for file in &read {
        for word in &file.body {
            *counts.entry(word.clone()).or_default() += 1;
        }
    }
    let documents = read.len();
    let mut ranked: Vec<Ranked> = read
        .iter()
        .map(|f| Ranked {
            path: f.path.clone(),
            score: 3.0 * score(&f.path_words, wanted, &counts, documents)
                + 2.0 * score(&f.name_words, wanted, &counts, documents)
                + score(&f.body, wanted, &counts, documents),
            entries: f.entries.clone(),
        })
        .collect();
    // A module the best files use by name is part of their story.
    let best: Vec<&FileWords> = ranked
        .iter()
        .filter(|r| r.score > 0.0)
        .filter_map(|r| read.iter().find(|f| f.path == r.path))
        .collect();
    for r in &mut ranked {
        let stem = Path::new(&r.path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if stem.len() < 3 || matches!(stem.as_str(), "__init__" | "mod" | "index") {
            continue;
        }
        let stem = relevance::stem(&stem);
        if best
            .iter()
            .any(|f| f.path != r.path && f.body.contains(&stem))
        {
            r.score += 0.5;
        }
    }
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    ranked
}

/// A file's words, for ranking.
struct FileWords {
    path: String,
    path_words: BTreeSet<String>,
    /// Of its definitions' names.
    name_words: BTreeSet<String>,
    body: BTreeSet<String>,
    entries: Vec<String>,
}

impl FileWords {
    fn read(root: &Path, path: &str) -> FileWords {
        let full = root.join(path);
        let text = if full.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES) {
            crate::fsutil::read_to_string(&full).unwrap_or_default()
        } else {
            String::new()
        };
        let defs = outline::definitions(path, &text).unwrap_or_default();
        let names: String = defs.iter().map(|d| format!("{} ", d.name)).collect();
        FileWords {
            path: path.to_string(),
            path_words: relevance::words(&path.replace(['/', '.'], " ")),
            name_words: relevance::words(&names),
            body: relevance::words(&text),
            entries: entries(&defs),
        }
    }
}

/// The top-level definitions of a file as map entries: functions by their
/// signature, containers by their name and members.
fn entries(defs: &[outline::Definition]) -> Vec<String> {
    defs.iter()
        .filter(|d| d.parent.is_none() && d.kind != Kind::Value)
        .map(|d| {
            let members: Vec<&str> = defs
                .iter()
                .filter(|m| {
                    m.parent.as_deref() == Some(d.name.as_str())
                        && m.start_line > d.start_line
                        && m.end_line <= d.end_line
                        && m.kind == Kind::Function
                })
                .map(|m| m.name.as_str())
                .collect();
            if d.kind == Kind::Container && !members.is_empty() {
                format!("{} [{}]", d.signature, members.join(", "))
            } else {
                d.signature.clone()
            }
        })
        .collect()
}

/// The map as the first message shows it, within `budget` tokens (about
/// four bytes a token): one line per file, the best first.
pub(crate) fn render(ranked: &[Ranked], budget: usize) -> String {
    let header = "Repository map (files related to the task first, with their definitions; READ a file to see it):";
    // Room is kept for the line that counts the files left out.
    let limit = (budget * 4).saturating_sub(60);
    let mut text = header.to_string();
    let mut left_out = 0;
    for r in ranked {
        // A list, so that it reads as a map and not as a reply to copy.
        let mut line = format!("- {}", r.path);
        if !r.entries.is_empty() {
            line.push_str(": ");
            line.push_str(&r.entries.join("; "));
        }
        if line.chars().count() > 240 {
            line = line.chars().take(237).collect::<String>() + "...";
        }
        if text.len() + line.len() + 1 > limit {
            left_out += 1;
            continue;
        }
        text.push('\n');
        text.push_str(&line);
    }
    if left_out > 0 {
        text.push_str(&format!(
            "\n({left_out} more files; LIST a folder to see them)"
        ));
    }
    text
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

    #[test]
    fn files_are_ranked_by_the_task_and_cut_to_the_budget() {
        let mut files = vec![
            ("pkg/signer.py", "import hmac\n\nclass Signer:\n    def get_signature(self, value):\n        return hmac.new(self.key)\n\n    def sign(self, value):\n        return value\n".to_string()),
            ("pkg/encoding.py", "def base64_encode(s):\n    return s\n".to_string()),
            ("pkg/serializer.py", "from .signer import Signer\n\ndef dumps(obj):\n    return Signer().sign(obj)\n".to_string()),
            ("README.md", "signing keys\n".to_string()),
        ];
        for i in 0..30 {
            files.push((
                Box::leak(format!("pkg/util{i}.py").into_boxed_str()),
                format!("def util{i}():\n    pass\n"),
            ));
        }
        let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let dir = repo(&refs);
        let names: Vec<String> = files.iter().map(|(p, _)| p.to_string()).collect();
        let ranked = rank(
            dir.path(),
            &names,
            &relevance::words("New tokens are signed with the wrong key"),
        );
        assert_eq!(ranked[0].path, "pkg/signer.py");
        assert_eq!(ranked[0].entries, ["class Signer [get_signature, sign]"]);
        assert!(ranked.iter().all(|r| r.path != "README.md"));
        let map = render(&ranked, 100);
        assert!(map.len() <= 400, "{} bytes", map.len());
        assert!(
            map.contains("\n- pkg/signer.py: class Signer [get_signature, sign]\n"),
            "{map}"
        );
        assert!(
            map.ends_with("more files; LIST a folder to see them)"),
            "{map}"
        );
        assert_eq!(budget_tokens(32768), 256);
        assert_eq!(budget_tokens(131072), 1024);
    }
}
