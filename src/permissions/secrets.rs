//! Secret values kept out of everything the model sees, and so out of
//! sessions and fine-tuning records: the values in the workspace's secret
//! `.env` files and in this process's secret-looking environment variables
//! are replaced in every tool result. This backs the hard rules up: a
//! command that reaches a secret some way they cannot see (`grep -r KEY .`,
//! `env`) still shows `[redacted secret]`.

use std::borrow::Cow;
use std::path::Path;

use aho_corasick::AhoCorasick;
use ignore::WalkBuilder;

use super::hard_rules::is_secret_env_file;

/// What a secret value is replaced with.
pub const REDACTED: &str = "[redacted secret]";
/// Shorter values are too likely to be ordinary words (`true`, `dev`).
const MIN_VALUE_LEN: usize = 6;
/// How deep the workspace is searched for secret files.
const MAX_DEPTH: usize = 5;
/// Folders never searched: dependencies and build output.
const SKIPPED_DIRS: [&str; 9] = [
    ".git",
    "node_modules",
    "target",
    "vendor",
    ".venv",
    "venv",
    "dist",
    "build",
    "__pycache__",
];
/// Environment variable names that hold secrets contain one of these.
const SECRET_NAME_PARTS: [&str; 7] = [
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "PRIVATE",
];

/// The secret values to scrub.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    matcher: Option<AhoCorasick>,
    count: usize,
}

impl Secrets {
    /// Gathers the values of the secret `.env` files under `root` (also the
    /// git-ignored ones) and of this process's secret-looking environment.
    pub fn gather(root: &Path) -> Self {
        let mut values = Vec::new();
        let walker = WalkBuilder::new(root)
            .standard_filters(false)
            .follow_links(false)
            .max_depth(Some(MAX_DEPTH))
            .filter_entry(|e| {
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && SKIPPED_DIRS.iter().any(|d| e.file_name() == *d))
            })
            .build();
        for entry in walker.flatten() {
            let is_file = entry.file_type().is_some_and(|t| t.is_file());
            let small = entry.metadata().is_ok_and(|m| m.len() <= 1024 * 1024);
            if is_file
                && small
                && is_secret_env_file(entry.path())
                && let Ok(text) = std::fs::read_to_string(entry.path())
            {
                values.extend(env_file_values(&text));
            }
        }
        for (name, value) in std::env::vars() {
            let upper = name.to_ascii_uppercase();
            if SECRET_NAME_PARTS.iter().any(|p| upper.contains(p)) {
                values.push(value);
            }
        }
        Secrets::from_values(values)
    }

    /// Scrubs exactly these values (those shorter than 6 characters are
    /// ignored).
    pub fn from_values(values: impl IntoIterator<Item = String>) -> Self {
        let mut values: Vec<String> = values
            .into_iter()
            .map(|v| v.trim().to_string())
            .filter(|v| v.chars().count() >= MIN_VALUE_LEN)
            .collect();
        // Longest first, so a value containing another is replaced whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        let count = values.len();
        let matcher = if values.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                .build(&values)
                .ok()
        };
        Secrets { matcher, count }
    }

    /// How many distinct values are scrubbed.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether nothing is scrubbed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `text` with every secret value replaced by [`REDACTED`].
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match &self.matcher {
            Some(m) if m.is_match(text) => {
                let replacements = vec![REDACTED; self.count];
                Cow::Owned(m.replace_all(text, &replacements))
            }
            _ => Cow::Borrowed(text),
        }
    }
}

/// The values of `KEY=value` lines (`export` and quotes allowed, comments
/// skipped).
fn env_file_values(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.strip_prefix("export ").unwrap_or(l).split_once('='))
        .map(|(_, value)| {
            let value = value.trim();
            value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(value)
                .to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_from_env_files_are_scrubbed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/x")).unwrap();
        std::fs::write(
            dir.path().join(".env.local"),
            "# comment\nAPI_KEY=sk-supersecret123\nexport DB_PASS=\"hunter2hunter2\"\nDEBUG=true\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("config/prod.env"), "TOKEN='tok-abcdef'\n").unwrap();
        std::fs::write(
            dir.path().join(".env.example"),
            "API_KEY=placeholder-value\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("node_modules/x/.env"), "K=ignored-value\n").unwrap();
        std::fs::write(dir.path().join(".gitignore"), ".env*\n").unwrap();
        let secrets = Secrets::gather(dir.path());
        let text = "key sk-supersecret123, pass hunter2hunter2, tok-abcdef, DEBUG=true, placeholder-value, ignored-value";
        assert_eq!(
            secrets.scrub(text),
            "key [redacted secret], pass [redacted secret], [redacted secret], DEBUG=true, placeholder-value, ignored-value"
        );
        assert!(matches!(secrets.scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn longest_value_wins_and_short_values_are_ignored() {
        let secrets = Secrets::from_values([
            "abcdef".to_string(),
            "abcdefgh".to_string(),
            "abc".to_string(),
        ]);
        assert_eq!(secrets.len(), 2);
        assert_eq!(
            secrets.scrub("abcdefgh abcdef abc"),
            "[redacted secret] [redacted secret] abc"
        );
    }
}
