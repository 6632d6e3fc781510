//! What one run's commands may do ([`Sandbox`]), and the command line that
//! applies it.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::denials;
pub(crate) use super::reads::Reads;
use crate::error::{Error, Result};
use crate::vocab::{Confinement, Network, SandboxMode};

/// The hidden subcommand that confines itself and runs the command
/// ([`super::exec`]).
pub(crate) const HELPER_COMMAND: &str = "sandbox-exec";

/// The confinement of a run's commands: applied by re-executing `oc` as
/// the helper in front of `bash -c`. Holds the run's private temp directory
/// (the commands' `TMPDIR`), removed when the sandbox is dropped.
#[derive(Debug)]
pub(crate) struct Sandbox {
    confinement: Confinement,
    /// Where commands run and relative paths in their errors start from.
    root: PathBuf,
    /// Writable beneath these absolute paths when the filesystem is
    /// confined: the workspace (`workspace-write`), the temp directory,
    /// `--add-dir` directories and [`super::prepare::DEVICES`].
    writable: Vec<PathBuf>,
    tmp: Option<TempDir>,
    /// The `oc` binary, run as the helper.
    helper: PathBuf,
    /// What commands may not read, when the filesystem is confined.
    reads: Reads,
}

impl Sandbox {
    /// No confinement: `bash -c` as it is.
    pub(crate) fn off(root: &Path) -> Sandbox {
        Sandbox {
            confinement: Confinement::NONE,
            root: root.to_path_buf(),
            writable: Vec::new(),
            tmp: None,
            helper: PathBuf::new(),
            reads: Reads::default(),
        }
    }

    /// Commands confined as `confinement` says, run in `root`, writable
    /// beneath `writable` (when the filesystem is confined), with `tmp` as
    /// their `TMPDIR`.
    ///
    /// The helper is this very binary as the kernel knows it
    /// (`/proc/self/exe`), not its path: a command that replaces the file
    /// at that path (it may be writable, in the workspace or an
    /// `--add-dir`) must not get the next command run by its replacement.
    ///
    /// Errors: `/proc` is not mounted and the `oc` binary cannot be found.
    pub(crate) fn confined(
        confinement: Confinement,
        root: &Path,
        writable: Vec<PathBuf>,
        tmp: Option<TempDir>,
    ) -> Result<Sandbox> {
        let own = PathBuf::from("/proc/self/exe");
        let helper = if own.exists() {
            own
        } else {
            std::env::current_exe()
                .map_err(|e| Error::io("cannot find the oc binary to run the sandbox helper", e))?
        };
        Ok(Sandbox {
            confinement,
            root: root.to_path_buf(),
            writable,
            tmp,
            helper,
            reads: Reads::default(),
        })
    }

    /// The same sandbox with commands kept from reading `reads.denied`
    /// (but `reads.allowed` inside them).
    pub(crate) fn with_reads(mut self, reads: Reads) -> Sandbox {
        self.reads = reads;
        self
    }

    /// What commands may not read, and what they may read inside it.
    pub(crate) fn reads(&self) -> &Reads {
        &self.reads
    }

    /// The same sandbox with `helper` as the `oc` binary run in front of
    /// each command (default: this process's own binary; a program that
    /// embeds the tools, such as the benchmarks, points it at `oc`).
    pub(crate) fn with_helper(mut self, helper: PathBuf) -> Sandbox {
        self.helper = helper;
        self
    }

    /// What the commands actually get: sessions and records say this.
    pub(crate) fn confinement(&self) -> Confinement {
        self.confinement.clone()
    }

    /// The run's private temp directory, when the filesystem is confined.
    pub(crate) fn tmp_dir(&self) -> Option<&Path> {
        self.tmp.as_ref().map(TempDir::path)
    }

    /// `bash -c COMMAND` in a process group of its own (pgid = its pid),
    /// behind the helper when anything is confined (which starts a session
    /// of its own, without a controlling terminal), with `TMPDIR` set to
    /// the run's temp directory.
    pub(crate) fn command(&self, command: &str) -> tokio::process::Command {
        if self.confinement == Confinement::NONE {
            let mut bash = tokio::process::Command::new("bash");
            bash.arg("-c").arg(command).process_group(0);
            return bash;
        }
        let mut helper = tokio::process::Command::new(&self.helper);
        helper.arg0("oc").arg(HELPER_COMMAND);
        if self.confinement.mode != SandboxMode::Off {
            helper.arg("--filesystem");
            for path in &self.writable {
                helper.arg("--write").arg(path);
            }
            for path in &self.reads.denied {
                helper.arg("--deny-read").arg(path);
            }
            for path in &self.reads.allowed {
                helper.arg("--allow-read").arg(path);
            }
        }
        if self.confinement.network == Network::Off {
            helper.arg("--no-network");
        }
        helper.arg("--").arg("bash").arg("-c").arg(command);
        if let Some(tmp) = self.tmp_dir() {
            helper.env("TMPDIR", tmp);
        }
        helper
    }

    /// One line for the model when `output` shows the sandbox refusing
    /// something, so that it changes course instead of retrying.
    pub(crate) fn explain(&self, output: &str) -> Option<String> {
        denials::explain(
            output,
            &self.root,
            &self.writable,
            &self.reads,
            &self.confinement,
        )
    }
}
