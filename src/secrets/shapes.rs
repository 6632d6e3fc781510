//! Credentials kept out of fine-tuning records: values that look like API
//! keys and tokens, private key blocks and `NAME=value` lines whose name
//! says secret are replaced before a record is written, and counted.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What a credential is replaced with.
pub(crate) const REDACTED: &str = "[redacted credential]";

/// Credential shapes: whole matches are credentials.
static SHAPES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // OpenAI / Anthropic style keys: sk-…, sk-proj-…, sk-ant-… (checked
        // for a digit below, so `sk-learn-style-names` stay)
        r"\bsk-[A-Za-z0-9_-]{20,}",
        // AWS access key ids
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        // GitHub tokens
        r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
        r"\bgithub_pat_[A-Za-z0-9_]{22,}\b",
        // Slack tokens
        r"\bxox[baprs]-[A-Za-z0-9-]{10,}",
        // Google API keys
        r"\bAIza[0-9A-Za-z_-]{35}\b",
        // Private key blocks (PEM, OpenSSH), to their end or the text's
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)",
        // GitLab, npm and PyPI tokens
        r"\bglpat-[A-Za-z0-9_-]{20,}",
        r"\bnpm_[A-Za-z0-9]{36}\b",
        r"\bpypi-[A-Za-z0-9_-]{50,}",
    ]
    .iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

/// `NAME=value` or `NAME: value` where NAME says secret (any case): the
/// value is the credential when it looks like one.
static ASSIGNMENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b[A-Za-z0-9_]*(?:secret|token|password|passwd|api_?key|access_?key|private_?key|credential)[A-Za-z0-9_]*\s*[=:]\s*["']?([^\s"',;]+)"#,
    )
    .ok()
});

/// Whether a value found after a secret-looking name is a credential and
/// not code (`&str`, `4096`, `TokenType`): long enough, mixing letters and
/// digits or symbols, or simply long.
fn looks_secret(value: &str) -> bool {
    let letters = value.chars().any(|c| c.is_ascii_alphabetic());
    let others = value
        .chars()
        .any(|c| c.is_ascii_digit() || "/+=-_.!@#$%^*".contains(c));
    let code_like =
        value.starts_with(['&', '[', '(', '{', '<', '$']) || value.ends_with(['(', ')']);
    !code_like && ((value.len() >= 8 && letters && others) || value.len() >= 24)
}

/// The credentials in `text` known by their shape alone (tokens, private
/// key blocks), as found.
pub(crate) fn shapes(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for shape in SHAPES.iter() {
        for m in shape.find_iter(text) {
            let value = m.as_str();
            if value.starts_with("sk-") && !value.chars().any(|c| c.is_ascii_digit()) {
                continue;
            }
            found.push(value.to_string());
        }
    }
    found
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
        let text = "key sk-proj-abcdefghijklmnop1234 and AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nexport DB_PASSWORD=\"hunter2hunter2\"\nmy_api_key=abcdef1234567\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nplain text stays";
        let (clean, count) = redact_text(text);
        assert_eq!(count, 6, "{clean}");
        for secret in [
            "sk-proj",
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
