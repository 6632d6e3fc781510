//! Settings: defaults ← `OC_HOME/config.json` ← `./.ollama-code.json` ←
//! `--config FILE` ← environment ← flags (SPEC §3).
//!
//! Loading files is I/O ([`load_file`]); merging is the pure
//! [`Settings::resolve`], unit-tested below.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::cli::CommonArgs;
use crate::client::Timeouts;
use crate::client::host::{is_loopback, normalize_host};
use crate::env_vars;
use crate::error::{Error, Result};
use crate::permissions::PermissionMode;
use crate::permissions::rules::{Action, Rule};
use crate::vocab::{Mode, Sampling, TextTools, Think};

/// Default model (SPEC §3).
pub const DEFAULT_MODEL: &str = "qwen3.5:latest";
/// Default server address (SPEC §3).
pub const DEFAULT_HOST: &str = "http://localhost:11434";
/// Default context window in tokens.
pub const DEFAULT_NUM_CTX: u32 = 32768;
/// Default cap on model requests per run.
pub const DEFAULT_MAX_TURNS: u32 = 25;
/// Smallest `num_ctx` accepted; below this no system prompt fits.
pub const MIN_NUM_CTX: u32 = 256;
/// File name of the user config inside `OC_HOME`.
pub const USER_CONFIG: &str = "config.json";

/// One config file (`config.json`, `.ollama-code.json`): every key optional.
/// Unknown keys produce a warning, not an error.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FileConfig {
    pub model: Option<String>,
    pub host: Option<String>,
    pub num_ctx: Option<u32>,
    pub max_turns: Option<u32>,
    pub think: Option<Think>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub top_k: Option<u32>,
    pub presence_penalty: Option<f64>,
    pub permissions: Option<FilePermissions>,
    pub connect_timeout_secs: Option<u64>,
    pub first_byte_timeout_secs: Option<u64>,
    pub idle_timeout_secs: Option<u64>,
    pub text_tools: Option<TextTools>,
}

/// The `permissions` section of a config file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FilePermissions {
    /// `[{"action": "allow" | "ask" | "deny", "rule": "TOOL(PATTERN)"}]`
    #[serde(default)]
    pub rules: Vec<FileRule>,
}

/// One entry of `permissions.rules`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FileRule {
    pub action: Action,
    pub rule: String,
}

/// A config file as loaded: where it came from, its values and its warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedFile {
    pub path: PathBuf,
    pub config: FileConfig,
    /// Keys that `oc` does not know, as dotted paths.
    pub unknown_keys: Vec<String>,
}

/// Reads one config file. A missing file is `Ok(None)`; a file that is not
/// valid JSON or has a value of the wrong type is [`Error::ConfigSyntax`]
/// with the 1-based line and column.
pub fn load_file(path: &Path) -> Result<Option<LoadedFile>> {
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
pub fn parse_file(path: &Path, text: &str) -> Result<LoadedFile> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(LoadedFile {
            path: path.to_path_buf(),
            config: FileConfig::default(),
            unknown_keys: Vec::new(),
        });
    }
    let syntax = |e: serde_json::Error| {
        let full = e.to_string();
        let message = match full.rfind(" at line ") {
            Some(cut) => full[..cut].to_string(),
            None => full,
        };
        Error::ConfigSyntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message,
        }
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let mut unknown_keys = Vec::new();
    let config: FileConfig =
        serde_ignored::deserialize(&mut de, |key| unknown_keys.push(key.to_string()))
            .map_err(syntax)?;
    de.end().map_err(syntax)?;
    Ok(LoadedFile {
        path: path.to_path_buf(),
        config,
        unknown_keys,
    })
}

/// Drops a `host` that a project config (a file that came with the
/// repository, so not trusted) points away from this machine: a cloned
/// repository must not send prompts and code elsewhere. Returns the warning
/// to show. Loopback hosts are kept.
pub fn drop_remote_host(file: &mut LoadedFile) -> Option<String> {
    let host = file.config.host.as_deref()?;
    let loopback = normalize_host(host).is_ok_and(|url| is_loopback(&url));
    if loopback {
        return None;
    }
    let warning = format!(
        "`{}` sets `host` to `{host}`, which is not this machine; it is ignored. Set a remote host with `--host`, `OLLAMA_HOST` or `OC_HOME/config.json`",
        file.path.display()
    );
    file.config.host = None;
    Some(warning)
}

