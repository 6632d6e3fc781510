//! `oc`: a one-shot, scriptable coding agent for local language models.
//!
//! The binary is a thin shell around [`run`]; everything lives here so the
//! integration tests can reach it.

pub mod agent;
pub mod cli;
pub mod client;
pub mod config;
pub mod env_vars;
pub mod error;
pub mod input;
pub mod permissions;
pub mod session;
pub mod signals;
pub mod tools;
pub mod ui;

use std::path::{Path, PathBuf};

use cli::{Cli, Command, CommonArgs, PromptArgs};
use config::{EnvValues, LoadedFile, Mode, Settings};
use error::{Error, ExitStatus, Result};

/// Runs one invocation and returns its exit status. Errors carry their own
/// exit status (see [`exit_status_of`]).
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("cannot start the async runtime", e))?;
    let status = match cli.command {
        Command::Run(args) => runtime.block_on(run_agent(&cli.common, Mode::Code, &args))?,
        Command::Plan(args) => runtime.block_on(run_agent(&cli.common, Mode::Plan, &args))?,
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
    let settings = load_settings(common, mode)?;
    let prompt = input::read_prompt(&args.prompt)?;
    let mut approver = permissions::approver::for_this_process();
    let mut ui = ui::TextRenderer::new();
    agent::run(&settings, prompt, approver.as_mut(), &mut ui).await
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
    if let Some(mut project) = config::load_file(&cwd.join(config::PROJECT_CONFIG))? {
        if let Some(warning) = config::drop_remote_host(&mut project) {
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
    Settings::resolve(common, mode, &env, &files, cwd, home)
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
