//! The syntax guard on writes: a change that turns a file that parses into
//! one that does not is not applied; the model gets the error's line and the
//! lines around it instead. Parsed with tree-sitter grammars for Python,
//! Rust, JavaScript, TypeScript (and TSX), Go, JSON, TOML, YAML and shell;
//! files of other types are not checked.

use tree_sitter::{Language, Node, Parser};

/// Lines of context shown around a syntax error.
const CONTEXT_LINES: usize = 2;

/// The grammar for a file, by its extension.
pub(crate) fn language_for(path: &str) -> Option<Language> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    let language = match ext.as_str() {
        "py" | "pyi" => tree_sitter_python::LANGUAGE,
        "rs" => tree_sitter_rust::LANGUAGE,
        "js" | "mjs" | "cjs" | "jsx" => tree_sitter_javascript::LANGUAGE,
        "ts" | "mts" | "cts" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX,
        "go" => tree_sitter_go::LANGUAGE,
        "json" => tree_sitter_json::LANGUAGE,
        "toml" => tree_sitter_toml_ng::LANGUAGE,
        "yml" | "yaml" => tree_sitter_yaml::LANGUAGE,
        "sh" | "bash" => tree_sitter_bash::LANGUAGE,
        _ => return None,
    };
    Some(language.into())
}

/// Where a text first fails to parse: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub line: usize,
    pub column: usize,
    /// What is wrong, in words.
    pub what: &'static str,
}

/// The first syntax error of `text` as the file `path`; `None` when it
/// parses, or when its type has no grammar here.
pub(crate) fn first_error(path: &str, text: &str) -> Option<SyntaxError> {
    let language = language_for(path)?;
    let mut parser = Parser::new();
    parser.set_language(&language).ok()?;
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    // tree-sitter's Python grammar takes an empty block (a body whose
    // indentation was lost) without complaint; Python does not.
    let python = matches!(path.rsplit_once('.'), Some((_, "py" | "pyi")));
    let node = first_error_node(root, python)?;
    let at = node.start_position();
    if node.kind() == "block" && !node.is_error() && !node.is_missing() {
        // An empty Python block: the line after the `:` needed indenting.
        return Some(SyntaxError {
            line: at.row + 2,
            column: 1,
            what: "an indented block is expected",
        });
    }
    Some(SyntaxError {
        line: at.row + 1,
        column: at.column + 1,
        what: if node.is_missing() {
            "something is missing"
        } else {
            "it does not parse"
        },
    })
}

/// The first `ERROR` or missing node in document order (with
/// `empty_blocks`, also the first `block` without statements).
fn first_error_node(node: Node<'_>, empty_blocks: bool) -> Option<Node<'_>> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    if empty_blocks && node.kind() == "block" && node.named_child_count() == 0 {
        return Some(node);
    }
    if !node.has_error() && !empty_blocks {
        return None;
    }
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find_map(|child| first_error_node(child, empty_blocks))
}

/// Checks a change to `path`: when `before` parses and `after` does not,
/// the message for the model (the error's place and the lines around it,
/// numbered). New files and files that did not parse before are not
/// checked.
pub(crate) fn check_change(path: &str, before: Option<&str>, after: &str) -> Result<(), String> {
    let Some(before) = before else {
        return Ok(());
    };
    if language_for(path).is_none() || first_error(path, before).is_some() {
        return Ok(());
    }
    let Some(error) = first_error(path, after) else {
        return Ok(());
    };
    let lines: Vec<&str> = after.lines().collect();
    let first = error.line.saturating_sub(CONTEXT_LINES + 1);
    let last = (error.line + CONTEXT_LINES).min(lines.len());
    let excerpt: Vec<String> = (first..last)
        .map(|i| {
            let mark = if i + 1 == error.line { ">" } else { " " };
            format!("{mark}{:>5}: {}", i + 1, lines[i])
        })
        .collect();
    let what = error.what;
    Err(format!(
        "not applied: after this change {path} would have a syntax error at line {}, column {} ({what}); the file parses now. The lines around it after the change:\n{}\nFix the change so the file stays valid.",
        error.line,
        error.column,
        excerpt.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_parses_its_own_and_finds_errors() {
        let cases = [
            ("a.py", "def f(x):\n    return x\n", "def f(x):\nreturn x\n"),
            ("a.rs", "fn f() -> u8 { 1 }\n", "fn f() -> u8 { 1 \n"),
            (
                "a.js",
                "function f() { return 1; }\n",
                "function f() { return 1; \n",
            ),
            ("a.ts", "const x: number = 1;\n", "const x: number = ;\n"),
            (
                "a.tsx",
                "const e = <div>hi</div>;\n",
                "const e = <div>hi</div;\n",
            ),
            (
                "a.go",
                "package a\nfunc F() int { return 1 }\n",
                "package a\nfunc F() int { return 1 \n",
            ),
            ("a.json", "{\"a\": [1, 2]}\n", "{\"a\": [1, 2}\n"),
            ("a.toml", "[a]\nb = 1\n", "[a\nb = 1\n"),
            ("a.yml", "a:\n  - b\n  - c\n", "a: [b\n"),
            (
                "a.sh",
                "if true; then echo hi; fi\n",
                "if true; then echo hi;\n",
            ),
        ];
        for (path, good, bad) in cases {
            assert_eq!(first_error(path, good), None, "{path}: {good:?}");
            assert!(first_error(path, bad).is_some(), "{path}: {bad:?}");
        }
        assert_eq!(first_error("notes.txt", "(((("), None);
    }

    /// Regression: a `write_file` that dropped every line's indentation from
    /// a Python file was applied and reported as `updated (+6 -6)`.
    #[test]
    fn a_change_that_breaks_a_parsing_file_is_refused_with_the_place() {
        let before = "def f(x):\n    \"\"\"Doc.\"\"\"\n    if x:\n        return 1\n    return 2\n";
        let after = "def f(x):\n\"\"\"Doc.\"\"\"\nif x:\nreturn 1\nreturn 2\n";
        let err = check_change("m.py", Some(before), after).unwrap_err();
        assert!(err.contains("syntax error at line"), "{err}");
        assert!(err.contains(">    2: \"\"\"Doc.\"\"\""), "{err}");
        assert_eq!(check_change("m.py", Some(before), before), Ok(()));
        assert_eq!(
            check_change("m.py", None, after),
            Ok(()),
            "new files are not checked"
        );
        assert_eq!(
            check_change("m.py", Some(after), after),
            Ok(()),
            "already broken"
        );
        assert_eq!(check_change("m.txt", Some("a"), "(("), Ok(()));
    }
}
