//! `oc`: a one-shot, scriptable coding agent for local language models.
//!
//! The binary is a thin shell around [`run`]: parsing ([`cli::Cli`]), then
//! one command (`commands`), then the exit code from [`exit_status_of`].
//! Everything else is private to the crate, so the compiler reports what
//! nothing uses. ARCHITECTURE.md shows how the modules fit together.

pub(crate) mod agent;
#[doc(hidden)]
pub mod bench_api;
pub(crate) mod checkpoint;
pub mod cli;
pub mod cli_hints;
pub(crate) mod client;
pub(crate) mod commands;
pub(crate) mod config;
pub(crate) mod env_vars;
pub mod error;
pub(crate) mod fsutil;
pub(crate) mod heuristics;
pub(crate) mod images;
pub(crate) mod input;
pub(crate) mod job;
pub(crate) mod json_words;
pub(crate) mod opencode;
pub(crate) mod permissions;
pub(crate) mod protocol;
pub(crate) mod sandbox;
pub(crate) mod secrets;
pub(crate) mod session;
pub(crate) mod signals;
pub(crate) mod tools;
pub(crate) mod ui;
pub(crate) mod vocab;

pub use commands::{run, sandbox_exec_if_asked};
pub use error::exit_status_of;
pub use ui::json::write_error;
pub use ui::term::print_error;
