//! A big file in parts: a file too long for a small model to read and
//! rewrite whole is shown by the definitions the task touches (those a
//! failing check's traceback points into, those the prompt or a shown test
//! names, else those that share the most words with the prompt), each with
//! its line numbers, and an outline of the rest.

use std::collections::BTreeSet;

use super::docstrings;
use super::relevance;
use crate::tools::outline::{self, Definition, Kind};

/// Files up to this many lines are shown whole. Measured on the 1.5B and
/// 0.5B models (docs/small-models.md): a whole-file reply of a longer file
/// takes minutes on a CPU and loses lines.
pub(crate) const WHOLE_FILE_MAX_LINES: usize = 150;
/// Files up to this many bytes are shown whole (long lines count too).
pub(crate) const WHOLE_FILE_MAX_BYTES: usize = 6 * 1024;
/// Definitions shown of one big file, at most.
const MAX_PARTS: usize = 4;
/// Entries of the outline of a big file, at most: functions and classes
/// (constants are left out), enough to ask for the right lines, not a
/// listing that costs more than the parts.
const MAX_OUTLINE: usize = 15;
/// Lines shown around a traceback line that is in no definition.
const WINDOW: usize = 12;

/// What the task is about, for choosing the parts of a big file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Focus {
    /// The prompt's words ([`relevance::words`]).
    pub words: BTreeSet<String>,
    /// Identifiers the task names: in the prompt, the traceback's frames,
    /// and the shown tests' code.
    pub names: BTreeSet<String>,
    /// The identifiers the prompt itself names: their definitions come
    /// before those only the tests' code uses.
    pub asked: BTreeSet<String>,
    /// Long docstrings are shown whole, not cut to their first line
    /// (`OC_DISABLE=docstrings`).
    pub whole_docstrings: bool,
}

/// The lines of a file (1-based) that point at its parts.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Pointed<'a> {
    /// What the evidence points at (a traceback, the test spectrum, the
    /// prompt's words): their definitions come first.
    pub evidence: &'a [usize],
    /// Where the prompt's names are used or listed: their definitions
    /// come after those the prompt names.
    pub uses: &'a [usize],
}

/// One shown part of a big file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    /// `Signer.get_signature`, or `lines 40-60` for a window.
    pub label: String,
    /// The qualified name of the definition, when it is one.
    pub definition: Option<String>,
    pub start_line: usize,
    pub end_line: usize,
    pub text: String,
}

/// A big file as shown: its size, an outline, and the parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parts {
    pub total_lines: usize,
    /// `name (start-end)` for the definitions not shown.
    pub outline: Vec<String>,
    pub pieces: Vec<Piece>,
}

/// Whether `text` is small enough to be shown and rewritten whole.
pub(crate) fn fits_whole(text: &str) -> bool {
    text.len() <= WHOLE_FILE_MAX_BYTES && text.lines().count() <= WHOLE_FILE_MAX_LINES
}

