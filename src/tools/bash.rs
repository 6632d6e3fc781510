//! `bash {command, timeout_secs?}`: `bash -c` in the workspace, in its own
//! process group, stdin from /dev/null, pagers off. stdout and stderr share
//! one pipe (interleaved as written); memory stays bounded because only the
//! head and tail of the output are kept. On timeout, and whenever the command
//! returns while children it started are still running, the whole group gets
//! SIGTERM, then SIGKILL after a grace period; processes that left the group
//! were reparented to `oc` (the subreaper) and are ended too
//! (`sandbox::reaper`): nothing is left behind. The command runs confined
//! by the workspace's sandbox (`sandbox::policy`), and a refusal of the
//! sandbox in its output gets one line of explanation.

use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use schemars::JsonSchema;
use serde::Deserialize;

use super::outcome::ToolOutcome;
use super::workspace::Workspace;
use crate::sandbox::reaper;

/// Timeout when the model gives none.
pub(crate) const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Longest timeout the model may ask for.
pub(crate) const MAX_TIMEOUT_SECS: u64 = 600;
/// Bytes of output kept: half from the start, half from the end. Below the
/// agent's cap on any tool result, so the output is cut once, here.
pub(crate) const OUTPUT_CAP: usize = 30 * 1024;
/// How long the output may go on arriving after the command's group is gone.
const DRAIN_WAIT: Duration = Duration::from_secs(1);
/// Time between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// Arguments of `bash`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The command line, run with bash -c in the workspace
    pub command: String,
    /// Seconds before the command is stopped (default 120, at most 600)
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

/// Runs the command.
pub(crate) async fn run(args: &Args, ws: &Workspace) -> ToolOutcome {
    run_with_status(args, ws).await.0
}

/// Runs the command; also returns its exit code (`None` when it timed out,
/// was killed or could not start).
pub(crate) async fn run_with_status(args: &Args, ws: &Workspace) -> (ToolOutcome, Option<i32>) {
    if args.command.trim().is_empty() {
        return (ToolOutcome::error("the command is empty"), None);
    }
    let timeout = Duration::from_secs(
        args.timeout_secs
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1, MAX_TIMEOUT_SECS),
    );
    match run_command(&args.command, ws, timeout).await {
        Ok(result) => result,
        Err(e) => (ToolOutcome::error(format!("cannot run bash: {e}")), None),
    }
}

async fn run_command(
    command: &str,
    ws: &Workspace,
    timeout: Duration,
) -> std::io::Result<(ToolOutcome, Option<i32>)> {
    let (reader, writer) = std::io::pipe()?;
    let mut cmd = ws.sandbox().command(command);
    cmd.current_dir(ws.root())
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat");
    for name in ws.hidden_env() {
        cmd.env_remove(name);
    }
    let mut child = cmd.spawn()?;
    // The Command holds our copies of the pipe's write end; without dropping
    // it the reader would never see end-of-file.
    drop(cmd);
    let pgid = child.id().map(|id| Pid::from_raw(id as i32));
    // If this call is abandoned (the run was interrupted), the guard stops
    // the whole group as it is dropped.
    let mut guard = GroupGuard(pgid);
    let captured = Arc::new(Mutex::new(Captured::default()));
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let sink = Arc::clone(&captured);
    // A plain thread: if a process that left the group (`setsid`) keeps the
    // pipe open, this reader is abandoned rather than waited for.
    std::thread::spawn(move || {
        let _ = done_tx.send(collect(reader, &sink));
    });

    let (status, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => (Some(status?), false),
        Err(_) => (None, true),
    };
    if let Some(pgid) = guard.0.take() {
        stop_group(pgid, &mut child).await;
    }
    let status = match status {
        Some(status) => status,
        None => child.wait().await?,
    };
    // What left the group (`setsid`) was reparented to oc: end it too.
    let _ = tokio::task::spawn_blocking(reaper::sweep).await;
    let escaped = match tokio::time::timeout(DRAIN_WAIT, done_rx).await {
        Ok(Ok(result)) => {
            result?;
            false
        }
        Ok(Err(_)) | Err(_) => true,
    };
    let output = captured
        .lock()
        .map(|c| c.clone())
        .map_err(|_| std::io::Error::other("the output reader failed"))?;

    let mut text = output.render();
    if escaped {
        text.push_str("\n[a process the command started left its process group and still holds the output open; its further output is not shown]");
    }
    if let Some(explanation) = ws.sandbox().explain(&text) {
        text.push('\n');
        text.push_str(&explanation);
    }
    let ending = if timed_out {
        format!(
            "timed out after {} s; the command and everything it started were stopped",
            timeout.as_secs()
        )
    } else if let Some(code) = status.code() {
        format!("exit code {code}")
    } else if let Some(signal) = status.signal() {
        let name = Signal::try_from(signal)
            .map_or_else(|_| signal.to_string(), |s| s.as_str().to_string());
        format!("killed by signal {name}")
    } else {
        "ended".to_string()
    };
    let ok = !timed_out && status.success();
    let content = if text.is_empty() {
        format!("(no output)\n[{ending}]")
    } else {
        format!("{text}\n[{ending}]")
    };
    let code = if timed_out { None } else { status.code() };
    Ok((
        ToolOutcome {
            ok,
            summary: format!("{ending}, {} bytes of output", output.total),
            content,
            changed: Vec::new(),
        },
        code,
    ))
}

