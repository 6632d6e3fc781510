//! The [`Sandbox`] of one run: the settings, held against what the kernel
//! supports; what cannot be had is a warning, or with `--sandbox required`
//! a usage error.

use std::path::{Path, PathBuf};

use super::policy::Sandbox;
use super::reads::{Reads, credential_stores};
use super::settings::SandboxSettings;
use super::support::Support;
use crate::error::{Error, Result};
use crate::vocab::{Confinement, Network, SandboxMode};

/// Devices (and device-like directories) every confined command may write;
/// those missing on this machine are left out. `/dev/shm` is there for
/// POSIX semaphores (Python's `multiprocessing`). Not `/dev/pts`: writing to
/// the user's terminal can make it answer with input.
pub(crate) const DEVICES: [&str; 7] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/shm",
];

/// The sandbox for a run in the workspace `root`, and the warnings to show
/// once (parts the kernel cannot enforce).
///
/// Errors: [`Error::Usage`] when `required` and the kernel cannot enforce
/// what was asked, or an `--add-dir` is not a directory; [`Error::Io`]
/// when the temp directory cannot be made.
pub(crate) fn prepare(
    settings: &SandboxSettings,
    root: &Path,
    oc_home: &Path,
    support: Support,
) -> Result<(Sandbox, Vec<String>)> {
    let wants_filesystem = settings.mode != SandboxMode::Off;
    let wants_no_network = settings.network == Network::Off;
    let mut warnings = Vec::new();
    let filesystem = wants_filesystem && support.filesystem;
    if wants_filesystem && !filesystem {
        refuse_if_required(
            settings,
            "this kernel has no Landlock (it needs Linux 5.13 or later, with `landlock` in the kernel's `lsm=` list)",
        )?;
        warnings.push(
            "this kernel has no Landlock: bash commands run without the sandbox, free to write anywhere you can and to use the network (docs/permissions.md \"Sandbox\"; `--sandbox required` makes this an error)".to_string(),
        );
    }
    let no_network = wants_no_network && support.network;
    if wants_no_network && !no_network && (filesystem || !wants_filesystem) {
        refuse_if_required(
            settings,
            "this kernel's Landlock cannot refuse network access (it needs Landlock ABI 4, Linux 6.7)",
        )?;
        warnings.push(
            "this kernel's Landlock cannot refuse network access (it needs Linux 6.7): bash commands may open connections".to_string(),
        );
    }
    if !filesystem && !no_network {
        return Ok((Sandbox::off(root), warnings));
    }
    let mut confinement = Confinement {
        mode: if filesystem {
            settings.mode
        } else {
            SandboxMode::Off
        },
        network: if no_network {
            Network::Off
        } else {
            Network::On
        },
        add_dirs: Vec::new(),
    };
    let reads = if filesystem {
        Reads {
            denied: credential_stores(settings.home_dir.as_deref(), oc_home, root),
            allowed: real_dirs(&settings.allow_read, "--allow-read")?,
        }
    } else {
        Reads::default()
    };
    let (writable, tmp) = if filesystem {
        let add_dirs = real_dirs(&settings.add_dirs, "--add-dir")?;
        confinement.add_dirs = add_dirs.iter().map(|d| d.display().to_string()).collect();
        let tmp = tempfile::Builder::new()
            .prefix("oc-run-")
            .tempdir()
            .map_err(|e| Error::io("cannot create the run's temp directory", e))?;
        (writable(settings, root, tmp.path(), add_dirs), Some(tmp))
    } else {
        (Vec::new(), None)
    };
    Ok((
        Sandbox::confined(confinement, root, writable, tmp)?.with_reads(reads),
        warnings,
    ))
}

/// The workspace (for `workspace-write`), the temp directory, the
/// `--add-dir` directories and the devices.
fn writable(
    settings: &SandboxSettings,
    root: &Path,
    tmp: &Path,
    add_dirs: Vec<PathBuf>,
) -> Vec<PathBuf> {
    let mut writable = Vec::new();
    if settings.mode == SandboxMode::WorkspaceWrite {
        writable.push(root.to_path_buf());
    }
    writable.push(tmp.to_path_buf());
    writable.extend(add_dirs);
    writable.extend(
        DEVICES
            .iter()
            .map(PathBuf::from)
            .filter(|device| device.exists()),
    );
    writable
}

/// The directories of `--add-dir` (`flag`; also `add_dirs` in a config
/// file) or `--allow-read`, real paths.
///
/// Errors: [`Error::Usage`] for one that does not exist or is not a
/// directory.
fn real_dirs(dirs: &[PathBuf], flag: &str) -> Result<Vec<PathBuf>> {
    let given = |dir: &Path| match flag {
        "--add-dir" => format!(
            "`--add-dir {}` (or `add_dirs` in a config file)",
            dir.display()
        ),
        _ => format!("`{flag} {}`", dir.display()),
    };
    dirs.iter()
        .map(|dir| {
            let real = dir.canonicalize().map_err(|e| {
                Error::Usage(format!("{}: {e}; give a directory that exists", given(dir)))
            })?;
            if !real.is_dir() {
                return Err(Error::Usage(format!(
                    "{} is not a directory; give a directory",
                    given(dir)
                )));
            }
            Ok(real)
        })
        .collect()
}

/// With `--sandbox required`: the usage error saying why not.
fn refuse_if_required(settings: &SandboxSettings, why: &str) -> Result<()> {
    if settings.required {
        return Err(Error::Usage(format!(
            "--sandbox required: {why}; commands would run less confined than asked, so the run does not start. Use a kernel with Landlock, or `--sandbox workspace-write` to run with a warning instead"
        )));
    }
    Ok(())
}
