//! Settings: defaults ← `OC_HOME/config.json` ← `./.ollama-code.json` ←
//! `--config FILE` ← environment ← flags (SPEC §3).
//!
//! Loading files is I/O ([`load_file`]); merging is the pure
//! [`Settings::resolve`], unit-tested below.

pub mod file;
pub mod load;
pub mod runtime;
pub mod sandbox;

use std::path::{Path, PathBuf};

use crate::client::host::{normalize_base_url, normalize_host};
use crate::client::openai::ApiKey;
use crate::client::{ModelClient, OllamaClient, OpenAiClient, Timeouts};
use crate::env_vars;
use crate::error::{Error, Result};
use crate::permissions::PermissionMode;
use crate::permissions::project_config::PROJECT_CONFIG;
use crate::permissions::rules::{Action, Rule};
use crate::sandbox::settings::SandboxSettings;
use crate::vocab::{EditFormat, Heuristic, Mode, Provider, Sampling, Task, TextTools, Think};

pub use file::{FileConfig, LoadedFile, MIN_NUM_CTX, load_file, parse_file};
pub use runtime::{RuntimeFlags, RuntimeSettings};
pub use sandbox::SandboxFlags;

/// Default model (SPEC §3).
pub const DEFAULT_MODEL: &str = "qwen3.5:latest";
/// Default server address (SPEC §3).
pub const DEFAULT_HOST: &str = "http://localhost:11434";
/// Default API root of an OpenAI-compatible server (llama.cpp's
/// `llama-server` listens on port 8080).
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080/v1";
/// Default name of the environment variable holding the API key of an
/// OpenAI-compatible server.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";
/// Default context window in tokens.
pub const DEFAULT_NUM_CTX: u32 = 32768;
/// Default cap on model requests per run.
pub const DEFAULT_MAX_TURNS: u32 = 25;
/// Default cap on one reply's tokens: a whole file of a few hundred lines
/// fits; a model that repeats itself stops within minutes, not hours.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4096;
/// Default share of the context (percent) past which the conversation is
/// compacted before a request.
pub const DEFAULT_COMPACT_AT: u8 = 75;
/// Default rounds of `--check`: the first run and two more after feedback.
pub const DEFAULT_CHECK_ATTEMPTS: u32 = 3;
/// File name of the user config inside `OC_HOME`.
pub const USER_CONFIG: &str = "config.json";

/// What the command line sets, as plain values: the flags' part of the
/// merge. `cli` fills it from the parsed arguments; `None` and `false` mean
/// "not given".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    pub model: Option<String>,
    pub host: Option<String>,
    /// `--provider`.
    pub provider: Option<Provider>,
    /// `--base-url URL`.
    pub base_url: Option<String>,
    pub num_ctx: Option<u32>,
    pub max_output_tokens: Option<u32>,
    /// `--compact-at PCT`.
    pub compact_at: Option<u8>,
    /// `--no-compact`.
    pub no_compact: bool,
    pub max_turns: Option<u32>,
    pub think: Option<Think>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub top_k: Option<u32>,
    pub presence_penalty: Option<f64>,
    /// `--seed N`.
    pub seed: Option<i64>,
    /// `--yes`: permission mode yolo in code mode.
    pub yes: bool,
    /// `--plan`: `oc run` in plan mode.
    pub plan: bool,
    pub text_tools: Option<TextTools>,
    pub edit_format: Option<EditFormat>,
    /// `--task`.
    pub task: Option<Task>,
    /// `--allow RULE`, in order.
    pub allow: Vec<String>,
    /// `--deny RULE`, in order.
    pub deny: Vec<String>,
    /// `--system-prompt FILE`.
    pub system_prompt_file: Option<PathBuf>,
    /// `--append-system-prompt TEXT`.
    pub append_system_prompt: Option<String>,
    /// `--sandbox`, `--network`, `--add-dir`.
    pub sandbox: SandboxFlags,
    /// `--runtime`, `--opencode-url`.
    pub runtime: RuntimeFlags,
}

/// Environment values `oc` reads (names in [`crate::env_vars`]). Empty values
/// count as unset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvValues {
    pub model: Option<String>,
    pub host: Option<String>,
    /// `OC_PROVIDER`, as given.
    pub provider: Option<String>,
    /// `OPENAI_BASE_URL`.
    pub base_url: Option<String>,
    pub oc_home: Option<PathBuf>,
    pub home_dir: Option<PathBuf>,
    /// `OC_DISABLE`, as given.
    pub disable: Option<String>,
    /// `OC_EDIT_FORMAT`, as given.
    pub edit_format: Option<String>,
}

