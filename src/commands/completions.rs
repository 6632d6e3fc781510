//! `oc completions SHELL`: a shell completion script from the clap
//! definitions (`clap_complete`).

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::ExitStatus;
use crate::ui::out;

/// `oc completions SHELL`: the script on stdout.
pub(super) fn completions(shell: clap_complete::Shell) -> ExitStatus {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "oc", &mut script);
    out(&String::from_utf8_lossy(&script));
    ExitStatus::Success
}
