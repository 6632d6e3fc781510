//! What of the file a definition sent back keeps, and what of the model's
//! block is no code: small models leave out the decorators and comments
//! above a definition they change, write `...` for a body they leave as
//! it is, and copy the header a part was shown under (`# m.py lines 40-52
//! (Signer.sign)`) into their block. None of that may reach the file.

use crate::tools::outline::Definition;

/// The lines above the block's definition (`block`, its comments and
/// decorators as the model sent them) given the file's (`file`): the
/// model's comments, or the file's when it sent none; the file's
/// decorators with those the model sent in their place (by name) and its
/// new ones after them. A decorator is dropped from a definition by
/// omission far more often than on purpose.
pub(super) fn prefix(file: &[&str], block: &[String]) -> Vec<String> {
    let file: Vec<String> = file.iter().map(|l| l.to_string()).collect();
    let (file_comments, file_decorators) = split(&file);
    let (comments, decorators) = split(block);
    let mut out = if comments.is_empty() {
        file_comments.to_vec()
    } else {
        comments.to_vec()
    };
    let ours = items(decorators);
    let theirs = items(file_decorators);
    for item in &theirs {
        let sent = ours.iter().find(|o| name_of(o) == name_of(item));
        out.extend(sent.unwrap_or(item).iter().cloned());
    }
    for item in ours
        .iter()
        .filter(|o| !theirs.iter().any(|t| name_of(t) == name_of(o)))
    {
        out.extend(item.iter().cloned());
    }
    out
}

/// Comments, then decorators (from the first decorator line on).
fn split(lines: &[String]) -> (&[String], &[String]) {
    let at = lines
        .iter()
        .position(|l| is_decorator(l))
        .unwrap_or(lines.len());
    lines.split_at(at)
}

/// Decorators one by one, each with the lines it goes on over.
fn items(lines: &[String]) -> Vec<Vec<String>> {
    let mut items: Vec<Vec<String>> = Vec::new();
    for line in lines {
        match items.last_mut() {
            Some(item) if !is_decorator(line) => item.push(line.clone()),
            _ => items.push(vec![line.clone()]),
        }
    }
    items
}

fn is_decorator(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with('@') || line.starts_with("#[")
}

/// `@functools.lru_cache` of `@functools.lru_cache(maxsize=3)`.
fn name_of(item: &[String]) -> &str {
    let first = item.first().map_or("", |l| l.trim());
    first.split(['(', ' ']).next().unwrap_or(first)
}

/// Whether the Python function `def` of `lines` (the block's lines) has
/// `...` for its whole body (its docstring aside): the model left the body
/// as it is, it did not empty it.
pub(super) fn ellipsis_body(lines: &[&str], def: &Definition) -> bool {
    let own = &lines[def.header_line - 1..def.end_line];
    let inline = |l: &str| code_of(l).ends_with(": ...") || code_of(l).ends_with(":...");
    let Some(header_end) = own
        .iter()
        .position(|l| code_of(l).ends_with(':') || inline(l))
    else {
        return false;
    };
    let docstring = def.docstring.map_or(0..=0, |(start, end)| {
        start - def.header_line..=end - def.header_line
    });
    let body: Vec<&str> = own
        .iter()
        .enumerate()
        .skip(header_end + 1)
        .filter(|(i, _)| def.docstring.is_none() || !docstring.contains(i))
        .map(|(_, l)| code_of(l))
        .filter(|l| !l.is_empty())
        .collect();
    // `def f(): ...` on one line, or `...` alone below the header.
    (inline(own[header_end]) && body.is_empty()) || matches!(body.as_slice(), ["..." | "…"])
}

/// Whether `line` is the header of a part of `path` as the model was
/// shown it, written back as a comment in any order: `# m.py lines 40-52
/// (Signer.sign)`, `# Signer.sign (m.py lines 40-52)`, `# File: m.py
/// lines 40-52`.
pub(super) fn is_part_header(path: &str, line: &str) -> bool {
    let Some(rest) = ["#", "//"].iter().find_map(|c| line.trim().strip_prefix(c)) else {
        return false;
    };
    let name = path.rsplit('/').next().unwrap_or(path);
    let words: Vec<&str> = rest
        .split(|c: char| c.is_whitespace() || "(),:".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let names_file = words
        .iter()
        .any(|w| *w == path || *w == name || w.ends_with(&format!("/{name}")));
    let spans_lines = words.windows(2).any(|pair| {
        pair[0].starts_with("line") && pair[1].starts_with(|c: char| c.is_ascii_digit())
    });
    names_file && spans_lines
}

/// A line without its trailing comment, trimmed.
fn code_of(line: &str) -> &str {
    let code = match line.find(" #") {
        Some(at) if !line[..at].contains(['"', '\'']) => &line[..at],
        _ => line,
    };
    let code = code.trim();
    if code.starts_with('#') { "" } else { code }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::outline;

    #[test]
    fn decorators_and_comments_of_the_file_stay() {
        let file = [
            "    # Cached.",
            "    @property",
            "    @lru_cache(",
            "        3)",
        ];
        let own = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        assert_eq!(prefix(&file, &[]), own(&file));
        assert_eq!(
            prefix(&file, &own(&["    # Cached twice."])),
            own(&[
                "    # Cached twice.",
                "    @property",
                "    @lru_cache(",
                "        3)"
            ])
        );
        // A decorator sent in the place of the file's, a new one after
        // them; the comment the model left out stays.
        assert_eq!(
            prefix(&file, &own(&["    @lru_cache(4)", "    @staticmethod"])),
            own(&[
                "    # Cached.",
                "    @property",
                "    @lru_cache(4)",
                "    @staticmethod"
            ])
        );
    }

    #[test]
    fn an_ellipsis_body_is_a_body_left_as_it_is() {
        let body_of = |text: &str| {
            let defs = outline::definitions("m.py", text).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            defs.iter()
                .map(|d| ellipsis_body(&lines, d))
                .collect::<Vec<_>>()
        };
        assert_eq!(body_of("def f(x):\n    ...\n"), [true]);
        assert_eq!(body_of("def f(x): ...\n"), [true]);
        assert_eq!(
            body_of("@deco\ndef f(\n    x,\n):\n    \"\"\"Doc.\"\"\"\n    # same\n    ...\n"),
            [true]
        );
        assert_eq!(body_of("def f(x):\n    return x  # ...\n"), [false]);
        assert_eq!(body_of("def f(x):\n    pass\n"), [false]);
        assert_eq!(body_of("def f(x):\n    y = x\n    ...\n"), [false]);
    }

    #[test]
    fn echoed_part_headers_are_known() {
        assert!(is_part_header(
            "src/m.py",
            "# src/m.py lines 40-52 (Signer.sign)"
        ));
        assert!(is_part_header("src/m.py", "    # m.py: lines 4-5"));
        assert!(is_part_header("web/a.js", "// web/a.js lines 1-9"));
        assert!(is_part_header(
            "m.py",
            "    # Circle.area (m.py lines 64-77)"
        ));
        assert!(is_part_header("m.py", "# m.py (lines 64-77, Circle.area)"));
        assert!(is_part_header("m.py", "# File: m.py lines 64-77"));
        assert!(!is_part_header("src/m.py", "# see lines 40-52"));
        assert!(!is_part_header("src/m.py", "# other.py lines 40-52"));
        assert!(!is_part_header("src/m.py", "x = 1  # m.py lines 1-2"));
    }
}
