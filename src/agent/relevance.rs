//! What a task is about, as words: the prompt's (and a failing check's)
//! identifiers split into their lower-case parts (`get_signature`,
//! `getSignature` → `get`, `signature`), common English and code words
//! dropped. The repository map ranks files by them, and a big file is shown
//! by the definitions that share them.

use std::collections::{BTreeMap, BTreeSet};

/// Words too common to tell files apart.
const STOP_WORDS: [&str; 96] = [
    "the", "and", "for", "with", "that", "this", "from", "into", "not", "but", "are", "was",
    "were", "its", "it's", "has", "have", "had", "should", "would", "could", "when", "then",
    "than", "only", "also", "all", "any", "each", "every", "one", "two", "new", "old", "use",
    "used", "uses", "using", "make", "makes", "add", "fix", "fixes", "fixed", "bug", "test",
    "tests", "testing", "fail", "fails", "failing", "failed", "pass", "passes", "code", "file",
    "files", "function", "method", "class", "return", "returns", "value", "values", "self", "none",
    "true", "false", "def", "import", "run", "them", "they", "there", "what", "which", "how",
    "why", "does", "did", "get", "set", "let", "var", "const", "can", "will", "you", "your", "our",
    "but", "instead", "give", "gives", "wrong", "right",
];

/// The words of `text`: identifiers and their parts, lower-case, at least
/// three letters, stop words left out, stemmed ([`stem`]); each once, in a
/// stable order.
pub(crate) fn words(text: &str) -> BTreeSet<String> {
    terms(text).collect()
}

/// The words of `text` as [`words`] finds them, but in text order and each
/// as often as it occurs: what a ranking that counts needs.
pub(crate) fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .flat_map(split_identifier)
        .filter(|part| {
            part.len() >= 3
                && part.chars().any(|c| c.is_alphabetic())
                && !STOP_WORDS.contains(&part.as_str())
        })
        .map(|part| stem(&part))
}

/// A word without its inflection, so that `signed`, `signing` and `sign`,
/// or `expired` and `expire`, meet: `-ing`, `-ed`, `-es`, `-s` and then a
/// final `-e` come off, while at least three letters stay.
pub(crate) fn stem(word: &str) -> String {
    let mut w = word;
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(rest) = w.strip_suffix(suffix)
            && rest.len() >= 3
            && !(suffix == "s" && rest.ends_with('s'))
        {
            w = rest;
            break;
        }
    }
    let w = w.strip_suffix('e').filter(|r| r.len() >= 3).unwrap_or(w);
    w.to_string()
}

/// `get_signature` → `get`, `signature`; `TTLCache` → `ttl`, `cache`;
/// `parseHTML5` → `parse`, `html5`. The whole identifier comes too when it
/// has parts (`get_signature` itself).
pub(crate) fn split_identifier(token: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for piece in token.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = piece.chars().collect();
        let mut current = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let boundary = c.is_uppercase()
                && prev.is_some_and(|p| {
                    p.is_lowercase() || p.is_ascii_digit() || (p.is_uppercase() && next_lower)
                });
            if boundary && !current.is_empty() {
                parts.push(std::mem::take(&mut current).to_lowercase());
            }
            current.push(c);
        }
        if !current.is_empty() {
            parts.push(current.to_lowercase());
        }
    }
    let whole = token.trim_matches('_').to_lowercase();
    if parts.len() > 1 && !whole.is_empty() {
        parts.push(whole);
    }
    parts
}

/// How much `text` is about `wanted`: the number of wanted words it holds,
/// each counted once, weighted by how rare it is across the repository
/// (`document_counts`: in how many of `documents` files a word occurs).
pub(crate) fn score(
    text_words: &BTreeSet<String>,
    wanted: &BTreeSet<String>,
    document_counts: &BTreeMap<String, usize>,
    documents: usize,
) -> f64 {
    wanted
        .iter()
        .filter(|w| text_words.contains(*w))
        .map(|w| {
            let df = document_counts.get(w).copied().unwrap_or(0) as f64;
            ((documents as f64 + 1.0) / (df + 1.0)).ln() + 0.1
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn identifiers_split_into_their_parts() {
        assert_eq!(
            split_identifier("get_signature"),
            ["get", "signature", "get_signature"]
        );
        assert_eq!(split_identifier("TTLCache"), ["ttl", "cache", "ttlcache"]);
        assert_eq!(
            split_identifier("parseHTML5"),
            ["parse", "html5", "parsehtml5"]
        );
        assert_eq!(split_identifier("key"), ["key"]);
    }

    #[test]
    fn prompts_become_the_words_that_matter() {
        let got = words("New tokens are signed with the wrong key: `Signer.get_signature` fails.");
        let want: BTreeSet<String> = ["token", "sign", "key", "signer", "signatur", "get_signatur"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn inflections_meet() {
        for (a, b) in [
            ("signed", "sign"),
            ("signing", "sign"),
            ("expired", "expire"),
            ("tokens", "token"),
            ("caches", "cache"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("keys"), "key");
    }

    #[test]
    fn rare_words_weigh_more() {
        let wanted = words("signature key");
        let counts: BTreeMap<String, usize> =
            [("signature".to_string(), 1), ("key".to_string(), 9)].into();
        let signer = score(&words("def get_signature(key)"), &wanted, &counts, 10);
        let other = score(&words("key = 1"), &wanted, &counts, 10);
        assert!(signer > other * 2.0, "{signer} {other}");
    }
}
