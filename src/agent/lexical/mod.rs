//! The definitions a prompt's words point at: every function, method and
//! class of the repository (tree-sitter outlines, `tools::outline`) is a
//! document of fields — its name, its container's name, its parameters,
//! its docstring and leading comments, its own body — and the prompt's
//! words ([`query`]) rank them with BM25F ([`bm25`]). A symptom told in
//! words ("…are made with the wrong…") finds the function whose docstring
//! and names use them, though no file name does.

mod bm25;
mod document;
#[cfg(test)]
mod measure;
mod query;

use std::path::Path;

use super::file_kind::{is_doc, is_source_name, is_test};
use crate::tools::outline;
use document::Document;

/// Files read at most, sources before tests (the grounding's bound).
const MAX_FILES: usize = 400;
/// Largest file read, in bytes (the grounding's bound).
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// One ranked definition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// Qualified: `Class.method`, or `function`.
    pub name: String,
    /// First and last line, 1-based, inclusive (leading comments and
    /// decorators included).
    pub line: usize,
    pub end_line: usize,
    /// BM25F score: only the order means something.
    pub score: f64,
    /// In a test file (`file_kind::is_test`): the caller decides.
    pub test: bool,
}

/// The definitions of `files` (relative to `root`) that share words with
/// `prompt`, best first. Reads at most [`MAX_FILES`] source files of at
/// most [`MAX_FILE_BYTES`] each, sources before tests; a file that cannot
/// be read or has no grammar adds nothing.
pub(crate) fn rank(prompt: &str, root: &Path, files: &[String]) -> Vec<Hit> {
    ranked(prompt, index(root, files), &CHOICES)
}

/// What a ranking weighs.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Choices {
    weights: bm25::Weights,
    /// A prompt's word written as code ([`query::terms`]).
    code_weight: f64,
    /// A word of the body of a test the prompt names
    /// ([`query::with_named_tests`]).
    named_test_weight: f64,
}

/// The choices [`rank`] makes (measured in `measure`).
const CHOICES: Choices = Choices {
    weights: bm25::WEIGHTS,
    code_weight: query::CODE_WEIGHT,
    named_test_weight: query::NAMED_TEST_WEIGHT,
};

/// `documents` scored for `prompt`, those that share a word, best first.
fn ranked(prompt: &str, documents: Vec<Document>, choices: &Choices) -> Vec<Hit> {
    let query = query::terms(prompt, choices.code_weight);
    let query = query::with_named_tests(query, prompt, &documents, choices.named_test_weight);
    let weights = &choices.weights;
    let scores = bm25::scores(&documents, &query, weights);
    let mut hits: Vec<Hit> = documents
        .into_iter()
        .zip(scores)
        .filter(|(_, score)| *score > 0.0)
        .map(|(doc, score)| Hit {
            path: doc.path,
            name: doc.name,
            line: doc.line,
            end_line: doc.end_line,
            score,
            test: doc.test,
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
            .then(a.line.cmp(&b.line))
    });
    hits
}

/// The definitions of the files to read.
fn index(root: &Path, files: &[String]) -> Vec<Document> {
    let readable = files
        .iter()
        .filter(|f| is_source_name(f) && !is_doc(f) && outline::readable(f));
    let (tests, sources): (Vec<&String>, Vec<&String>) = readable.partition(|f| is_test(f));
    let mut documents = Vec::new();
    for path in sources.into_iter().chain(tests).take(MAX_FILES) {
        let full = root.join(path);
        if !full.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES) {
            continue;
        }
        let Ok(text) = crate::fsutil::read_to_string(&full) else {
            continue;
        };
        documents.extend(document::documents(path, &text, is_test(path)));
    }
    documents
}

#[cfg(test)]
mod tests;
