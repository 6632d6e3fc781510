//! SIGINT, SIGTERM and SIGHUP (the terminal closed): a run stops its stream
//! and its tools, saves the session as interrupted and exits 130, 143 or
//! 129. A second signal while that happens exits at once.

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::error::{Error, ExitStatus, Result};

/// Which signal ended the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Interrupt,
    Terminate,
    Hangup,
}

impl Stop {
    /// 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
    pub(crate) fn exit_status(self) -> ExitStatus {
        match self {
            Stop::Interrupt => ExitStatus::Interrupted,
            Stop::Terminate => ExitStatus::Terminated,
            Stop::Hangup => ExitStatus::HungUp,
        }
    }

    /// The signal's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
            Stop::Hangup => "SIGHUP",
        }
    }
}

/// Listens for SIGINT, SIGTERM and SIGHUP from the moment it is created
/// (their default action, ending the process at once, is replaced).
pub(crate) struct Signals {
    interrupt: Signal,
    terminate: Signal,
    hangup: Signal,
}

impl Signals {
    /// Installs the handlers. Needs a running tokio runtime.
    pub(crate) fn install() -> Result<Self> {
        let install =
            |kind| signal(kind).map_err(|e| Error::io("cannot install a signal handler", e));
        Ok(Signals {
            interrupt: install(SignalKind::interrupt())?,
            terminate: install(SignalKind::terminate())?,
            hangup: install(SignalKind::hangup())?,
        })
    }

    /// Waits for the first of the signals.
    pub(crate) async fn recv(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
            _ = self.hangup.recv() => Stop::Hangup,
        }
    }

    /// Hands the signals to a task: the first one is sent on the returned
    /// channel (the run stops and saves), a second SIGINT or SIGTERM ends
    /// the process at once with the first one's exit status, whatever the
    /// run is doing. A hangup often comes twice (the terminal and the
    /// shell, or `timeout` to its child and then its group): a second
    /// SIGHUP is let pass.
    pub(crate) fn watch(mut self) -> tokio::sync::mpsc::UnboundedReceiver<Stop> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let first = self.recv().await;
            let _ = tx.send(first);
            while self.recv().await == Stop::Hangup {}
            stop_kept_groups();
            std::process::exit(first.exit_status().code());
        });
        rx
    }
}

/// Process groups to stop (SIGTERM) even when a second signal ends `oc`
/// at once: servers `oc` started for the run.
static KEPT_GROUPS: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

/// Stops the process group `pgid` if `oc` has to exit at once.
pub(crate) fn stop_on_exit(pgid: i32) {
    if let Ok(mut groups) = KEPT_GROUPS.lock() {
        groups.push(pgid);
    }
}

/// Forgets `pgid` (it was stopped the normal way).
pub(crate) fn forget_on_exit(pgid: i32) {
    if let Ok(mut groups) = KEPT_GROUPS.lock() {
        groups.retain(|g| *g != pgid);
    }
}

fn stop_kept_groups() {
    if let Ok(groups) = KEPT_GROUPS.lock() {
        for &pgid in groups.iter() {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }
}