/// The parts of `text` (the file `path`) to show for `focus`, with the
/// lines `pointed` at in this file, within `budget` bytes (the first part
/// is shown whatever its size): the definitions around the evidence's
/// lines, those the prompt names, those around its names' uses, those a
/// shown test's code names.
pub(crate) fn choose(
    path: &str,
    text: &str,
    focus: &Focus,
    pointed: Pointed<'_>,
    budget: usize,
) -> Parts {
    let all: Vec<&str> = text.lines().collect();
    let defs = outline::definitions(path, text).unwrap_or_default();
    let around = |lines: &[usize]| -> Vec<Wanted> {
        let lines = lines.iter().filter(|&&l| l > 0);
        lines
            .map(|&line| innermost(&defs, line).map_or(Wanted::Window(line), Wanted::Def))
            .collect()
    };
    let mut wanted = around(pointed.evidence);
    // What the prompt names first: a test's code names many definitions
    // (seen: `Cache.clear` and three others in file order filled the
    // parts, and the `expire` the prompt asked about was not shown).
    let (asked, used): (Vec<&Definition>, Vec<&Definition>) = defs
        .iter()
        .filter(|d| focus.names.contains(&d.name) || focus.asked.contains(&d.name))
        .partition(|d| focus.asked.contains(&d.name));
    wanted.extend(asked.into_iter().map(Wanted::Def));
    wanted.extend(around(pointed.uses));
    wanted.extend(used.into_iter().map(Wanted::Def));
    if wanted.is_empty() {
        wanted.extend(
            best_by_words(&defs, &all, focus)
                .into_iter()
                .map(Wanted::Def),
        );
    }
    let mut pieces: Vec<Piece> = Vec::new();
    let mut used = 0;
    for want in wanted {
        let piece = match want {
            Wanted::Def(def) => piece_of_def(def, &defs, &all, focus),
            Wanted::Window(line) => window(line, &all),
        };
        // A definition longer than the whole budget is shown by the lines
        // the evidence points at in it, or else by its head.
        let piece = if piece.text.len() > budget && piece.definition.is_some() {
            let at = (pointed.evidence.iter())
                .chain(pointed.uses)
                .copied()
                .find(|&l| piece.start_line <= l && l <= piece.end_line);
            match at {
                Some(line) => window(line, &all),
                None => window_from(piece.start_line, piece.start_line + 2 * WINDOW, &all),
            }
        } else {
            piece
        };
        let overlaps = pieces
            .iter()
            .any(|p| p.start_line <= piece.end_line && piece.start_line <= p.end_line);
        if overlaps || pieces.len() >= MAX_PARTS {
            continue;
        }
        if !pieces.is_empty() && used + piece.text.len() > budget {
            continue;
        }
        used += piece.text.len();
        pieces.push(piece);
    }
    if pieces.is_empty() {
        // Nothing points anywhere: the top of the file (imports, the first
        // definitions), and the outline for the rest.
        pieces.push(window_from(1, (WINDOW * 3).min(all.len()), &all));
    }
    pieces.sort_by_key(|p| p.start_line);
    let outline = defs
        .iter()
        .filter(|d| {
            !pieces
                .iter()
                .any(|p| p.start_line <= d.start_line && d.end_line <= p.end_line)
        })
        .filter(|d| d.kind != Kind::Value);
    let outline = outline_entries(outline);
    Parts {
        total_lines: all.len(),
        outline,
        pieces,
    }
}

/// Lines `start..=end` of a big file as its one part, with the outline of
/// its definitions around them.
pub(crate) fn lines(path: &str, text: &str, start: usize, end: usize) -> Parts {
    let all: Vec<&str> = text.lines().collect();
    let start = start.clamp(1, all.len().max(1));
    let piece = window_from(start, end.max(start), &all);
    let defs = outline::definitions(path, text).unwrap_or_default();
    let outline = defs
        .iter()
        .filter(|d| d.end_line < piece.start_line || d.start_line > piece.end_line)
        .filter(|d| d.kind != Kind::Value);
    let outline = outline_entries(outline);
    Parts {
        total_lines: all.len(),
        outline,
        pieces: vec![piece],
    }
}

/// More of a big file the model was shown parts of (`seen`: line ranges)
/// and asks to read again: the definitions it has not seen that share the
/// most of the task's words, else the next ones in the file, within
/// `budget` bytes; `None` when it has seen them all.
pub(crate) fn choose_more(
    path: &str,
    text: &str,
    focus: &Focus,
    seen: &[(usize, usize)],
    budget: usize,
) -> Option<Parts> {
    let all: Vec<&str> = text.lines().collect();
    let defs = outline::definitions(path, text).unwrap_or_default();
    let unseen: Vec<Definition> = defs
        .iter()
        .filter(|d| d.kind != Kind::Container || d.lines() <= WHOLE_FILE_MAX_LINES / 2)
        .filter(|d| {
            !seen
                .iter()
                .any(|&(s, e)| s <= d.end_line && d.start_line <= e)
        })
        .cloned()
        .collect();
    let mut wanted: Vec<&Definition> = best_by_words(&unseen, &all, focus);
    wanted.extend(unseen.iter());
    let mut pieces: Vec<Piece> = Vec::new();
    let mut used = 0;
    for def in wanted {
        let piece = piece_of(def, &all, focus);
        let overlaps = pieces
            .iter()
            .any(|p| p.start_line <= piece.end_line && piece.start_line <= p.end_line);
        if overlaps || (!pieces.is_empty() && used + piece.text.len() > budget) {
            continue;
        }
        used += piece.text.len();
        pieces.push(piece);
        if pieces.len() >= MAX_PARTS {
            break;
        }
    }
    if pieces.is_empty() {
        return None;
    }
    pieces.sort_by_key(|p| p.start_line);
    let outline = defs
        .iter()
        .filter(|d| {
            !pieces
                .iter()
                .any(|p| p.start_line <= d.start_line && d.end_line <= p.end_line)
        })
        .filter(|d| d.kind != Kind::Value);
    let outline = outline_entries(outline);
    Some(Parts {
        total_lines: all.len(),
        outline,
        pieces,
    })
}

