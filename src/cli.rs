//! Command-line syntax (clap derive). These types are parsed input only;
//! [`crate::config::Settings::resolve`] turns them into settings.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::config::{Layer, Overrides};
use crate::vocab::{EditFormat, Network, Provider, Runtime, SandboxMode, Task, TextTools, Think};

/// `oc`: a one-shot, scriptable coding agent for local language models.
///
/// Options come after the command they belong to: `oc run --model M "…"`.
#[derive(Debug, Parser)]
#[command(name = "oc", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Code mode: the agent with all tools (read, write, edit, move, list, search, bash).
    Run(RunArgs),
    /// Plan mode: read-only tools; writes and bash are refused; ends with a plan.
    Plan(RunArgs),
    /// Chat mode: no tools, one answer.
    Chat(RunArgs),
    /// Saved sessions: list, show, rm.
    Sessions(SessionsArgs),
    /// Put back the files a run changed, as the run found them (the newest
    /// run started in this directory, or SESSION's last run).
    Undo(UndoArgs),
    /// Models on the server: list (default) or show NAME.
    Models(ModelsArgs),
    /// Write fine-tuning data (openai, hf, sharegpt or atif JSONL) from the recorded runs.
    ExportFt(ExportArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Internal: the sandbox helper that confines itself with Landlock and
    /// runs the command (how `bash` calls run; docs/permissions.md "Sandbox").
    #[command(hide = true)]
    SandboxExec(SandboxExecArgs),
}

/// `oc sandbox-exec [--filesystem] [--write PATH]... [--deny-read PATH]...
/// [--allow-read PATH]... [--no-network] -- PROGRAM [ARGS]...`
/// `oc sandbox-exec` parsed on its own: the helper starts before every
/// confined command, and building the whole command tree would cost it
/// about a millisecond each time (`cargo bench --bench sandbox`).
#[derive(Debug, Parser)]
#[command(name = "oc sandbox-exec")]
pub struct SandboxExecCli {
    #[command(flatten)]
    pub args: SandboxExecArgs,
}

#[derive(Debug, Args)]
pub struct SandboxExecArgs {
    /// Confine the filesystem: read anywhere, write only beneath `--write`.
    #[arg(long)]
    pub filesystem: bool,
    /// A path writable under `--filesystem` (repeatable).
    #[arg(long, value_name = "PATH")]
    pub write: Vec<PathBuf>,
    /// Refuse TCP connect and bind.
    #[arg(long)]
    pub no_network: bool,
    /// A path commands may not read under `--filesystem` (repeatable): a
    /// credential store.
    #[arg(long, value_name = "PATH")]
    pub deny_read: Vec<PathBuf>,
    /// A path readable under `--filesystem` even inside a `--deny-read`
    /// path (repeatable).
    #[arg(long, value_name = "PATH")]
    pub allow_read: Vec<PathBuf>,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<std::ffi::OsString>,
}

/// The options of `run`, `plan` and `chat`: the agent's, then the prompt's.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub prompt: PromptArgs,
}