/// Environment values `oc` reads (names in [`crate::env_vars`]). Empty values
/// count as unset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvValues {
    pub model: Option<String>,
    pub host: Option<String>,
    pub oc_home: Option<PathBuf>,
    pub home_dir: Option<PathBuf>,
}

impl EnvValues {
    /// Reads the process environment.
    pub fn from_process() -> Self {
        let get = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        EnvValues {
            model: get(env_vars::OC_MODEL),
            host: get(env_vars::OLLAMA_HOST),
            oc_home: get(env_vars::OC_HOME).map(PathBuf::from),
            home_dir: get(env_vars::HOME).map(PathBuf::from),
        }
    }
}

/// Where `oc` keeps config, sessions and finetune.jsonl: `--home`, else
/// `OC_HOME`, else `~/.ollama-code`.
pub fn resolve_home(flag: Option<&Path>, env: &EnvValues) -> Result<PathBuf> {
    if let Some(dir) = flag.or(env.oc_home.as_deref()) {
        return Ok(dir.to_path_buf());
    }
    match &env.home_dir {
        Some(home) => Ok(home.join(".ollama-code")),
        None => Err(Error::Usage(
            "cannot find a home directory for `~/.ollama-code`: set `OC_HOME` or pass `--home DIR`"
                .into(),
        )),
    }
}

/// Fully resolved settings of one invocation.
#[derive(Debug, Clone)]
pub struct Settings {
    pub mode: Mode,
    pub model: String,
    /// Whether the model was chosen (flag, environment or file) rather than
    /// defaulted; a resumed session keeps its own model otherwise.
    pub model_explicit: bool,
    /// Base URL of the server, e.g. `http://127.0.0.1:11434`, no trailing slash.
    pub host: String,
    /// The workspace: absolute, canonical.
    pub cwd: PathBuf,
    /// `OC_HOME`.
    pub home: PathBuf,
    /// Requested context window in tokens (before clamping to the model's).
    pub num_ctx: u32,
    pub max_turns: u32,
    pub think: Think,
    /// Whether `think` was asked for (flag or file) rather than defaulted.
    pub think_explicit: bool,
    pub sampling: Sampling,
    pub permission_mode: PermissionMode,
    /// Permission rules: config files first (in merge order), then
    /// `--allow` and `--deny`.
    pub rules: Vec<Rule>,
    pub timeouts: Timeouts,
    pub text_tools: TextTools,
}

