//! The definitions of a source file, read with tree-sitter grammars
//! (Python, Rust, JavaScript, TypeScript and TSX, Go, shell): functions, classes, methods, types, and top-level
//! assignments, each with its name, the class or `impl` it sits in, its
//! line span (leading comments, decorators and attributes included) and a
//! one-line signature. The repository map lists them; big files are shown
//! and changed one definition at a time.

use tree_sitter::{Language, Node, Parser};

/// The grammar for a file, by its extension; `None` for other types.
fn language_for(path: &str) -> Option<Language> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    let language = match ext.as_str() {
        "py" | "pyi" => tree_sitter_python::LANGUAGE,
        "rs" => tree_sitter_rust::LANGUAGE,
        "js" | "mjs" | "cjs" | "jsx" => tree_sitter_javascript::LANGUAGE,
        "ts" | "mts" | "cts" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX,
        "go" => tree_sitter_go::LANGUAGE,
        "sh" | "bash" => tree_sitter_bash::LANGUAGE,
        _ => return None,
    };
    Some(language.into())
}

/// What a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A function or method.
    Function,
    /// A class, struct, enum, trait, interface, `impl` or module: something
    /// that holds other definitions.
    Container,
    /// An assignment or constant at the top level.
    Value,
}

/// One definition of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Definition {
    pub name: String,
    /// The enclosing container's name (`Signer` for `Signer.sign`).
    pub parent: Option<String>,
    pub kind: Kind,
    /// First and last line, 1-based and inclusive, whole lines.
    pub start_line: usize,
    pub end_line: usize,
    /// The line the definition itself starts on (`def`, `class`, `fn`),
    /// after the comments, decorators and attributes above it; 1-based.
    pub header_line: usize,
    /// The header, whitespace collapsed: `def sign(self, value: bytes) -> bytes`.
    pub signature: String,
    /// The lines of its docstring (Python), 1-based and inclusive.
    pub docstring: Option<(usize, usize)>,
}

impl Definition {
    /// `Parent.name`, or `name`.
    pub(crate) fn qualified(&self) -> String {
        match &self.parent {
            Some(parent) => format!("{parent}.{}", self.name),
            None => self.name.clone(),
        }
    }

    /// Number of lines.
    pub(crate) fn lines(&self) -> usize {
        self.end_line + 1 - self.start_line
    }
}

/// The definitions of `text` as the file `path`, in file order (a
/// container before its members); `None` when the file's type has no
/// grammar here. A text that does not parse still gives what parses.
pub(crate) fn definitions(path: &str, text: &str) -> Option<Vec<Definition>> {
    let language = language_for(path)?;
    let grammar = Grammar::of(path)?;
    let mut parser = Parser::new();
    parser.set_language(&language).ok()?;
    let tree = parser.parse(text, None)?;
    let mut found = Vec::new();
    collect(tree.root_node(), text, grammar, None, &mut found);
    Some(found)
}

/// Whether files named like `path` have definitions to read.
pub(crate) fn readable(path: &str) -> bool {
    Grammar::of(path).is_some()
}

/// The languages with definitions to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grammar {
    Python,
    Rust,
    JavaScript,
    Go,
    Shell,
}

impl Grammar {
    fn of(path: &str) -> Option<Grammar> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "py" | "pyi" => Grammar::Python,
            "rs" => Grammar::Rust,
            "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => Grammar::JavaScript,
            "go" => Grammar::Go,
            "sh" | "bash" => Grammar::Shell,
            _ => return None,
        })
    }
}

/// Walks the named children of `node`, noting definitions and going into
/// containers.
fn collect(
    node: Node<'_>,
    text: &str,
    grammar: Grammar,
    parent: Option<&str>,
    found: &mut Vec<Definition>,
) {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    for (i, child) in children.iter().enumerate() {
        let Some((kind, name, item)) = classify(*child, text, grammar) else {
            continue;
        };
        // A definition inside a function is part of that function.
        if parent.is_some() && kind == Kind::Value {
            continue;
        }
        let start = leading_start(&children[..i], *child);
        found.push(Definition {
            name: name.clone(),
            parent: parent.map(str::to_string),
            kind,
            start_line: start + 1,
            end_line: end_row(*child) + 1,
            header_line: item.start_position().row + 1,
            signature: signature(item, text),
            docstring: docstring(item, grammar),
        });
        if kind == Kind::Container
            && let Some(body) = body_of(item)
        {
            collect(body, text, grammar, Some(&name), found);
        }
    }
}

