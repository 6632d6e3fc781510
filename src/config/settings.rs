//! The settings of one invocation, resolved from the layers: defaults ←
//! user file ← project file ← `--config FILE` ← environment ← flags
//! (docs/configuration.md). Pure: no I/O.

use std::path::PathBuf;

use super::defaults::*;
use super::env::EnvValues;
use super::file::{self, LoadedFile};
use super::flags::Overrides;
use super::layer::Layer;
use super::runtime::{self, RuntimeSettings};
use super::sandbox;
use crate::client::host::{normalize_base_url, normalize_host};
use crate::client::openai::ApiKey;
use crate::client::{ModelClient, OllamaClient, OpenAiClient, Timeouts};
use crate::env_vars;
use crate::error::{Error, Result};
use crate::heuristics::{Heuristic, Heuristics};
use crate::permissions::PermissionMode;
use crate::permissions::project_config::PROJECT_CONFIG;
use crate::permissions::rules::{Action, Rule};
use crate::sandbox::settings::SandboxSettings;
use crate::vocab::{EditFormat, Mode, Provider, Sampling, Task, TextTools, Think};

/// Fully resolved settings of one invocation.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub mode: Mode,
    pub model: String,
    /// Whether the model was chosen (flag, environment or file) rather than
    /// defaulted; a resumed session keeps its own model otherwise.
    pub model_explicit: bool,
    /// The API of the model server.
    pub provider: Provider,
    /// Base URL of the server, no trailing slash: Ollama's address (e.g.
    /// `http://127.0.0.1:11434`), or an OpenAI-compatible API root (e.g.
    /// `http://127.0.0.1:8080/v1`).
    pub host: String,
    /// The environment variable holding the OpenAI-compatible server's API
    /// key (`api_key_env`, default `OPENAI_API_KEY`). The key itself is read
    /// when the client is made and kept nowhere else.
    pub api_key_env: String,
    /// The workspace: absolute, canonical.
    pub cwd: PathBuf,
    /// `OC_HOME`.
    pub home: PathBuf,
    /// Requested context window in tokens (before clamping to the model's).
    pub num_ctx: u32,
    /// Most tokens in one reply (`options.num_predict`), when set; otherwise
    /// [`DEFAULT_MAX_OUTPUT_TOKENS`] or a quarter of the context.
    pub max_output_tokens: Option<u32>,
    /// Compact past this percentage of `num_ctx` (`compact_at`, default
    /// 75); `None` with `--no-compact`.
    pub compact_at: Option<u8>,
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
    /// How the model changes files; `Auto` is settled per model.
    pub edit_format: EditFormat,
    /// What the run is for; `Auto` is settled from the prompt.
    pub task: Task,
    /// Rounds of `--check` feedback (`check_attempts`, default 3).
    pub check_attempts: u32,
    /// Models for the next tries of `--attempts`, in order
    /// (`fallback_models`, `--fallback-model`).
    pub fallback_models: Vec<String>,
    /// Heuristics on: all but those `OC_DISABLE` switches off.
    pub heuristics: Heuristics,
    /// The project config: the nearest `.ollama-code.json` from the
    /// workspace up to the repository root, or where one would be created.
    pub project_config: PathBuf,
    /// The system prompt's text from `--system-prompt FILE`, replacing
    /// oc's own.
    pub system_prompt: Option<String>,
    /// Added at the end of the system prompt: the project's `AGENTS.md`
    /// instructions, then `--append-system-prompt`.
    pub instructions: Option<String>,
    /// How bash commands are confined.
    pub sandbox: SandboxSettings,
    /// Which loop runs the agent.
    pub runtime: RuntimeSettings,
}

impl Settings {
    /// The client for the model server: Ollama at `host`, or the
    /// OpenAI-compatible API at `host` with the key from the variable named
    /// by `api_key_env` (sent as a bearer token, kept nowhere else).
    ///
    /// Errors: the HTTP client cannot be set up.
    pub(crate) fn model_client(&self) -> Result<ModelClient> {
        Ok(match self.provider {
            Provider::Ollama => ModelClient::Ollama(OllamaClient::new(&self.host, self.timeouts)?),
            Provider::OpenAi => {
                let key = std::env::var(&self.api_key_env)
                    .ok()
                    .filter(|k| !k.trim().is_empty());
                let key = ApiKey {
                    variable: self.api_key_env.clone(),
                    value: key,
                };
                ModelClient::OpenAi(OpenAiClient::new(&self.host, key, self.timeouts)?)
            }
        })
    }

    /// Whether `heuristic` is on (not listed in `OC_DISABLE`).
    pub(crate) fn enabled(&self, heuristic: Heuristic) -> bool {
        self.heuristics.on(heuristic)
    }

