//! The config file format (`OC_HOME/config.json`, `./.ollama-code.json`,
//! `--config FILE`): every key optional, unknown keys reported, errors with
//! the file, line and column.

use std::path::{Path, PathBuf};

use super::layer::Layer;
use crate::client::host::{is_loopback, normalize_host};
use crate::error::{Error, Result};
use crate::vocab::{EditFormat, Network, Provider, Runtime, SandboxMode, Task, TextTools};

/// Smallest `num_ctx` accepted (the flag's limit too); below this no system
/// prompt fits.
pub(crate) const MIN_NUM_CTX: u32 = 256;

/// A config file as loaded: where it came from, its values and its warnings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LoadedFile {
    pub path: PathBuf,
    pub config: Layer,
    /// Keys that `oc` does not know, as dotted paths.
    pub unknown_keys: Vec<String>,
}

/// Reads one config file. A missing file is `Ok(None)`; a file that is not
/// valid JSON or has a value of the wrong type is [`Error::ConfigSyntax`]
/// with the 1-based line and column.
pub(crate) fn load_file(path: &Path) -> Result<Option<LoadedFile>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::ConfigRead {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    parse_file(path, &text).map(Some)
}

/// Parses the text of a config file; see [`load_file`].
pub(crate) fn parse_file(path: &Path, text: &str) -> Result<LoadedFile> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(LoadedFile {
            path: path.to_path_buf(),
            config: Layer::default(),
            unknown_keys: Vec::new(),
        });
    }
    let syntax = |e: serde_json::Error| {
        let mut message = crate::json_words::describe(&e);
        // serde_json says only "expected value" for a number or `true`
        // where a word is due: name the key and its words.
        if e.is_syntax()
            && e.to_string().starts_with("expected value")
            && let Some((key, words)) =
                key_before(text, e.line(), e.column()).and_then(|key| Some((key, words_of(key)?)))
        {
            message = format!("`{key}` takes one of {words} (a string)");
        }
        // The names of oc's own types mean nothing to the reader.
        let said = e.to_string();
        if said.contains("expected struct Layer") {
            message = "a config file holds one JSON object of settings ({\"model\": …})".into();
        }
        if said.contains("untagged enum Raw") {
            message = "`think` takes true, false, \"low\", \"medium\" or \"high\"".into();
        }
        Error::ConfigSyntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message,
        }
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let mut unknown_keys = Vec::new();
    let config: Layer =
        serde_ignored::deserialize(&mut de, |key| unknown_keys.push(key_path(&key)))
            .map_err(syntax)?;
    de.end().map_err(syntax)?;
    Ok(LoadedFile {
        path: path.to_path_buf(),
        config,
        unknown_keys,
    })
}

/// Drops what a project config (a file that came with the repository, so
/// not trusted) may not decide: a `host` or `base_url` away from this
/// machine (a cloned repository must not send prompts and code elsewhere)
/// and `api_key_env` (it must not pick which secret is sent). Returns the
/// warnings to show. Loopback addresses are kept.
pub(crate) fn drop_untrusted_server(file: &mut LoadedFile) -> Vec<String> {
    let mut warnings = Vec::new();
    let path = file.path.display().to_string();
    for (key, value) in [
        ("host", &mut file.config.host),
        ("base_url", &mut file.config.base_url),
    ] {
        let Some(address) = value.as_deref() else {
            continue;
        };
        if normalize_host(address).is_ok_and(|url| is_loopback(&url)) {
            continue;
        }
        warnings.push(format!(
            "`{path}` sets `{key}` to `{address}`, which is not this machine; it is ignored. Set a remote server with a flag, the environment or `OC_HOME/config.json`"
        ));
        *value = None;
    }
    if file.config.api_key_env.take().is_some() {
        warnings.push(format!(
            "`{path}` sets `api_key_env`; a project config may not choose which secret is sent, so it is ignored. Set it in `OC_HOME/config.json`"
        ));
    }
    warnings
}

/// A key as the config file writes it: `permissions.rule`,
/// `permissions.rules[0].note` (serde_ignored's own form marks each
/// optional value with a `?`: `permissions.?.rule`).
fn key_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", key_path(parent)),
        Path::Map { parent, key } => match key_path(parent) {
            parent if parent.is_empty() => key.clone(),
            parent => format!("{parent}.{key}"),
        },
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => key_path(parent),
    }
}

