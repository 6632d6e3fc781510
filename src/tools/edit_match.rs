//! The `edit_file` matcher: finds `old_string` in a file with progressively
//! looser stages and replaces it while keeping the file's conventions.
//!
//! Stages, tried in order; the first with any candidate decides:
//! 1. exact (line endings aside: a CRLF file is matched in its LF view);
//! 2. equal after trimming the end of each line;
//! 3. equal after trimming both ends of each line;
//! 4. whitespace-normalised: runs of spaces and tabs equal, indentation
//!    width ignored;
//! 5. fuzzy: the window of lines most similar to `old_string` (character
//!    bigram similarity of the normalised lines, at least
//!    [`FUZZY_THRESHOLD`]), when it is clearly better than any other.
//!
//! Each stage applies the uniqueness rule: several candidates without
//! `replace_all` is an error listing their line numbers. The replacement
//! keeps the file's line endings, BOM, trailing newline and indentation
//! style; from stage 3 on `new_string` is re-indented relative to the
//! matched block. Lines outside the match never change. Pure: no I/O.

use super::similarity::{Bigrams, Signature};
use std::fmt;

/// Least mean line similarity (0–1) a fuzzy candidate needs.
pub(crate) const FUZZY_THRESHOLD: f64 = 0.8;
/// How many roughly scored windows are scored exactly.
const FUZZY_RESCORED: usize = 32;
/// A fuzzy candidate must beat the runner-up by this much to be unique.
const FUZZY_MARGIN: f64 = 0.05;

/// Which stage matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    Exact,
    TrailingWhitespace,
    TrimmedLines,
    WhitespaceNormalized,
    Fuzzy,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Exact => "exact",
            Stage::TrailingWhitespace => "trailing whitespace ignored",
            Stage::TrimmedLines => "surrounding whitespace ignored",
            Stage::WhitespaceNormalized => "whitespace normalised",
            Stage::Fuzzy => "fuzzy",
        })
    }
}

/// A successful edit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Edit {
    /// The whole new file text.
    pub text: String,
    pub stage: Stage,
    /// 1-based first line of each replaced occurrence, in the original file.
    pub lines: Vec<usize>,
    /// For a fuzzy match, the similarity of the matched block (0–1).
    pub similarity: Option<f64>,
}

/// Replaces `old` with `new` in `text`; see the module docs.
///
/// Errors: a message for the model: empty or identical strings, several
/// candidates (with their lines), or no candidate (with the closest lines,
/// numbered, tabs shown as `→`, and what to do).
pub(crate) fn apply(text: &str, old: &str, new: &str, replace_all: bool) -> Result<Edit, String> {
    if old.is_empty() {
        return Err("old_string is empty; to create or replace a whole file use write_file".into());
    }
    if old == new {
        return Err("old_string and new_string are the same; nothing would change".into());
    }
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let old_lf = old.replace("\r\n", "\n");
    let new_lf = new.replace("\r\n", "\n");

    let file = LineFile::parse(body);
    if let Some(edit) = exact(&file, body, &old_lf, &new_lf, replace_all)? {
        return Ok(Edit {
            text: format!("{bom}{}", edit.text),
            ..edit
        });
    }
    let old_lines = split_lines(&old_lf);
    let new_lines = split_lines(&new_lf);
    for stage in [
        Stage::TrailingWhitespace,
        Stage::TrimmedLines,
        Stage::WhitespaceNormalized,
    ] {
        let starts = file.windows_matching(&old_lines, |a, b| same_line(stage, a, b));
        if starts.is_empty() {
            continue;
        }
        let starts = unique_or_all(starts, old_lines.len(), replace_all, stage)?;
        let text = file.replace(&starts, old_lines.len(), &new_lines, &old_lines, stage);
        return Ok(Edit {
            text: format!("{bom}{text}"),
            stage,
            lines: starts.iter().map(|s| s + 1).collect(),
            similarity: None,
        });
    }
    let scored = file.fuzzy_windows(&old_lines);
    // One line is too little to tell a typo from another line
    // (`timeout = 300` against `timeout = 30`): no fuzzy match for it.
    let fuzzy_allowed = old_lines.iter().filter(|l| !l.trim().is_empty()).count() >= 2;
    match scored.first() {
        Some(&(start, score)) if score >= FUZZY_THRESHOLD && fuzzy_allowed => {
            let rival = scored.iter().skip(1).find(|(s, _)| s.abs_diff(start) >= old_lines.len().max(1));
            if let Some(&(other, other_score)) =
                rival.filter(|(_, other_score)| score - other_score < FUZZY_MARGIN)
            {
                return Err(format!(
                    "old_string was not found exactly; the closest blocks are equally similar (lines {} and {}, similarity {:.2} and {:.2}). Copy the exact text from read_file and add surrounding lines to make it unique",
                    start + 1,
                    other + 1,
                    score,
                    other_score
                ));
            }
            let text = file.replace(&[start], old_lines.len(), &new_lines, &old_lines, Stage::Fuzzy);
            Ok(Edit {
                text: format!("{bom}{text}"),
                stage: Stage::Fuzzy,
                lines: vec![start + 1],
                similarity: Some(score),
            })
        }
        Some(&(start, score)) => Err(not_found(&file, start, old_lines.len(), score, fuzzy_allowed)),
        None => Err("old_string was not found, and the file has fewer lines than old_string. Read the file again with read_file".into()),
    }
}