/// Where `oc` keeps its files.
#[derive(Debug, Args, Default, Clone)]
pub struct HomeArgs {
    /// Directory for config, sessions and finetune.jsonl [env: OC_HOME]
    /// [default: ~/.ollama-code]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

/// How to reach the model server, for commands that talk to it.
#[derive(Debug, Args, Default, Clone)]
pub struct ServerArgs {
    /// Ollama server: `host`, `host:port`, `http://host:port` or `https://…` [env: OLLAMA_HOST]
    /// [default: http://localhost:11434]
    #[arg(long, global = true, value_name = "URL")]
    pub host: Option<String>,
    /// The model server's API [env: OC_PROVIDER] [default: ollama, or openai
    /// when `--base-url` is given]
    #[arg(long, global = true, value_name = "API")]
    pub provider: Option<Provider>,
    /// API root of an OpenAI-compatible server, e.g. `http://127.0.0.1:8080/v1`
    /// [env: OPENAI_BASE_URL] [default: http://127.0.0.1:8080/v1]
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Work in DIR instead of the current directory (the workspace the tools are
    /// confined to, and where the project config is looked for).
    #[arg(short = 'C', long = "cwd", global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An extra config file, merged after the project's `.ollama-code.json`.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub home: HomeArgs,
}

/// `oc undo [SESSION] [--force] [--dry-run]`
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The session whose last run to undo (a unique prefix is enough)
    /// [default: the newest session started in this directory]
    pub session: Option<String>,
    /// Put back files changed since the run ended too (their newer content
    /// is lost)
    #[arg(long)]
    pub force: bool,
    /// Say what would be put back, and change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// The workspace to look for the newest session in [default: the
    /// current directory]
    #[arg(short = 'C', long = "cwd", value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    #[command(flatten)]
    pub home: HomeArgs,
}

/// `oc sessions …`
#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: SessionsCommand,
    #[command(flatten)]
    pub home: HomeArgs,
}

/// `oc sessions list|show|rm`
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Saved sessions, newest first.
    List {
        /// One JSON array on stdout.
        #[arg(long)]
        json: bool,
        /// Only sessions started in the current directory.
        #[arg(long)]
        here: bool,
    },
    /// One session as a readable transcript.
    Show {
        /// Session id (a unique prefix is enough).
        id: String,
        /// The raw session file.
        #[arg(long)]
        json: bool,
    },
    /// Delete sessions (asks on a terminal; needs --yes without one).
    Rm {
        /// Session ids (unique prefixes are enough).
        #[arg(required = true)]
        ids: Vec<String>,
        /// Delete without asking.
        #[arg(short = 'y', long)]
        yes: bool,
    },
}

/// `oc models …`
#[derive(Debug, Args)]
pub struct ModelsArgs {
    #[command(subcommand)]
    pub command: Option<ModelsCommand>,
    #[command(flatten)]
    pub server: ServerArgs,
    /// JSON on stdout.
    #[arg(long, global = true)]
    pub json: bool,
}

/// `oc models list` / `oc models show NAME`
#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Name, size, parameters, quantization, context length, capabilities; recent first.
    List,
    /// Details of one model from `/api/show`.
    Show {
        /// Model name, e.g. `qwen2.5-coder:7b`.
        name: String,
    },
}

/// `oc export-ft …`
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub home: HomeArgs,
    /// Only runs of this model (exactly as recorded, e.g. `qwen2.5-coder:1.5b`).
    #[arg(short = 'm', long, value_name = "NAME")]
    pub model: Option<String>,
    /// The layout to write.
    #[arg(long, value_enum, default_value_t = crate::session::export::Format::Openai)]
    pub format: crate::session::export::Format,
    /// Records to read [default: OC_HOME/finetune.jsonl]
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Only runs that finished with an answer (and passed `--check`).
    #[arg(long)]
    pub success_only: bool,
    /// Only runs in this mode: code, plan or chat.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// Only runs recorded at or after DATE (YYYY-MM-DD or RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only runs with at least N turns.
    #[arg(long, value_name = "N")]
    pub min_turns: Option<u32>,
    /// Drop runs whose conversation is identical to an earlier one.
    #[arg(long)]
    pub dedupe: bool,
    /// Stop at the first malformed or invalid record instead of skipping it.
    #[arg(long)]
    pub strict: bool,
    /// Do not learn from replies that failed (the default): `weight: 0`
    /// (openai), `train: false` (hf), the conversation cut before the first
    /// (sharegpt), `extra.train: false` (atif).
    #[arg(
        long,
        alias = "weight-failed-turns",
        overrides_with = "no_mask_failed_steps"
    )]
    pub mask_failed_steps: bool,
    /// Learn from every reply, failed ones too.
    #[arg(long, overrides_with = "mask_failed_steps")]
    pub no_mask_failed_steps: bool,
    /// hf: tool-call arguments as JSON strings (for datasets whose argument types vary).
    #[arg(long)]
    pub arguments_as_string: bool,
}

