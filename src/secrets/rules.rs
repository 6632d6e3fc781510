//! Credential shapes as data: gitleaks' rules (`gitleaks/gitleaks.toml`,
//! vendored unchanged, its README names the commit) and the few of oc's own
//! in the same format (`own_rules.toml`), read once at first use.
//!
//! A text is searched as gitleaks searches a file: the rules' `keywords`
//! (any case) are looked for in one pass, and only the rules whose keyword
//! appears run their regex (most only on the lines around the keyword's
//! hits, which finds the same, `local`); a match's secret is its
//! `secretGroup`, or its first non-empty group, or the whole match; a
//! secret whose Shannon entropy is at or under the rule's `entropy`, or
//! that the global or the rule's allowlists allow (regexes against the
//! secret, the match or the line; stopwords), is not one. Rules that need
//! a file's path are left out: a tool result has none. Regexes are Go RE2; they are compiled here as
//! bytes regexes without Unicode, which is what RE2 makes of `\w`, `\d`,
//! `\s` and `\b` (ASCII), each at its rule's first use.

use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::bytes::{Captures, Regex, RegexBuilder};
use serde::Deserialize;

use super::local;

/// gitleaks' default configuration, as gitleaks ships it.
const GITLEAKS: &str = include_str!("gitleaks/gitleaks.toml");
/// Shapes gitleaks has no rule for, in gitleaks' format.
const OWN: &str = include_str!("own_rules.toml");

/// A rules file: gitleaks' `[allowlist]` and `[[rules]]`. Other keys
/// (`title`, descriptions, tags) are ignored.
#[derive(Debug, Deserialize)]
struct RulesFile {
    allowlist: Option<AllowlistDef>,
    #[serde(default)]
    rules: Vec<RuleDef>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleDef {
    id: String,
    regex: Option<String>,
    path: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    entropy: Option<f64>,
    secret_group: Option<usize>,
    #[serde(default)]
    allowlists: Vec<AllowlistDef>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AllowlistDef {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
    regex_target: Option<String>,
    condition: Option<String>,
}

/// What an allowlist's regexes are tried on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Secret,
    Match,
    Line,
}

/// An allowlist as written; its regexes are compiled with its rule's.
#[derive(Debug)]
struct Allowlist {
    regexes: Vec<String>,
    stopwords: Vec<String>,
    target: Target,
    /// `condition = "AND"` with paths or commits: it can never hold
    /// without a path, so it allows nothing here.
    inert: bool,
}

#[derive(Debug)]
struct Allowed {
    regexes: Vec<Regex>,
    stopwords: Vec<String>,
    target: Target,
}

/// One rule: its regex and allowlists compiled at its first use.
#[derive(Debug)]
struct Rule {
    id: String,
    regex: String,
    entropy: Option<f64>,
    secret_group: Option<usize>,
    allowlists: Vec<Allowlist>,
    /// Its keywords, lowercased, and their indexes in the prefilter's.
    keywords: Vec<String>,
    words: Vec<usize>,
    compiled: OnceLock<Option<Compiled>>,
}

#[derive(Debug)]
struct Compiled {
    regex: Regex,
    allowlists: Vec<Allowed>,
    /// With a span (most line breaks in a match), it runs only on the
    /// lines around its keywords' hits (`local`).
    span: Option<usize>,
}

/// Every rule that can run on a text, the keyword prefilter, and the
/// global allowlist.
#[derive(Debug)]
pub(crate) struct RuleSet {
    rules: Vec<Rule>,
    /// Keywords, lowercased, deduplicated; matched in any ASCII case.
    keywords: Option<AhoCorasick>,
    /// For each keyword, the rules it wakes.
    woken: Vec<Vec<usize>>,
    /// Rules without keywords: run on every text.
    always: Vec<usize>,
    global: OnceLock<Vec<Allowed>>,
    global_def: Allowlist,
}

/// The rules in use: gitleaks' and oc's own.
pub(crate) static RULES: LazyLock<RuleSet> = LazyLock::new(|| RuleSet::load(&[GITLEAKS, OWN]));

/// A credential found: which rule, and the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) rule: String,
    pub(crate) secret: String,
}

