//! `oc sandbox-exec` (hidden): the helper that confines itself and
//! becomes a `bash` command (docs/permissions.md "Sandbox").

use crate::cli;
use crate::sandbox;
use crate::ui;

/// The helper's fast start: when the first argument is `sandbox-exec`,
/// parses only its own arguments and never returns (see [`sandbox_exec`]).
/// Bad arguments end it with clap's usage error (exit 2).
pub fn sandbox_exec_if_asked() {
    let mut args = std::env::args_os();
    let program = args.next().unwrap_or_default();
    if args
        .next()
        .is_some_and(|a| a == sandbox::policy::HELPER_COMMAND)
    {
        use clap::Parser;
        let helper = cli::SandboxExecCli::parse_from(std::iter::once(program).chain(args));
        sandbox_exec(&helper.args)
    }
}

/// `oc sandbox-exec`: confines this process and becomes the command; if
/// either fails, says why on stderr (the command's output) and exits 126.
pub(super) fn sandbox_exec(args: &cli::SandboxExecArgs) -> ! {
    let confine = sandbox::exec::Confine {
        filesystem: args.filesystem,
        write: args.write.clone(),
        deny_read: args.deny_read.clone(),
        allow_read: args.allow_read.clone(),
        no_network: args.no_network,
    };
    let message = match args.command.split_first() {
        Some((program, rest)) => sandbox::exec::confine_and_exec(&confine, program, rest),
        None => "oc sandbox: no command given".to_string(),
    };
    ui::print_note(&message);
    std::process::exit(sandbox::exec::CANNOT_RUN)
}
