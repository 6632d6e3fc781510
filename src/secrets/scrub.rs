//! Secret values kept out of everything the model sees, and so out of
//! sessions and fine-tuning records: the values in the workspace's secret
//! `.env` files and in this process's secret-looking environment variables
//! are replaced in every tool result. This backs the hard rules up: a
//! command that reaches a secret some way they cannot see (`grep -r KEY .`,
//! `env`) still shows `[redacted secret]`.

use std::borrow::Cow;
use std::path::Path;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use ignore::WalkBuilder;

use super::files::is_secret_env_file;

/// What a secret value is replaced with.
pub(crate) const REDACTED: &str = "[redacted secret]";
/// Shorter values are too likely to be ordinary words (`true`, `dev`);
/// they are not scrubbed (docs/permissions.md "Secrets").
const MIN_VALUE_LEN: usize = 6;
/// How deep the workspace is searched for secret files (`a/.env` is 2).
const MAX_DEPTH: usize = 16;
/// Folders never searched: git's own, and installed dependencies.
const SKIPPED_DIRS: [&str; 3] = [".git", "node_modules", ".venv"];
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
pub(crate) struct Secrets {
    matcher: Option<AhoCorasick>,
    /// Patterns in the matcher (values and their encodings).
    patterns: usize,
    /// Distinct values (what the tests count).
    #[cfg(test)]
    count: usize,
}

impl Secrets {
    /// Gathers the values of the secret `.env` files under `root` (also the
    /// git-ignored ones), of this process's secret-looking environment, and
    /// of the variables named in `secret_vars` (e.g. `api_key_env`) whatever
    /// their names.
    pub(crate) fn gather(root: &Path, secret_vars: &[&str]) -> Self {
        let mut values = Vec::new();
        let mut files = Vec::new();
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
            // The name first: most entries cost no `stat`.
            if !is_secret_env_file(entry.path()) {
                continue;
            }
            // A link to a secret file holds the same secrets.
            let target = std::fs::metadata(entry.path());
            let is_file = target.as_ref().is_ok_and(std::fs::Metadata::is_file);
            let small = target.is_ok_and(|m| m.len() <= 1024 * 1024);
            if is_file
                && small
                && let Ok(bytes) = std::fs::read(entry.path())
            {
                values.extend(env_file_values(&String::from_utf8_lossy(&bytes)));
                files.push(bytes);
            }
        }
        // `vars_os`: a variable that is not UTF-8 is read, not a panic.
        for (name, value) in std::env::vars_os() {
            let (name, value) = (name.to_string_lossy(), value.to_string_lossy().into_owned());
            let upper = name.to_ascii_uppercase();
            if SECRET_NAME_PARTS.iter().any(|p| upper.contains(p))
                || secret_vars.contains(&name.as_ref())
            {
                values.push(value);
            }
        }
        Secrets::from_parts(values, files)
    }

    /// Scrubs exactly these values (those shorter than 6 characters are
    /// ignored).
    #[cfg(test)]
    pub(crate) fn from_values(values: impl IntoIterator<Item = String>) -> Self {
        Secrets::from_parts(values, Vec::new())
    }

    /// Scrubs `values` in the encodings a command can turn them into in one
    /// pipe (see [`value_forms`]), and `files` (whole secret files' bytes)
    /// in the forms `base64` and `xxd -p` give a whole file.
    fn from_parts(values: impl IntoIterator<Item = String>, files: Vec<Vec<u8>>) -> Self {
        let mut values: Vec<String> = values
            .into_iter()
            .map(|v| v.trim().to_string())
            .filter(|v| v.chars().count() >= MIN_VALUE_LEN)
            .collect();
        values.sort();
        values.dedup();
        #[cfg(test)]
        let count = values.len();
        let mut all: Vec<String> = values.iter().flat_map(|v| value_forms(v)).collect();
        all.extend(files.iter().flat_map(|f| file_forms(f)));
        // Longest first, so a value containing another is replaced whole.
        let mut values = all;
        values.retain(|v| v.chars().count() >= MIN_VALUE_LEN);
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        let patterns = values.len();
        let matcher = if values.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&values)
                .ok()
        };
        Secrets {
            matcher,
            patterns,
            #[cfg(test)]
            count,
        }
    }

    /// How many distinct values are scrubbed.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.count
    }

    /// `text` with every secret value replaced by [`REDACTED`]. Terminal
    /// escape sequences and control characters are removed first: they can
    /// split a value (`grep --color=always`, an OSC title, `\x01`).
    pub(crate) fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let control = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
        let text: Cow<'a, str> = if text.contains(control) {
            Cow::Owned(strip_ansi(text))
        } else {
            Cow::Borrowed(text)
        };
        let text = match &self.matcher {
            Some(m) if m.is_match(text.as_ref()) => {
                let replacements = vec![REDACTED; self.patterns];
                Cow::Owned(m.replace_all(text.as_ref(), &replacements))
            }
            _ => text,
        };
        let mut found = super::shapes::find(text.as_ref());
        if found.is_empty() {
            return text;
        }
        // In one pass (a text full of tokens finds hundreds, and a pass
        // each copied the whole text), longest first where several start
        // at one place, so a credential holding another is replaced whole.
        found.retain(|c| !c.is_empty());
        found.sort_unstable();
        found.dedup();
        let all = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&found);
        match all {
            Ok(all) => Cow::Owned(all.replace_all(text.as_ref(), &vec![REDACTED; found.len()])),
            Err(_) => {
                found.sort_by_key(|c| std::cmp::Reverse(c.len()));
                let mut out = text.into_owned();
                for credential in found {
                    out = out.replace(&credential, REDACTED);
                }
                Cow::Owned(out)
            }
        }
    }
}

