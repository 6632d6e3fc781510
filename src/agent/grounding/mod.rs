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

mod links;
mod prompt_words;
mod trails;

use links::{
    MAX_TESTS_PER_FILE, defines, files_mentioning, imported_by, resolve_named, resolve_piped,
    tests_of, workspace_files,
};
pub(crate) use prompt_words::tests_may_change;
use prompt_words::{code_names, creates_files, is_diff, path_tokens};

use super::file_kind::{is_doc, is_source_name, is_test};
use super::lexical;
use super::repo_map::{self, Ranked};
use super::spectrum::Suspect;
use super::traceback::{self, Location};
use crate::input;
use crate::vocab::Task;

/// A repository with at most this many source files is shown whole when
/// the prompt names nothing.
const SMALL_REPO_FILES: usize = 8;
/// Definitions the prompt's words match that are shown, at most.
const MAX_WORD_HITS: usize = 2;
/// Functions the failing tests ran that are shown, at most.
const MAX_SUSPECTS: usize = 3;
/// Files of a failing check's traceback shown, at most.
const MAX_TRACEBACK_FILES: usize = 4;
/// A code name found in more files than this is only looked for where it
/// is defined.
const MAX_MENTIONING_FILES: usize = 6;

/// Why a file is part of the grounding, and whether it may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum FileRole {
    /// The task is about changing it.
    Editable,
    /// Shown for reference (tests, docs, callers).
    ReadOnly,
    /// Named in the prompt, does not exist yet: to be created.
    New,
}

/// One file of the grounding, relative to the workspace (`/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grounded {
    pub path: String,
    pub role: FileRole,
    /// Lines the evidence points at in this file (1-based): a failing
    /// check's traceback, the functions the failing tests ran, the
    /// definitions the prompt's words match.
    pub lines: Vec<usize>,
    /// Lines where the prompt's names are used or listed ([`trails`]):
    /// shown after the definitions the prompt names.
    pub uses: Vec<usize>,
    /// Why it is shown, for the note on stderr: "the prompt names it".
    pub why: String,
}

/// What the first turn shows: the files, and, when the prompt names
/// nothing in a repository too big to show, the repository map.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grounding {
    pub files: Vec<Grounded>,
    /// The ranked files of the repository map, when one is shown.
    pub map: Option<Vec<Ranked>>,
    /// The code names the prompt mentions.
    pub names: BTreeSet<String>,
    /// Whether tests may change: the task is about them.
    pub tests_editable: bool,
    /// Whether the repository has at most [`SMALL_REPO_FILES`] source
    /// files besides its tests.
    pub small_repository: bool,
}

/// What a failing check says before the first request.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Evidence<'a> {
    /// The places its output names (tracebacks).
    pub failure: &'a [Location],
    /// The functions its failing tests ran, most suspicious first.
    pub suspects: &'a [Suspect],
}

/// Which leads from the prompt to the code are followed, each a heuristic
/// `OC_DISABLE` can switch off for the localisation benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leads {
    /// The definitions the prompt's words match ([`lexical`]), when
    /// nothing else points into code.
    pub words: bool,
    /// Where the prompt's names lead besides their definitions
    /// ([`trails`]).
    pub trails: bool,
}

impl Default for Leads {
    fn default() -> Leads {
        Leads {
            words: true,
            trails: true,
        }
    }
}

