//! `oc`: a one-shot, scriptable coding agent for local language models.
//!
//! The binary is a thin shell around [`run`]; everything lives here so the
//! integration tests can reach it.

pub mod agent;
pub mod cli;
pub mod client;
pub mod commands;
pub mod config;
pub mod env_vars;
pub mod error;
pub mod fsutil;
pub mod input;
pub mod permissions;
pub mod protocol;
pub mod secret_files;
pub mod session;
pub mod signals;
pub mod tools;
pub mod ui;
pub mod vocab;

use std::path::{Path, PathBuf};

use cli::{Cli, Command, CommonArgs, OutputFormat, PromptArgs};
use config::{EnvValues, LoadedFile, Settings};
use error::{Error, ExitStatus, Result};
use vocab::Mode;

/// Runs one invocation and returns its exit status. Errors carry their own
/// exit status (see [`exit_status_of`]).
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("cannot start the async runtime", e))?;
    let common = &cli.common;
    let status = match cli.command {
        Command::Run(args) => runtime.block_on(run_agent(common, Mode::Code, &args))?,
        Command::Plan(args) => runtime.block_on(run_agent(common, Mode::Plan, &args))?,
        Command::Chat(args) => runtime.block_on(run_agent(common, Mode::Chat, &args))?,
        Command::Sessions(command) => commands::sessions(&load_home(common)?, common, command)?,
        Command::Models(args) => {
            runtime.block_on(commands::models(&load_settings(common, Mode::Code)?, args))?
        }
        Command::ExportFt(args) => commands::export_ft(&load_home(common)?, common, &args)?,
        Command::Completions { shell } => commands::completions(shell),
    };
    Ok(status)
}

/// The exit status an error ends the process with: the status of an
/// [`Error`] anywhere in the chain, else 1.
pub fn exit_status_of(err: &anyhow::Error) -> ExitStatus {
    err.chain()
        .find_map(|e| e.downcast_ref::<Error>())
        .map_or(ExitStatus::Failure, Error::exit_status)
}

async fn run_agent(common: &CommonArgs, mode: Mode, args: &PromptArgs) -> Result<ExitStatus> {
    let result = start_agent(common, mode, args).await;
    // Scripts reading JSON get the error there too, not only on stderr.
    if let (Err(error), OutputFormat::Json | OutputFormat::StreamJson) =
        (&result, args.output_format)
    {
        ui::json::write_line(&protocol::Event::Error {
            schema_version: protocol::SCHEMA_VERSION,
            message: &format!("{error:#}"),
            exit_code: Some(error.exit_status().code()),
        });
    }
    result
}