/// One value as a command can show it: as it is, reversed, in upper and
/// lower case, in hex (both cases), and in base64 (standard and URL-safe)
/// at each of the three alignments it can have inside a longer encoded
/// text (`base64 .env`): the characters that depend on the value alone.
fn value_forms(value: &str) -> Vec<String> {
    let bytes = value.as_bytes();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut forms = vec![
        value.to_string(),
        value.chars().rev().collect(),
        value.to_uppercase(),
        value.to_lowercase(),
        hex.to_uppercase(),
        hex,
        base64(bytes),
    ];
    // `od -x`, `-tx4`, `-tx8`: words of 2, 4 or 8 bytes, each written low
    // byte first, at every offset; words that hold a byte from outside the
    // value are dropped.
    for width in [2, 4, 8] {
        for offset in 0..width {
            let mut shifted = vec![0u8; offset];
            shifted.extend_from_slice(bytes);
            let words = swapped_hex(&shifted, width);
            let first = if offset == 0 { 0 } else { 2 * width };
            let whole = 2 * width * (shifted.len() / width);
            if let Some(inner) = words.get(first..whole) {
                forms.push(inner.to_string());
            }
        }
    }
    for shift in 0..3 {
        let mut shifted = vec![0u8; shift];
        shifted.extend_from_slice(bytes);
        let encoded = base64(&shifted);
        // Characters before `start` hold bits of what precedes the value;
        // a last partial group's last character, of what follows it.
        let start = [0, 2, 3][shift];
        let whole_groups = 4 * (shifted.len() / 3);
        let end = whole_groups + [0, 1, 2][shifted.len() % 3];
        if let Some(inner) = encoded.get(start..end) {
            forms.push(inner.to_string());
            forms.push(url_safe(inner));
        }
    }
    forms
}

/// A whole secret file as `base64` (unwrapped, and the 76- and 64-column
/// lines of `base64` and `openssl base64`) and `xxd -p` (unwrapped, and its
/// 60-column lines) show it.
fn file_forms(bytes: &[u8]) -> Vec<String> {
    let encoded = base64(bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let swapped: Vec<String> = [2, 4, 8].map(|w| swapped_hex(bytes, w)).into();
    let mut forms = vec![url_safe(&encoded), encoded.clone()];
    let mut hex_forms = vec![hex.clone()];
    hex_forms.extend(swapped.iter().cloned());
    let chunks = |text: &str, width: usize| -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        chars.chunks(width).map(|c| c.iter().collect()).collect()
    };
    forms.extend(chunks(&encoded, 76));
    forms.extend(chunks(&encoded, 64));
    // `xxd -p` lines hold 30 bytes, `od` lines 16 (spaces taken out).
    hex_forms.extend(chunks(&hex, 60));
    hex_forms.extend(chunks(&hex, 32));
    for words in &swapped {
        hex_forms.extend(chunks(words, 32));
    }
    forms.extend(hex_forms.iter().map(|h| h.to_uppercase()));
    forms.extend(hex_forms);
    forms
}

