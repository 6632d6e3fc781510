//! No process left behind: `oc` is its children's subreaper
//! (`PR_SET_CHILD_SUBREAPER`), so a process a command started that left
//! the command's process group (`setsid`, a double fork) is reparented to
//! `oc` instead of init, and [`sweep`] ends it when the command ends.
//!
//! Everything `oc` starts is a bash command that it waits for before
//! sweeping, so any other child of `oc` at that moment is such an orphan,
//! except the children it already had when it started: a shell runs a
//! process substitution (`oc run … 2> >(tee log)`) as a child of the
//! process it then turns into `oc`, and that reader must outlive every
//! command.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

/// Set once this process is a subreaper; sweeps do nothing before (tests
/// that run the bash tool inside the test harness never sweep).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Time between SIGTERM and SIGKILL for orphans.
const GRACE: Duration = Duration::from_secs(1);
/// Rounds of sweeping: an orphan's own children reach `oc` only after it
/// is gone.
const ROUNDS: usize = 8;

/// The children this process had before it became a subreaper, each with
/// its start time (so a reused pid is not taken for one of them).
static INHERITED: OnceLock<Vec<(Pid, Option<u64>)>> = OnceLock::new();

/// Makes this process the subreaper of everything it starts. Returns
/// whether the kernel agreed (Linux 3.4 and later).
pub(crate) fn become_subreaper() -> bool {
    INHERITED.get_or_init(|| {
        (all_children().into_iter())
            .map(|pid| (pid, started_at(pid)))
            .collect()
    });
    let done = nix::sys::prctl::set_child_subreaper(true).is_ok();
    if done {
        ACTIVE.store(true, Ordering::SeqCst);
    }
    done
}

/// Ends every child of `oc` that it did not start itself: SIGTERM, SIGKILL
/// after a grace period, reaped; repeated for the orphans' own children.
/// Blocks for at most a few seconds; call it where blocking is fine (or
/// through `spawn_blocking`).
pub(crate) fn sweep() {
    if !ACTIVE.load(Ordering::SeqCst) {
        return;
    }
    for round in 0..ROUNDS {
        let orphans = children();
        if orphans.is_empty() {
            return;
        }
        let first = if round == 0 {
            Signal::SIGTERM
        } else {
            Signal::SIGKILL
        };
        for &pid in &orphans {
            let _ = kill(pid, first);
        }
        let deadline = Instant::now() + GRACE;
        let mut left = orphans;
        while !left.is_empty() && Instant::now() < deadline {
            left.retain(|&pid| !reaped(pid));
            std::thread::sleep(Duration::from_millis(5));
        }
        for &pid in &left {
            let _ = kill(pid, Signal::SIGKILL);
        }
        let deadline = Instant::now() + GRACE;
        while !left.is_empty() && Instant::now() < deadline {
            left.retain(|&pid| !reaped(pid));
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Whether `pid` has ended (and is now reaped).
fn reaped(pid: Pid) -> bool {
    !matches!(
        waitpid(pid, Some(WaitPidFlag::WNOHANG)),
        Ok(WaitStatus::StillAlive)
    )
}

/// The children of this process that it did not have when it started.
fn children() -> Vec<Pid> {
    let inherited = INHERITED.get().map(Vec::as_slice).unwrap_or_default();
    (all_children().into_iter())
        .filter(|&pid| !inherited.contains(&(pid, started_at(pid))))
        .collect()
}

/// When process `pid` started, in clock ticks since boot (field 22 of
/// `/proc/PID/stat`); `None` when it cannot be read.
fn started_at(pid: Pid) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// The children of this process: `/proc/self/task/*/children` (orphans are
/// reparented to one of its threads).
fn all_children() -> Vec<Pid> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut pids: Vec<Pid> = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<i32>>()
        })
        .map(Pid::from_raw)
        .collect();
    pids.sort_unstable_by_key(|pid| pid.as_raw());
    pids.dedup();
    pids
}
