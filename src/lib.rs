//! `oc`: a one-shot, scriptable coding agent for local language models.
//!
//! The binary is a thin shell around [`run`]: parsing, then one command
//! (`commands`), then the exit code from [`exit_status_of`]. ARCHITECTURE.md
//! shows how the modules below fit together.

pub mod agent;
pub mod checkpoint;
pub mod cli;
pub mod client;
pub mod commands;
pub mod config;
pub mod env_vars;
pub mod error;
pub mod fsutil;
pub mod images;
pub mod input;
pub mod opencode;
pub mod permissions;
pub mod protocol;
pub mod run;
pub mod sandbox;
pub mod secrets;
pub mod session;
pub mod signals;
pub mod tools;
pub mod ui;
pub mod vocab;

pub use commands::{run, sandbox_exec_if_asked};
pub use error::exit_status_of;