    /// Merges the layers: defaults, config files (in the order given:
    /// user, project, `--config`), environment and flags.
    ///
    /// Errors: a bad host form, rule or out-of-range value in a file, a flag
    /// or the environment ([`Error::Usage`], exit 2).
    pub(crate) fn resolve(
        flags: &Overrides,
        mode: Mode,
        env: &EnvValues,
        files: &[LoadedFile],
        cwd: PathBuf,
        home: PathBuf,
    ) -> Result<Settings> {
        let from_files = files_layer(files)?;
        let chosen = from_files
            .clone()
            .merge(&env.layer(&flags.layer)?)
            .merge(&flags.layer);
        let mode = match mode {
            Mode::Code if flags.plan => Mode::Plan,
            other => other,
        };
        let provider = provider(&chosen, &from_files, &flags.layer)?;
        let sampling = Sampling {
            temperature: chosen.temperature,
            top_p: chosen.top_p,
            top_k: chosen.top_k,
            presence_penalty: chosen.presence_penalty,
            seed: chosen.seed,
        };
        check_sampling(&sampling)?;
        Ok(Settings {
            project_config: cwd.join(PROJECT_CONFIG),
            system_prompt: None,
            sandbox: sandbox::resolve(&chosen, files, flags, mode, env.home_dir.as_deref()),
            runtime: runtime::resolve(&chosen),
            instructions: flags.append_system_prompt.clone(),
            model: model(&chosen)?,
            model_explicit: chosen.model.is_some(),
            host: host(provider, &chosen)?,
            provider,
            api_key_env: (chosen.api_key_env.clone())
                .unwrap_or_else(|| DEFAULT_API_KEY_ENV.to_string()),
            rules: rules(files, flags, &cwd)?,
            cwd,
            home,
            num_ctx: chosen.num_ctx.unwrap_or(DEFAULT_NUM_CTX),
            max_output_tokens: chosen.max_output_tokens,
            // Checked to be 10 to 95 where it was given.
            compact_at: (!flags.no_compact).then(|| {
                (chosen.compact_at.and_then(|p| u8::try_from(p).ok())).unwrap_or(DEFAULT_COMPACT_AT)
            }),
            max_turns: chosen.max_turns.unwrap_or(DEFAULT_MAX_TURNS),
            think: chosen.think.unwrap_or(match mode {
                Mode::Code => Think::On,
                Mode::Plan | Mode::Chat => Think::Off,
            }),
            think_explicit: chosen.think.is_some(),
            sampling,
            permission_mode: match mode {
                Mode::Plan | Mode::Chat => PermissionMode::Plan,
                Mode::Code if flags.yes => PermissionMode::Yolo,
                Mode::Code => PermissionMode::Normal,
            },
            mode,
            text_tools: chosen.text_tools.unwrap_or_default(),
            edit_format: chosen.edit_format.unwrap_or_default(),
            task: chosen.task.unwrap_or_default(),
            check_attempts: chosen.check_attempts.unwrap_or(DEFAULT_CHECK_ATTEMPTS),
            fallback_models: chosen.fallback_models.clone().unwrap_or_default(),
            heuristics: match &env.disable {
                Some(list) => Heuristics::parse_off(list)
                    .map_err(|e| Error::Usage(format!("{}: {e}", env_vars::OC_DISABLE)))?,
                None => Heuristics::ALL_ON,
            },
            timeouts: timeouts(&chosen),
        })
    }
}

/// The config files merged in order, each checked first: values in range,
/// sampling values Ollama can use.
///
/// Errors: [`Error::Usage`] naming the file.
fn files_layer(files: &[LoadedFile]) -> Result<Layer> {
    let mut merged = Layer::default();
    for file in files {
        file::check_values(file)?;
        let c = &file.config;
        let file_sampling = Sampling {
            temperature: c.temperature,
            top_p: c.top_p,
            top_k: c.top_k,
            presence_penalty: c.presence_penalty,
            seed: c.seed,
        };
        check_sampling(&file_sampling)
            .map_err(|e| Error::Usage(format!("config file `{}`: {e}", file.path.display())))?;
        merged = merged.merge(c);
    }
    Ok(merged)
}