/// Hex of `width`-byte little-endian words, as `od -x` (2), `-tx4` and
/// `-tx8` show them (a short last word is padded with zeros).
fn swapped_hex(bytes: &[u8], width: usize) -> String {
    bytes
        .chunks(width)
        .flat_map(|word| {
            let mut word = word.to_vec();
            word.resize(width, 0);
            word.into_iter().rev()
        })
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Base64 in the URL-safe alphabet (`-` and `_` for `+` and `/`).
fn url_safe(encoded: &str) -> String {
    encoded.replace('+', "-").replace('/', "_")
}

/// The values of `KEY=value` lines: `export` and quotes allowed, an
/// unquoted value's ` # comment` dropped, a quoted value may span lines
/// (each of its lines is a value too, so a PEM key is scrubbed line by line).
fn env_file_values(text: &str) -> Vec<String> {
    let mut values = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        // `KEY=value`, or `KEY: value` (which dotenv parsers take too).
        let Some((_, value)) = line.split_once('=').or_else(|| line.split_once(": ")) else {
            continue;
        };
        let value = value.trim();
        match value.chars().next().filter(|q| *q == '"' || *q == '\'') {
            // Closed on its own line (a ` # comment` may follow).
            Some(q) if value[1..].contains(q) => {
                let body = &value[1..];
                values.push(body[..body.find(q).unwrap_or(body.len())].to_string());
            }
            Some(q) => {
                let mut body = value[1..].to_string();
                while !body.ends_with(q) {
                    match lines.next() {
                        Some(next) => {
                            body.push('\n');
                            body.push_str(next);
                        }
                        None => break,
                    }
                }
                let body = body.strip_suffix(q).unwrap_or(&body).to_string();
                values.extend(body.lines().map(|l| l.trim().to_string()));
                values.push(body);
            }
            None => {
                let bare = value.split(" #").next().unwrap_or(value).trim();
                values.push(bare.to_string());
            }
        }
    }
    values
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(TABLE[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `text` without terminal escape sequences and control characters: CSI
/// (`ESC [ … final`, or the 8-bit `U+009B`), OSC and the other string
/// sequences (`ESC ] … BEL|ST`, `U+009D`), other `ESC x` pairs, and every
/// other C0 or C1 control character but tab, newline and carriage return.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let kind = match c {
            '\u{1b}' => match chars.next() {
                Some('[') => Sequence::Csi,
                Some(']' | 'P' | 'X' | '^' | '_') => Sequence::String,
                // A character set chosen: `ESC ( B` (`tput sgr0`).
                Some('(' | ')' | '*' | '+' | '-' | '.' | '/' | '#' | '%') => {
                    chars.next();
                    continue;
                }
                _ => continue,
            },
            // Overstrike (`s\bs`, as `man` prints bold): the character
            // before is written again.
            '\u{8}' => {
                out.pop();
                continue;
            }
            // A raw 8-bit CSI that was not UTF-8 arrives as U+FFFD.
            '\u{fffd}'
                if chars
                    .peek()
                    .is_some_and(|c| c.is_ascii_digit() || *c == ';') =>
            {
                Sequence::Csi
            }
            '\u{9b}' => Sequence::Csi,
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => Sequence::String,
            '\t' | '\n' | '\r' => {
                out.push(c);
                continue;
            }
            c if c.is_control() => continue,
            c => {
                out.push(c);
                continue;
            }
        };
        match kind {
            // Parameters, then one final byte.
            Sequence::Csi => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // Up to BEL or ST (`ESC \`, `U+009C`).
            Sequence::String => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' || c == '\u{9c}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
        }
    }
    out
}

