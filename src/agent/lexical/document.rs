//! A definition as a document to rank: the words of its fields (its name,
//! its container's name, its parameters, its docstring and leading
//! comments, its own body), counted, from the tree-sitter outline
//! (`tools::outline`).

use std::collections::HashMap;

use crate::agent::relevance;
use crate::tools::outline::{self, Definition, Kind};

/// The fields of a definition, in the order of [`Document::fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// Its own name: `get_signature` → `get_signature`, `signatur`.
    Name,
    /// The class, `impl` or type it sits in.
    Parent,
    /// The header after the name: parameters, bases, return type.
    Signature,
    /// The docstring and the comments right above it.
    Doc,
    /// The rest of its lines, members of a class left to themselves:
    /// identifiers, string literals, comments.
    Body,
}

/// How many fields a document has.
pub(crate) const FIELDS: usize = 5;

impl Field {
    pub(crate) const ALL: [Field; FIELDS] = [
        Field::Name,
        Field::Parent,
        Field::Signature,
        Field::Doc,
        Field::Body,
    ];

    pub(crate) fn index(self) -> usize {
        match self {
            Field::Name => 0,
            Field::Parent => 1,
            Field::Signature => 2,
            Field::Doc => 3,
            Field::Body => 4,
        }
    }
}

/// The words of one field, each with how often it occurs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Bag {
    pub counts: HashMap<String, u32>,
    /// The number of words, repeats counted.
    pub length: u32,
}

impl Bag {
    fn of(text: &str) -> Bag {
        let mut bag = Bag::default();
        for term in relevance::terms(text) {
            *bag.counts.entry(term).or_default() += 1;
            bag.length += 1;
        }
        bag
    }
}

/// One definition of a file, ready to rank.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    pub path: String,
    /// `Class.method`, or `function`.
    pub name: String,
    /// Its first and last line, 1-based, inclusive (leading comments and
    /// decorators included).
    pub line: usize,
    pub end_line: usize,
    pub test: bool,
    pub fields: [Bag; FIELDS],
}

impl Document {
    pub(crate) fn field(&self, field: Field) -> &Bag {
        &self.fields[field.index()]
    }
}

/// The functions, methods and classes (not top-level values) of `text`,
/// the file `path`, as documents; empty when the file's type has no
/// grammar.
pub(crate) fn documents(path: &str, text: &str, test: bool) -> Vec<Document> {
    let Some(defs) = outline::definitions(path, text) else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    defs.iter()
        .filter(|d| d.kind != Kind::Value)
        .map(|d| Document {
            path: path.to_string(),
            name: d.qualified(),
            line: d.start_line,
            end_line: d.end_line,
            test,
            fields: fields(d, &defs, &lines),
        })
        .collect()
}

/// The fields' words of `def`, one of `defs`, the definitions of the file
/// whose `lines` these are.
fn fields(def: &Definition, defs: &[Definition], lines: &[&str]) -> [Bag; FIELDS] {
    let members: Vec<(usize, usize)> = defs
        .iter()
        .filter(|m| {
            def.kind == Kind::Container
                && m.parent.as_deref() == Some(def.name.as_str())
                && m.start_line > def.start_line
                && m.end_line <= def.end_line
        })
        .map(|m| (m.start_line, m.end_line))
        .collect();
    let doc_lines = |n: usize| {
        n < def.header_line
            || def
                .docstring
                .is_some_and(|(from, to)| (from..=to).contains(&n))
    };
    let mut doc = String::new();
    let mut body = String::new();
    for n in def.start_line..=def.end_line.min(lines.len()) {
        let line = lines[n - 1];
        if members.iter().any(|&(from, to)| (from..=to).contains(&n)) {
            continue;
        }
        if doc_lines(n) {
            doc.push_str(line);
            doc.push('\n');
        } else if n > def.header_line {
            body.push_str(line);
            body.push('\n');
        }
    }
    // The header after the name: `(self, value: bytes) -> bytes`.
    let after_name = def
        .signature
        .find(def.name.as_str())
        .map_or(def.signature.as_str(), |at| {
            &def.signature[at + def.name.len()..]
        });
    [
        Bag::of(&def.name),
        Bag::of(def.parent.as_deref().unwrap_or_default()),
        Bag::of(after_name),
        Bag::of(&doc),
        Bag::of(&body),
    ]
}
