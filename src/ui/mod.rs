//! What the user sees (docs/output.md): the text renderer, the JSON outputs, the
//! terminal approval prompt, and the stdout/stderr writers they share. The
//! answer goes to stdout and nothing else does; colour only when stderr is a
//! terminal and `NO_COLOR` is unset. This is the only module that writes to
//! stdout and stderr, and it never fails on a closed pipe.

pub mod approval;
pub mod json;
pub mod output;
pub mod term;
pub mod text;

pub use approval::{TerminalApprover, approver_for_this_process};
pub use json::JsonOutput;
pub use output::Output;
pub use term::{
    confirm, out, print_error, print_note, print_warning, sanitize, short_time, stderr_colors,
    table,
};
pub use text::TextRenderer;