impl Settings {
    /// Merges defaults, config files (in the order given: user, project,
    /// `--config`), environment and flags. Pure: no I/O.
    ///
    /// Errors: a bad host form or an out-of-range value in a file
    /// ([`Error::Usage`], exit 2).
    pub fn resolve(
        flags: &CommonArgs,
        mode: Mode,
        env: &EnvValues,
        files: &[LoadedFile],
        cwd: PathBuf,
        home: PathBuf,
    ) -> Result<Settings> {
        let mut merged = FileConfig::default();
        let mut rules = Vec::new();
        for file in files {
            for entry in file.config.permissions.iter().flat_map(|p| &p.rules) {
                let rule = Rule::parse(entry.action, &entry.rule).map_err(|e| {
                    Error::Usage(format!("config file `{}`: {e}", file.path.display()))
                })?;
                rules.push(rule);
            }
            let c = &file.config;
            check_file_values(file)?;
            macro_rules! take {
                ($($field:ident),*) => { $( if c.$field.is_some() { merged.$field = c.$field.clone(); } )* };
            }
            take!(
                model,
                host,
                num_ctx,
                max_turns,
                think,
                temperature,
                top_p,
                top_k,
                presence_penalty,
                connect_timeout_secs,
                first_byte_timeout_secs,
                idle_timeout_secs,
                text_tools
            );
        }
        let defaults = Sampling::default();
        let model_explicit = flags.model.is_some() || env.model.is_some() || merged.model.is_some();
        let model = flags
            .model
            .clone()
            .or_else(|| env.model.clone())
            .or(merged.model)
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        if model.trim().is_empty() {
            return Err(Error::Usage(
                "the model name is empty; pass `--model NAME`".into(),
            ));
        }
        let host_text = flags
            .host
            .clone()
            .or_else(|| env.host.clone())
            .or(merged.host)
            .unwrap_or_else(|| DEFAULT_HOST.to_string());
        let host = normalize_host(&host_text)?;
        let mode = match mode {
            Mode::Code if flags.plan => Mode::Plan,
            other => other,
        };
        let permission_mode = match mode {
            Mode::Plan | Mode::Chat => PermissionMode::Plan,
            Mode::Code if flags.yes => PermissionMode::Yolo,
            Mode::Code => PermissionMode::Normal,
        };
        let default_think = match mode {
            Mode::Code => Think::On,
            Mode::Plan | Mode::Chat => Think::Off,
        };
        let sampling = Sampling {
            temperature: flags
                .temperature
                .or(merged.temperature)
                .unwrap_or(defaults.temperature),
            top_p: flags.top_p.or(merged.top_p).unwrap_or(defaults.top_p),
            top_k: flags.top_k.or(merged.top_k).unwrap_or(defaults.top_k),
            presence_penalty: flags
                .presence_penalty
                .or(merged.presence_penalty)
                .unwrap_or(defaults.presence_penalty),
        };
        check_sampling(&sampling)?;
        for (action, texts) in [(Action::Allow, &flags.allow), (Action::Deny, &flags.deny)] {
            for text in texts {
                let flag = action.as_str();
                rules.push(
                    Rule::parse(action, text)
                        .map_err(|e| Error::Usage(format!("--{flag}: {e}")))?,
                );
            }
        }
        Ok(Settings {
            mode,
            model: model.trim().to_string(),
            model_explicit,
            host,
            cwd,
            home,
            num_ctx: flags.num_ctx.or(merged.num_ctx).unwrap_or(DEFAULT_NUM_CTX),
            max_turns: flags
                .max_turns
                .or(merged.max_turns)
                .unwrap_or(DEFAULT_MAX_TURNS),
            think: flags.think.or(merged.think).unwrap_or(default_think),
            think_explicit: flags.think.or(merged.think).is_some(),
            sampling,
            permission_mode,
            rules,
            text_tools: flags.text_tools.or(merged.text_tools).unwrap_or_default(),
            timeouts: {
                let d = Timeouts::default();
                let secs = |v: Option<u64>, default: std::time::Duration| {
                    v.map_or(default, std::time::Duration::from_secs)
                };
                Timeouts {
                    connect: secs(merged.connect_timeout_secs, d.connect),
                    first_byte: secs(merged.first_byte_timeout_secs, d.first_byte),
                    idle: secs(merged.idle_timeout_secs, d.idle),
                }
            },
        })
    }
}

/// Sampling values Ollama can use: finite, temperature ≥ 0, top_p in (0, 1].
fn check_sampling(s: &Sampling) -> Result<()> {
    let bad = |name: &str, value: f64, want: &str| {
        Err(Error::Usage(format!(
            "{name} {value} is out of range; it must be {want}"
        )))
    };
    if !s.temperature.is_finite() || s.temperature < 0.0 {
        return bad("temperature", s.temperature, "a number of at least 0");
    }
    if !s.top_p.is_finite() || s.top_p <= 0.0 || s.top_p > 1.0 {
        return bad("top_p", s.top_p, "above 0 and at most 1");
    }
    if !s.presence_penalty.is_finite() {
        return bad("presence_penalty", s.presence_penalty, "a finite number");
    }
    Ok(())
}