impl EnvValues {
    /// Reads the process environment.
    pub fn from_process() -> Self {
        let get = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        EnvValues {
            model: get(env_vars::OC_MODEL),
            host: get(env_vars::OLLAMA_HOST),
            provider: get(env_vars::OC_PROVIDER),
            base_url: get(env_vars::OPENAI_BASE_URL),
            oc_home: get(env_vars::OC_HOME).map(PathBuf::from),
            home_dir: get(env_vars::HOME).map(PathBuf::from),
            disable: get(env_vars::OC_DISABLE),
            edit_format: get(env_vars::OC_EDIT_FORMAT),
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
    /// Heuristics switched off with `OC_DISABLE`.
    pub disabled: Vec<Heuristic>,
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
    pub fn model_client(&self) -> Result<ModelClient> {
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
    pub fn enabled(&self, heuristic: Heuristic) -> bool {
        !self.disabled.contains(&heuristic)
    }

    /// Merges defaults, config files (in the order given: user, project,
    /// `--config`), environment and flags. Pure: no I/O.
    ///
    /// Errors: a bad host form or an out-of-range value in a file
    /// ([`Error::Usage`], exit 2).
    pub fn resolve(
        flags: &Overrides,
        mode: Mode,
        env: &EnvValues,
        files: &[LoadedFile],
        cwd: PathBuf,
        home: PathBuf,
    ) -> Result<Settings> {
        let mut merged = FileConfig::default();
        let mut rules = Vec::new();
        for file in files {
            // A project config above the workspace anchors its paths there.
            let base = file
                .path
                .parent()
                .and_then(|dir| cwd.strip_prefix(dir).ok())
                .map(|rel| rel.to_string_lossy().into_owned())
                .unwrap_or_default();
            for entry in file.config.permissions.iter().flat_map(|p| &p.rules) {
                let rule = Rule::parse(entry.action, &entry.rule).map_err(|e| {
                    Error::Usage(format!("config file `{}`: {e}", file.path.display()))
                })?;
                rules.push(rule.relative_to(&base));
            }
            let c = &file.config;
            file::check_values(file)?;
            let file_sampling = Sampling {
                temperature: c.temperature,
                top_p: c.top_p,
                top_k: c.top_k,
                presence_penalty: c.presence_penalty,
                seed: c.seed,
            };
            check_sampling(&file_sampling)
                .map_err(|e| Error::Usage(format!("config file `{}`: {e}", file.path.display())))?;
            macro_rules! take {
                ($($field:ident),*) => { $( if c.$field.is_some() { merged.$field = c.$field.clone(); } )* };
            }
            take!(
                model,
                host,
                provider,
                base_url,
                api_key_env,
                num_ctx,
                max_output_tokens,
                compact_at,
                max_turns,
                think,
                temperature,
                top_p,
                top_k,
                presence_penalty,
                seed,
                connect_timeout_secs,
                first_byte_timeout_secs,
                idle_timeout_secs,
                text_tools,
                edit_format,
                task,
                check_attempts
            );
        }
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
        let provider = match (flags.provider, &env.provider) {
            (Some(provider), _) => provider,
            (None, Some(text)) => {
                <Provider as clap::ValueEnum>::from_str(text, true).map_err(|_| {
                    Error::Usage(format!(
                        "{}: `{text}` is not a provider; use ollama or openai",
                        env_vars::OC_PROVIDER
                    ))
                })?
            }
            // A base URL alone says which API it is.
            (None, None) => merged.provider.unwrap_or(
                if flags.base_url.is_some() || (merged.host.is_none() && merged.base_url.is_some())
                {
                    Provider::OpenAi
                } else {
                    Provider::Ollama
                },
            ),
        };
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
        let host_text = match provider {
            Provider::Ollama => flags
                .host
                .clone()
                .or_else(|| env.host.clone())
                .or(merged.host)
                .unwrap_or_else(|| DEFAULT_HOST.to_string()),
            Provider::OpenAi => flags
                .base_url
                .clone()
                .or_else(|| env.base_url.clone())
                .or(merged.base_url)
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_string()),
        };
        let host = match provider {
            Provider::Ollama => normalize_host(&host_text)?,
            Provider::OpenAi => normalize_base_url(&host_text)?,
        };
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
            temperature: flags.temperature.or(merged.temperature),
            top_p: flags.top_p.or(merged.top_p),
            top_k: flags.top_k.or(merged.top_k),
            presence_penalty: flags.presence_penalty.or(merged.presence_penalty),
            seed: flags.seed.or(merged.seed),
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
            project_config: cwd.join(PROJECT_CONFIG),
            system_prompt: None,
            sandbox: sandbox::resolve(&flags.sandbox, files, mode, env.home_dir.as_deref()),
            runtime: RuntimeSettings::resolve(&flags.runtime, files),
            instructions: flags.append_system_prompt.clone(),
            mode,
            model: model.trim().to_string(),
            model_explicit,
            provider,
            host,
            api_key_env: merged
                .api_key_env
                .unwrap_or_else(|| DEFAULT_API_KEY_ENV.to_string()),
            cwd,
            home,
            num_ctx: flags.num_ctx.or(merged.num_ctx).unwrap_or(DEFAULT_NUM_CTX),
            max_output_tokens: flags.max_output_tokens.or(merged.max_output_tokens),
            compact_at: (!flags.no_compact).then(|| {
                flags
                    .compact_at
                    // Checked to be 10 to 95 when the file was read.
                    .or(merged.compact_at.and_then(|p| u8::try_from(p).ok()))
                    .unwrap_or(DEFAULT_COMPACT_AT)
            }),
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
            edit_format: match (flags.edit_format, &env.edit_format) {
                (Some(format), _) => format,
                (None, Some(text)) => <EditFormat as clap::ValueEnum>::from_str(text, true)
                    .map_err(|_| {
                        Error::Usage(format!(
                            "{}: `{text}` is not an edit format; use tools, whole, diff or auto",
                            env_vars::OC_EDIT_FORMAT
                        ))
                    })?,
                (None, None) => merged.edit_format.unwrap_or_default(),
            },
            task: flags.task.or(merged.task).unwrap_or_default(),
            check_attempts: merged.check_attempts.unwrap_or(DEFAULT_CHECK_ATTEMPTS),
            disabled: match &env.disable {
                Some(list) => Heuristic::parse_list(list)
                    .map_err(|e| Error::Usage(format!("{}: {e}", env_vars::OC_DISABLE)))?,
                None => Vec::new(),
            },
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

#[cfg(test)]
mod tests;
