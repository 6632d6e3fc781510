//! What the user sees (docs/output.md): the text renderer, the JSON outputs, the
//! terminal approval prompt, and the stdout/stderr writers they share. The
//! answer goes to stdout and nothing else does; colour only when stderr is a
//! terminal and `NO_COLOR` is unset. This is the only module that writes to
//! stdout and stderr, and it never fails on a closed pipe.

pub(crate) mod approval;
pub(crate) mod json;
pub(crate) mod output;
pub(crate) mod term;
pub(crate) mod text;

pub(crate) use approval::approver_for_this_process;
pub(crate) use json::JsonOutput;
pub(crate) use output::Output;
pub(crate) use term::{
    confirm, out, print_note, print_warning, quoted_path, quoted_paths, sanitize, short_time, table,
};
pub(crate) use text::TextRenderer;
