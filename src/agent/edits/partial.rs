//! A small file sent back in part: the model, asked for the whole file,
//! sends only what it changed (the class it added a method to). When the
//! part only changes definitions the file has, at one line at most each
//! and in place (nothing of theirs dropped or moved, no decorator lost),
//! adds no copy of one under a new name, and loses nothing else, its
//! definitions go in as they do into a big file; else the block stays
//! refused for what it leaves out.

use similar::{Algorithm, DiffOp, capture_diff_slices};

use super::splice::{ShownParts, applied, splice, without_placeholders};
use crate::tools::losses::{self, elision};
use crate::tools::outline;

/// The exact replacements that put the part `content` into `old` (the
/// file `path`, shown whole); `None` when it is not such a part.
pub(crate) fn edits(path: &str, old: &str, content: &str) -> Option<Vec<(String, String)>> {
    let placed = without_placeholders(path, content);
    if elision(path, old, &placed).is_some() {
        return None;
    }
    let theirs = top_level(path, old);
    let ours = top_level(path, &placed);
    let mut changes_one = false;
    for (name, lines) in &ours {
        match theirs.iter().find(|(n, _)| n == name) {
            Some((_, old_lines)) => {
                changes_one = true;
                if !changed_in_place(old_lines, lines) {
                    return None;
                }
            }
            // A new one that is an old one under another name: a rename,
            // which would leave the old one beside it.
            None if theirs
                .iter()
                .any(|(_, old_lines)| same_body(old_lines, lines)) =>
            {
                return None;
            }
            None => {}
        }
    }
    if !changes_one {
        return None;
    }
    let seen = ShownParts {
        lines: vec![(1, usize::MAX)],
        ..ShownParts::default()
    };
    let spliced = splice(path, old, &placed, &seen).ok()?;
    if spliced.edits.is_empty() || !spliced.unseen.is_empty() || !spliced.left_out.is_empty() {
        return None;
    }
    if losses::loss(path, old, &applied(old, &spliced.edits), false).is_some() {
        return None;
    }
    Some(spliced.edits)
}

/// The top-level definitions of `text`: name, and lines trimmed (blank
/// ones left out).
fn top_level(path: &str, text: &str) -> Vec<(String, Vec<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let defs = outline::definitions(path, text).unwrap_or_default();
    (defs.into_iter().filter(|d| d.parent.is_none()))
        .map(|d| {
            let own = lines[d.start_line - 1..d.end_line.min(lines.len())]
                .iter()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty())
                .collect();
            (d.name, own)
        })
        .collect()
}

/// Whether `new` is `old` with lines added and one line at most changed
/// in its place: none dropped, none moved (a moved line is dropped where
/// it was), no decorator changed.
fn changed_in_place(old: &[String], new: &[String]) -> bool {
    let mut changed = 0;
    for op in capture_diff_slices(Algorithm::Myers, old, new) {
        match op {
            DiffOp::Equal { .. } | DiffOp::Insert { .. } => {}
            DiffOp::Delete { .. } => return false,
            DiffOp::Replace {
                old_index, old_len, ..
            } => {
                changed += old_len;
                if old[old_index..old_index + old_len]
                    .iter()
                    .any(|l| l.starts_with('@') || l.starts_with("#["))
                {
                    return false;
                }
            }
        }
    }
    changed <= 1
}

/// Whether two definitions are the same past their first line.
fn same_body(a: &[String], b: &[String]) -> bool {
    a.len() > 1 && a.get(1..) == b.get(1..)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn lines_kept_in_place_or_one_changed() {
        let old = own(&["def f(s):", "# note", "n = 1", "return n"]);
        assert!(changed_in_place(
            &old,
            &own(&["def f(s):", "# note", "n = 1", "x = 2", "return n"])
        ));
        assert!(changed_in_place(
            &old,
            &own(&["def f(s):", "# note", "n = 2", "return n"])
        ));
        // Moved, dropped, two changed.
        assert!(!changed_in_place(
            &old,
            &own(&["def f(s):", "return n", "# note", "n = 1"])
        ));
        assert!(!changed_in_place(
            &old,
            &own(&["def f(s):", "n = 1", "return n"])
        ));
        assert!(!changed_in_place(
            &old,
            &own(&["def f(s):", "# note", "n = 2", "return m"])
        ));
        // Duplicates count one by one; a decorator is not a line to change.
        let dup = own(&["def g(self):", "self.s = s", "self.s = s"]);
        assert!(!changed_in_place(
            &dup,
            &own(&["def g(self):", "self.s = s"])
        ));
        let deco = own(&["@property", "def area(self):", "return 1"]);
        assert!(!changed_in_place(
            &deco,
            &own(&["@cache", "def area(self):", "return 1"])
        ));
    }

    #[test]
    fn parts_that_are_renames_or_rewrites_are_not_parts() {
        let old = "import math\n\n\nclass Circle:\n    def area(self):\n        return math.pi\n\n\ndef describe(shape):\n    name = type(shape).__name__\n    return name\n";
        let part = "class Circle:\n    def area(self):\n        return math.pi\n\n    def perimeter(self):\n        return 2 * math.pi\n";
        let edits = edits("s.py", old, part).unwrap();
        assert_eq!(edits.len(), 1);
        let renamed = format!(
            "{part}\n\ndef describe_shape(shape):\n    name = type(shape).__name__\n    return name\n"
        );
        assert_eq!(edits_of(old, &renamed), None);
        let only_new = "class Square:\n    def area(self):\n        return 1\n";
        assert_eq!(edits_of(old, only_new), None);
    }

    fn edits_of(old: &str, part: &str) -> Option<usize> {
        edits("s.py", old, part).map(|e| e.len())
    }
}