/// Stops every process left in the group: SIGTERM, then SIGKILL for those
/// still there after [`KILL_GRACE`]. `child` (the group leader) is reaped
/// on the way, so its zombie does not count as a live member.
async fn stop_group(pgid: Pid, child: &mut tokio::process::Child) {
    if killpg(pgid, Signal::SIGTERM).is_err() {
        return; // nothing left
    }
    let deadline = tokio::time::Instant::now() + KILL_GRACE;
    while tokio::time::Instant::now() < deadline {
        let _ = child.try_wait();
        if killpg(pgid, None).is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = killpg(pgid, Signal::SIGKILL);
}

/// Stops a process group when dropped, unless it was already stopped.
struct GroupGuard(Option<Pid>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.take() {
            stop_group_now(pgid);
            reaper::sweep();
        }
    }
}

/// [`stop_group`] without async, for [`GroupGuard`].
fn stop_group_now(pgid: Pid) {
    if killpg(pgid, Signal::SIGTERM).is_err() {
        return;
    }
    let deadline = std::time::Instant::now() + KILL_GRACE;
    while std::time::Instant::now() < deadline {
        // Reap the leader (pid = pgid): its zombie would keep the group
        // "alive" for the whole grace period.
        let _ = nix::sys::wait::waitpid(pgid, Some(nix::sys::wait::WaitPidFlag::WNOHANG));
        if killpg(pgid, None).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = killpg(pgid, Signal::SIGKILL);
}

/// Head and tail of a byte stream, and its full length.
#[derive(Debug, Default, Clone)]
struct Captured {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: usize,
}

impl Captured {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        let half = OUTPUT_CAP / 2;
        let room = half.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend(rest);
        let excess = self.tail.len().saturating_sub(half);
        self.tail.drain(..excess);
    }

    fn render(&self) -> String {
        let kept = self.head.len() + self.tail.len();
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let text = if kept == self.total {
            String::from_utf8_lossy(&[self.head.as_slice(), &tail].concat()).into_owned()
        } else {
            format!(
                "{}\n[… {} bytes omitted …]\n{}",
                String::from_utf8_lossy(&self.head),
                self.total - kept,
                String::from_utf8_lossy(&tail)
            )
        };
        text.trim_end_matches('\n').to_string()
    }
}

/// Reads the pipe to its end into `captured`.
fn collect(mut reader: std::io::PipeReader, captured: &Mutex<Captured>) -> std::io::Result<()> {
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                if let Ok(mut captured) = captured.lock() {
                    captured.push(&buf[..n]);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ws)
    }

    /// Pids of the processes whose command line contains `marker`.
    fn processes_named(marker: &str) -> Vec<i32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let pid: i32 = e.file_name().to_str()?.parse().ok()?;
                let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
                String::from_utf8_lossy(&cmdline)
                    .contains(marker)
                    .then_some(pid)
            })
            .collect()
    }

    fn args(command: &str, timeout_secs: Option<u64>) -> Args {
        Args {
            command: command.into(),
            timeout_secs,
        }
    }

    #[tokio::test]
    async fn output_interleaved_and_exit_code_reported() {
        let (_dir, ws) = ws();
        let out = run(&args("echo out; echo err >&2; pwd; exit 3", None), &ws).await;
        assert!(!out.ok);
        let root = ws.root().display().to_string();
        assert_eq!(out.content, format!("out\nerr\n{root}\n[exit code 3]"));
        let out = run(&args("true", None), &ws).await;
        assert!(out.ok);
        assert_eq!(out.content, "(no output)\n[exit code 0]");
    }

    #[tokio::test]
    async fn huge_output_keeps_head_and_tail() {
        let (_dir, ws) = ws();
        let out = run(
            &args(
                "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo END",
                None,
            ),
            &ws,
        )
        .await;
        assert!(out.ok);
        assert!(
            out.content.len() < OUTPUT_CAP + 200,
            "{}",
            out.content.len()
        );
        assert!(out.content.contains("bytes omitted"));
        assert!(out.content.ends_with("END\n[exit code 0]"));
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_group() {
        let (_dir, ws) = ws();
        let marker = format!("oc-test-sleep-{}", std::process::id());
        let command = format!("exec -a {marker} sleep 300 & exec -a {marker} sleep 300");
        let out = run(&args(&command, Some(1)), &ws).await;
        assert!(!out.ok);
        assert!(
            out.content.contains("timed out after 1 s"),
            "{}",
            out.content
        );
        let left = processes_named(&marker);
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    #[tokio::test]
    async fn a_process_that_leaves_the_group_does_not_hold_the_call_open() {
        let (_dir, ws) = ws();
        let started = std::time::Instant::now();
        let marker = format!("oc-test-setsid-{}", std::process::id());
        let command =
            format!("setsid bash -c 'exec -a {marker} sleep 20' & sleep 0.2; echo started");
        let out = run(&args(&command, Some(5)), &ws).await;
        assert!(out.content.starts_with("started"), "{}", out.content);
        assert!(
            out.content.contains("left its process group"),
            "{}",
            out.content
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        for pid in processes_named(&marker) {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }

    #[tokio::test]
    async fn background_children_do_not_hold_the_call_open() {
        let (_dir, ws) = ws();
        let started = std::time::Instant::now();
        let out = run(&args("sleep 300 & echo started", None), &ws).await;
        assert!(out.ok, "{}", out.content);
        assert!(out.content.starts_with("started"));
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}
