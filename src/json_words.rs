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

/// serde's names of JSON's kinds of value (and of Rust types a value is
/// read into), and the words for them.
const KINDS: [(&str, &str); 12] = [
    ("map", "an object"),
    ("a map", "an object"),
    ("sequence", "a list"),
    ("a sequence", "a list"),
    ("u8", "a whole number"),
    ("u16", "a whole number"),
    ("u32", "a whole number"),
    ("u64", "a whole number"),
    ("usize", "a whole number"),
    ("f64", "a number"),
    ("a boolean", "true or false"),
    ("a string", "text in double quotes"),
];

/// What is wrong, in words: serde_json's message without its position
/// (callers give line and column their own way), put in plain words when
/// it is a syntax error the table knows, or a value of the wrong kind
/// ("invalid type: map, expected a sequence": "an object where a list is
/// due"); anything else as serde_json says it.
pub(crate) fn describe(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let message = match full.rfind(" at line ") {
        Some(cut) => &full[..cut],
        None => full.as_str(),
    };
    if let Some(words) = wrong_kind(message) {
        return words;
    }
    WORDS
        .iter()
        .find(|(said, _)| message.starts_with(said))
        .map_or_else(|| message.to_string(), |(_, words)| words.to_string())
}

/// "invalid type: GOT, expected WANT" (or "invalid value: …") in words.
fn wrong_kind(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let (got, want) = rest.split_once(", expected ")?;
    let word = |kind: &str| {
        let kind = kind.trim();
        KINDS
            .iter()
            .find(|(name, _)| *name == kind)
            .map_or_else(|| kind.to_string(), |(_, words)| words.to_string())
    };
    let got = match got.split_once(' ') {
        // `string "x"`, `integer `5``: the kind, then the value.
        Some((kind @ ("string" | "integer" | "floating" | "boolean"), value)) => {
            format!("{kind} {value}")
        }
        _ => word(got),
    };
    Some(format!("{got} where {} is due", word(want)))
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
    fn a_value_of_the_wrong_kind_is_said_in_words() {
        let e = serde_json::from_str::<u32>("\"x\"").unwrap_err();
        assert_eq!(describe(&e), "string \"x\" where a whole number is due");
        let e = serde_json::from_str::<Vec<u32>>("{}").unwrap_err();
        assert_eq!(describe(&e), "an object where a list is due");
    }
}
