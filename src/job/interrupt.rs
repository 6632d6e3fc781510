//! What stops a run from outside: SIGINT, SIGTERM or SIGHUP, or `--timeout`.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;

use crate::error::ExitStatus;
use crate::session::Status;
use crate::signals::Stop;

/// Why a run was stopped from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interruption {
    /// SIGINT, SIGTERM or SIGHUP.
    Signal(Stop),
    /// `--timeout` (its length) was reached.
    TimedOut(Duration),
}

impl Interruption {
    /// 130, 143 or 129 for a signal, 124 for the timeout.
    pub(crate) fn exit_status(self) -> ExitStatus {
        match self {
            Interruption::Signal(stop) => stop.exit_status(),
            Interruption::TimedOut(_) => ExitStatus::TimedOut,
        }
    }

    /// Why the run ended, as a stable word.
    pub(crate) fn reason(self) -> crate::vocab::ExitReason {
        use crate::signals::Stop;
        use crate::vocab::ExitReason;
        match self {
            Interruption::Signal(Stop::Interrupt) => ExitReason::Interrupted,
            Interruption::Signal(Stop::Terminate) => ExitReason::Terminated,
            Interruption::Signal(Stop::Hangup) => ExitReason::HungUp,
            Interruption::TimedOut(_) => ExitReason::TimedOut,
        }
    }

    /// The session status it leaves.
    pub(crate) fn status(self) -> Status {
        match self {
            Interruption::Signal(_) => Status::Interrupted,
            Interruption::TimedOut(_) => Status::TimedOut,
        }
    }

    /// What happened, e.g. `stopped by SIGINT` or `timed out after 1m 30s`.
    pub(crate) fn describe(self) -> String {
        match self {
            Interruption::Signal(stop) => format!("stopped by {}", stop.name()),
            Interruption::TimedOut(after) => {
                format!("timed out after {}", humantime::format_duration(after))
            }
        }
    }
}

/// The signals and the deadline of one run.
pub(crate) struct Interruptions {
    signals: UnboundedReceiver<Stop>,
    deadline: Option<tokio::time::Instant>,
    timeout: Duration,
}

impl Interruptions {
    /// `signals` from [`crate::signals::Signals::watch`]; the deadline is
    /// `timeout` from now.
    pub(crate) fn new(signals: UnboundedReceiver<Stop>, timeout: Option<Duration>) -> Self {
        Interruptions {
            signals,
            // A timeout past what the clock can hold is no deadline.
            deadline: timeout.and_then(|t| tokio::time::Instant::now().checked_add(t)),
            timeout: timeout.unwrap_or_default(),
        }
    }

    /// Resolves at the first signal or at the deadline; never when neither
    /// comes.
    pub(crate) async fn next(&mut self) -> Interruption {
        tokio::select! {
            Some(stop) = self.signals.recv() => Interruption::Signal(stop),
            () = until(self.deadline) => Interruption::TimedOut(self.timeout),
        }
    }
}

/// Resolves at `deadline`, or never when there is none.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
