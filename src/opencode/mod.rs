//! The opencode runtime (docs/model-servers.md "Runtimes"): an opencode server runs the
//! agent loop; `oc` creates the session, sends the prompt, follows the
//! event stream, answers permission requests with its own policy, and
//! keeps the session and the fine-tuning record.
//!
//! [`runtime`] tells the story of one run; [`client`] speaks the server's HTTP, [`server`]
//! starts `opencode serve` when no server is given, [`wire`] reads its
//! events and transcript, [`follow`] turns one session's events into oc's
//! output, [`permission`] decides a permission request, [`transcript`]
//! turns the transcript into oc's messages.

pub(crate) mod client;
pub(crate) mod follow;
pub(crate) mod permission;
pub(crate) mod runtime;
pub(crate) mod server;
pub(crate) mod transcript;
pub(crate) mod wire;