/// The key whose value starts at `line`, `column` (1-based, as serde_json
/// counts) of `text`, if it is one.
fn key_before(text: &str, line: usize, column: usize) -> Option<&str> {
    let offset: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let before = text.get(..(offset + column).saturating_sub(1))?;
    let before = before
        .trim_end()
        .strip_suffix(':')?
        .trim_end()
        .strip_suffix('"')?;
    let start = before.rfind('"')?;
    Some(&before[start + 1..])
}

/// The words a config key that takes one of a few takes, quoted and
/// joined: `"auto"`, `"change"`, `"answer"`.
fn words_of(key: &str) -> Option<String> {
    fn names<T: clap::ValueEnum>() -> Vec<String> {
        T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect()
    }
    let words = match key {
        "provider" => names::<Provider>(),
        "text_tools" => names::<TextTools>(),
        "edit_format" => names::<EditFormat>(),
        "task" => names::<Task>(),
        "sandbox" => names::<SandboxMode>(),
        "network" => names::<Network>(),
        "runtime" => names::<Runtime>(),
        _ => return None,
    };
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    Some(quoted.join(", "))
}

/// The known key an unknown one was probably meant to be: at most two
/// edits off (a swap of two letters is one), or differing only in `-`
/// for `_` and case.
pub(crate) fn closest_key(unknown: &str) -> Option<&'static str> {
    let normal = unknown.to_ascii_lowercase().replace('-', "_");
    (Layer::KEYS.iter().chain(&["permissions.rules"]))
        .map(|k| (edit_distance(&normal, k), *k))
        .filter(|(d, k)| *d <= if k.len() <= 4 { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Edit distance with adjacent swaps counted as one edit (optimal string
/// alignment, `strsim`), for short keys: `taks` is one edit from `task`.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// Values a file may not hold: a `num_ctx` below the minimum, zero turns or
/// zero timeouts.
///
/// Errors: [`Error::Usage`] naming the file and the key.
pub(crate) fn check_values(file: &LoadedFile) -> Result<()> {
    let bad = |key: &str, what: &str| {
        Err(Error::Usage(format!(
            "config file `{}`: `{key}` {what}",
            file.path.display()
        )))
    };
    let c = &file.config;
    if c.num_ctx.is_some_and(|n| n < MIN_NUM_CTX) {
        return bad("num_ctx", &format!("must be at least {MIN_NUM_CTX}"));
    }
    if c.max_output_tokens.is_some_and(|n| n < 16) {
        return bad("max_output_tokens", "must be at least 16");
    }
    if c.max_turns == Some(0) {
        return bad("max_turns", "must be at least 1");
    }
    if c.compact_at.is_some_and(|p| !(10..=95).contains(&p)) {
        return bad("compact_at", "must be a percentage from 10 to 95");
    }
    if c.check_attempts == Some(0) {
        return bad("check_attempts", "must be at least 1");
    }
    if (c.fallback_models.iter().flatten()).any(|m| m.trim().is_empty()) {
        return bad("fallback_models", "must name models, none empty");
    }
    for (key, value) in [
        ("connect_timeout_secs", c.connect_timeout_secs),
        ("first_byte_timeout_secs", c.first_byte_timeout_secs),
        ("idle_timeout_secs", c.idle_timeout_secs),
    ] {
        if value == Some(0) {
            return bad(key, "must be at least 1");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Think;

    fn file(json: &str) -> LoadedFile {
        parse_file(Path::new("c.json"), json).unwrap()
    }

    #[test]
    fn malformed_file_names_line_and_column() {
        let err = parse_file(Path::new("p.json"), "{\n  \"model\": \"x\",\n  oops\n}").unwrap_err();
        match err {
            Error::ConfigSyntax { line, column, .. } => assert_eq!((line, column), (3, 3)),
            other => panic!("unexpected {other:?}"),
        }
        let err = parse_file(Path::new("p.json"), r#"{"num_ctx": "big"}"#).unwrap_err();
        assert!(err.to_string().contains("line 1, column"), "{err}");
        for (text, says) in [
            ("[]", "one JSON object of settings"),
            ("null", "one JSON object of settings"),
            (r#"{"think": 1}"#, "`think` takes true, false"),
        ] {
            let err = parse_file(Path::new("p.json"), text)
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{text}: {err}");
            assert!(!err.contains("Layer") && !err.contains("Raw"), "{err}");
        }
    }

    #[test]
    fn a_number_for_a_word_names_the_words() {
        for text in [
            r#"{"task": 5}"#,
            "{\n  \"model\": \"m\",\n  \"task\" :  true\n}",
        ] {
            let err = parse_file(Path::new("p.json"), text)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(r#"`task` takes one of "auto", "change", "answer" (a string)"#),
                "{err}"
            );
        }
        let err = parse_file(Path::new("p.json"), r#"{"sandbox": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains(r#""workspace-write""#), "{err}");
    }

    #[test]
    fn unknown_keys_get_a_suggestion() {
        assert_eq!(closest_key("modle"), Some("model"));
        assert_eq!(closest_key("num-ctx"), Some("num_ctx"));
        assert_eq!(closest_key("permissions.rulez"), Some("permissions.rules"));
        assert_eq!(closest_key("editor"), None);
        assert_eq!(closest_key("taks"), Some("task"), "a swap is one edit");
    }

    #[test]
    fn unknown_keys_are_reported() {
        let f = file(r#"{"model":"m","modle":"x","extra":{"a":1}}"#);
        assert_eq!(
            f.unknown_keys,
            vec!["modle".to_string(), "extra".to_string()]
        );
        // Keys inside sections are named as the file writes them, and get
        // their suggestion (it was `permissions.?.rule`, with none).
        let f = file(
            r#"{"permissions":{"rule":"bash(ls*)","rules":[{"action":"allow","rule":"x","note":1}]}}"#,
        );
        assert_eq!(
            f.unknown_keys,
            ["permissions.rule", "permissions.rules[0].note"]
        );
        assert_eq!(closest_key(&f.unknown_keys[0]), Some("permissions.rules"));
    }

    #[test]
    fn think_accepts_bools_and_levels() {
        assert_eq!(file(r#"{"think":false}"#).config.think, Some(Think::Off));
        assert_eq!(file(r#"{"think":"high"}"#).config.think, Some(Think::High));
        assert!(parse_file(Path::new("x"), r#"{"think":"max"}"#).is_err());
        assert_eq!("Medium".parse::<Think>(), Ok(Think::Medium));
    }

    #[test]
    fn project_config_cannot_point_away_from_this_machine() {
        let mut remote = file(r#"{"host": "https://evil.example", "model": "m"}"#);
        let warnings = drop_untrusted_server(&mut remote);
        assert!(warnings[0].contains("not this machine"), "{warnings:?}");
        assert_eq!(remote.config.host, None);
        assert_eq!(remote.config.model.as_deref(), Some("m"));
        for tricky in [
            r"http://0.0.0.0:11665\@localhost",
            "http://evil#@localhost",
            "http://evil?@localhost",
        ] {
            let mut f = file(&serde_json::json!({ "host": tricky }).to_string());
            assert_eq!(drop_untrusted_server(&mut f).len(), 1, "{tricky}");
            assert!(normalize_host(tricky).is_err(), "{tricky}");
        }
        for local in ["localhost:11500", "127.0.0.1", "http://[::1]:11434", "::1"] {
            let mut f = file(&format!(r#"{{"host": "{local}"}}"#));
            assert!(drop_untrusted_server(&mut f).is_empty(), "{local}");
            assert!(f.config.host.is_some());
        }
        let mut openai = file(
            r#"{"base_url": "https://api.example/v1", "api_key_env": "AWS_SECRET_ACCESS_KEY"}"#,
        );
        let warnings = drop_untrusted_server(&mut openai);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[1].contains("api_key_env"), "{warnings:?}");
        assert_eq!(openai.config.base_url, None);
        assert_eq!(openai.config.api_key_env, None);
        let mut local = file(r#"{"provider": "openai", "base_url": "127.0.0.1:8080/v1"}"#);
        assert!(drop_untrusted_server(&mut local).is_empty());
        assert_eq!(local.config.provider, Some(Provider::OpenAi));
    }

    #[test]
    fn empty_files_and_a_bom_are_fine() {
        assert_eq!(file("").config, Layer::default());
        assert_eq!(
            file("\u{feff}{\"model\": \"m\"}").config.model.as_deref(),
            Some("m")
        );
    }
}