/// Outline entries `name (start-end)`, at most [`MAX_OUTLINE`], the last
/// saying how many more there are.
fn outline_entries<'a>(defs: impl Iterator<Item = &'a Definition>) -> Vec<String> {
    let defs: Vec<&Definition> = defs.collect();
    let mut entries: Vec<String> = defs
        .iter()
        .take(MAX_OUTLINE)
        .map(|d| format!("{} ({}-{})", d.qualified(), d.start_line, d.end_line))
        .collect();
    if defs.len() > MAX_OUTLINE {
        entries.push(format!("and {} more", defs.len() - MAX_OUTLINE));
    }
    entries
}

/// What a read of a big file already shown in parts is answered with: its
/// definitions and their lines, and how to see other lines.
pub(crate) fn outline_note(path: &str, text: &str) -> String {
    let total = text.lines().count();
    let all_defs = outline::definitions(path, text).unwrap_or_default();
    let defs = outline_entries(all_defs.iter().filter(|d| d.kind != Kind::Value));
    let listed = if defs.is_empty() {
        String::new()
    } else {
        format!(" Its definitions (lines): {}.", defs.join(", "))
    };
    format!(
        "{path} has {total} lines; the parts the task needs are shown above.{listed} To see other lines, ask for them: READ {path} START-END"
    )
}

enum Wanted<'a> {
    Def(&'a Definition),
    Window(usize),
}

/// The smallest definition holding `line`.
fn innermost(defs: &[Definition], line: usize) -> Option<&Definition> {
    defs.iter()
        .filter(|d| d.start_line <= line && line <= d.end_line)
        .min_by_key(|d| d.lines())
}

/// A definition as a piece; a long container is shown by its members
/// that the task names or whose words it shares (its first member else).
fn piece_of_def(def: &Definition, defs: &[Definition], all: &[&str], focus: &Focus) -> Piece {
    if def.kind == Kind::Container && def.lines() > WHOLE_FILE_MAX_LINES / 2 {
        let members: Vec<&Definition> = defs
            .iter()
            .filter(|m| {
                m.parent.as_deref() == Some(def.name.as_str())
                    && m.start_line > def.start_line
                    && m.end_line <= def.end_line
            })
            .collect();
        let named = members
            .iter()
            .copied()
            .find(|m| focus.names.contains(&m.name))
            .or_else(|| {
                let owned: Vec<Definition> = members.iter().map(|m| (*m).clone()).collect();
                best_by_words(&owned, all, focus).first().and_then(|best| {
                    members
                        .iter()
                        .copied()
                        .find(|m| m.start_line == best.start_line)
                })
            })
            .or_else(|| members.first().copied());
        if let Some(member) = named {
            return piece_of(member, all, focus);
        }
    }
    piece_of(def, all, focus)
}

fn piece_of(def: &Definition, all: &[&str], focus: &Focus) -> Piece {
    let mut piece = window_from(def.start_line, def.end_line, all);
    let doc = def.docstring.filter(|_| !focus.whole_docstrings);
    if let (Some(doc), Some(lines)) = (doc, all.get(def.start_line - 1..def.end_line)) {
        // A long docstring is cut to its first line: it stays as it is.
        let lines = docstrings::shorten(lines, def.start_line, doc);
        piece.text = lines.iter().map(|l| format!("{l}\n")).collect();
    }
    Piece {
        label: def.qualified(),
        definition: Some(def.qualified()),
        ..piece
    }
}

/// The lines around `line`.
fn window(line: usize, all: &[&str]) -> Piece {
    let start = line.saturating_sub(WINDOW).max(1);
    let end = (line + WINDOW).min(all.len());
    window_from(start, end, all)
}

fn window_from(start: usize, end: usize, all: &[&str]) -> Piece {
    let end = end.max(start).min(all.len().max(start));
    let text: String = all
        .get(start - 1..end)
        .unwrap_or_default()
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    Piece {
        label: format!("lines {start}-{end}"),
        definition: None,
        start_line: start,
        end_line: end,
        text,
    }
}