/// Picks the files for `prompt` in the workspace at `root`, most important
/// first: editable, then read-only, then new. `failure` are the places a
/// failing check's output names. Piped context (the prompt's `<stdin>`
/// block) may point at existing files (diff headers, log lines, a
/// traceback's frames), never at files to create; when the task is an
/// answer and the context is a diff, the diff is what the answer is about
/// and nothing else is shown. `leads` says which further leads to follow.
pub(crate) fn select(
    prompt: &str,
    root: &Path,
    evidence: &Evidence<'_>,
    task: Task,
    leads: Leads,
) -> Grounding {
    let files = workspace_files(root);
    let instruction = input::instruction(prompt);
    let piped = input::context(prompt).unwrap_or_default();
    let tests_editable = tests_may_change(instruction);
    let mut picked = named_files(instruction, &files, task);
    if task == Task::Answer && is_diff(piped) {
        return Grounding {
            files: picked,
            ..Grounding::default()
        };
    }
    add_pointed_at(&mut picked, piped, evidence.failure, root, &files);
    add_suspects(&mut picked, evidence.suspects, &files);
    // The tests a failing check points into are the ones that matter.
    let failing_tests = picked
        .iter()
        .any(|g| is_test(&g.path) && !g.lines.is_empty());
    let names = code_names(instruction);
    add_code_names(
        &mut picked,
        &names,
        root,
        &files,
        tests_editable,
        failing_tests,
    );
    // Found from what the prompt names or the check points at, rather
    // than through the tests.
    let direct = picked.iter().any(|g| g.role != FileRole::ReadOnly);
    if !failing_tests {
        add_tests_of_editable(&mut picked, root, &files);
    }
    let tests: Vec<String> = picked
        .iter()
        .filter(|g| is_test(&g.path))
        .map(|g| g.path.clone())
        .collect();
    // The names the prompt's words lead to count as named for the trails.
    let mut named = names.clone();
    if !direct {
        add_imported(&mut picked, &tests, root, &files);
        if leads.words {
            named.extend(add_word_hits(&mut picked, instruction, root, &files));
        }
        // A task about tests ("fix the test for chunked") changes the
        // tests of the code its words found.
        if tests_editable {
            add_tests_of_editable(&mut picked, root, &files);
        }
    }
    if leads.trails {
        for trail in trails::follow(&named, root, &files, task != Task::Answer) {
            add(&mut picked, &trail.path, FileRole::Editable, &trail.why);
            if let Some(g) = picked.iter_mut().find(|g| g.path == trail.path) {
                for line in trail.lines {
                    if !g.uses.contains(&line) {
                        g.uses.push(line);
                    }
                }
            }
        }
    }
    // What the named tests say, for ranking the map.
    let story = test_story(&names, &tests, &picked, root);
    let map = add_fallback(&mut picked, prompt, &story, root, &files, direct);
    // Nothing editable but context: the context is what may change, but
    // a test only when the task is about tests or nothing else is code.
    if !picked.iter().any(|g| g.role != FileRole::ReadOnly) {
        let code_besides_tests = files.iter().any(|f| is_source_name(f) && !is_test(f));
        for g in &mut picked {
            if !is_test(&g.path) || tests_editable || !code_besides_tests {
                g.role = FileRole::Editable;
            }
        }
    }
    // A task about tests may change every test it is shown.
    if tests_editable {
        let shown_tests = picked.iter_mut().filter(|g| is_test(&g.path));
        for g in shown_tests.filter(|g| g.role == FileRole::ReadOnly) {
            g.role = FileRole::Editable;
        }
    }
    picked.sort_by_key(|g| g.role);
    let sources = files.iter().filter(|f| is_source_name(f) && !is_test(f));
    Grounding {
        files: picked,
        map,
        names: names.into_iter().collect(),
        tests_editable,
        small_repository: sources.count() <= SMALL_REPO_FILES,
    }
}

/// The files the instruction names by path: those of the workspace, and
/// source files to create when it asks for new files (and no answer).
fn named_files(instruction: &str, files: &[String], task: Task) -> Vec<Grounded> {
    let mut picked: Vec<Grounded> = Vec::new();
    let creating = creates_files(instruction) && task != Task::Answer;
    for token in path_tokens(instruction) {
        match resolve_named(&token, files) {
            Some(path) => add(
                &mut picked,
                &path,
                default_role(&path),
                "the prompt names it",
            ),
            None if creating && is_source_name(&token) => {
                add(
                    &mut picked,
                    &token,
                    FileRole::New,
                    "the prompt names it, to create",
                );
            }
            None => {}
        }
    }
    picked
}

/// Adds the existing files the piped context names, then those a failing
/// check's places (`failure`) and a piped traceback point at.
fn add_pointed_at(
    picked: &mut Vec<Grounded>,
    piped: &str,
    failure: &[Location],
    root: &Path,
    files: &[String],
) {
    for token in path_tokens(piped) {
        if let Some(path) = resolve_piped(&token, files) {
            add(
                picked,
                &path,
                default_role(&path),
                "the piped text names it",
            );
        }
    }
    add_failure(picked, failure, root, files);
    // A traceback piped in points at files and lines as a failing check's does.
    add_failure(picked, &traceback::locations(piped), root, files);
}

/// Adds the files the prompt's code `names` bring; not their tests (unless
/// tests may change) when a failing check points into tests.
fn add_code_names(
    picked: &mut Vec<Grounded>,
    names: &[String],
    root: &Path,
    files: &[String],
    tests_editable: bool,
    failing_tests: bool,
) {
    for name in names {
        for (path, role) in files_for_name(name, root, files, tests_editable) {
            if !(failing_tests && is_test(&path) && !tests_editable) {
                let why = if role == FileRole::Editable {
                    format!("it holds `{name}`, which the prompt names")
                } else {
                    format!("it uses `{name}`, which the prompt names")
                };
                add(picked, &path, role, &why);
            }
        }
    }
}

