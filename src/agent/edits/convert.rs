//! File blocks into the tool calls they amount to: a whole file is a
//! `write_file`, a SEARCH/REPLACE pair an `edit_file`. Before anything runs,
//! each block is checked against the task's scope (which files may change)
//! and, for whole files, against the usual ways small models lose code:
//! an empty file, a fragment for the whole, `...` for the rest.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde_json::{Value, json};

use super::blocks::{BlockKind, FileBlock};
use super::partial;
use super::splice::{self, ShownParts, splice, without_placeholders};
use super::unseen::{self, Revealed};
use crate::client::ToolCall;
use crate::heuristics::{Heuristic, Heuristics};
use crate::tools::losses::{self, Loss, elision, kept_share};

/// Which files a reply may change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    /// Existing files that may change.
    pub editable: Vec<String>,
    /// Files to create.
    pub new: Vec<String>,
    /// Files shown for reference only.
    pub read_only: Vec<String>,
    /// The task asks to remove something, so a whole file may lose a
    /// definition.
    pub removal_allowed: bool,
    /// Editable files shown in parts: a whole block for one holds the
    /// definitions to put in ([`splice`]).
    pub by_definition: Vec<String>,
    /// The texts shown of each file (the file, or its parts): a block that
    /// repeats one is an echo.
    pub shown: BTreeMap<String, Vec<String>>,
    /// What the model was shown of each file in parts: definitions by
    /// name, and line ranges.
    pub seen: BTreeMap<String, ShownParts>,
    /// The text of each shown file when the run first showed it: a whole
    /// block is judged against it, so what the model added in this run is
    /// its own to take out again.
    pub first: BTreeMap<String, String>,
    /// The heuristics on (`OC_DISABLE`).
    pub heuristics: Heuristics,
}

impl Scope {
    /// The files that may change or be created, for messages.
    pub(crate) fn writable(&self) -> Vec<&str> {
        self.editable
            .iter()
            .chain(&self.new)
            .map(String::as_str)
            .collect()
    }

    fn may_write(&self, path: &str) -> bool {
        self.editable.iter().chain(&self.new).any(|p| p == path)
    }

    /// Every path in play, for reading headers.
    pub(crate) fn known(&self) -> Vec<String> {
        self.editable
            .iter()
            .chain(&self.new)
            .chain(&self.read_only)
            .cloned()
            .collect()
    }
}

/// One call made from a block: what is recorded (and rendered back on the
/// wire), and whether it may run (`Err`: why not, for the model).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EditCall {
    pub call: ToolCall,
    pub verdict: Result<Value, String>,
}

/// The calls of a reply's blocks.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Converted {
    /// In the reply's order.
    pub calls: Vec<EditCall>,
    /// Blocks that changed nothing and made no call: a file (or part)
    /// sent back as it was shown or as it is now.
    pub echoes: usize,
    /// Blocks without a path that could not be placed in a file: their
    /// indices. They stay in the reply's text (a command, sample output,
    /// example code).
    pub unplaced: Vec<usize>,
    /// Definitions of big files a block changed without the model having
    /// been shown them, shown with the refusal: `(path, definition)`. The
    /// model has seen them now.
    pub revealed: Vec<(String, Revealed)>,
}

