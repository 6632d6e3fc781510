//! SIGINT and SIGTERM: a run stops its stream and its tools, saves the
//! session as interrupted and exits 130 or 143. A second SIGINT while that
//! happens exits at once.

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::error::{Error, ExitStatus, Result};

/// Which signal ended the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Interrupt,
    Terminate,
}

impl Stop {
    /// 130 for SIGINT, 143 for SIGTERM.
    pub fn exit_status(self) -> ExitStatus {
        match self {
            Stop::Interrupt => ExitStatus::Interrupted,
            Stop::Terminate => ExitStatus::Terminated,
        }
    }

    /// The signal's name.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
        }
    }
}

/// Listens for SIGINT and SIGTERM from the moment it is created (their
/// default action, ending the process at once, is replaced).
pub struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    /// Installs the handlers. Needs a running tokio runtime.
    pub fn install() -> Result<Self> {
        let install =
            |kind| signal(kind).map_err(|e| Error::io("cannot install a signal handler", e));
        Ok(Signals {
            interrupt: install(SignalKind::interrupt())?,
            terminate: install(SignalKind::terminate())?,
        })
    }

    /// Waits for the first of the two signals.
    pub async fn recv(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
        }
    }

    /// From now on, another SIGINT or SIGTERM ends the process at once with
    /// `status`: cleaning up must never hold a user who insists.
    pub fn exit_on_next(mut self, status: ExitStatus) {
        tokio::spawn(async move {
            self.recv().await;
            std::process::exit(status.code());
        });
    }
}