/// How the run's output is written to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// The answer, streamed; everything else on stderr.
    #[default]
    Text,
    /// One JSON object at the end.
    Json,
    /// One JSON event per line.
    StreamJson,
}

/// The prompt and the options of `run`, `plan` and `chat`.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The prompt; words are joined with spaces. `-` reads it from stdin. When
    /// stdin is piped and a prompt is given, stdin is appended as a delimited block.
    #[arg(value_name = "PROMPT")]
    pub prompt: Vec<String>,
    /// Output on stdout: the text, one JSON object at the end, or JSON events.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,
    /// Also write the final answer to FILE.
    #[arg(
        short = 'o',
        long = "output-last-message",
        visible_alias = "out",
        value_name = "FILE"
    )]
    pub output_last_message: Option<PathBuf>,
    /// Only the answer: no progress, tool lines or thinking on stderr.
    #[arg(short = 'q', long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Show every tool result on stderr (at most 20 lines each), not only its
    /// one-line summary: what a CI log needs.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Go on from the newest session started in this directory.
    #[arg(long = "continue", conflicts_with = "resume")]
    pub continue_last: bool,
    /// Go on from the session ID (a unique prefix is enough).
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Write no session file and no fine-tuning record.
    #[arg(long)]
    pub no_save: bool,
    /// Run CMD (bash, in the workspace) before the first request, showing a
    /// failure to the model, and again when the model is done; a failure
    /// goes back to the model. The run succeeds only if CMD passes (exit 6
    /// otherwise). `auto`: the test command the prompt gives (in backticks
    /// or quotes exactly, in a sentence up to its end), or the project's
    /// own (pytest or unittest, `cargo test`, `npm test`, `go test ./...`,
    /// `make test`). A check that cannot run as written (exit 126 or 127,
    /// a shell syntax error, a usage message) stops the run before the
    /// first request (exit 2)
    #[arg(long, value_name = "CMD")]
    pub check: Option<String>,
    /// Do not run `--check` before the first request
    #[arg(long)]
    pub no_precheck: bool,
    /// How many times `--check` runs at most within one try (its
    /// feedback rounds to the model + 1; fresh tries are `--attempts`)
    /// [default: 3]
    #[arg(
        long,
        visible_alias = "check-attempts",
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub check_rounds: Option<u32>,
    /// Fresh tries at the task (1 to 20; needs `--check`): a try whose
    /// check still fails after its rounds is set aside (kept in its
    /// session), the workspace goes back to where the run began, and the
    /// next try starts a new conversation with another seed (and the next
    /// `--fallback-model`). The first try whose check passes is the result;
    /// if none does, exit 6 with the closest try kept [default: 1; with
    /// fallback models, one try a model]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=20))]
    pub attempts: Option<u32>,
    /// The answer must be one JSON value that this JSON Schema file
    /// accepts: the server holds the model to it, the answer is validated
    /// (one retry), and stdout holds exactly the JSON. Still invalid: exit 7.
    /// The run answers and changes no file.
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<std::path::PathBuf>,
    /// Attach an image to the prompt (repeatable; PNG, JPEG, WebP, GIF's first
    /// frame; at most 20 MB); needs a model with the `vision` capability.
    #[arg(long = "image", value_name = "FILE")]
    pub images: Vec<std::path::PathBuf>,
    /// Shrink attached images so their longest side is at most PX pixels
    /// [default: 1024]
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(64..=8192))]
    pub image_max_side: Option<u32>,
    /// When the run fails (any exit code but 0): `revert` puts every file
    /// it changed back as the run found it (as `oc undo` would), for CI
    /// jobs that must leave a clean tree; `keep` leaves them [default: keep]
    #[arg(long, value_name = "WHAT")]
    pub on_fail: Option<OnFail>,
    /// Stop the whole run after DURATION (e.g. `90s`, `10m`) with exit 124.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<std::time::Duration>,
}

