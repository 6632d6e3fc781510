//! The sandbox settings a run asks for (docs/permissions.md "Sandbox"), as the
//! configuration resolved them (`config::sandbox`); [`super::prepare`]
//! makes a [`super::policy::Sandbox`] of them and what the kernel supports.

use std::path::PathBuf;

use crate::vocab::{Network, SandboxMode};

/// How a run's bash commands are confined, as asked (the kernel decides
/// what of it can be had: `sandbox::Sandbox::prepare`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SandboxSettings {
    /// `workspace-write`, `read-only` or `off` (`required` is
    /// `workspace-write` with [`Self::required`]); plan mode turns
    /// `workspace-write` into `read-only`.
    pub mode: SandboxMode,
    /// `--sandbox required`: a kernel that cannot confine is a usage error.
    pub required: bool,
    /// Default `off`, except with `--sandbox off`.
    pub network: Network,
    /// More directories commands may write (absolute), from the config
    /// files, then `--add-dir`.
    pub add_dirs: Vec<PathBuf>,
    /// `--allow-read DIR`: readable although a credential store holds it.
    pub allow_read: Vec<PathBuf>,
    /// The user's home directory, where the credential stores are.
    pub home_dir: Option<PathBuf>,
}