/// The calls of a reply's blocks, in order. Blocks without a path that
/// cannot be placed (several files in scope, or code that is not the file)
/// make no call and are counted as unplaced. A block that changes nothing
/// is an echo: no call, no error.
pub(crate) fn to_calls(blocks: &[FileBlock], scope: &Scope, root: &Path) -> Converted {
    let mut converted = Converted::default();
    let calls = &mut converted.calls;
    for (n, block) in blocks.iter().enumerate() {
        let path = match &block.path {
            Some(path) => resolve(path, scope, root),
            None => match lone_target(block, scope, root) {
                Some(path) => path,
                None => {
                    converted.unplaced.push(n);
                    continue;
                }
            },
        };
        if is_echo(block, &path, scope, root) {
            converted.echoes += 1;
            continue;
        }
        let verdict = check_scope(&path, scope, root);
        match &block.kind {
            BlockKind::Whole(content) if scope.by_definition.contains(&path) => {
                match definition_calls(&path, content, scope, root, &mut converted.revealed) {
                    Some(spliced) if verdict.is_ok() => calls.extend(spliced),
                    None if verdict.is_ok() => converted.echoes += 1,
                    _ => calls.push(EditCall {
                        call: ToolCall::new(
                            "write_file",
                            json!({"path": path, "content": content}),
                        ),
                        verdict: verdict.map(|()| Value::Null),
                    }),
                }
            }
            BlockKind::Whole(content) => {
                let arguments = json!({"path": path, "content": content});
                let verdict = verdict.and_then(|()| check_whole(&path, content, root, scope));
                // A block of only the definitions it changes (the class
                // with its new method, not the rest of the file): they go
                // in, as into a big file, rather than refusing the loss.
                if verdict.is_err()
                    && let Some(spliced) = partial_file(&path, content, scope, root)
                {
                    calls.extend(spliced);
                    continue;
                }
                calls.push(EditCall {
                    call: ToolCall::new("write_file", arguments.clone()),
                    verdict: verdict.map(|()| arguments),
                });
            }
            BlockKind::Replace(pairs) => {
                for (search, replace) in pairs {
                    let creates = search.trim().is_empty() && !root.join(&path).exists();
                    let (name, arguments) = if creates {
                        ("write_file", json!({"path": path, "content": replace}))
                    } else {
                        (
                            "edit_file",
                            json!({"path": path, "old_string": search, "new_string": replace}),
                        )
                    };
                    let verdict = verdict.clone().and_then(|()| {
                        if search.trim().is_empty() && !creates {
                            Err(format!(
                                "the SEARCH part for {path} is empty; it must quote the lines of the file to replace, exactly"
                            ))
                        } else {
                            Ok(())
                        }
                    });
                    calls.push(EditCall {
                        call: ToolCall::new(name, arguments.clone()),
                        verdict: verdict.map(|()| arguments),
                    });
                }
            }
        }
    }
    converted
}

/// The `edit_file` calls of a whole block for a file shown whole that
/// holds only some of its definitions (see [`partial::edits`]); `None`
/// when it is not such a part (the block is then refused as it would be).
fn partial_file(path: &str, content: &str, scope: &Scope, root: &Path) -> Option<Vec<EditCall>> {
    if !scope.may_write(path)
        || !scope.shown.contains_key(path)
        || scope.removal_allowed
        || !scope.heuristics.on(Heuristic::Partial)
    {
        return None;
    }
    let old = crate::fsutil::read_to_string(root.join(path)).ok()?;
    Some(edit_calls(path, &partial::edits(path, &old, content)?))
}

/// Exact replacements of `path` as `edit_file` calls, each free to run.
fn edit_calls(path: &str, edits: &[(String, String)]) -> Vec<EditCall> {
    (edits.iter())
        .map(|(old_string, new_string)| {
            let arguments =
                json!({"path": path, "old_string": old_string, "new_string": new_string});
            EditCall {
                call: ToolCall::new("edit_file", arguments.clone()),
                verdict: Ok(arguments),
            }
        })
        .collect()
}