/// The exact stage, on the raw text, or on its LF view for a file whose
/// lines all end in CRLF.
fn exact(
    file: &LineFile<'_>,
    body: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Option<Edit>, String> {
    let crlf = file.uniform_crlf();
    let view = if crlf {
        body.replace("\r\n", "\n")
    } else {
        body.to_string()
    };
    let starts: Vec<usize> = view.match_indices(old).map(|(i, _)| i).collect();
    if starts.is_empty() {
        return Ok(None);
    }
    let lines: Vec<usize> = starts
        .iter()
        .map(|&i| view[..i].matches('\n').count() + 1)
        .collect();
    if starts.len() > 1 && !replace_all {
        return Err(several(Stage::Exact, &lines));
    }
    let replaced = if replace_all {
        view.replace(old, new)
    } else {
        view.replacen(old, new, 1)
    };
    let text = if crlf {
        replaced.replace('\n', "\r\n")
    } else {
        replaced
    };
    Ok(Some(Edit {
        text,
        stage: Stage::Exact,
        lines,
        similarity: None,
    }))
}

fn several(stage: Stage, lines: &[usize]) -> String {
    let list: Vec<String> = lines.iter().map(usize::to_string).collect();
    format!(
        "old_string matches {} places (lines {}; match: {stage}); add surrounding lines to make it unique, or set replace_all to true",
        lines.len(),
        list.join(", ")
    )
}

fn unique_or_all(
    starts: Vec<usize>,
    len: usize,
    replace_all: bool,
    stage: Stage,
) -> Result<Vec<usize>, String> {
    // Overlapping windows (repeated lines) count once.
    let mut kept: Vec<usize> = Vec::new();
    for start in starts {
        if kept.last().is_none_or(|&last| start >= last + len.max(1)) {
            kept.push(start);
        }
    }
    if kept.len() > 1 && !replace_all {
        let lines: Vec<usize> = kept.iter().map(|s| s + 1).collect();
        return Err(several(stage, &lines));
    }
    Ok(kept)
}

fn not_found(file: &LineFile<'_>, start: usize, len: usize, score: f64, fuzzy: bool) -> String {
    let why = if fuzzy {
        format!("below the {FUZZY_THRESHOLD} needed")
    } else {
        "a single line must match exactly, whitespace aside".to_string()
    };
    let mut message = format!(
        "old_string was not found (closest: lines {}-{}, similarity {score:.2}; {why}):\n",
        start + 1,
        start + len.max(1)
    );
    for (i, line) in file
        .lines
        .iter()
        .enumerate()
        .skip(start)
        .take(len.clamp(1, 12))
    {
        message.push_str(&format!(
            "{:>6}\t{}\n",
            i + 1,
            line.content.replace('\t', "→")
        ));
    }
    message.push_str("Tabs are shown as →. Read the file again with read_file and copy the lines exactly, or add context");
    message
}

/// `text` split into lines without their endings; a final line ending does
/// not make an empty last line.
fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.split('\n').collect()
}

/// Whether two lines are equal under `stage`'s normalisation, without
/// allocating.
fn same_line(stage: Stage, a: &str, b: &str) -> bool {
    match stage {
        Stage::Exact => a == b,
        Stage::TrailingWhitespace => a.trim_end() == b.trim_end(),
        Stage::TrimmedLines => a.trim() == b.trim(),
        Stage::WhitespaceNormalized | Stage::Fuzzy => a.split_whitespace().eq(b.split_whitespace()),
    }
}

/// One line of the file and the ending it had.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    content: &'a str,
    /// `"\r\n"`, `"\n"` or `""` (last line without newline).
    eol: &'a str,
}

/// The file as lines, endings kept.
struct LineFile<'a> {
    lines: Vec<Line<'a>>,
}