/// The permission rules: each file's (in merge order; a project config
/// above the workspace anchors its paths there), then `--allow`, `--deny`.
///
/// Errors: a rule that does not parse ([`Error::Usage`], naming the file or
/// the flag).
fn rules(files: &[LoadedFile], flags: &Overrides, cwd: &std::path::Path) -> Result<Vec<Rule>> {
    let mut rules = Vec::new();
    for file in files {
        // Paths are relative to the file's folder when the workspace is in
        // it (a project config above it), else to the workspace.
        let (dir, base) = match file.path.parent() {
            Some(dir) if cwd.starts_with(dir) => (dir, cwd.strip_prefix(dir).unwrap_or(cwd)),
            _ => (cwd, std::path::Path::new("")),
        };
        for entry in file.config.permissions.iter().flat_map(|p| &p.rules) {
            let rule = Rule::parse(entry.action, &entry.rule)
                .and_then(|r| r.anchored_in(dir))
                .map_err(|e| Error::Usage(format!("config file `{}`: {e}", file.path.display())))?;
            rules.push(rule.relative_to(&base.to_string_lossy()));
        }
    }
    for (action, texts) in [(Action::Allow, &flags.allow), (Action::Deny, &flags.deny)] {
        for text in texts {
            let flag = action.as_str();
            let rule = Rule::parse(action, text)
                .and_then(|r| r.anchored_in(cwd))
                .map_err(|e| Error::Usage(format!("--{flag}: {e}")))?;
            rules.push(rule);
        }
    }
    Ok(rules)
}

/// The model asked for, or the default.
///
/// Errors: an empty name ([`Error::Usage`]).
fn model(chosen: &Layer) -> Result<String> {
    let model = (chosen.model.clone()).unwrap_or_else(|| DEFAULT_MODEL.to_string());
    if model.trim().is_empty() {
        return Err(Error::Usage(
            "the model name is empty; pass `--model NAME`".into(),
        ));
    }
    Ok(model.trim().to_string())
}

/// The server's API: as set, or else a base URL alone (a flag, or a file
/// that sets no host) says it is OpenAI-compatible.
///
/// Errors: `--base-url` with Ollama, `--host` with OpenAI
/// ([`Error::Usage`]).
fn provider(chosen: &Layer, from_files: &Layer, flags: &Layer) -> Result<Provider> {
    let base_url_alone =
        flags.base_url.is_some() || (from_files.host.is_none() && from_files.base_url.is_some());
    let provider = chosen.provider.unwrap_or(if base_url_alone {
        Provider::OpenAi
    } else {
        Provider::Ollama
    });
    if provider == Provider::Ollama && flags.base_url.is_some() {
        return Err(Error::Usage(
            "`--base-url` is for OpenAI-compatible servers, but the provider is `ollama` (from `--provider`, `OC_PROVIDER` or the config); use `--provider openai --base-url URL`, or `--host` for Ollama".into(),
        ));
    }
    if provider == Provider::OpenAi && flags.host.is_some() {
        return Err(Error::Usage(
            "`--host` is the Ollama server's address; with `--provider openai` give the server's API root with `--base-url URL` (e.g. http://127.0.0.1:8080/v1)".into(),
        ));
    }
    Ok(provider)
}

/// The server's address for `provider`: Ollama's `host`, or the
/// OpenAI-compatible `base_url`, normalized.
///
/// Errors: an address that is no URL ([`Error::Usage`]).
fn host(provider: Provider, chosen: &Layer) -> Result<String> {
    match provider {
        Provider::Ollama => normalize_host(chosen.host.as_deref().unwrap_or(DEFAULT_HOST)),
        Provider::OpenAi => {
            normalize_base_url(chosen.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL))
        }
    }
}

/// The HTTP timeouts: each key, or the client's default.
fn timeouts(chosen: &Layer) -> Timeouts {
    let d = Timeouts::default();
    let secs = |v: Option<u64>, default: std::time::Duration| {
        v.map_or(default, std::time::Duration::from_secs)
    };
    Timeouts {
        connect: secs(chosen.connect_timeout_secs, d.connect),
        first_byte: secs(chosen.first_byte_timeout_secs, d.first_byte),
        idle: secs(chosen.idle_timeout_secs, d.idle),
    }
}

/// Sampling values Ollama can use: finite, temperature ≥ 0, top_p in (0, 1].
fn check_sampling(s: &Sampling) -> Result<()> {
    let bad = |name: &str, value: f64, want: &str| {
        Err(Error::Usage(format!(
            "{name} {value} is out of range; it must be {want}"
        )))
    };
    if let Some(t) = s.temperature
        && (!t.is_finite() || t < 0.0)
    {
        return bad("temperature", t, "a number of at least 0");
    }
    if let Some(p) = s.top_p
        && (!p.is_finite() || p <= 0.0 || p > 1.0)
    {
        return bad("top_p", p, "above 0 and at most 1");
    }
    if let Some(x) = s.presence_penalty
        && !x.is_finite()
    {
        return bad("presence_penalty", x, "a finite number");
    }
    Ok(())
}