impl RuleSet {
    /// The rules of `files` (gitleaks' format), the first file's global
    /// allowlist kept. A file that does not parse adds nothing (a test
    /// parses each).
    fn load(files: &[&str]) -> RuleSet {
        let parsed: Vec<RulesFile> = files
            .iter()
            .filter_map(|f| toml::from_str(f).ok())
            .collect();
        let global_def = parsed
            .iter()
            .find_map(|f| f.allowlist.as_ref())
            .map(allowlist)
            .unwrap_or_else(|| allowlist(&AllowlistDef::default()));
        let mut rules = Vec::new();
        let mut rule_keywords: Vec<Vec<String>> = Vec::new();
        for def in parsed.into_iter().flat_map(|f| f.rules) {
            // A rule for a file's path (or of the path alone) cannot apply
            // to a tool result, which has none.
            let Some(regex) = def.regex.filter(|_| def.path.is_none()) else {
                continue;
            };
            let keywords: Vec<String> = def.keywords.iter().map(|k| k.to_lowercase()).collect();
            rule_keywords.push(keywords.clone());
            rules.push(Rule {
                id: def.id,
                regex,
                entropy: def.entropy.filter(|e| *e > 0.0),
                secret_group: def.secret_group.filter(|g| *g > 0),
                allowlists: def.allowlists.iter().map(allowlist).collect(),
                keywords,
                words: Vec::new(),
                compiled: OnceLock::new(),
            });
        }
        let mut words: Vec<String> = Vec::new();
        let mut woken: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (index, keywords) in rule_keywords.into_iter().enumerate() {
            if keywords.is_empty() {
                always.push(index);
            }
            for word in keywords {
                let at = match words.iter().position(|w| *w == word) {
                    Some(at) => at,
                    None => {
                        words.push(word);
                        woken.push(Vec::new());
                        words.len() - 1
                    }
                };
                woken[at].push(index);
                if let Some(rule) = rules.get_mut(index) {
                    rule.words.push(at);
                }
            }
        }
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&words)
            .ok();
        RuleSet {
            rules,
            keywords,
            woken,
            always,
            global: OnceLock::new(),
            global_def,
        }
    }

    /// The credentials in `text`, in the order of the rules.
    pub(crate) fn find(&self, text: &str) -> Vec<Found> {
        self.find_near(text, true)
    }

    /// [`RuleSet::find`] with every woken rule scanning the whole text, as
    /// gitleaks runs them: what the windows must find too.
    #[cfg(test)]
    pub(crate) fn find_whole(&self, text: &str) -> Vec<Found> {
        self.find_near(text, false)
    }

    /// The credentials in `text`; with `near`, a local rule runs only on
    /// the lines around its keywords' hits (`local`).
    fn find_near(&self, text: &str, near: bool) -> Vec<Found> {
        let mut run = vec![false; self.rules.len()];
        for &index in &self.always {
            run[index] = true;
        }
        // Where each keyword is, by its start.
        let mut hits: Vec<Vec<usize>> = vec![Vec::new(); self.woken.len()];
        if let Some(keywords) = &self.keywords {
            for hit in keywords.find_overlapping_iter(text) {
                let word = hit.pattern().as_usize();
                if hits[word].is_empty() {
                    for &index in &self.woken[word] {
                        run[index] = true;
                    }
                }
                hits[word].push(hit.start());
            }
        }
        let global = self
            .global
            .get_or_init(|| compile_allowlists(std::slice::from_ref(&self.global_def)));
        let mut found = Vec::new();
        for (rule, _) in self.rules.iter().zip(&run).filter(|(_, run)| **run) {
            let Some(compiled) = rule.compiled() else {
                continue;
            };
            let Some(span) = compiled.span.filter(|_| near) else {
                rule.search(compiled, global, text, &mut found);
                continue;
            };
            let mut at: Vec<usize> = (rule.words.iter())
                .flat_map(|&w| hits[w].iter().copied())
                .collect();
            at.sort_unstable();
            let windows = local::windows(text.as_bytes(), &at, span);
            rule.search_near(compiled, global, text, &windows, &mut found);
        }
        found
    }

    /// The rules' ids whose regex does not compile (compiling them all).
    #[cfg(test)]
    pub(crate) fn not_compiled(&self) -> Vec<String> {
        let rules = self.rules.iter();
        rules
            .filter(|r| r.compiled().is_none())
            .map(|r| r.id.clone())
            .collect()
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.rules.len()
    }
}

impl Rule {
    fn compiled(&self) -> Option<&Compiled> {
        self.compiled
            .get_or_init(|| {
                Some(Compiled {
                    regex: go_regex(&self.regex)?,
                    allowlists: compile_allowlists(&self.allowlists),
                    span: local::span(&self.regex, &self.keywords),
                })
            })
            .as_ref()
    }