/// A whole block for a file shown in parts, as the `edit_file` calls that
/// put its definitions in; `None` when it changes nothing; one refused
/// call when it cannot be placed, or for the definitions the model was not
/// shown (they go to `revealed` when the refusal shows them).
fn definition_calls(
    path: &str,
    content: &str,
    scope: &Scope,
    root: &Path,
    revealed: &mut Vec<(String, Revealed)>,
) -> Option<Vec<EditCall>> {
    let old = crate::fsutil::read_to_string(root.join(path)).unwrap_or_default();
    let seen = ShownParts {
        first: scope.first.get(path).cloned(),
        ..scope.seen.get(path).cloned().unwrap_or_default()
    };
    // `# ...` for the methods left as they are is no loss: only the
    // definitions sent are replaced.
    let placed = without_placeholders(path, content);
    let spliced = match elision(path, &old, &placed) {
        Some(elision) => Err(format!(
            "the block for {path} leaves code out (`{elision}`); send each definition you change whole, from its first line to its last, unchanged lines too"
        )),
        None => splice(path, &old, &placed, &seen),
    };
    match spliced {
        Ok(spliced)
            if spliced.edits.is_empty()
                && spliced.unseen.is_empty()
                && spliced.left_out.is_empty() =>
        {
            None
        }
        Ok(spliced) => {
            let applied = !spliced.edits.is_empty();
            let mut calls = edit_calls(path, &spliced.edits);
            // The definitions left as they are: one refused call says why,
            // and shows them.
            if !spliced.unseen.is_empty() {
                let now = splice::applied(&old, &spliced.edits);
                let reveal = scope.heuristics.on(Heuristic::Reveal);
                let (why, shown) = unseen::refusal(path, &now, &spliced.unseen, applied, reveal);
                revealed.extend(shown.into_iter().map(|r| (path.to_string(), r)));
                calls.push(EditCall {
                    call: ToolCall::new("write_file", json!({"path": path, "content": content})),
                    verdict: Err(why),
                });
            }
            // Changed lines outside definitions: said, not lost.
            if !spliced.left_out.is_empty() {
                calls.push(EditCall {
                    call: ToolCall::new("write_file", json!({"path": path, "content": content})),
                    verdict: Err(left_out_message(path, &spliced.left_out, applied)),
                });
            }
            Some(calls)
        }
        Err(why) => Some(vec![EditCall {
            call: ToolCall::new("write_file", json!({"path": path, "content": content})),
            verdict: Err(why),
        }]),
    }
}

/// The refusal of a block's changed lines outside any definition.
fn left_out_message(path: &str, lines: &[String], applied: bool) -> String {
    let quoted: Vec<String> = lines.iter().take(3).map(|l| format!("`{l}`")).collect();
    let more = match lines.len() {
        0..=3 => String::new(),
        n => format!(" and {} more", n - 3),
    };
    let put_in = if applied {
        "; the block's definitions were put in"
    } else {
        ""
    };
    format!(
        "{} of the block for {path} lie outside any function or class and were not put in{put_in}: a file shown in parts takes whole definitions and imports. To change those lines, send a SEARCH/REPLACE block for them",
        quoted.join(", ") + &more
    )
}

/// Whether a block changes nothing: a whole block that is the file as it
/// is now or as (a part of it) it was shown, or SEARCH/REPLACE pairs that
/// replace text with itself.
fn is_echo(block: &FileBlock, path: &str, scope: &Scope, root: &Path) -> bool {
    match &block.kind {
        BlockKind::Whole(content) => {
            let content = normalized(content);
            if content.is_empty() {
                return false;
            }
            let shown = scope.shown.get(path).into_iter().flatten();
            let now = crate::fsutil::read_to_string(root.join(path)).ok();
            shown
                .chain(now.as_ref())
                .any(|text| normalized(text) == content)
        }
        BlockKind::Replace(pairs) => pairs.iter().all(|(search, replace)| search == replace),
    }
}

/// The workspace files that `blocks` would change, read as changes: in an
/// answer nothing is written, and these are the changes it holds (a
/// change request taken as an answer shows here).
pub(crate) fn withheld(blocks: &[FileBlock], scope: &Scope, root: &Path) -> Vec<String> {
    let changes = |path: &str, kind: &BlockKind| {
        let Ok(now) = crate::fsutil::read_to_string(root.join(path)) else {
            return false;
        };
        match kind {
            BlockKind::Whole(content) => normalized(content) != normalized(&now),
            BlockKind::Replace(pairs) => pairs
                .iter()
                .any(|(search, replace)| search != replace && now.contains(search.trim())),
        }
    };
    let mut paths: Vec<String> = (blocks.iter())
        .filter_map(|b| Some((resolve(b.path.as_deref()?, scope, root), &b.kind)))
        .filter(|(path, kind)| changes(path, kind))
        .map(|(path, _)| path)
        .collect();
    paths.dedup();
    paths
}

/// Text without trailing blanks on its lines and blank lines at its ends.
fn normalized(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim_matches('\n')
        .to_string()
}