/// Kinds of terminal escape sequence [`strip_ansi`] removes.
enum Sequence {
    Csi,
    String,
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
        let secrets = Secrets::gather(dir.path(), &[]);
        let text = "key sk-supersecret123, pass hunter2hunter2, tok-abcdef, DEBUG=true, placeholder-value, ignored-value";
        assert_eq!(
            secrets.scrub(text),
            "key [redacted secret], pass [redacted secret], [redacted secret], DEBUG=true, placeholder-value, ignored-value"
        );
        assert!(matches!(secrets.scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn encodings_colours_comments_and_multi_line_values() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("dist")).unwrap();
        std::fs::write(dir.path().join("dist/.env"), "DIST_KEY=sk-dist-999999\n").unwrap();
        std::fs::write(
            dir.path().join(".env-local"),
            "QUOTED=\"sk-quoted-445566\" # a comment\nCOLON: sk-colon-778899\nDB_PASSWORD=sk-inline-998877 # prod db\nPEM=\"-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----\"\n",
        )
        .unwrap();
        let secrets = Secrets::gather(dir.path(), &[]);
        for text in [
            "sk-dist-999999",
            "sk-inline-998877",
            "sk-quoted-445566",
            "sk-colon-778899",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            "999999-tsid-ks",
            "SK-DIST-999999",
            "c2stZGlzdC05OTk5OTk=",
            "736b2d646973742d393939393939",
            "\u{1b}[01;31msk-dist\u{1b}[m-999999",
            "s\u{9b}31mk-dist-9\u{1b}]0;x\u{7}99999",
            "sk\u{1}-di\u{1b}]8;;u\u{1b}\\st-999999",
            "s\u{8}sk\u{1b}(B-d\u{1b}_x\u{1b}\\ist-\u{fffd}31m999999",
        ] {
            let clean = secrets.scrub(text);
            assert!(clean.contains(REDACTED), "{text:?} -> {clean:?}");
        }
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
    }

    /// `base64 .env`, `base64 -w0 .env`, `xxd -p .env`, and a value inside
    /// a longer base64 text at each alignment.
    #[test]
    fn whole_files_and_values_inside_encoded_text() {
        let dir = tempfile::tempdir().unwrap();
        let file = "# prod\nAPI_KEY=sk-live-abcdef123456\nDB_URL=postgres://u:pw-998877@h/db\nLONG="
            .to_string()
            + &"x".repeat(120) + "\n";
        std::fs::write(dir.path().join(".env"), &file).unwrap();
        let secrets = Secrets::gather(dir.path(), &[]);
        let shown = |text: &str| secrets.scrub(text).into_owned();
        let whole = base64(file.as_bytes());
        assert!(!shown(&whole).contains(&whole[..40]), "{}", shown(&whole));
        let wrapped: Vec<String> = whole
            .chars()
            .collect::<Vec<_>>()
            .chunks(76)
            .map(|c| c.iter().collect())
            .collect();
        let out = shown(&wrapped.join("\n"));
        assert!(!out.contains(&wrapped[0]), "{out}");
        let hex: String = file.bytes().map(|b| format!("{b:02x}")).collect();
        assert!(!shown(&hex).contains(&hex[..60]));
        let value = "sk-live-abcdef123456";
        for prefix in ["", "a", "ab", "abc"] {
            for suffix in ["", "z", "zz"] {
                let text = base64(format!("{prefix}{value}{suffix}").as_bytes());
                assert!(shown(&text).contains(REDACTED), "{prefix}|{suffix}: {text}");
            }
        }
        assert!(shown("736B2D6C6976652D616263646566313233343536").contains(REDACTED));
        // `od -An -x | tr -d ' \n'` of the file, and of a value at odd
        // offset; `xxd -p -u`.
        for width in [2, 4, 8] {
            let od = swapped_hex(file.as_bytes(), width);
            assert!(!shown(&od).contains(&od[..32]), "{}", shown(&od));
            for prefix in ["", "x", "xyz", "xyzwvut"] {
                let odd = swapped_hex(format!("{prefix}{value}yz").as_bytes(), width);
                assert!(shown(&odd).contains(REDACTED), "{width} {prefix}: {odd}");
            }
        }
        assert!(!shown(&hex[..60].to_uppercase()).contains(&hex[..60].to_uppercase()));
    }

    #[test]
    fn credentials_are_known_by_their_shape() {
        let none = Secrets::default();
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n";
        assert_eq!(
            none.scrub(&format!("key:\n{key}done")),
            "key:\n[redacted secret]\ndone"
        );
        let cut = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA";
        assert_eq!(none.scrub(cut), REDACTED);
        // Shapes of real tokens: gitleaks' rules know AWS's documented
        // `AKIAIOSFODNN7EXAMPLE` and made-up `sk-proj-abc…` are not keys.
        for token in [
            "ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "AKIAZ7QW3RTY5UIOPA2S",
            "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOp",
            "glpat-abcdefghij0123456789",
            "sk-abcdefghij0123456789T3BlbkFJ0123456789abcdefghij",
        ] {
            assert_eq!(
                none.scrub(&format!("t={token};")),
                "t=[redacted secret];",
                "{token}"
            );
        }
        assert!(matches!(
            none.scrub("risk-assessment sk-short"),
            Cow::Borrowed(_)
        ));
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