/// The definition `node` is, if it is one: its kind, name, and the node
/// that holds its header and body (inside a decorator or `export`).
fn classify<'t>(node: Node<'t>, text: &str, grammar: Grammar) -> Option<(Kind, String, Node<'t>)> {
    let name_of = |n: Node<'_>| {
        n.child_by_field_name("name")
            .map(|c| text[c.byte_range()].to_string())
    };
    let kind = node.kind();
    let function = |n: Node<'t>| name_of(n).map(|name| (Kind::Function, name, n));
    let container = |n: Node<'t>| name_of(n).map(|name| (Kind::Container, name, n));
    match (grammar, kind) {
        (Grammar::Python, "function_definition") => function(node),
        (Grammar::Python, "class_definition") => container(node),
        (Grammar::Python | Grammar::JavaScript, "decorated_definition" | "export_statement") => {
            let inner = node
                .child_by_field_name("definition")
                .or_else(|| node.child_by_field_name("declaration"))?;
            classify(inner, text, grammar)
        }
        (Grammar::Python, "expression_statement") => {
            let assignment = node.named_child(0).filter(|c| c.kind() == "assignment")?;
            // `NAME = …`, not `table["key"] = …` or `obj.attr = …`.
            let left = assignment
                .child_by_field_name("left")
                .filter(|l| l.kind() == "identifier")?;
            Some((Kind::Value, text[left.byte_range()].to_string(), node))
        }
        (Grammar::Rust, "function_item" | "function_signature_item" | "macro_definition") => {
            function(node)
        }
        (Grammar::Rust, "struct_item" | "enum_item" | "trait_item" | "mod_item" | "union_item") => {
            container(node)
        }
        (Grammar::Rust, "impl_item") => {
            let ty = node.child_by_field_name("type")?;
            Some((Kind::Container, text[ty.byte_range()].to_string(), node))
        }
        (Grammar::Rust, "const_item" | "static_item" | "type_item") => {
            name_of(node).map(|name| (Kind::Value, name, node))
        }
        (
            Grammar::JavaScript,
            "function_declaration" | "generator_function_declaration" | "method_definition",
        ) => function(node),
        (
            Grammar::JavaScript,
            "class_declaration"
            | "abstract_class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "module",
        ) => container(node),
        (Grammar::JavaScript, "type_alias_declaration") => {
            name_of(node).map(|name| (Kind::Value, name, node))
        }
        (Grammar::JavaScript, "lexical_declaration" | "variable_declaration") => {
            let declarator = node.named_child(0)?;
            let name = name_of(declarator)?;
            let value_kind = declarator
                .child_by_field_name("value")
                .map(|v| v.kind())
                .unwrap_or_default();
            let kind = match value_kind {
                "arrow_function" | "function_expression" | "function" => Kind::Function,
                "class" => Kind::Container,
                _ => Kind::Value,
            };
            Some((kind, name, node))
        }
        (Grammar::Go, "function_declaration") => function(node),
        (Grammar::Go, "method_declaration") => function(node),
        (Grammar::Go, "type_declaration") => {
            let spec = node.named_child(0)?;
            name_of(spec).map(|name| (Kind::Container, name, node))
        }
        (Grammar::Shell, "function_definition") => function(node),
        _ => None,
    }
}

/// The lines of a Python function's or class's docstring: the string that
/// is the first statement of its body.
fn docstring(item: Node<'_>, grammar: Grammar) -> Option<(usize, usize)> {
    if grammar != Grammar::Python {
        return None;
    }
    let first = item.child_by_field_name("body")?.named_child(0)?;
    let string = first
        .named_child(0)
        .filter(|s| first.kind() == "expression_statement" && s.kind() == "string")?;
    Some((string.start_position().row + 1, end_row(string) + 1))
}