/// The scope's path a block's path means: itself, the workspace-relative
/// form of an absolute path inside the workspace, or the one file in scope
/// it is the tail of (`sum.js` for `src/sum.js`).
fn resolve(path: &str, scope: &Scope, root: &Path) -> String {
    let path = path.trim_start_matches("./");
    let root_text = format!("{}/", root.display());
    let path = path.strip_prefix(&root_text).unwrap_or(path);
    let known = scope.known();
    if known.iter().any(|k| k == path) {
        return path.to_string();
    }
    let suffix = format!("/{path}");
    let mut tails = known.iter().filter(|k| k.ends_with(&suffix));
    match (tails.next(), tails.next()) {
        (Some(one), None) => one.clone(),
        _ => path.to_string(),
    }
}

/// Why `path` may not be written in this task, if it may not.
fn check_scope(path: &str, scope: &Scope, root: &Path) -> Result<(), String> {
    if scope.may_write(path) {
        return Ok(());
    }
    let writable = scope.writable();
    let allowed = if writable.is_empty() {
        "no file may change in this task".to_string()
    } else {
        format!("change only: {}", writable.join(", "))
    };
    if scope.read_only.iter().any(|p| p == path) {
        return Err(format!(
            "{path} is shown for reference only and must not be changed; {allowed}"
        ));
    }
    // `..` that climbs above the project, or a root: `sub/../a.py` stays.
    let mut depth: i32 = 0;
    let outside = Path::new(path).components().any(|c| {
        depth += match c {
            Component::Normal(_) => 1,
            Component::CurDir => 0,
            Component::ParentDir => -1,
            Component::RootDir | Component::Prefix(_) => return true,
        };
        depth < 0
    });
    if outside {
        return Err(format!("{path} is outside the project; {allowed}"));
    }
    if root.join(path).exists() {
        return Err(format!(
            "{path} was not shown to you, so it cannot be rewritten; {allowed} (to see it, reply READ {path})"
        ));
    }
    Err(format!(
        "creating {path} is not part of this task; {allowed}"
    ))
}

/// The one file a block without a path can be: the only file in scope, when
/// the block is that file (a new file, or most of the old one's lines) or,
/// for a file shown in parts, holds definitions.
fn lone_target(block: &FileBlock, scope: &Scope, root: &Path) -> Option<String> {
    if let Some(path) = definitions_target(block, scope) {
        return Some(path);
    }
    let writable = scope.writable();
    let [only] = writable.as_slice() else {
        return None;
    };
    let BlockKind::Whole(content) = &block.kind else {
        return Some(only.to_string());
    };
    if scope.by_definition.iter().any(|p| p == only) {
        let defs = crate::tools::outline::definitions(only, content).unwrap_or_default();
        return (!defs.is_empty()).then(|| only.to_string());
    }
    match crate::fsutil::read_to_string(root.join(only)) {
        Ok(old) if kept_share(&old, content) < 0.5 => None,
        _ => Some(only.to_string()),
    }
}

/// The one file shown in parts whose shown definitions a block without a
/// path holds (the model sent a changed function without naming its file),
/// or the class around a shown method.
fn definitions_target(block: &FileBlock, scope: &Scope) -> Option<String> {
    let BlockKind::Whole(content) = &block.kind else {
        return None;
    };
    let mut owners = scope.by_definition.iter().filter(|path| {
        let seen: Vec<&String> = (scope.seen.get(*path).into_iter())
            .flat_map(|seen| &seen.definitions)
            .collect();
        let holds = |name: &str| {
            seen.iter()
                .any(|q| q.rsplit('.').next() == Some(name) || q.split('.').next() == Some(name))
        };
        crate::tools::outline::definitions(path, content)
            .unwrap_or_default()
            .iter()
            .any(|d| d.parent.is_none() && holds(&d.name))
    });
    match (owners.next(), owners.next()) {
        (Some(one), None) => Some(one.clone()),
        _ => None,
    }
}

