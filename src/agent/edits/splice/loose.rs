//! The lines of a block outside its definitions: imports to add, lines
//! that change the file's own top-level code (said, not put in), and
//! stray lines such as a usage example (left out).

use std::collections::BTreeSet;

use crate::tools::outline::Definition;
use crate::tools::similarity::Bigrams;

/// Lines of a block (`block`, whose top-level definitions placed are
/// `defs`) outside those definitions: new imports (to add), and those that
/// change lines of the file (`file`; left out, to be said).
pub(super) fn loose_lines(
    file: &[&str],
    block: &[&str],
    defs: &[&Definition],
) -> (Vec<String>, Vec<String>) {
    let inside: BTreeSet<usize> = defs
        .iter()
        .flat_map(|d| d.start_line..=d.end_line)
        .collect();
    let known: BTreeSet<&str> = file.iter().map(|l| l.trim()).collect();
    let like_a_file_line = |line: &str| {
        let ours = Bigrams::of(line);
        known
            .iter()
            .any(|k| k.len() > 3 && Bigrams::of(k).dice(&ours) >= 0.7)
    };
    let mut imports = Vec::new();
    let mut left_out = Vec::new();
    // Whether the statement the line sits under is one the file has.
    let mut under_known = false;
    for (i, line) in block.iter().enumerate() {
        let trimmed = line.trim();
        if inside.contains(&(i + 1)) || trimmed.is_empty() {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if !indented {
            under_known = known.contains(trimmed) && trimmed.ends_with(':');
        }
        if known.contains(trimmed) || trimmed.starts_with(['#', '/']) {
            continue;
        }
        if is_import(line) {
            imports.push(line.to_string());
        } else if (indented && under_known) || like_a_file_line(trimmed) {
            left_out.push(trimmed.to_string());
        }
    }
    (imports, left_out)
}

fn is_import(line: &str) -> bool {
    ["import ", "from ", "use ", "#include "]
        .iter()
        .any(|k| line.starts_with(k))
        || (line.starts_with("const ") && line.contains("require("))
}

/// The line number of the file's last import at the top level (0: none):
/// its last line when it goes on in parentheses or braces, and never a line inside
/// a string (`USAGE = """import geometry …"""`).
pub(super) fn last_import(lines: &[&str]) -> usize {
    let mut last = 0;
    let mut in_string: Option<&str> = None;
    let mut open_import = false;
    for (i, line) in lines.iter().take(200).enumerate() {
        if let Some(quotes) = in_string {
            if line.matches(quotes).count() % 2 == 1 {
                in_string = None;
            }
            continue;
        }
        if open_import {
            last = i + 1;
            open_import = !line.contains([')', '}']);
            continue;
        }
        if is_import(line) {
            last = i + 1;
            open_import = (line.contains('(') && !line.contains(')'))
                || (line.contains('{') && !line.contains('}'));
        }
        in_string = ["\"\"\"", "'''"]
            .into_iter()
            .find(|q| line.matches(q).count() % 2 == 1);
    }
    last
}
