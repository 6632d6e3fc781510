//! The commands, one a file: `run` (`oc run|plan|chat`), `sessions`,
//! `undo`, `models`, `export_ft`, `completions`, and the hidden
//! `sandbox_exec`; [`run`] dispatches one invocation to its command.

mod completions;
mod export_ft;
mod models;
mod run;
mod sandbox_exec;
mod sessions;
mod settings;
mod undo;

pub use sandbox_exec::sandbox_exec_if_asked;

use crate::cli::{Cli, Command};
use crate::error::{Error, ExitStatus};
use crate::vocab::Mode;
use settings::{load_home, load_settings};

/// Runs one invocation and returns its exit status. Errors carry their own
/// exit status (see [`exit_status_of`]).
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    let command = match cli.command {
        Command::SandboxExec(args) => sandbox_exec::sandbox_exec(&args),
        command => command,
    };
    // Commands run as the same user: without this they could read `oc`'s
    // environment (an API key) from `/proc/<oc's pid>/environ`. Not
    // dumpable, those files belong to root (docs/permissions.md "Sandbox").
    let _ = nix::sys::prctl::set_dumpable(false);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("cannot start the async runtime", e))?;
    let status = match command {
        Command::Run(args) => runtime.block_on(run::run_agent(&args, Mode::Code))?,
        Command::Plan(args) => runtime.block_on(run::run_agent(&args, Mode::Plan))?,
        Command::Chat(args) => runtime.block_on(run::run_agent(&args, Mode::Chat))?,
        Command::Sessions(args) => sessions::sessions(&load_home(&args.home)?, args.command)?,
        Command::Undo(args) => undo::undo(&load_home(&args.home)?, &args)?,
        Command::Models(args) => {
            let settings = load_settings(&args.server, &args.server.overrides(), Mode::Code)?;
            runtime.block_on(models::models(&settings, args))?
        }
        Command::ExportFt(args) => export_ft::export_ft(&load_home(&args.home)?, &args)?,
        Command::Completions { shell } => completions::completions(shell),
        Command::SandboxExec(args) => sandbox_exec::sandbox_exec(&args),
    };
    Ok(status)
}
