//! An opencode server of oc's own: `opencode serve` on a free port of
//! 127.0.0.1, in the workspace, in its own process group, stopped (the
//! whole group) when the run ends.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::client::{HINT, OpencodeClient};
use crate::client::Timeouts;
use crate::error::{Error, Result};

/// How long a new server may take to answer `/global/health`.
const START_WAIT: Duration = Duration::from_secs(60);

/// A running `opencode serve`; stopped when dropped.
#[derive(Debug)]
pub(crate) struct Served {
    child: tokio::process::Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

/// Starts `opencode serve` in `workspace` and waits until it answers.
///
/// Errors: no `opencode` on `PATH`, or it exits or stays silent
/// ([`Error::Unavailable`], exit 3).
pub(crate) async fn start(workspace: &Path, timeouts: Timeouts) -> Result<Served> {
    let program = on_path("opencode").ok_or_else(|| {
        Error::Unavailable(format!(
            "the opencode runtime needs an opencode server, and `opencode` is not on PATH. {HINT}"
        ))
    })?;
    let port = free_port()?;
    let child = tokio::process::Command::new(&program)
        .args([
            "serve",
            "--hostname",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ])
        .current_dir(workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| Error::Unavailable(format!("cannot start `{}`: {e}", program.display())))?;
    if let Some(pid) = child.id() {
        crate::signals::stop_on_exit(pid as i32);
    }
    let mut served = Served {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let client = OpencodeClient::new(&served.url, timeouts)?;
    let deadline = tokio::time::Instant::now() + START_WAIT;
    loop {
        // A server still starting may take the connection and not answer.
        let probe = tokio::time::timeout(Duration::from_secs(2), client.health()).await;
        if matches!(probe, Ok(Ok(_))) {
            return Ok(served);
        }
        if let Ok(Some(status)) = served.child.try_wait() {
            return Err(Error::Unavailable(format!(
                "`opencode serve` ended before it answered ({status})"
            )));
        }
        if tokio::time::Instant::now() > deadline {
            return Err(Error::Unavailable(format!(
                "`opencode serve` did not answer on {} within {} s",
                served.url,
                START_WAIT.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let Some(pid) = self.child.id() else {
            return;
        };
        crate::signals::forget_on_exit(pid as i32);
        let group = Pid::from_raw(pid as i32);
        if killpg(group, Signal::SIGTERM).is_err() {
            return;
        }
        for _ in 0..100 {
            if matches!(self.child.try_wait(), Ok(Some(_))) && killpg(group, None).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = killpg(group, Signal::SIGKILL);
    }
}

/// `name` in one of the `PATH` directories, as a file that can be run.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// A port nothing listens on now (the kernel's choice for port 0).
fn free_port() -> Result<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| Error::io("cannot find a free port for opencode", e))
}
