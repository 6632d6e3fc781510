//! serde_json's syntax errors in words a reader of a JSON file knows:
//! serde_json says "expected ident" for `{"model": nope}`; the reader needs
//! "text needs double quotes". One table, read top to bottom.

/// serde_json's message (its start, as serde_json's `ErrorCode` displays
/// it) and what to say instead.
const WORDS: [(&str, &str); 17] = [
    (
        "EOF while parsing",
        "the text ends before the JSON does: a closing `}`, `]` or `\"` is missing",
    ),
    ("expected `:`", "a `:` is missing after an object's key"),
    (
        "expected `,` or `]`",
        "a `,` between a list's items, or the list's closing `]`, is missing",
    ),
    (
        "expected `,` or `}`",
        "a `,` between an object's entries, or the object's closing `}`, is missing",
    ),
    (
        "expected ident",
        "a word JSON does not know: text needs double quotes, and true, false and null are lowercase",
    ),
    (
        "expected value",
        "a value is missing here, or is not JSON: text needs double quotes, and true, false and null are lowercase",
    ),
    ("expected `\"`", "a `\"` is missing"),
    (
        "invalid escape",
        "a backslash escape JSON does not know in a string (write `\\\\` for a backslash)",
    ),
    ("invalid number", "a number JSON cannot read"),
    ("number out of range", "a number too large to read"),
    (
        "control character",
        "a raw line break or tab inside a string (write `\\n` or `\\t`)",
    ),
    (
        "key must be a string",
        "an object's key without double quotes",
    ),
    (
        "trailing comma",
        "a `,` before a closing `}` or `]` (JSON allows none there)",
    ),
    ("trailing characters", "more text after the JSON value ends"),
    ("recursion limit exceeded", "nested too deeply to read"),
    (
        "invalid unicode code point",
        "a `\\u` escape that is no character",
    ),
    (
        "lone leading surrogate",
        "a `\\u` escape that is no character",
    ),
];

/// What is wrong, in words: serde_json's message without its position
/// (callers give line and column their own way), put in plain words when
/// it is a syntax error the table knows; a type error ("invalid type:
/// string \"x\", expected u32") is kept as serde_json says it.
pub(crate) fn describe(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let message = match full.rfind(" at line ") {
        Some(cut) => &full[..cut],
        None => full.as_str(),
    };
    WORDS
        .iter()
        .find(|(said, _)| message.starts_with(said))
        .map_or_else(|| message.to_string(), |(_, words)| words.to_string())
}

#[cfg(test)]
mod tests {
    use super::describe;

    fn said(text: &str) -> String {
        describe(&serde_json::from_str::<serde_json::Value>(text).unwrap_err())
    }

    #[test]
    fn each_common_mistake_is_said_in_words() {
        for (text, words) in [
            ("{\"model\": nope}", "text needs double quotes"),
            ("{\"model\": True}", "true, false and null are lowercase"),
            ("{\"a\": 1,}", "a `,` before a closing"),
            ("{model: 1}", "key without double quotes"),
            ("{\"a\" 1}", "a `:` is missing"),
            ("{\"a\": 1 \"b\": 2}", "a `,` between an object's entries"),
            ("[1 2]", "a `,` between a list's items"),
            ("{\"a\": [1, 2", "the text ends before the JSON does"),
            ("{\"a\": \"x\ny\"}", "a raw line break"),
            ("{\"a\": \"\\q\"}", "a backslash escape"),
            ("{} {}", "more text after the JSON value"),
            ("{\"a\": }", "a value is missing"),
        ] {
            let got = said(text);
            assert!(got.contains(words), "{text:?}: {got}");
            assert!(!got.contains(" at line "), "{got}");
        }
    }

    #[test]
    fn a_type_error_is_kept_as_serde_json_says_it() {
        let e = serde_json::from_str::<u32>("\"x\"").unwrap_err();
        assert!(
            describe(&e).starts_with("invalid type: string"),
            "{}",
            describe(&e)
        );
    }
}
