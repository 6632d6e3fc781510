//! Reading the model's block: its definitions (methods of a JavaScript or
//! TypeScript class sent without their class too), and the block without
//! the lines that stand for definitions left as they are.

use crate::agent::edits::splice::indent::dedent;
use crate::agent::edits::splice::kept;
use crate::tools::outline::{self, Definition, Kind};

/// `block` without the lines that stand for definitions left as they are
/// (`# ...` between the methods of a class, or between functions, or right
/// above one) and the headers of shown parts echoed as comments: they are
/// no code to put in, as only the definitions sent are replaced. A line
/// inside a function that stands for left-out code stays, for the elision
/// check to refuse.
pub(crate) fn without_placeholders(path: &str, block: &str) -> String {
    // Headers first: one at the margin of an indented block would keep it
    // from being dedented.
    let block: String = (block.lines())
        .filter(|line| !kept::is_part_header(path, line))
        .map(|line| format!("{line}\n"))
        .collect();
    let block = dedent(&block);
    let Some(defs) = block_definitions(path, &block) else {
        return block;
    };
    let in_function = |n: usize| {
        defs.iter()
            .any(|d| d.kind != Kind::Container && d.header_line <= n && n <= d.end_line)
    };
    let lines: Vec<&str> = block.lines().collect();
    // A body of `...  # unchanged` says what `...` says: left as it is.
    let stub_body = |n: usize| {
        defs.iter().any(|d| {
            d.kind == Kind::Function
                && d.header_line < n
                && n <= d.end_line
                && kept::ellipsis_body(&lines, d)
        })
    };
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let trimmed = line.trim_start();
            if stub_body(i + 1) && trimmed.starts_with('#') {
                return None;
            }
            if stub_body(i + 1) && trimmed.starts_with("...") {
                let indent = &line[..line.len() - trimmed.len()];
                return Some(format!("{indent}...\n"));
            }
            let keep =
                in_function(i + 1) || crate::tools::losses::elision(path, "", line).is_none();
            keep.then(|| format!("{line}\n"))
        })
        .collect()
}

/// The definitions of the block. Methods of a JavaScript or TypeScript
/// class sent without their class do not parse as definitions alone: they
/// are read inside a class of their own.
pub(super) fn block_definitions(path: &str, block: &str) -> Option<Vec<Definition>> {
    let defs = outline::definitions(path, block)?;
    if !is_javascript(path) || defs.iter().any(|d| d.parent.is_none()) {
        return Some(defs);
    }
    let wrapped = format!("class OcBlock {{\n{block}}}\n");
    let members = outline::definitions(path, &wrapped)?
        .into_iter()
        .filter(|d| d.parent.is_some())
        .map(|d| Definition {
            parent: d.parent.filter(|p| p != "OcBlock"),
            start_line: d.start_line - 1,
            end_line: d.end_line - 1,
            header_line: d.header_line - 1,
            ..d
        })
        .collect();
    Some(members)
}

/// Whether `path` is a JavaScript or TypeScript file.
pub(super) fn is_javascript(path: &str) -> bool {
    [".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|e| path.ends_with(e))
}