/// The ways a whole-file block loses code of the file as the run first
/// showed it (or as it is, for a file not shown): empty content, an
/// elision such as `# ... rest of the code ...`, a definition the task does
/// not ask to remove, or a fragment in place of the file.
fn check_whole(path: &str, content: &str, root: &Path, scope: &Scope) -> Result<(), String> {
    let old = match scope.first.get(path) {
        Some(first) => first.clone(),
        None => match crate::fsutil::read_to_string(root.join(path)) {
            Ok(now) => now,
            Err(_) => return Ok(()),
        },
    };
    let again = "send the complete file, every line, unchanged ones too";
    match losses::loss(path, &old, content, scope.removal_allowed) {
        None => Ok(()),
        Some(Loss::Blank) => Err(format!(
            "the block for {path} is empty; send the complete new content of the file"
        )),
        Some(Loss::Elision(line)) => Err(format!(
            "the block for {path} leaves code out (`{line}`); {again}"
        )),
        Some(Loss::Dropped(line)) => Err(format!(
            "the block for {path} drops `{line}`, which the task does not ask to remove; {again}"
        )),
        Some(Loss::Shrunk {
            new_lines,
            old_lines,
        }) => Err(format!(
            "the block for {path} has {new_lines} lines where the file has {old_lines}; {again}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::edits::blocks::parse;
    use pretty_assertions::assert_eq;

    fn setup() -> (tempfile::TempDir, Scope) {
        let dir = tempfile::tempdir().unwrap();
        let lines: String = (1..=12).map(|i| format!("x{i} = {i}\n")).collect();
        std::fs::write(dir.path().join("utils.py"), lines).unwrap();
        std::fs::write(dir.path().join("test_utils.py"), "import utils\n").unwrap();
        std::fs::write(dir.path().join("other.py"), "y = 1\n").unwrap();
        let scope = Scope {
            editable: vec!["utils.py".into()],
            read_only: vec!["test_utils.py".into()],
            ..Scope::default()
        };
        (dir, scope)
    }

    fn verdicts(reply: &str, scope: &Scope, root: &Path) -> Vec<(String, Result<(), String>)> {
        let parsed = parse(reply, &scope.known());
        to_calls(&parsed.blocks, scope, root)
            .calls
            .into_iter()
            .map(|c| (c.call.function.name, c.verdict.map(|_| ())))
            .collect()
    }

    #[test]
    fn whole_files_in_scope_become_write_file() {
        let (dir, scope) = setup();
        let full: String = (1..=12).map(|i| format!("x{i} = {}\n", i * 2)).collect();
        let fixed: String = (1..=12)
            .map(|i| format!("x{i} = {i}\n"))
            .collect::<String>()
            + "z = 0\n";
        for reply in [
            format!("utils.py\n```python\n{fixed}```"),
            format!("```python\n{fixed}```"),
        ] {
            let parsed = parse(&reply, &scope.known());
            let calls = to_calls(&parsed.blocks, &scope, dir.path()).calls;
            assert_eq!(calls.len(), 1, "{reply}");
            assert_eq!(calls[0].call.function.name, "write_file");
            assert_eq!(
                calls[0].verdict.as_ref().unwrap()["content"],
                fixed.as_str()
            );
        }
        // A lone block that is not the file stays prose.
        assert!(verdicts(&format!("```python\n{full}```"), &scope, dir.path()).is_empty());
    }

    #[test]
    fn out_of_scope_and_lossy_blocks_are_refused_with_reasons() {
        let (dir, scope) = setup();
        let cases = [
            (
                "test_utils.py\n```\nimport utils\nassert True\n```",
                "shown for reference only",
            ),
            ("other.py\n```\ny = 2\n```", "was not shown to you"),
            (
                "src/main.rs\n```\nfn main() {}\n```",
                "creating src/main.rs is not part of this task",
            ),
            (
                "../outside.py\n```\nz = 1\n```",
                "../outside.py is outside the project; change only: utils.py",
            ),
            ("utils.py\n```\n```", "is empty"),
            (
                "utils.py\n```\nx1 = 1\n# ... rest of the code ...\n```",
                "leaves code out",
            ),
            ("utils.py\n```\nx1 = 1\nx2 = 2\n```", "drops `x3 = 3`"),
        ];
        for (reply, why) in cases {
            let got = verdicts(reply, &scope, dir.path());
            assert_eq!(got.len(), 1, "{reply}");
            let err = got[0].1.as_ref().unwrap_err();
            assert!(err.contains(why), "{reply}: {err}");
        }
    }

    /// Regression: the 1.5B model, asked to bump a version or add a method,
    /// sent the file without its last section or class.
    #[test]
    fn a_whole_file_that_drops_a_definition_is_refused_unless_asked() {
        let dir = tempfile::tempdir().unwrap();
        let old = "[project]\nname = \"w\"\nversion = \"1.1\"\n\n[tool.ruff]\nline-length = 100\n";
        std::fs::write(dir.path().join("p.toml"), old).unwrap();
        let mut scope = Scope {
            editable: vec!["p.toml".into()],
            ..Scope::default()
        };
        let short = "p.toml\n```toml\n[project]\nname = \"w\"\nversion = \"1.2\"\n```";
        let err = verdicts(short, &scope, dir.path())[0]
            .1
            .clone()
            .unwrap_err();
        assert!(err.contains("drops `[tool.ruff]`"), "{err}");
        let renamed = "p.toml\n```toml\n[project]\nname = \"w\"\nversion = \"1.2\"\n\n[tool.ruff]\nline-length = 120\n```";
        assert_eq!(verdicts(renamed, &scope, dir.path())[0].1, Ok(()));
        scope.removal_allowed = true;
        assert_eq!(verdicts(short, &scope, dir.path())[0].1, Ok(()));
        // A class that looks like the one kept is still a dropped class;
        // a renamed function is not.
        std::fs::write(
            dir.path().join("s.py"),
            "class Rectangle:\n    pass\n\n\nclass Square(Rectangle):\n    pass\n\n\ndef get_usr(i):\n    return i\n",
        )
        .unwrap();
        scope.editable = vec!["s.py".into()];
        scope.removal_allowed = false;
        let without_square = "s.py\n```\nclass Rectangle:\n    def area(self):\n        return 1\n\n\ndef get_usr(i):\n    return i\n```";
        let err = verdicts(without_square, &scope, dir.path())[0]
            .1
            .clone()
            .unwrap_err();
        assert!(err.contains("drops `class Square(Rectangle):`"), "{err}");
        let renamed = "s.py\n```\nclass Rectangle:\n    pass\n\n\nclass Square(Rectangle):\n    pass\n\n\ndef get_user(i):\n    return i\n```";
        assert_eq!(verdicts(renamed, &scope, dir.path())[0].1, Ok(()));
    }

    #[test]
    fn search_replace_pairs_become_edit_file_and_create_new_files() {
        let (dir, mut scope) = setup();
        scope.new.push("new.py".into());
        let reply = "utils.py\n```\n<<<<<<< SEARCH\nx1 = 1\n=======\nx1 = 10\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nx2 = 2\n=======\nx2 = 20\n>>>>>>> REPLACE\n```\nnew.py\n```\n<<<<<<< SEARCH\n=======\nprint(1)\n>>>>>>> REPLACE\n```";
        let parsed = parse(reply, &scope.known());
        let calls = to_calls(&parsed.blocks, &scope, dir.path()).calls;
        let names: Vec<&str> = calls
            .iter()
            .map(|c| c.call.function.name.as_str())
            .collect();
        assert_eq!(names, ["edit_file", "edit_file", "write_file"]);
        assert_eq!(
            calls[1].verdict.as_ref().unwrap()["new_string"],
            "x2 = 20\n"
        );
        assert_eq!(calls[2].verdict.as_ref().unwrap()["content"], "print(1)\n");
    }

    #[test]
    fn tails_and_absolute_paths_are_read_as_the_scope_file() {
        let (dir, mut scope) = setup();
        scope.editable = vec!["src/sum.js".into()];
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/sum.js"), "a\n").unwrap();
        let absolute = format!("{}/src/sum.js", dir.path().display());
        for path in ["sum.js", "./src/sum.js", absolute.as_str()] {
            let reply = format!("{path}\n```js\nb\n```");
            let got = verdicts(&reply, &scope, dir.path());
            assert_eq!(got, [("write_file".to_string(), Ok(()))], "{path}");
        }
    }
}