async fn start_agent(common: &CommonArgs, mode: Mode, args: &PromptArgs) -> Result<ExitStatus> {
    let mut settings = load_settings(common, mode)?;
    let store = session::Store::new(&settings.home);
    let resume = if args.continue_last {
        let session = store.newest_in(&settings.cwd).ok_or_else(|| {
            Error::Usage(format!(
                "no saved session was started in `{}`; start one with `oc run`, or pick one with `--resume ID` (see `oc sessions list`)",
                settings.cwd.display()
            ))
        })?;
        Some(session)
    } else {
        args.resume
            .as_deref()
            .map(|id| store.load(id))
            .transpose()?
    };
    if let Some(session) = &resume
        && session.mode != settings.mode
    {
        let command = match session.mode {
            Mode::Code => "oc run",
            Mode::Plan => "oc plan",
            Mode::Chat => "oc chat",
        };
        return Err(Error::Usage(format!(
            "session {} is a {} session; go on with `{command} --resume {}`",
            session.id,
            session.mode.as_str(),
            session.id
        )));
    }
    if common.dry_run && resume.is_some() {
        return Err(Error::Usage(
            "`--dry-run` shows the first request of a new run; it cannot be combined with `--continue` or `--resume`".into(),
        ));
    }
    let resume = resume.map(|mut session| {
        // A run killed mid-call left calls without results; the next
        // request must answer each of them.
        session.answer_unanswered_calls("interrupted: result unknown");
        if !settings.model_explicit {
            settings.model = session.model.clone();
        }
        if common.cwd.is_none() {
            let saved = std::path::PathBuf::from(&session.cwd);
            if saved.is_dir() {
                settings.cwd = saved;
            }
        }
        session
    });
    let prompt = input::read_prompt(&args.prompt)?;
    if common.dry_run {
        let (body, system, tools) = agent::dry_run_request(&settings, &prompt)?;
        ui::out(&format!("{body}\n"));
        let tokens = |bytes: usize| bytes.div_ceil(4);
        ui::print_note(&format!(
            "request body: {} bytes (~{} tokens); system prompt {system} bytes + tool schemas {tools} bytes = ~{} tokens; nothing was sent (assumes a model with native tool calling)",
            body.len(),
            tokens(body.len()),
            tokens(system + tools)
        ));
        return Ok(ExitStatus::Success);
    }
    let mut approver = ui::approver_for_this_process();
    let mut out: Box<dyn ui::Output> = match args.output_format {
        OutputFormat::Text => Box::new(ui::TextRenderer::new(args.quiet)),
        OutputFormat::Json => Box::new(ui::JsonOutput::new(false)),
        OutputFormat::StreamJson => Box::new(ui::JsonOutput::new(true)),
    };
    let job = agent::Job {
        prompt,
        resume,
        save: !args.no_save,
        timeout: args.timeout,
        last_message_file: args.output_last_message.clone(),
        check: args.check.clone().map(|command| agent::check::CheckPlan {
            command,
            max_attempts: args.check_attempts.unwrap_or(settings.check_attempts),
        }),
    };
    agent::run(&settings, job, approver.as_mut(), out.as_mut()).await
}

/// `OC_HOME`, from `--home`, the environment or the default.
fn load_home(common: &CommonArgs) -> Result<PathBuf> {
    config::resolve_home(common.home.as_deref(), &EnvValues::from_process())
}

/// Reads the environment and config files and resolves the settings.
fn load_settings(common: &CommonArgs, mode: Mode) -> Result<Settings> {
    let env = EnvValues::from_process();
    let cwd = workspace_dir(common.cwd.as_deref())?;
    let home = config::resolve_home(common.home.as_deref(), &env)?;
    if home.exists() && !home.is_dir() {
        return Err(Error::Usage(format!(
            "`{}` (OC_HOME) is not a directory; point `OC_HOME` or `--home` at a directory",
            home.display()
        )));
    }
    let mut files: Vec<LoadedFile> = Vec::new();
    files.extend(config::load_file(&home.join(config::USER_CONFIG))?);
    if let Some(mut project) =
        config::load_file(&cwd.join(permissions::project_config::PROJECT_CONFIG))?
    {
        if let Some(warning) = config::file::drop_remote_host(&mut project) {
            ui::print_warning(&warning);
        }
        files.push(project);
    }
    if let Some(path) = &common.config {
        match config::load_file(path)? {
            Some(file) => files.push(file),
            None => {
                return Err(Error::Usage(format!(
                    "config file `{}` (from `--config`) does not exist",
                    path.display()
                )));
            }
        }
    }
    for file in &files {
        for key in &file.unknown_keys {
            ui::print_warning(&format!(
                "config file `{}`: unknown key `{key}` is ignored",
                file.path.display()
            ));
        }
    }
    Settings::resolve(&common.overrides(), mode, &env, &files, cwd, home)
}

fn workspace_dir(flag: Option<&Path>) -> Result<PathBuf> {
    let dir = match flag {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| Error::io("cannot read the current directory", e))?,
    };
    let canonical = dir.canonicalize().map_err(|e| {
        Error::Usage(format!(
            "cannot use `{}` as the working directory: {e}",
            dir.display()
        ))
    })?;
    if !canonical.is_dir() {
        return Err(Error::Usage(format!(
            "`{}` is not a directory; pass a directory to `-C`",
            dir.display()
        )));
    }
    Ok(canonical)
}