impl<'a> LineFile<'a> {
    fn parse(text: &'a str) -> Self {
        let mut lines = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            match rest.find('\n') {
                Some(i) => {
                    let (content, eol) = if i > 0 && rest.as_bytes()[i - 1] == b'\r' {
                        (&rest[..i - 1], &rest[i - 1..=i])
                    } else {
                        (&rest[..i], &rest[i..=i])
                    };
                    lines.push(Line { content, eol });
                    rest = &rest[i + 1..];
                }
                None => {
                    lines.push(Line {
                        content: rest,
                        eol: "",
                    });
                    rest = "";
                }
            }
        }
        LineFile { lines }
    }

    fn uniform_crlf(&self) -> bool {
        let mut endings = self.lines.iter().filter(|l| !l.eol.is_empty()).peekable();
        endings.peek().is_some() && endings.all(|l| l.eol == "\r\n")
    }

    /// The ending used for new lines: the file's most common one.
    fn dominant_eol(&self) -> &'a str {
        let crlf = self.lines.iter().filter(|l| l.eol == "\r\n").count();
        let lf = self.lines.iter().filter(|l| l.eol == "\n").count();
        if crlf > lf { "\r\n" } else { "\n" }
    }

    fn windows_matching(&self, old: &[&str], same: impl Fn(&str, &str) -> bool) -> Vec<usize> {
        if old.is_empty() || old.len() > self.lines.len() {
            return Vec::new();
        }
        (0..=self.lines.len() - old.len())
            .filter(|&start| {
                old.iter()
                    .enumerate()
                    .all(|(i, o)| same(self.lines[start + i].content, o))
            })
            .collect()
    }

    /// The windows most similar to `old`, best first, scored by mean line
    /// similarity. Every window is first scored cheaply with bigram
    /// signatures; the best [`FUZZY_RESCORED`] are then scored exactly.
    fn fuzzy_windows(&self, old: &[&str]) -> Vec<(usize, f64)> {
        if old.is_empty() || old.len() > self.lines.len() {
            return Vec::new();
        }
        let old_sigs: Vec<Signature> = old.iter().map(|l| Signature::of(l)).collect();
        let file_sigs: Vec<Signature> = self
            .lines
            .iter()
            .map(|l| Signature::of(l.content))
            .collect();
        let mut rough: Vec<(usize, f64)> = (0..=self.lines.len() - old.len())
            .map(|start| {
                let total: f64 = old_sigs
                    .iter()
                    .enumerate()
                    .map(|(i, s)| s.dice(&file_sigs[start + i]))
                    .sum();
                (start, total)
            })
            .collect();
        let keep = FUZZY_RESCORED.min(rough.len());
        rough.select_nth_unstable_by(keep - 1, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        rough.truncate(keep);
        let old_grams: Vec<Bigrams> = old.iter().map(|l| Bigrams::of(l)).collect();
        let mut scored: Vec<(usize, f64)> = rough
            .into_iter()
            .map(|(start, _)| {
                let total: f64 = old_grams
                    .iter()
                    .enumerate()
                    .map(|(i, g)| g.dice(&Bigrams::of(self.lines[start + i].content)))
                    .sum();
                (start, total / old.len() as f64)
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }

    /// The file with the `len`-line windows at `starts` replaced by `new`,
    /// re-indented (from [`Stage::TrimmedLines`] on) to the matched block.
    fn replace(
        &self,
        starts: &[usize],
        len: usize,
        new: &[&str],
        old: &[&str],
        stage: Stage,
    ) -> String {
        let eol = self.dominant_eol();
        let mut out = String::new();
        let mut next = 0;
        for &start in starts {
            for line in &self.lines[next..start] {
                out.push_str(line.content);
                out.push_str(line.eol);
            }
            let block = &self.lines[start..start + len];
            let last_eol = block.last().map_or(eol, |l| l.eol);
            let replacement: Vec<String> = if stage >= Stage::TrimmedLines {
                reindent(new, old, block, &self.lines)
            } else {
                new.iter().map(|s| s.to_string()).collect()
            };
            let count = replacement.len();
            for (i, line) in replacement.iter().enumerate() {
                out.push_str(line);
                out.push_str(if i + 1 == count { last_eol } else { eol });
            }
            next = start + len;
        }
        for line in &self.lines[next..] {
            out.push_str(line.content);
            out.push_str(line.eol);
        }
        out
    }
}

/// Indentation style of a file: tabs, or spaces with a unit width.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Indent {
    Tabs,
    Spaces(usize),
}

impl Indent {
    fn detect<'a>(lines: impl Iterator<Item = &'a str>) -> Option<Indent> {
        let mut tabs = 0;
        let mut widths: Vec<usize> = Vec::new();
        for line in lines.filter(|l| !l.trim().is_empty()) {
            let lead = leading(line);
            if lead.starts_with('\t') {
                tabs += 1;
            } else if !lead.is_empty() {
                widths.push(lead.len());
            }
        }
        if tabs > 0 && tabs >= widths.len() {
            return Some(Indent::Tabs);
        }
        let unit = widths.iter().copied().filter(|&w| w > 0).min()?;
        Some(Indent::Spaces(unit.clamp(1, 8)))
    }

    fn render(self, levels: usize) -> String {
        match self {
            Indent::Tabs => "\t".repeat(levels),
            Indent::Spaces(unit) => " ".repeat(levels * unit),
        }
    }

    /// Width of a leading-whitespace string in levels of this style.
    fn levels(self, lead: &str, tab_width: usize) -> usize {
        let columns: usize = lead
            .chars()
            .map(|c| if c == '\t' { tab_width } else { 1 })
            .sum();
        let unit = match self {
            Indent::Tabs => tab_width,
            Indent::Spaces(unit) => unit,
        };
        columns.div_ceil(unit.max(1))
    }
}

fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// `new` re-indented: its indentation relative to its anchor (normally
/// `old`'s first non-blank line) is rebuilt on top of the matched block's
/// indentation, in the file's style.
fn reindent(new: &[&str], old: &[&str], block: &[Line<'_>], file: &[Line<'_>]) -> Vec<String> {
    let old_style =
        Indent::detect(old.iter().copied().chain(new.iter().copied())).unwrap_or(Indent::Spaces(4));
    let file_style = Indent::detect(file.iter().map(|l| l.content)).unwrap_or(old_style);
    let tab_width = match old_style {
        Indent::Spaces(unit) => unit,
        Indent::Tabs => 4,
    };
    let first_lead = |lines: &[&str]| -> String {
        lines
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or(String::new(), |l| leading(l).to_string())
    };
    // New text is anchored at old_string's indentation; when its own first
    // line disagrees (a model that dropped or changed the indentation of
    // everything), at its own first line.
    let old_first = first_lead(old);
    let new_first = first_lead(new);
    let anchor = if new_first == old_first {
        old_first
    } else {
        new_first
    };
    let old_base = anchor.as_str();
    let file_base = block
        .iter()
        .find(|l| !l.content.trim().is_empty())
        .map_or("", |l| leading(l.content));
    let old_base_levels = old_style.levels(old_base, tab_width) as isize;
    let file_base_levels = file_style.levels(file_base, tab_width) as isize;
    new.iter()
        .map(|line| {
            if line.trim().is_empty() {
                return String::new();
            }
            let lead = leading(line);
            let body = &line[lead.len()..];
            if let Some(extra) = lead.strip_prefix(old_base) {
                // Same base: keep the file's base exactly, convert the rest.
                let extra_levels = old_style.levels(extra, tab_width);
                let extra = if extra.is_empty() {
                    String::new()
                } else {
                    file_style.render(extra_levels)
                };
                return format!("{file_base}{extra}{body}");
            }
            let relative = old_style.levels(lead, tab_width) as isize - old_base_levels;
            let levels = (file_base_levels + relative).max(0) as usize;
            format!("{}{body}", file_style.render(levels))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ok(text: &str, old: &str, new: &str) -> (String, Stage) {
        let edit = apply(text, old, new, false).unwrap();
        (edit.text, edit.stage)
    }

    #[test]
    fn stage_table() {
        use Stage::*;
        let cases: Vec<(&str, &str, &str, &str, &str, Stage)> = vec![
            ("exact", "a\nb\nc\n", "b", "B", "a\nB\nc\n", Exact),
            (
                "exact mid-line",
                "let x = 1;\n",
                "1",
                "2",
                "let x = 2;\n",
                Exact,
            ),
            (
                "crlf kept",
                "one\r\ntwo\r\nthree\r\n",
                "two\n",
                "TWO\n",
                "one\r\nTWO\r\nthree\r\n",
                Exact,
            ),
            (
                "crlf multi-line new",
                "a\r\nb\r\n",
                "b\n",
                "b\nc\n",
                "a\r\nb\r\nc\r\n",
                Exact,
            ),
            (
                "bom kept",
                "\u{feff}a\nb\n",
                "a",
                "A",
                "\u{feff}A\nb\n",
                Exact,
            ),
            ("no trailing newline kept", "a\nb", "b", "c", "a\nc", Exact),
            (
                "trailing spaces in file",
                "a  \nb\n",
                "a\nb",
                "x\ny",
                "x\ny\n",
                TrailingWhitespace,
            ),
            (
                "tabs file, spaces old",
                "fn f() {\n\tif x {\n\t\ty();\n\t}\n}\n",
                "    if x {\n        y();\n    }",
                "    if x {\n        z();\n        w();\n    }",
                "fn f() {\n\tif x {\n\t\tz();\n\t\tw();\n\t}\n}\n",
                TrimmedLines,
            ),
            (
                "spaces differ in width",
                "def f():\n  return 1\n",
                "    return 1",
                "    return 2",
                "def f():\n  return 2\n",
                TrimmedLines,
            ),
            (
                "inner whitespace differs",
                "x  =  1\ny = 2\n",
                "x = 1",
                "x = 3",
                "x = 3\ny = 2\n",
                WhitespaceNormalized,
            ),
            (
                "crlf line stage keeps crlf",
                "a\r\n\tb  \r\nc\r\n",
                "    b",
                "    B\n    B2",
                "a\r\n\tB\r\n\tB2\r\nc\r\n",
                TrimmedLines,
            ),
            (
                "fuzzy typo",
                "fn main() {\n    let total = compute(1, 2);\n    println!(\"{}\", total);\n}\n",
                "    let totl = compute(1, 2);\n    println!(\"{}\", total);",
                "    let total = compute(3, 4);\n    println!(\"{}\", total);",
                "fn main() {\n    let total = compute(3, 4);\n    println!(\"{}\", total);\n}\n",
                Fuzzy,
            ),
            ("delete a line", "a\nb\nc\n", "b\n", "", "a\nc\n", Exact),
        ];
        for (name, text, old, new, want, stage) in cases {
            let (got, got_stage) = ok(text, old, new);
            assert_eq!(got, want, "{name}");
            assert_eq!(got_stage, stage, "{name}");
        }
    }

    #[test]
    fn uniqueness_rule_in_every_stage() {
        let err = apply("x += 1;\ny\nx += 1;\n", "x += 1;", "x += 2;", false).unwrap_err();
        assert!(err.contains("matches 2 places (lines 1, 3"), "{err}");
        let edit = apply("x += 1;\ny\nx += 1;\n", "x += 1;", "x += 2;", true).unwrap();
        assert_eq!(edit.text, "x += 2;\ny\nx += 2;\n");
        assert_eq!(edit.lines, vec![1, 3]);
        let err = apply("\ta\n\tb\n  a\n", "   a", "c", false).unwrap_err();
        assert!(err.contains("lines 1, 3"), "{err}");
        let edit = apply("\ta\n\tb\n  a\n", "   a", "c", true).unwrap();
        assert_eq!(edit.text, "\tc\n\tb\n  c\n");
    }

    #[test]
    fn failures_say_what_was_closest() {
        let err = apply("alpha\nbeta\ngamma\n", "zzzz qqqq", "x", false).unwrap_err();
        assert!(err.contains("closest: lines"), "{err}");
        assert!(err.contains("read_file"), "{err}");
        let err = apply("\tone\n", "two\nthree", "x", false).unwrap_err();
        assert!(err.contains("fewer lines"), "{err}");
        assert!(
            apply("a", "", "b", false)
                .unwrap_err()
                .contains("write_file")
        );
        assert!(apply("a", "a", "a", false).unwrap_err().contains("same"));
        let err = apply("\tfoo(a, b)\n", "fo(a, c)", "x", false).unwrap_err();
        assert!(err.contains("→foo(a, b)"), "{err}");
    }

    #[test]
    fn one_line_is_never_matched_fuzzily() {
        let err = apply(
            "timeout = 30\nretries = 3\n",
            "timeout = 300",
            "timeout = 600",
            false,
        )
        .unwrap_err();
        assert!(err.contains("not found"), "{err}");
        assert!(
            err.contains("timeout = 30"),
            "the closest line is shown: {err}"
        );
    }

    #[test]
    fn fuzzy_needs_a_clear_winner() {
        let text = "let a = compute(1);\nuse(a);\nlet b = 0;\nlet a = compute(2);\nuse(a);\n";
        let err = apply(text, "let a = compute(9);\nuse(a);", "x", false).unwrap_err();
        assert!(err.contains("equally similar"), "{err}");
    }

    #[test]
    fn lines_outside_the_match_never_change() {
        let text = "keep  \r\n\ttabbed\nmixed\r\nold line\nend";
        let edit = apply(text, "old  line", "new line", false).unwrap();
        assert_eq!(edit.text, "keep  \r\n\ttabbed\nmixed\r\nnew line\nend");
    }
}