    /// This rule's findings in `text`, pushed onto `found`.
    fn search(&self, compiled: &Compiled, global: &[Allowed], text: &str, found: &mut Vec<Found>) {
        for caps in compiled.regex.captures_iter(text.as_bytes()) {
            self.take(&caps, compiled, global, text, found);
        }
    }

    /// What [`Rule::search`] finds, searching only `windows` (`local`): the
    /// leftmost match from where the last one ended, as there, looked for
    /// in the text up to a window's end from its start, and taken when it
    /// starts at or before the window's last hit (so the window held all
    /// it could see); past that, the next match holds a later hit.
    fn search_near(
        &self,
        compiled: &Compiled,
        global: &[Allowed],
        text: &str,
        windows: &[local::Window],
        found: &mut Vec<Found>,
    ) {
        let mut from = 0;
        for window in windows {
            let Some(haystack) = text.as_bytes().get(..window.end) else {
                continue;
            };
            let mut at = from.max(window.start);
            while at <= window.last_hit {
                let Some(caps) = compiled.regex.captures_at(haystack, at) else {
                    break;
                };
                let Some(whole) = caps.get(0).filter(|m| m.start() <= window.last_hit) else {
                    break;
                };
                // Not empty (`local`): the next search starts further on.
                at = whole.end().max(at + 1);
                from = at;
                self.take(&caps, compiled, global, text, found);
            }
        }
    }

    /// The finding of one match, pushed onto `found` unless its secret is
    /// empty, of too little entropy, or allowed.
    fn take(
        &self,
        caps: &Captures,
        compiled: &Compiled,
        global: &[Allowed],
        text: &str,
        found: &mut Vec<Found>,
    ) {
        let Some(whole) = caps.get(0) else { return };
        let group = match self.secret_group {
            Some(n) => caps.get(n),
            None => caps.iter().skip(1).flatten().find(|g| !g.is_empty()),
        };
        let (start, end) = group.map_or((whole.start(), whole.end()), |g| (g.start(), g.end()));
        let (start, end) = widened(text, start, end);
        let secret = text[start..end].trim_matches('\n');
        if secret.is_empty() {
            return;
        }
        if self.entropy.is_some_and(|least| entropy(secret) <= least) {
            return;
        }
        let (w_start, w_end) = widened(text, whole.start(), whole.end());
        let matched = text[w_start..w_end].trim_matches('\n');
        let line = line_around(text, w_start, w_end);
        let allowed = |lists: &[Allowed]| lists.iter().any(|a| a.allows(secret, matched, line));
        if allowed(global) || allowed(&compiled.allowlists) {
            return;
        }
        found.push(Found {
            rule: self.id.clone(),
            secret: secret.to_string(),
        });
    }
}

impl Allowed {
    fn allows(&self, secret: &str, matched: &str, line: &str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => matched,
            Target::Line => line,
        };
        let lower = secret.to_lowercase();
        self.regexes.iter().any(|r| r.is_match(target.as_bytes()))
            || self.stopwords.iter().any(|w| lower.contains(w.as_str()))
    }
}

fn allowlist(def: &AllowlistDef) -> Allowlist {
    let target = match def.regex_target.as_deref() {
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        Some(_) | None => Target::Secret,
    };
    let and = def
        .condition
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("and"));
    Allowlist {
        regexes: def.regexes.clone(),
        stopwords: def.stopwords.iter().map(|w| w.to_lowercase()).collect(),
        target,
        inert: and && !(def.paths.is_empty() && def.commits.is_empty()),
    }
}

fn compile_allowlists(lists: &[Allowlist]) -> Vec<Allowed> {
    lists
        .iter()
        .filter(|a| !a.inert)
        .map(|a| Allowed {
            regexes: a.regexes.iter().filter_map(|r| go_regex(r)).collect(),
            stopwords: a.stopwords.clone(),
            target: a.target,
        })
        .collect()
}

/// A Go RE2 pattern as a Rust bytes regex: without Unicode, RE2's classes
/// (`\w`, `\d`, `\s`, `\b`) are ASCII as in Go.
fn go_regex(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern).unicode(false).build().ok()
}

/// `start..end` widened to the nearest character boundaries (a regex
/// without Unicode can stop inside a character).
fn widened(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// The line(s) holding `start..end`.
fn line_around(text: &str, start: usize, end: usize) -> &str {
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i);
    &text[from..to]
}