/// The functions (or, without any, the definitions) that share the most
/// of the task's words, two at most; their names count three times.
fn best_by_words<'a>(defs: &'a [Definition], all: &[&str], focus: &Focus) -> Vec<&'a Definition> {
    let mut scored: Vec<(f64, &Definition)> = defs
        .iter()
        .filter(|d| d.kind != Kind::Container || d.lines() <= WHOLE_FILE_MAX_LINES / 2)
        .map(|d| {
            let name_words = relevance::words(&d.name);
            let body: String = all[d.start_line - 1..d.end_line.min(all.len())].join("\n");
            let body_words = relevance::words(&body);
            let named = focus.words.intersection(&name_words).count() as f64;
            let shared = focus.words.intersection(&body_words).count() as f64;
            (named * 3.0 + shared, d)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.start_line.cmp(&b.1.start_line))
    });
    scored.into_iter().take(2).map(|(_, d)| d).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn module() -> String {
        let mut text = String::from("import hmac\n\n\nclass Signer:\n    key = 1\n");
        for name in ["derive_key", "get_signature", "sign", "unsign", "validate"] {
            text.push_str(&format!(
                "\n    def {name}(self, value):\n        \"\"\"{name}.\"\"\"\n{}        return value\n",
                "        value = value + 1\n".repeat(30)
            ));
        }
        text
    }

    fn labels(parts: &Parts) -> Vec<String> {
        parts.pieces.iter().map(|p| p.label.clone()).collect()
    }

    #[test]
    fn reading_again_shows_what_was_not_seen() {
        let text = module();
        let focus = Focus {
            words: relevance::words("the signature comes out wrong"),
            ..Focus::default()
        };
        // get_signature (41-73) was seen: the next best, then the next ones.
        let more = choose_more("s.py", &text, &focus, &[(41, 73)], 2500).unwrap();
        assert_eq!(labels(&more), ["Signer.derive_key", "Signer.sign"]);
        let all_seen = [(1, usize::MAX)];
        assert_eq!(choose_more("s.py", &text, &focus, &all_seen, 2500), None);
    }

    #[test]
    fn traceback_lines_and_names_choose_the_definitions() {
        let text = module();
        assert!(!fits_whole(&text));
        let focus = Focus::default();
        // Line 60 is inside `get_signature` (lines 41-73).
        let parts = choose(
            "s.py",
            &text,
            &focus,
            Pointed {
                evidence: &[60],
                ..Pointed::default()
            },
            10_000,
        );
        assert_eq!(labels(&parts), ["Signer.get_signature"]);
        assert!(
            parts.outline.contains(&"Signer.sign (75-107)".to_string()),
            "{:?}",
            parts.outline
        );
        let focus = Focus {
            names: ["unsign".to_string()].into(),
            ..Focus::default()
        };
        assert_eq!(
            labels(&choose("s.py", &text, &focus, Pointed::default(), 10_000)),
            ["Signer.unsign"]
        );
        // The prompt's names before the ones a test's code uses, whatever
        // their order in the file.
        let focus = Focus {
            names: ["derive_key", "get_signature", "sign", "unsign", "__init__"]
                .map(String::from)
                .into(),
            asked: ["unsign".to_string()].into(),
            ..Focus::default()
        };
        let parts = choose("s.py", &text, &focus, Pointed::default(), 3_000);
        assert!(
            labels(&parts).contains(&"Signer.unsign".to_string()),
            "{:?}",
            labels(&parts)
        );
        // Nothing named: the definitions that share the prompt's words.
        let focus = Focus {
            words: relevance::words("the signature comes out wrong"),
            ..Focus::default()
        };
        assert_eq!(
            labels(&choose("s.py", &text, &focus, Pointed::default(), 10_000)),
            ["Signer.get_signature"]
        );
        // Nothing at all: the top of the file.
        assert_eq!(
            labels(&choose(
                "s.py",
                &text,
                &Focus::default(),
                Pointed::default(),
                10_000
            )),
            ["lines 1-36"]
        );
    }

    #[test]
    fn a_definition_longer_than_the_budget_is_shown_around_its_evidence() {
        let body: String = (1..=300).map(|n| format!("    x{n} = {n}\n")).collect();
        let text = format!("def huge():\n{body}    return x1\n");
        let parts = choose(
            "m.py",
            &text,
            &Focus::default(),
            Pointed {
                evidence: &[200],
                ..Pointed::default()
            },
            1000,
        );
        assert_eq!(parts.pieces.len(), 1);
        let piece = &parts.pieces[0];
        assert!(
            piece.start_line <= 200 && 200 <= piece.end_line,
            "{piece:?}"
        );
        assert!(piece.text.len() < 1000, "{} bytes", piece.text.len());
        // With no line to go by, its head.
        let focus = Focus {
            asked: ["huge".to_string()].into(),
            ..Focus::default()
        };
        let parts = choose("m.py", &text, &focus, Pointed::default(), 1000);
        assert_eq!(parts.pieces[0].start_line, 1);
        assert!(parts.pieces[0].text.len() < 1000);
    }
}
