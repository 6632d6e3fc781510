//! The second wall around `bash` (docs/permissions.md "Sandbox"): Linux Landlock
//! confinement of every command and everything it starts, applied by a
//! re-executed `oc sandbox-exec` helper, and no process left behind.
//!
//! [`policy`] is what a run's commands may do ([`policy::Sandbox`]) and
//! the command line that applies it; [`prepare`] makes it from the
//! settings and what the kernel supports ([`support`]); [`exec`] is the
//! helper that confines itself and execs `bash -c`; [`reads`] says what
//! commands may not read; [`reaper`] ends what a
//! command left behind; [`denials`] explains the kernel's refusals to the
//! model. (`tools` imports `policy` directly: this file names `prepare`,
//! which reads the settings.)

pub(crate) mod denials;
pub(crate) mod exec;
pub(crate) mod policy;
pub(crate) mod prepare;
pub(crate) mod reads;
pub(crate) mod reaper;
pub(crate) mod settings;
pub(crate) mod support;
pub(crate) mod syscalls;