fn check_file_values(file: &LoadedFile) -> Result<()> {
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
    if c.max_turns == Some(0) {
        return bad("max_turns", "must be at least 1");
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
    use pretty_assertions::assert_eq;

    fn file(json: &str) -> LoadedFile {
        parse_file(Path::new("c.json"), json).unwrap()
    }

    /// Resolves in code mode with no environment.
    fn resolve_files(flags: &CommonArgs, files: &[LoadedFile]) -> Result<Settings> {
        Settings::resolve(
            flags,
            Mode::Code,
            &EnvValues::default(),
            files,
            PathBuf::new(),
            PathBuf::new(),
        )
    }

    fn resolve(flags: &CommonArgs, env: &EnvValues, files: &[LoadedFile]) -> Settings {
        Settings::resolve(
            flags,
            Mode::Code,
            env,
            files,
            PathBuf::from("/w"),
            PathBuf::from("/h"),
        )
        .unwrap()
    }

    #[test]
    fn defaults_apply_when_nothing_is_set() {
        let s = resolve(&CommonArgs::default(), &EnvValues::default(), &[]);
        assert_eq!(s.model, "qwen3.5:latest");
        assert_eq!(s.host, "http://localhost:11434");
        assert_eq!(s.num_ctx, 32768);
        assert_eq!(s.max_turns, 25);
        assert_eq!(s.think, Think::On);
        assert_eq!(s.sampling, Sampling::default());
        assert_eq!(s.permission_mode, PermissionMode::Normal);
    }

    #[test]
    fn flags_beat_env_beat_project_beat_user() {
        let user = file(r#"{"model":"user","host":"user-host","num_ctx":1000,"top_k":5}"#);
        let project = file(r#"{"model":"project","host":"project-host","num_ctx":2000}"#);
        let env = EnvValues {
            model: Some("env".into()),
            host: Some("env-host".into()),
            ..EnvValues::default()
        };
        let flags = CommonArgs {
            model: Some("flag".into()),
            ..CommonArgs::default()
        };
        let files = [user, project];
        let s = resolve(&flags, &env, &files);
        assert_eq!(s.model, "flag");
        assert_eq!(s.host, "http://env-host:11434");
        assert_eq!(s.num_ctx, 2000);
        assert_eq!(s.sampling.top_k, 5);
        let s = resolve(&CommonArgs::default(), &env, &files);
        assert_eq!(s.model, "env");
        let s = resolve(&CommonArgs::default(), &EnvValues::default(), &files);
        assert_eq!(s.model, "project");
        assert_eq!(s.host, "http://project-host:11434");
    }

    #[test]
    fn plan_mode_defaults_think_off_and_is_read_only() {
        let flags = CommonArgs {
            plan: true,
            yes: true,
            ..CommonArgs::default()
        };
        let s = resolve(&flags, &EnvValues::default(), &[]);
        assert_eq!(s.mode, Mode::Plan);
        assert_eq!(s.think, Think::Off);
        assert_eq!(s.permission_mode, PermissionMode::Plan);
    }

    #[test]
    fn yes_means_yolo_in_code_mode() {
        let flags = CommonArgs {
            yes: true,
            ..CommonArgs::default()
        };
        assert_eq!(
            resolve(&flags, &EnvValues::default(), &[]).permission_mode,
            PermissionMode::Yolo
        );
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
    }

    #[test]
    fn unknown_keys_are_reported() {
        let f = file(r#"{"model":"m","modle":"x","extra":{"a":1}}"#);
        assert_eq!(
            f.unknown_keys,
            vec!["modle".to_string(), "extra".to_string()]
        );
    }

    #[test]
    fn think_accepts_bools_and_levels() {
        assert_eq!(file(r#"{"think":false}"#).config.think, Some(Think::Off));
        assert_eq!(file(r#"{"think":"high"}"#).config.think, Some(Think::High));
        assert!(parse_file(Path::new("x"), r#"{"think":"max"}"#).is_err());
        assert_eq!("Medium".parse::<Think>(), Ok(Think::Medium));
    }

    #[test]
    fn sampling_values_are_checked() {
        for flags in [
            CommonArgs {
                temperature: Some(f64::NAN),
                ..CommonArgs::default()
            },
            CommonArgs {
                temperature: Some(-1.0),
                ..CommonArgs::default()
            },
            CommonArgs {
                top_p: Some(-3.0),
                ..CommonArgs::default()
            },
            CommonArgs {
                top_p: Some(1.5),
                ..CommonArgs::default()
            },
            CommonArgs {
                presence_penalty: Some(f64::INFINITY),
                ..CommonArgs::default()
            },
        ] {
            let result = resolve_files(&flags, &[]);
            assert!(matches!(result, Err(Error::Usage(_))), "{flags:?}");
        }
    }

    #[test]
    fn project_config_cannot_point_away_from_this_machine() {
        let mut remote = file(r#"{"host": "https://evil.example", "model": "m"}"#);
        assert!(
            drop_remote_host(&mut remote)
                .unwrap()
                .contains("not this machine")
        );
        assert_eq!(remote.config.host, None);
        assert_eq!(remote.config.model.as_deref(), Some("m"));
        for tricky in [
            r"http://0.0.0.0:11665\@localhost",
            "http://evil#@localhost",
            "http://evil?@localhost",
        ] {
            let mut f = file(&serde_json::json!({ "host": tricky }).to_string());
            assert!(drop_remote_host(&mut f).is_some(), "{tricky}");
            assert!(normalize_host(tricky).is_err(), "{tricky}");
        }
        for local in ["localhost:11500", "127.0.0.1", "http://[::1]:11434", "::1"] {
            let mut f = file(&format!(r#"{{"host": "{local}"}}"#));
            assert_eq!(drop_remote_host(&mut f), None, "{local}");
            assert!(f.config.host.is_some());
        }
    }

    #[test]
    fn rules_come_from_files_then_flags() {
        let f = file(
            r#"{"permissions": {"rules": [{"action": "deny", "rule": "write(src/**)"}, {"action": "ask", "rule": "bash(git push*)"}]}}"#,
        );
        let flags = CommonArgs {
            allow: vec!["bash(cargo test*)".into()],
            deny: vec!["read(secrets/)".into()],
            ..CommonArgs::default()
        };
        let s = resolve(&flags, &EnvValues::default(), &[f]);
        let rules: Vec<(Action, &str)> = s
            .rules
            .iter()
            .map(|r| (r.action, r.text.as_str()))
            .collect();
        assert_eq!(
            rules,
            [
                (Action::Deny, "write(src/**)"),
                (Action::Ask, "bash(git push*)"),
                (Action::Allow, "bash(cargo test*)"),
                (Action::Deny, "read(secrets/)"),
            ]
        );
        let bad = CommonArgs {
            allow: vec!["shell(ls)".into()],
            ..CommonArgs::default()
        };
        let err = resolve_files(&bad, &[]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("--allow: invalid rule `shell(ls)`"),
            "{err}"
        );
        let f = file(r#"{"permissions": {"rules": [{"action": "allow", "rule": "bash("}]}}"#);
        let err = resolve_files(&CommonArgs::default(), &[f]).unwrap_err();
        assert!(
            err.to_string()
                .contains("config file `c.json`: invalid rule `bash(`"),
            "{err}"
        );
        assert!(
            parse_file(
                Path::new("x"),
                r#"{"permissions": {"rules": [{"action": "maybe", "rule": "bash"}]}}"#
            )
            .is_err()
        );
    }

    #[test]
    fn empty_files_and_a_bom_are_fine() {
        assert_eq!(file("").config, FileConfig::default());
        assert_eq!(
            file("\u{feff}{\"model\": \"m\"}").config.model.as_deref(),
            Some("m")
        );
    }

    #[test]
    fn out_of_range_file_values_are_usage_errors() {
        let f = file(r#"{"max_turns":0}"#);
        let err = resolve_files(&CommonArgs::default(), &[f]).unwrap_err();
        assert!(err.to_string().contains("max_turns"), "{err}");
    }

    #[test]
    fn home_prefers_flag_then_env_then_home_dir() {
        let env = EnvValues {
            oc_home: Some("/env-home".into()),
            home_dir: Some("/home/me".into()),
            ..EnvValues::default()
        };
        assert_eq!(
            resolve_home(Some(Path::new("/flag")), &env).unwrap(),
            PathBuf::from("/flag")
        );
        assert_eq!(
            resolve_home(None, &env).unwrap(),
            PathBuf::from("/env-home")
        );
        let env = EnvValues {
            home_dir: Some("/home/me".into()),
            ..EnvValues::default()
        };
        assert_eq!(
            resolve_home(None, &env).unwrap(),
            PathBuf::from("/home/me/.ollama-code")
        );
        assert!(resolve_home(None, &EnvValues::default()).is_err());
    }
}
