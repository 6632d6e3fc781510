//! Typed errors that decide the process exit code, and the exit codes
//! themselves (docs/output.md).

use std::path::PathBuf;

/// The process exit code of one `oc` invocation (README "Exit codes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: the run finished with an answer.
    Success,
    /// 1: the run failed (model or server error mid-run).
    Failure,
    /// 2: usage or configuration error.
    Usage,
    /// 3: server unreachable or model not found.
    Unavailable,
    /// 4: `--max-turns` reached before the model answered.
    MaxTurns,
    /// 5: finished, but actions that needed approval were denied because no
    /// one could approve them (no terminal, no `--yes`).
    Denied,
    /// 6: `--check` was given and still failed at the end.
    CheckFailed,
    /// 7: `--output-schema` was given and the answer still did not match
    /// it after one retry.
    SchemaMismatch,
    /// 124: `--timeout` reached.
    TimedOut,
    /// 130: interrupted by SIGINT (Ctrl-C).
    Interrupted,
    /// 143: terminated by SIGTERM.
    Terminated,
    /// 129: its terminal closed (SIGHUP).
    HungUp,
}

impl ExitStatus {
    /// The numeric code handed to the operating system.
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Unavailable => 3,
            ExitStatus::MaxTurns => 4,
            ExitStatus::Denied => 5,
            ExitStatus::CheckFailed => 6,
            ExitStatus::SchemaMismatch => 7,
            ExitStatus::TimedOut => 124,
            ExitStatus::Interrupted => 130,
            ExitStatus::Terminated => 143,
            ExitStatus::HungUp => 129,
        }
    }
}

/// Errors that end an invocation before or outside the agent loop's own
/// accounting. Each variant maps to exactly one [`ExitStatus`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad flags or prompt input (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A config file that is not valid JSON, or has a value of the wrong type
    /// (exit 2). Line and column are 1-based, as serde_json reports them.
    #[error("config file `{}` is invalid at line {line}, column {column}: {message}", path.display())]
    ConfigSyntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A config file that exists but cannot be read (exit 2).
    #[error("cannot read config file `{}`", path.display())]
    ConfigRead {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The model server did not answer at all (exit 3). `server` names its
    /// kind ("the Ollama server"); `hint` says how to start or find one.
    #[error("cannot reach {server} at {host}: {reason}\n{hint}")]
    Unreachable {
        server: &'static str,
        host: String,
        reason: String,
        hint: &'static str,
    },
    /// An OpenAI-compatible server does not serve the model, or cannot be
    /// used as asked (exit 3); the text says which and what to do.
    #[error("{0}")]
    Unavailable(String),
    /// The server answered 404 for the model (exit 3).
    #[error(
        "model `{model}` is not on the Ollama server at {host}{available}\nPull it with `ollama pull {model}`, or pick another with `--model`, `OC_MODEL` or `\"model\"` in the config (`oc models` lists what the server has)."
    )]
    ModelNotFound {
        model: String,
        host: String,
        /// Already formatted list of the models the server has, or empty.
        available: String,
    },
    /// An OpenAI-compatible server refused a request because of its `tools`
    /// (no tool-call template): the loop falls back to the fenced-tool
    /// protocol; exit 1 if it reaches the user.
    #[error("the server refused the tool schemas ({0})")]
    ToolsRejected(String),
    /// The server or stream failed mid-run (exit 1).
    #[error("{0}")]
    Server(String),
    /// A signal or `--timeout` ended the invocation before a run began
    /// (exit 130, 143, 129 or 124).
    #[error("{message}")]
    Stopped { status: ExitStatus, message: String },
    /// Local I/O that the run needs failed (exit 1).
    #[error("{context}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

impl Error {
    /// The exit code this error ends the process with.
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            Error::Usage(_) | Error::ConfigSyntax { .. } | Error::ConfigRead { .. } => {
                ExitStatus::Usage
            }
            Error::Unreachable { .. } | Error::ModelNotFound { .. } | Error::Unavailable(_) => {
                ExitStatus::Unavailable
            }
            Error::Server(_) | Error::ToolsRejected(_) | Error::Io { .. } => ExitStatus::Failure,
            Error::Stopped { status, .. } => *status,
        }
    }

    /// Wraps an I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

/// Result with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The exit status an error ends the process with: the status of an
/// [`Error`] anywhere in the chain, else 1.
pub fn exit_status_of(err: &anyhow::Error) -> ExitStatus {
    err.chain()
        .find_map(|e| e.downcast_ref::<Error>())
        .map_or(ExitStatus::Failure, Error::exit_status)
}
