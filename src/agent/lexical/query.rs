//! The prompt as a query: its words ([`relevance::terms`]: identifiers
//! split, stop words out, stemmed), each once, those written as code
//! weighing more than plain words; and the words of the tests it names:
//! a failing test points at the code it calls.

use std::collections::{BTreeMap, BTreeSet};

use super::document::{Document, Field};
use crate::agent::relevance;

/// How much more a word counts when the prompt writes it as code: an
/// identifier with `_`, a capital inside or a call's `(`, or between
/// backticks or quotes.
pub(crate) const CODE_WEIGHT: f64 = 2.0;

/// The words of `prompt` with their weights (1, or `code_weight` for a
/// word written as code), in a stable order.
pub(crate) fn terms(prompt: &str, code_weight: f64) -> Vec<(String, f64)> {
    let mut weights: BTreeMap<String, f64> = BTreeMap::new();
    let chars: Vec<char> = prompt.chars().collect();
    let mut start = 0;
    while start < chars.len() {
        if !is_word_char(chars[start]) {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < chars.len() && is_word_char(chars[end]) {
            end += 1;
        }
        let token: String = chars[start..end].iter().collect();
        let before = start.checked_sub(1).map(|i| chars[i]);
        let after = chars.get(end).copied();
        let weight = if looks_like_code(&token, before, after) {
            code_weight
        } else {
            1.0
        };
        for term in relevance::terms(&token) {
            let w = weights.entry(term).or_insert(0.0);
            *w = w.max(weight);
        }
        start = end;
    }
    weights.into_iter().collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `token`, between the characters `before` and `after`, is
/// written as code rather than as a word of the sentence.
fn looks_like_code(token: &str, before: Option<char>, after: Option<char>) -> bool {
    let inner_capital =
        token.chars().skip(1).any(char::is_uppercase) && token.chars().any(char::is_lowercase);
    token.trim_matches('_').contains('_')
        || inner_capital
        || matches!(after, Some('(' | '='))
        || matches!(before, Some('`' | '\'' | '"' | '.'))
}

/// How much a word of a named test's body counts: as much as the
/// prompt's own, whose pointer to the code the test is (measured on
/// `bench/repo-tasks`: 0.3 put one task fewer within the first three
/// definitions and one fewer within ten).
pub(crate) const NAMED_TEST_WEIGHT: f64 = 1.0;

/// `query` with the words of the bodies of the tests among `documents`
/// that `prompt` names (`test_ttl_lru`, `TestCache.test_ttl_lru`) added
/// at `weight`, those the prompt has keeping their own.
pub(crate) fn with_named_tests(
    query: Vec<(String, f64)>,
    prompt: &str,
    documents: &[Document],
    weight: f64,
) -> Vec<(String, f64)> {
    let tokens: BTreeSet<&str> = prompt
        .split(|c: char| !is_word_char(c))
        .filter(|t| t.len() >= 3)
        .collect();
    let mut weights: BTreeMap<String, f64> = query.into_iter().collect();
    if weight <= 0.0 {
        return weights.into_iter().collect();
    }
    let named = documents
        .iter()
        .filter(|d| d.test && tokens.contains(d.name.rsplit('.').next().unwrap_or(&d.name)));
    for doc in named {
        for term in doc.field(Field::Body).counts.keys() {
            weights.entry(term.clone()).or_insert(weight);
        }
    }
    weights.into_iter().collect()
}
