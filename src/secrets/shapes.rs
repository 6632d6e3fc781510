//! Credentials known by their shape: values that look like API keys and
//! tokens, private key blocks (gitleaks' rules and oc's own, `rules`), and
//! `NAME=value` lines whose name says secret. Tool results are scrubbed of
//! them (`scrub`), and fine-tuning records are redacted of them before they
//! are written, and counted.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde_json::Value;

use super::rules::RULES;

/// What a credential is replaced with.
pub(crate) const REDACTED: &str = "[redacted credential]";

/// `NAME=value` or `NAME: value` where NAME says secret (any case): the
/// value is the credential when it looks like one. The value ends at a
/// space, a quote, `,`, `;` or a backslash (`\n` inside a string literal).
/// The name's start is left out: a leading `\b[A-Za-z0-9_]*` made this
/// regex ten times slower (a Unicode `\b` keeps it off the fast engines).
static ASSIGNMENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?:secret|token|password|passwd|api_?key|access_?key|private_?key|credential)[A-Za-z0-9_]*\s*[=:]\s*["']?([^\s"',;\\]+)"#,
    )
    .ok()
});

/// Values after a secret-looking name that are code, not credentials: the
/// model edits from tool results, so code there must stay as it is.
const CODE_VALUES: [&str; 5] = [
    // code punctuation: `Option<u32>`, `f(x)`, `crate::secrets`, `&str`, `[..]`
    r"[<>()\[\]{}&|:]",
    // a field or method path: `reply.eval_count`, `settings.SECRET_KEY`
    r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$",
    // lower-case words without digits: `floor_token`, `encoded-word`
    r"^[a-z_-]+$",
    // a constant's name: `TLS13_CHACHA20_POLY1305_SHA256`
    r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$",
    // a variable or placeholder: `$TOKEN`, `${TOKEN}`, `%TOKEN%`, `@TOKEN@`
    r"^[$%@]",
];

static CODE: LazyLock<Option<RegexSet>> = LazyLock::new(|| RegexSet::new(CODE_VALUES).ok());

/// Whether a value found after a secret-looking name is a credential and
/// not code ([`CODE_VALUES`], `4096`, `TokenType`): long enough, mixing
/// letters and digits or symbols, or simply long.
fn looks_secret(value: &str) -> bool {
    let letters = value.chars().any(|c| c.is_ascii_alphabetic());
    let others = value
        .chars()
        .any(|c| c.is_ascii_digit() || "/+=-_.!@#$%^*".contains(c));
    let code_like = CODE.as_ref().is_none_or(|code| code.is_match(value));
    !code_like && ((value.len() >= 8 && letters && others) || value.len() >= 24)
}

/// The credentials in `text` known by their shape alone: the rules of
/// gitleaks and oc's own (`rules`), as found.
pub(crate) fn shapes(text: &str) -> Vec<String> {
    RULES.find(text).into_iter().map(|f| f.secret).collect()
}

/// The credentials in `text`: [`shapes`], and values after names that say
/// secret.
pub(crate) fn find(text: &str) -> Vec<String> {
    let mut found = shapes(text);
    if let Some(assignment) = ASSIGNMENT.as_ref() {
        for caps in assignment.captures_iter(text) {
            let value = &caps[1];
            if looks_secret(value) && value != REDACTED {
                found.push(value.to_string());
            }
        }
    }
    found
}

#[cfg(test)]
/// `text` with credentials replaced, and how many were.
pub(crate) fn redact_text(text: &str) -> (String, usize) {
    let found = find(text);
    replace_all(text, &found)
}

fn replace_all(text: &str, secrets: &[String]) -> (String, usize) {
    let mut out = text.to_string();
    let mut count = 0;
    let mut secrets: Vec<&String> = secrets.iter().filter(|s| !s.is_empty()).collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    for secret in secrets {
        let n = out.matches(secret.as_str()).count();
        if n > 0 {
            count += n;
            out = out.replace(secret.as_str(), REDACTED);
        }
    }
    (out, count)
}

/// Redacts every string inside `value`; returns how many credentials. A
/// credential found anywhere is replaced everywhere (the model's answer
/// repeating a key from a tool result).
pub(crate) fn redact_value(value: &mut Value) -> usize {
    let mut found = Vec::new();
    collect(value, &mut found);
    if found.is_empty() {
        return 0;
    }
    replace_in(value, &found)
}

fn collect(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(s) => found.extend(find(s)),
        Value::Array(items) => items.iter().for_each(|v| collect(v, found)),
        Value::Object(map) => map.values().for_each(|v| collect(v, found)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn replace_in(value: &mut Value, secrets: &[String]) -> usize {
    match value {
        Value::String(s) => {
            let (clean, count) = replace_all(s, secrets);
            if count > 0 {
                *s = clean;
            }
            count
        }
        Value::Array(items) => items.iter_mut().map(|v| replace_in(v, secrets)).sum(),
        Value::Object(map) => map.values_mut().map(|v| replace_in(v, secrets)).sum(),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_shapes_are_redacted_and_counted() {
        let text = "key sk-abcdefghij0123456789T3BlbkFJ0123456789abcdefghij and AKIAZ7QW3RTY5UIOPA2S\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nexport DB_PASSWORD=\"hunter2hunter2\"\nmy_api_key=abcdef1234567\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAvq9Xn3Ty0uBcZ8a2Lm4Pq7Rs1Wk5Jd6Hf0Gx3Ne9Yc2Vb8Mz\n-----END RSA PRIVATE KEY-----\nplain text stays";
        let (clean, count) = redact_text(text);
        assert_eq!(count, 6, "{clean}");
        for secret in [
            "sk-abc",
            "AKIA",
            "wJalr",
            "hunter2",
            "abcdef1234567",
            "MIIE",
        ] {
            assert!(!clean.contains(secret), "{secret}: {clean}");
        }
        assert!(
            clean.contains("AWS_SECRET_ACCESS_KEY=[redacted credential]"),
            "{clean}"
        );
        assert!(clean.contains("plain text stays"));
        let (again, count) = redact_text(&clean);
        assert_eq!((again.as_str(), count), (clean.as_str(), 0), "idempotent");
    }

    #[test]
    fn code_is_not_mistaken_for_credentials() {
        for text in [
            "token count: 12 and max_tokens = 4096",
            "MAX_TOKENS = 8192",
            "const API_KEY_HEADER: &str = \"x-api-key\";",
            "TOKEN_TYPE: TokenType",
            "use sk-learn-style-identifier-is-long here",
            "password: String,",
            "api_key: Option<u32>,",
            "let token = tokenize_str(line).map_err(|e| e)?;",
            "use crate::secrets::is_secret_env_name;",
            "input_tokens: reply.prompt_eval_count,",
            "secret_key = settings.SECRET_KEY",
            "floor_token = ceil_token",
            "token_type = 'encoded-word'",
            "secret: TLS13_CHACHA20_POLY1305_SHA256_INTERNAL,",
            "password = \"${DB_PASSWORD}\"",
        ] {
            let (clean, count) = redact_text(text);
            assert_eq!((clean.as_str(), count), (text, 0), "{text}");
        }
    }

    #[test]
    fn a_credential_is_replaced_everywhere_in_the_record() {
        let mut record = serde_json::json!({
            "messages": [
                {"role": "tool", "content": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
                {"role": "assistant", "content": "The secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY."}
            ]
        });
        assert_eq!(redact_value(&mut record), 2);
        assert!(!record.to_string().contains("wJalr"));
    }
}