/// Shannon entropy in bits per character, as gitleaks counts it
/// (characters counted, divided by the length in bytes).
fn entropy(text: &str) -> f64 {
    let mut counts: Vec<(char, usize)> = Vec::new();
    for c in text.chars() {
        match counts.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c, 1)),
        }
    }
    let len = text.len() as f64;
    counts
        .iter()
        .map(|(_, n)| {
            let p = *n as f64 / len;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule of both files loads; the path-only and path-bound rules
    /// are left out by name, and every regex compiles.
    #[test]
    fn every_rule_loads_and_compiles() {
        for file in [GITLEAKS, OWN] {
            assert!(toml::from_str::<RulesFile>(file).is_ok());
        }
        assert_eq!(RULES.not_compiled(), Vec::<String>::new());
        let file: RulesFile = toml::from_str(GITLEAKS).unwrap();
        let skipped: Vec<String> = (file.rules.into_iter())
            .filter(|r| r.path.is_some() || r.regex.is_none())
            .map(|r| r.id)
            .collect();
        assert_eq!(
            skipped,
            [
                "freemius-secret-key",
                "hashicorp-tf-password",
                "kubernetes-secret-yaml",
                "nuget-config-password",
                "pkcs12-file"
            ]
        );
        assert_eq!(RULES.len(), 222 - 5 + 3);
    }

    /// A PuTTY key file as `read_file` shows it: numbered lines.
    const PUTTY: &str = "     1\tPuTTY-User-Key-File-2: ssh-rsa\n     2\tEncryption: none\n     3\tComment: rsa-key-20250101\n     4\tPublic-Lines: 2\n     5\tAAAAB3NzaC1yc2EAAAABJQAAAQEAhVx2\n     6\tq8mPz4Lk\n     7\tPrivate-Lines: 2\n     8\tAAABAHf3kQz9TxWm2Yp7Lr5Vn8Jc4Ds1\n     9\tBg6Hk0Qe\n    10\tPrivate-MAC: 6d0f8c2a91b3e47f5c8d2a0b9e1f3c7a4d6b8e20\n";

    /// Each shape: the text, what is found, by which rule.
    const SHAPES: [(&str, &str, &str); 8] = [
        (
            "token = ghp_R4nd0mL00k1ngT0k3nV4lu3xYz1234567890",
            "github-pat",
            "ghp_R4nd0mL00k1ngT0k3nV4lu3xYz1234567890",
        ),
        (
            "SLACK=xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "slack-bot-token",
            "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        ),
        (
            "stripe.api_key = 'sk_live_51Hx9KqLmN2pQrS3tUvWxYz0aBcD'",
            "stripe-access-token",
            "sk_live_51Hx9KqLmN2pQrS3tUvWxYz0aBcD",
        ),
        (
            "aws: AKIAZ7QW3RTY5UIOPA2S\n",
            "aws-access-token",
            "AKIAZ7QW3RTY5UIOPA2S",
        ),
        (
            "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\ny",
            "private-key",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
        ),
        (
            "     1\t-----BEGIN RSA PRIVATE KEY-----\n     2\tMIIEowIBAAKCAQEAvq9Xn3Ty0uBc\n(lines 1-2 of 27; use offset=3 to read on)",
            "private-key-cut",
            "-----BEGIN RSA PRIVATE KEY-----\n     2\tMIIEowIBAAKCAQEAvq9Xn3Ty0uBc",
        ),
        (
            PUTTY,
            "putty-private-key",
            "     8\tAAABAHf3kQz9TxWm2Yp7Lr5Vn8Jc4Ds1\n     9\tBg6Hk0Qe\n    10\tPrivate-MAC: 6d0f8c2a91b3e47f5c8d2a0b9e1f3c7a4d6b8e20",
        ),
        (
            "aws_secret_access_key = Zk3pQ9vL2mXw8RtY4bN7cJ1hF6gD0sA5eU+iO/Kq\n",
            "generic-api-key",
            "Zk3pQ9vL2mXw8RtY4bN7cJ1hF6gD0sA5eU+iO/Kq",
        ),
    ];

    #[test]
    fn shapes_of_the_rules() {
        for (text, rule, secret) in SHAPES {
            let found = RULES.find(text);
            let wanted = Found {
                rule: rule.into(),
                secret: secret.into(),
            };
            assert!(found.contains(&wanted), "{rule}: {found:?}");
        }
    }

    /// What the rules leave alone: AWS's documented example key, words
    /// that start like a key, and code that names keys and tokens.
    #[test]
    fn examples_and_code_are_left_alone() {
        for text in [
            "AKIAIOSFODNN7EXAMPLE",
            "use sk-learn-style-identifier-is-long here",
            "let token = self.next_token()?;\nlet api_key = config.api_key.clone();",
            "const API_KEY_HEADER: &str = \"x-api-key\";",
            "-----BEGIN RSA PRIVATE KEY-----\\n\\\n  -----END RSA PRIVATE KEY-----",
            "password = \"${DB_PASSWORD}\"",
        ] {
            assert_eq!(RULES.find(text), Vec::<Found>::new(), "{text}");
        }
    }

    /// This crate's own sources (the secrets module's test keys aside) hold
    /// nothing the redactor would take for a credential: the model edits
    /// code from tool results, so ordinary code must come through as it is.
    #[test]
    fn the_crates_own_sources_come_through_unchanged() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        for entry in ignore::WalkBuilder::new(&src).build().flatten() {
            let path = entry.path();
            if path.starts_with(src.join("secrets")) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(path) {
                let shapes = crate::secrets::shapes::find(&text);
                found.extend(
                    shapes
                        .into_iter()
                        .map(|s| format!("{}: {s}", path.display())),
                );
            }
        }
        assert_eq!(found, Vec::<String>::new());
    }

    /// The texts the windows are checked on: this repository's `src/` and
    /// `tests/`, the shapes above alone, together and between lines of
    /// keywords, and generated lines full of keywords, some with tokens.
    fn texts_for_windows() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts: Vec<String> = ["src", "tests"]
            .iter()
            .flat_map(|dir| ignore::WalkBuilder::new(root.join(dir)).build().flatten())
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .collect();
        let shapes: Vec<&str> = SHAPES.iter().map(|(text, _, _)| *text).collect();
        texts.extend(shapes.iter().map(|t| t.to_string()));
        texts.push(shapes.join("\n"));
        texts.push(shapes.join(""));
        let filler = "let api_key = auth.access_token(&password, secret); // slack xoxb akia ghp_";
        texts.push(
            shapes
                .iter()
                .map(|t| format!("{filler}\n{t}\n{filler}\n"))
                .collect(),
        );
        let mut hits = String::new();
        for i in 0..3000usize {
            hits.push_str(&match i % 7 {
                0 => format!("github_token = ghp_R4nd0mL00k1ngT0k3nV4lu3xYz{i:010}\n"),
                1 => format!(
                    "export AWS_SECRET_ACCESS_KEY=Zk3pQ9vL2mXw8RtY4bN7cJ1hF6gD0sA{i:07}\r\n"
                ),
                2 => format!("aws: AKIAZ7QW3RTY5UIOPA2S sk-{i:04}abcdefghijklmnopqrstu token=\n"),
                3 => format!("SLACK=xoxb-1234567890-1234567890123-AbCdEfGh{i:08} api_key:{i}\n"),
                4 => SHAPES[i % SHAPES.len()].0.to_string(),
                5 => format!("{filler} stripe sk_live_51Hx9KqLmN2pQrS3t{i:09}\n"),
                _ => "\n".to_string(),
            });
        }
        texts.push(hits);
        texts
    }

    /// Local rules on windows around their keywords find what every woken
    /// rule finds on the whole text, in the same order.
    #[test]
    fn windows_find_what_the_whole_text_does() {
        for text in texts_for_windows() {
            let whole = RULES.find_whole(&text);
            assert_eq!(RULES.find(&text), whole, "{}", &text[..text.len().min(200)]);
        }
    }

    /// Most rules run near their keywords; those whose matches can span
    /// any number of lines (private keys) scan the whole text.
    #[test]
    fn most_rules_are_local() {
        let local: Vec<&str> = (RULES.rules.iter())
            .filter(|r| r.compiled().is_some_and(|c| c.span.is_some()))
            .map(|r| r.id.as_str())
            .collect();
        for id in [
            "generic-api-key",
            "github-pat",
            "aws-access-token",
            "sk-api-key",
        ] {
            assert!(local.contains(&id), "{id}");
        }
        for id in ["private-key", "private-key-cut", "putty-private-key"] {
            assert!(!local.contains(&id), "{id}");
        }
        let whole: Vec<&str> = (RULES.rules.iter())
            .filter(|r| !local.contains(&r.id.as_str()))
            .map(|r| r.id.as_str())
            .collect();
        assert!(local.len() > 150, "{} local; whole: {whole:?}", local.len());
    }
}