/// What `--on-fail` does with a failed run's changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnFail {
    /// Leave them in the workspace.
    Keep,
    /// Put the workspace back as the run found it.
    Revert,
}

fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let duration = humantime::parse_duration(text)
        .map_err(|e| format!("`{text}` is not a duration ({e}); use e.g. 90s, 10m or 1h30m"))?;
    if duration.is_zero() {
        return Err("the timeout must be longer than zero".into());
    }
    Ok(duration)
}

/// The agent's options (`run`, `plan`, `chat`).
#[derive(Debug, Args, Default, Clone)]
pub struct CommonArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Model name, e.g. `qwen2.5-coder:7b` [env: OC_MODEL] [default: qwen3.5:latest]
    #[arg(short = 'm', long, value_name = "NAME")]
    pub model: Option<String>,
    /// A model for the next try when a try fails its `--check`
    /// (repeatable, in order; the last one takes any tries left): start
    /// with a fast model, pay for a bigger one only when needed. Needs
    /// `--check` [config: fallback_models]
    #[arg(long = "fallback-model", value_name = "NAME")]
    pub fallback_models: Vec<String>,
    /// Context window in tokens, sent as `options.num_ctx`; clamped to the model's
    /// context length [default: 32768]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(256..))]
    pub num_ctx: Option<u32>,
    /// Most tokens in one reply, sent as `options.num_predict`; a reply cut
    /// there runs none of its calls [default: 4096, or a quarter of the
    /// context when that is less]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..))]
    pub max_output_tokens: Option<u32>,
    /// Compact the conversation before a request that would pass PCT percent
    /// of the context [default: 75]
    #[arg(long, value_name = "PCT", value_parser = clap::value_parser!(u8).range(10..=95))]
    pub compact_at: Option<u8>,
    /// Never compact: past the context the server cuts the prompt itself.
    #[arg(long, conflicts_with = "compact_at")]
    pub no_compact: bool,
    /// Most model requests in one run [default: 25]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Thinking: `--think` or `--think=LEVEL` with true, false, low, medium or high.
    /// Never sent to a model without the `thinking` capability [default: true for
    /// run, false for plan and chat]
    #[arg(
        long,
        value_name = "LEVEL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true"
    )]
    pub think: Option<Think>,
    /// Sampling temperature (sent only when set; otherwise the model's own
    /// Modelfile value applies, see `oc models show`)
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub temperature: Option<f64>,
    /// Nucleus sampling cut-off (sent only when set)
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub top_p: Option<f64>,
    /// Top-k sampling (sent only when set)
    #[arg(long, value_name = "K")]
    pub top_k: Option<u32>,
    /// Presence penalty (sent only when set)
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub presence_penalty: Option<f64>,
    /// Seed of the sampler, for reproducible runs (sent as `options.seed`)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub seed: Option<i64>,
    /// Approve every action without asking (hard safety rules still apply).
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Plan mode for `run`: read-only tools only.
    #[arg(long)]
    pub plan: bool,
    /// Turn tool calls that a model writes as text into real calls (auto) or not (off).
    #[arg(long, value_enum, value_name = "MODE")]
    pub text_tools: Option<TextTools>,
    /// How the model changes files: tool calls, whole files, or SEARCH/REPLACE
    /// blocks; `auto` chooses per model [default: auto]
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub edit_format: Option<EditFormat>,
    /// What the run is for: a change to the files, or an answer (files
    /// shown for reference, none changes); `auto` decides from the prompt
    /// [default: auto]
    #[arg(long, value_enum, value_name = "TASK")]
    pub task: Option<Task>,
    /// Print the first request body (the provider's wire format: system
    /// prompt, files shown, tools) and its size; say on stderr which
    /// protocol the model gets and why, and when the request does not fit
    /// the context (`num_ctx`); send nothing (the server is still asked
    /// about the model, as a run asks).
    #[arg(long)]
    pub dry_run: bool,
    /// Allow calls matching RULE without asking, e.g. 'bash(cargo test*)' (repeatable).
    #[arg(long, value_name = "RULE")]
    pub allow: Vec<String>,
    /// Refuse calls matching RULE, even with --yes, e.g. 'write(src/**)' (repeatable).
    #[arg(long, value_name = "RULE")]
    pub deny: Vec<String>,
    /// Use the text of FILE as the system prompt instead of oc's own (the
    /// tools are still offered).
    #[arg(long, value_name = "FILE")]
    pub system_prompt: Option<PathBuf>,
    /// Add TEXT at the end of the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,
    /// Confine bash commands (Landlock): write only in the workspace, or
    /// nowhere (read-only), or not at all (off); `required` refuses to run
    /// where the kernel cannot confine [default: workspace-write; plan:
    /// read-only]
    #[arg(long, value_enum, value_name = "MODE")]
    pub sandbox: Option<SandboxMode>,
    /// Let sandboxed commands open network connections [default: off under
    /// the sandbox]
    #[arg(long, value_enum, value_name = "on|off")]
    pub network: Option<Network>,
    /// Let sandboxed commands also write in DIR (repeatable).
    #[arg(long, value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// Let sandboxed commands read DIR although it is a credential store
    /// they may not read, such as ~/.ssh (repeatable).
    #[arg(long, value_name = "DIR")]
    pub allow_read: Vec<PathBuf>,
    /// What runs the agent loop: oc itself (native), or an opencode server
    /// with oc's permissions, output, sessions and records (opencode)
    /// [default: native]
    #[arg(long, value_enum, value_name = "RUNTIME")]
    pub runtime: Option<Runtime>,
    /// The opencode server for `--runtime opencode`, e.g.
    /// http://127.0.0.1:4096 [default: start `opencode serve`]
    #[arg(long, value_name = "URL")]
    pub opencode_url: Option<String>,
}

