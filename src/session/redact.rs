//! Credentials kept out of fine-tuning records: values that look like API
//! keys and tokens, private key blocks and `NAME=value` lines whose name
//! says secret are replaced before a record is written, and counted.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What a credential is replaced with.
pub const REDACTED: &str = "[redacted credential]";

/// Credential shapes: whole matches are replaced.
static SHAPES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // OpenAI / Anthropic style keys: sk-…, sk-proj-…, sk-ant-…
        r"\bsk-[A-Za-z0-9_-]{16,}",
        // AWS access key ids
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        // GitHub tokens
        r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
        r"\bgithub_pat_[A-Za-z0-9_]{22,}\b",
        // Slack tokens
        r"\bxox[baprs]-[A-Za-z0-9-]{10,}",
        // Google API keys
        r"\bAIza[0-9A-Za-z_-]{35}\b",
        // Private key blocks
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ]
    .iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

/// `NAME=value` or `NAME: value` where NAME says secret: the value is
/// replaced, the name kept.
static ASSIGNMENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?m)\b((?:[A-Za-z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL)[A-Za-z0-9_]*)\s*[=:]\s*["']?)([^\s"']{4,})"#,
    )
    .ok()
});

/// `text` with credentials replaced, and how many were.
pub fn redact_text(text: &str) -> (String, usize) {
    let mut out = text.to_string();
    let mut count = 0;
    for shape in SHAPES.iter() {
        let found = shape
            .find_iter(&out)
            .filter(|m| m.as_str() != REDACTED)
            .count();
        if found > 0 {
            count += found;
            out = shape.replace_all(&out, REDACTED).into_owned();
        }
    }
    if let Some(assignment) = ASSIGNMENT.as_ref() {
        let found = assignment
            .captures_iter(&out)
            .filter(|c| !REDACTED.contains(&c[2]) && &c[2] != "[redacted")
            .count();
        if found > 0 {
            count += found;
            out = assignment
                .replace_all(&out, |c: &regex::Captures<'_>| {
                    if REDACTED.contains(&c[2]) || &c[2] == "[redacted" {
                        c[0].to_string()
                    } else {
                        format!("{}{REDACTED}", &c[1])
                    }
                })
                .into_owned();
        }
    }
    (out, count)
}

/// Redacts every string inside `value`; returns how many credentials.
pub fn redact_value(value: &mut Value) -> usize {
    match value {
        Value::String(s) => {
            let (clean, count) = redact_text(s);
            if count > 0 {
                *s = clean;
            }
            count
        }
        Value::Array(items) => items.iter_mut().map(redact_value).sum(),
        Value::Object(map) => map.values_mut().map(redact_value).sum(),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_shapes_are_redacted_and_counted() {
        let text = "key sk-proj-abcdefghijklmnop1234 and AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nexport DB_PASSWORD=\"hunter2hunter2\"\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nplain text stays";
        let (clean, count) = redact_text(text);
        assert_eq!(count, 5, "{clean}");
        assert!(!clean.contains("sk-proj") && !clean.contains("AKIA") && !clean.contains("wJalr"));
        assert!(!clean.contains("hunter2") && !clean.contains("MIIE"));
        assert!(
            clean.contains("AWS_SECRET_ACCESS_KEY=[redacted credential]"),
            "{clean}"
        );
        assert!(clean.contains("plain text stays"));
        let (again, count) = redact_text(&clean);
        assert_eq!((again.as_str(), count), (clean.as_str(), 0), "idempotent");
        let (clean, count) = redact_text("token count: 12 and max_tokens = 4096");
        assert_eq!(count, 0, "{clean}");
    }
}