/// Adds, for reference, the tests of each file that may change: they say
/// what it must do.
fn add_tests_of_editable(picked: &mut Vec<Grounded>, root: &Path, files: &[String]) {
    let editable: Vec<String> = picked
        .iter()
        .filter(|g| g.role == FileRole::Editable && !is_test(&g.path))
        .map(|g| g.path.clone())
        .collect();
    for path in &editable {
        for test in tests_of(path, root, files) {
            add(
                picked,
                &test,
                FileRole::ReadOnly,
                &format!("it tests {path}"),
            );
        }
    }
}

/// Adds, to change, the modules the shown `tests` import: they are what
/// the tests are about.
fn add_imported(picked: &mut Vec<Grounded>, tests: &[String], root: &Path, files: &[String]) {
    for test in tests {
        for path in imported_by(test, root, files) {
            add(
                picked,
                &path,
                FileRole::Editable,
                &format!("{test} imports it"),
            );
        }
    }
}

/// The fallback when the prompt leads to no code: with nothing picked in a
/// small repository, every source file; with nothing found to change
/// (`direct`) in a bigger one, the map (ranked by the prompt and the tests'
/// `story`) and the file it ranks first when nothing may change yet.
/// Returns the map when one is shown.
fn add_fallback(
    picked: &mut Vec<Grounded>,
    prompt: &str,
    story: &str,
    root: &Path,
    files: &[String],
    direct: bool,
) -> Option<Vec<Ranked>> {
    let sources: Vec<&String> = files.iter().filter(|f| is_source_name(f)).collect();
    if picked.is_empty() && sources.len() <= SMALL_REPO_FILES {
        for path in sources {
            add(picked, path, default_role(path), "the repository is small");
        }
        None
    } else if !direct && sources.len() > SMALL_REPO_FILES {
        // Nothing the prompt names is code to change: the map, and the
        // file it ranks first when nothing else may change.
        let mut words = super::relevance::words(prompt);
        words.extend(super::relevance::words(story));
        let ranked = repo_map::rank(root, files, &words);
        let best = ranked.iter().find(|r| r.score > 0.0 && !is_test(&r.path));
        if let Some(best) = best.filter(|_| !picked.iter().any(|g| g.role == FileRole::Editable)) {
            add(
                picked,
                &best.path,
                FileRole::Editable,
                "the map ranks it first",
            );
        }
        Some(ranked)
    } else {
        None
    }
}

/// Adds, to change, the files of the functions the failing tests ran and
/// the passing ones did not (at most [`MAX_SUSPECTS`], scoring at least
/// half the best), with their first lines for the parts to show.
fn add_suspects(picked: &mut Vec<Grounded>, suspects: &[Suspect], files: &[String]) {
    let best = suspects.first().map_or(0.0, |s| s.score);
    let chosen = suspects
        .iter()
        .filter(|s| s.score > 0.0 && s.score >= best / 2.0)
        .filter(|s| !is_test(&s.path) && files.contains(&s.path))
        .take(MAX_SUSPECTS);
    for (rank, suspect) in chosen.enumerate() {
        let why = format!(
            "the failing tests ran `{}` (suspect {} by the test spectrum)",
            suspect.name,
            rank + 1
        );
        add(picked, &suspect.path, FileRole::Editable, &why);
        add_lines(picked, &suspect.path, &[suspect.line]);
    }
}

/// Adds, to change, the definitions the prompt's words match best
/// ([`lexical`]: at most [`MAX_WORD_HITS`], scoring at least half the
/// best), with their first lines for the parts to show, when neither the
/// prompt's names nor a failing check point into code. Returns the
/// definitions' names.
fn add_word_hits(
    picked: &mut Vec<Grounded>,
    instruction: &str,
    root: &Path,
    files: &[String],
) -> Vec<String> {
    let pointed = picked
        .iter()
        .any(|g| !is_test(&g.path) && !g.lines.is_empty());
    if pointed {
        return Vec::new();
    }
    let mut names = Vec::new();
    let hits = lexical::rank(instruction, root, files);
    let mut sources = hits.iter().filter(|h| !h.test).peekable();
    let best = sources.peek().map_or(0.0, |h| h.score);
    for hit in sources
        .filter(|h| h.score >= best / 2.0)
        .take(MAX_WORD_HITS)
    {
        let why = format!("the prompt's words match `{}`", hit.name);
        add(picked, &hit.path, FileRole::Editable, &why);
        add_lines(picked, &hit.path, &[hit.line]);
        let short = hit.name.rsplit('.').next().unwrap_or(&hit.name);
        names.push(short.to_string());
    }
    names
}

