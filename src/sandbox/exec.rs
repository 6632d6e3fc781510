//! `oc sandbox-exec` (hidden): the helper every confined command runs in.
//! It confines itself with Landlock, then execs the command, which keeps
//! the confinement for itself and everything it starts. It is a separate
//! process so that `oc` itself stays unconfined and no unsafe code is
//! needed: the process the bash tool starts (and whose group it manages)
//! is this helper, then the command in its place.
//!
//! It first starts a session of its own (no controlling terminal), whose
//! process group `oc` manages, and closes the descriptors it inherited
//! beyond stdin, stdout and stderr.
//!
//! What it allows, with `--filesystem`: listing any directory, reading and
//! executing anything but the `--deny-read` paths (credential stores;
//! `--allow-read` paths inside them stay readable), writing (but not making
//! device nodes) only beneath the `--write` paths;
//! with `--no-network`: no TCP connect or bind, no connection to abstract
//! UNIX sockets or (on kernels that can say so) pathname UNIX sockets and
//! UDP outside, and no socket of another kind that reaches the network
//! ([`syscalls`]). Signals to processes outside the sandbox are refused
//! (Landlock ABI 6), and so are resource limits of other processes
//! ([`syscalls`]).
//! Unsupported parts fail the command (exit 126) rather than run it less
//! confined than `oc` was told: `oc` checks the kernel first
//! ([`super::support`]) and asks only for what it can have.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use super::support::Support;
use super::syscalls;
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetError, RulesetStatus, Scope, path_beneath_rules,
};

/// Exit code when the command could not be confined or started (the
/// shell's "cannot execute").
pub(crate) const CANNOT_RUN: i32 = 126;

/// The newest Landlock ABI whose rights are asked for (best effort above
/// what the kernel has).
const NEWEST: ABI = ABI::V10;

/// What the helper confines, from its command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Confine {
    /// Confine the filesystem: read anywhere, write beneath `write` only.
    pub filesystem: bool,
    /// Paths (directories or files) writable under `filesystem`.
    pub write: Vec<PathBuf>,
    /// Paths not readable under `filesystem` (credential stores): every
    /// other path stays readable, and directories stay listable.
    pub deny_read: Vec<PathBuf>,
    /// Paths readable even inside a `deny_read` path.
    pub allow_read: Vec<PathBuf>,
    /// Refuse TCP connect and bind.
    pub no_network: bool,
}

/// Confines this process, then replaces it with `program` and `args`.
/// Returns only when that failed: the message to print (exit
/// [`CANNOT_RUN`]).
pub(crate) fn confine_and_exec(confine: &Confine, program: &OsString, args: &[OsString]) -> String {
    // A session of its own: the command has no controlling terminal, so it
    // can neither open `/dev/tty` nor push keystrokes into the user's
    // terminal (TIOCSTI). Its process group is its pid, as `oc` expects.
    // (Fails only when already a group leader, as when run by hand.)
    let _ = nix::unistd::setsid();
    close_inherited_descriptors();
    if let Err(e) = confine_self(confine) {
        return format!("oc sandbox: cannot confine the command: {e}");
    }
    let error = std::process::Command::new(program).args(args).exec();
    format!(
        "oc sandbox: cannot run `{}`: {error}",
        program.to_string_lossy()
    )
}

/// Applies the Landlock ruleset to this process (and what it will start).
/// `write` paths that do not exist are left out (nothing is writable
/// there).
///
/// Errors: the kernel cannot enforce a part asked for (as
/// [`Support::probe`] says, so `OC_TEST_LANDLOCK` is obeyed here too).
pub(crate) fn confine_self(confine: &Confine) -> Result<(), String> {
    if !confine.filesystem && !confine.no_network {
        return Ok(());
    }
    let support = Support::probe();
    if confine.filesystem && !support.filesystem {
        return Err("this kernel has no Landlock".into());
    }
    if confine.no_network && !support.network {
        return Err("this kernel's Landlock cannot refuse network access".into());
    }
    match restrict(confine) {
        Ok(RulesetStatus::NotEnforced) => {
            // The hard requirements make this unreachable on a kernel without
            // Landlock; never go on unconfined when confinement was asked.
            return Err("the kernel did not enforce the ruleset".into());
        }
        Ok(_) => {}
        Err(e) => return Err(e.to_string()),
    }
    syscalls::install(confine.no_network)
        .map_err(|e| format!("cannot install the seccomp filter: {e}"))
}

/// Closes every file descriptor but stdin, stdout and stderr: one `oc`
/// inherited (`oc run 5>>file`) must not give the command a way to write
/// outside.
fn close_inherited_descriptors() {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        // The directory's own descriptor is among them, already closed.
        let _ = nix::unistd::close(fd);
    }
}

fn restrict(confine: &Confine) -> Result<RulesetStatus, RulesetError> {
    let mut ruleset = Ruleset::default();
    if confine.filesystem {
        ruleset = ruleset
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(ABI::V1))?
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(NEWEST))?;
    }
    if confine.no_network {
        ruleset = ruleset
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessNet::from_all(NEWEST))?
            .scope(Scope::AbstractUnixSocket)?;
    }
    let mut created = ruleset.scope(Scope::Signal)?.create()?;
    if confine.filesystem {
        let read = readable(confine.no_network);
        created = created
            .add_rules(path_beneath_rules(["/"], AccessFs::ReadDir))?
            .add_rules(path_beneath_rules(
                super::reads::readable_roots(Path::new("/"), &confine.deny_read),
                read,
            ))?
            .add_rules(path_beneath_rules(&confine.allow_read, read))?
            .add_rules(path_beneath_rules(
                confine
                    .write
                    .iter()
                    .flat_map(|w| super::reads::readable_roots(w, &confine.deny_read)),
                writable(),
            ))?;
    }
    Ok(created.restrict_self()?.ruleset)
}

/// Rights beneath the writable paths: all but making device nodes (a
/// root command could otherwise make one for a disk and write to it).
fn writable() -> BitFlags<AccessFs> {
    AccessFs::from_all(NEWEST) & !(AccessFs::MakeChar | AccessFs::MakeBlock)
}

/// Rights everywhere: read and execute; with the network on, also
/// connecting to pathname UNIX sockets (a database's socket, say).
fn readable(no_network: bool) -> BitFlags<AccessFs> {
    let read = AccessFs::from_read(NEWEST);
    if no_network {
        read
    } else {
        read | AccessFs::ResolveUnix
    }
}