/// The node whose children are a container's members.
fn body_of(item: Node<'_>) -> Option<Node<'_>> {
    item.child_by_field_name("body")
        .filter(|b| b.named_child_count() > 0)
}

/// The first row of `node` with the comments, attributes and decorators
/// right above it (no blank line between).
fn leading_start(before: &[Node<'_>], node: Node<'_>) -> usize {
    let mut start = node.start_position().row;
    for prev in before.iter().rev() {
        let kind = prev.kind();
        let attached = kind.contains("comment") || kind == "attribute_item" || kind == "decorator";
        if !attached || end_row(*prev) + 1 < start {
            break;
        }
        start = prev.start_position().row;
    }
    start
}

/// The last row a node covers (a node ending at column 0 ends on the row
/// before).
fn end_row(node: Node<'_>) -> usize {
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    }
}

/// The header of a definition: its text up to its body, on one line.
fn signature(item: Node<'_>, text: &str) -> String {
    let head = match item.child_by_field_name("body") {
        Some(body) => &text[item.start_byte()..body.start_byte()],
        None => text[item.byte_range()].lines().next().unwrap_or_default(),
    };
    let collapsed = head.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = collapsed.trim_end_matches([':', '{', ' ', '=']).to_string();
    if trimmed.chars().count() > 120 {
        let cut: String = trimmed.chars().take(117).collect();
        format!("{cut}...")
    } else {
        trimmed
    }
}

/// The line spans (1-based, inclusive) of the string literals of `text`
/// (the file `path`) that run over several lines and are not docstrings:
/// their lines after the first are the string's value, byte for byte.
/// Empty when the file's type has no grammar.
pub(crate) fn multiline_strings(path: &str, text: &str) -> Vec<(usize, usize)> {
    let (Some(language), Some(grammar)) = (language_for(path), Grammar::of(path)) else {
        return Vec::new();
    };
    let mut parser = Parser::new();
    let Some(tree) = parser
        .set_language(&language)
        .ok()
        .and_then(|()| parser.parse(text, None))
    else {
        return Vec::new();
    };
    let docstrings: Vec<(usize, usize)> = {
        let mut found = Vec::new();
        collect(tree.root_node(), text, grammar, None, &mut found);
        found.iter().filter_map(|d| d.docstring).collect()
    };
    let kinds = [
        "string",
        "template_string",
        "raw_string_literal",
        "string_literal",
        "interpreted_string_literal",
    ];
    let mut spans = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if kinds.contains(&node.kind()) {
            let span = (node.start_position().row + 1, node.end_position().row + 1);
            if span.1 > span.0 && !docstrings.contains(&span) {
                spans.push(span);
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    spans.sort_unstable();
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn outline(path: &str, text: &str) -> Vec<(String, Kind, usize, usize, String)> {
        definitions(path, text)
            .unwrap()
            .into_iter()
            .map(|d| (d.qualified(), d.kind, d.start_line, d.end_line, d.signature))
            .collect()
    }

    fn def(
        q: &str,
        kind: Kind,
        lines: (usize, usize),
        sig: &str,
    ) -> (String, Kind, usize, usize, String) {
        (q.to_string(), kind, lines.0, lines.1, sig.to_string())
    }

    #[test]
    fn multiline_strings_but_not_docstrings() {
        let text = "def f():\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    sql = \"\"\"\nSELECT 1\n\"\"\"\n    return sql\n";
        assert_eq!(multiline_strings("m.py", text), [(6, 8)]);
        let js = "const t = `a\nb`;\n";
        assert_eq!(multiline_strings("m.js", js), [(1, 2)]);
    }

    #[test]
    fn python_classes_methods_decorators_and_values() {
        let text = "import os\n\nKEY = b\"k\"\n\n\n# The signer.\nclass Signer(object):\n    \"\"\"Signs.\"\"\"\n\n    def __init__(self, key):\n        self.key = key\n\n    @property\n    def digest(self):\n        def inner():\n            pass\n        return 1\n\n\ndef sign(value,\n         key=KEY):\n    return value\n";
        assert_eq!(
            outline("s.py", text),
            [
                def("KEY", Kind::Value, (3, 3), "KEY = b\"k\""),
                def("Signer", Kind::Container, (6, 17), "class Signer(object)"),
                def(
                    "Signer.__init__",
                    Kind::Function,
                    (10, 11),
                    "def __init__(self, key)"
                ),
                def(
                    "Signer.digest",
                    Kind::Function,
                    (13, 17),
                    "def digest(self)"
                ),
                def("sign", Kind::Function, (20, 22), "def sign(value, key=KEY)"),
            ]
        );
    }

    #[test]
    fn rust_javascript_and_go() {
        let rust = "/// A point.\n#[derive(Debug)]\npub struct Point { x: i32 }\n\nimpl Point {\n    /// New.\n    pub fn new(x: i32) -> Self {\n        Point { x }\n    }\n}\n\nconst MAX: i32 = 3;\n";
        assert_eq!(
            outline("p.rs", rust),
            [
                def("Point", Kind::Container, (1, 3), "pub struct Point"),
                def("Point", Kind::Container, (5, 10), "impl Point"),
                def(
                    "Point.new",
                    Kind::Function,
                    (6, 9),
                    "pub fn new(x: i32) -> Self"
                ),
                def("MAX", Kind::Value, (12, 12), "const MAX: i32 = 3;"),
            ]
        );
        let js = "const sum = (a, b) => a + b;\n\nexport class Cart {\n  total(items) {\n    return items.length;\n  }\n}\n\nfunction helper() {}\n";
        assert_eq!(
            outline("c.js", js),
            [
                def(
                    "sum",
                    Kind::Function,
                    (1, 1),
                    "const sum = (a, b) => a + b;"
                ),
                def("Cart", Kind::Container, (3, 7), "class Cart"),
                def("Cart.total", Kind::Function, (4, 6), "total(items)"),
                def("helper", Kind::Function, (9, 9), "function helper()"),
            ]
        );
        let go = "package m\n\ntype T struct{}\n\n// Add adds.\nfunc (t *T) Add(a int) int {\n\treturn a\n}\n";
        assert_eq!(
            outline("m.go", go),
            [
                def("T", Kind::Container, (3, 3), "type T struct{}"),
                def("Add", Kind::Function, (5, 8), "func (t *T) Add(a int) int"),
            ]
        );
        assert_eq!(definitions("notes.md", "# x"), None);
    }
}
