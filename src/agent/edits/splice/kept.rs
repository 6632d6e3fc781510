//! What of the file a definition sent back keeps, and what of the model's
//! block is no code: small models leave out the decorators and comments
//! above a definition they change, write `...` for a body they leave as
//! it is, and copy the header a part was shown under (`# m.py lines 40-52
//! (Signer.sign)`) into their block. None of that may reach the file.

use crate::tools::outline::Definition;

/// The lines above the block's definition (`block`, its comments and
/// decorators as the model sent them) given the file's (`file`): the
/// file's when the model sent none, and the file's decorators after the
/// model's comments when it sent comments only. A decorator is dropped
/// from a definition by omission far more often than on purpose.
pub(super) fn prefix(file: &[&str], block: &[String]) -> Vec<String> {
    let decorator = |line: &str| {
        let line = line.trim_start();
        line.starts_with('@') || line.starts_with("#[")
    };
    if block.is_empty() {
        return file.iter().map(|l| l.to_string()).collect();
    }
    let mut out = block.to_vec();
    if !block.iter().any(|l| decorator(l))
        && let Some(first) = file.iter().position(|l| decorator(l))
    {
        out.extend(file[first..].iter().map(|l| l.to_string()));
    }
    out
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
/// shown it, written back as a comment: `# m.py lines 40-52 (Signer.sign)`.
pub(super) fn is_part_header(path: &str, line: &str) -> bool {
    let Some(rest) = ["#", "//"].iter().find_map(|c| line.trim().strip_prefix(c)) else {
        return false;
    };
    let mut words = rest.split_whitespace();
    let (Some(named), Some(lines), Some(span)) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    let name = path.rsplit('/').next().unwrap_or(path);
    let named = named.trim_end_matches([':', ',']);
    (named == path || named.ends_with(&format!("/{name}")) || named == name)
        && lines.starts_with("line")
        && span.starts_with(|c: char| c.is_ascii_digit())
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
        assert_eq!(
            prefix(&file, &own(&["    @staticmethod"])),
            own(&["    @staticmethod"])
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
        assert!(!is_part_header("src/m.py", "# see lines 40-52"));
        assert!(!is_part_header("src/m.py", "# other.py lines 40-52"));
        assert!(!is_part_header("src/m.py", "x = 1  # m.py lines 1-2"));
    }
}