/// The files a code name of the prompt brings, and their roles: the files
/// that define it may change, and a few tests that use it are for
/// reference; the other files that mention it (imports, re-exports, docs)
/// only when none defines it or the task is a rename (`everywhere`), where
/// all of them may change (docs stay for reference).
fn files_for_name(
    name: &str,
    root: &Path,
    files: &[String],
    rename: bool,
) -> Vec<(String, FileRole)> {
    let mentioning = files_mentioning(name, root, files);
    let definers: Vec<&String> = mentioning
        .iter()
        .filter(|f| !is_test(f) && !is_doc(f) && defines(name, root, f))
        .collect();
    let all = rename || (definers.is_empty() && mentioning.len() <= MAX_MENTIONING_FILES);
    let mut tests = 0;
    let mut chosen = Vec::new();
    for path in &mentioning {
        let test = is_test(path) && !rename;
        let role = if is_doc(path) || test {
            FileRole::ReadOnly
        } else {
            FileRole::Editable
        };
        if test {
            tests += 1;
        }
        if all || definers.contains(&path) || (test && tests <= MAX_TESTS_PER_FILE) {
            chosen.push((path.clone(), role));
        }
    }
    chosen
}

/// The files and lines a failing check names: source files may change,
/// tests are for reference; the innermost frames first.
fn add_failure(picked: &mut Vec<Grounded>, failure: &[Location], root: &Path, files: &[String]) {
    let mut found: Vec<(String, usize)> = failure
        .iter()
        .filter_map(|l| traceback::resolve(&l.path, root, files).map(|p| (p, l.line)))
        .collect();
    // Python prints the innermost frame last.
    found.reverse();
    let mut order: Vec<String> = Vec::new();
    for (path, _) in &found {
        if !order.contains(path) {
            order.push(path.clone());
        }
    }
    order.sort_by_key(|p| is_test(p));
    for path in order.into_iter().take(MAX_TRACEBACK_FILES) {
        let role = if is_test(&path) {
            FileRole::ReadOnly
        } else {
            FileRole::Editable
        };
        add(
            picked,
            &path,
            role,
            "the failing check's traceback points into it",
        );
        let lines: Vec<usize> = found
            .iter()
            .filter(|(p, line)| *p == path && *line > 0)
            .map(|(_, line)| *line)
            .collect();
        add_lines(picked, &path, &lines);
    }
}

/// The text of the tests the task is about: the test functions the prompt
/// names, else the lines a failing check points at in the tests.
fn test_story(names: &[String], tests: &[String], picked: &[Grounded], root: &Path) -> String {
    let mut story = String::new();
    for test in tests {
        let Ok(text) = crate::fsutil::read_to_string(root.join(test)) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let defs = crate::tools::outline::definitions(test, &text).unwrap_or_default();
        for def in defs.iter().filter(|d| names.contains(&d.name)) {
            story.push_str(&lines[def.start_line - 1..def.end_line.min(lines.len())].join("\n"));
            story.push('\n');
        }
        let pointed = picked
            .iter()
            .filter(|g| &g.path == test)
            .flat_map(|g| &g.lines);
        for line in pointed.filter_map(|&n| lines.get(n.saturating_sub(1))) {
            story.push_str(line);
            story.push('\n');
        }
    }
    story
}

/// Adds `path` with `role` because of `why`; editable wins over read-only
/// when two reasons meet, and its reason is the one said.
fn add(picked: &mut Vec<Grounded>, path: &str, role: FileRole, why: &str) {
    match picked.iter_mut().find(|g| g.path == path) {
        Some(g) if role < g.role => {
            g.role = role;
            g.why = why.to_string();
        }
        Some(_) => {}
        None => picked.push(Grounded {
            path: path.to_string(),
            role,
            lines: Vec::new(),
            uses: Vec::new(),
            why: why.to_string(),
        }),
    }
}

/// Adds `lines` (1-based) to those the evidence points at in the picked
/// file `path`.
fn add_lines(picked: &mut [Grounded], path: &str, lines: &[usize]) {
    if let Some(g) = picked.iter_mut().find(|g| g.path == path) {
        for line in lines {
            if !g.lines.contains(line) {
                g.lines.push(*line);
            }
        }
    }
}

/// Tests and docs are context by default; everything else may change.
fn default_role(path: &str) -> FileRole {
    if is_test(path) || is_doc(path) {
        FileRole::ReadOnly
    } else {
        FileRole::Editable
    }
}
#[cfg(test)]
mod tests;