impl CommonArgs {
    /// The flags' part of the settings merge ([`crate::config::Settings::resolve`]).
    pub fn overrides(&self) -> Overrides {
        let server = self.server.overrides();
        Overrides {
            layer: Layer {
                model: self.model.clone(),
                fallback_models: (!self.fallback_models.is_empty())
                    .then(|| self.fallback_models.clone()),
                num_ctx: self.num_ctx,
                max_output_tokens: self.max_output_tokens,
                compact_at: self.compact_at.map(u32::from),
                max_turns: self.max_turns,
                think: self.think,
                temperature: self.temperature,
                top_p: self.top_p,
                top_k: self.top_k,
                presence_penalty: self.presence_penalty,
                seed: self.seed,
                text_tools: self.text_tools,
                edit_format: self.edit_format,
                task: self.task,
                sandbox: self.sandbox,
                network: self.network,
                runtime: self.runtime,
                opencode_url: self.opencode_url.clone(),
                ..server.layer
            },
            no_compact: self.no_compact,
            yes: self.yes,
            plan: self.plan,
            allow: self.allow.clone(),
            deny: self.deny.clone(),
            system_prompt_file: self.system_prompt.clone(),
            append_system_prompt: self.append_system_prompt.clone(),
            add_dirs: self.add_dir.clone(),
            allow_read: self.allow_read.clone(),
        }
    }
}

impl ServerArgs {
    /// The server's part of the settings merge: `--host`, `--provider`,
    /// `--base-url`.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            layer: Layer {
                host: self.host.clone(),
                provider: self.provider,
                base_url: self.base_url.clone(),
                ..Layer::default()
            },
            ..Overrides::default()
        }
    }
}
