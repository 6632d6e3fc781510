//! What one invocation asks of a run, beside the settings: the prompt, the
//! session to go on from, the check, the images, the output schema, the
//! checkpoint. Both runtimes take a [`Job`].

use std::path::PathBuf;
use std::time::Duration;

use super::output_schema::OutputSchema;
use crate::checkpoint::Checkpoint;
use crate::session::Session;

/// What one invocation asks of the agent, beside the settings.
#[derive(Debug, Default)]
pub(crate) struct Job {
    /// The new user message.
    pub prompt: String,
    /// A saved session to go on from (`--continue`, `--resume`).
    pub resume: Option<Session>,
    /// Write the session file and the fine-tuning record (false with
    /// `--no-save`).
    pub save: bool,
    /// Limit on the whole run (`--timeout`); reaching it exits 124.
    pub timeout: Option<Duration>,
    /// Where to write the final answer (`-o`).
    pub last_message_file: Option<PathBuf>,
    /// `--check`: run when the model says it is done; its failures go back
    /// to the model, and the run succeeds only when it passes.
    pub check: Option<CheckPlan>,
    /// Images for the prompt (`--image`): Ollama `images` entries (base64).
    pub images: Vec<String>,
    /// `--output-schema`: the answer must be one JSON value it accepts.
    pub output_schema: Option<OutputSchema>,
    /// The workspace as the run found it, for `oc undo`; `None` for a run
    /// that changes nothing or is not saved.
    pub checkpoint: Option<Checkpoint>,
    /// `--on-fail revert`: a failed run puts the checkpoint back.
    pub revert_on_fail: bool,
    /// `--attempts`: how many fresh tries the run allows (0 and 1: one).
    pub attempts: u32,
}

/// The `--check` of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CheckPlan {
    /// The command, run with `bash -c` in the workspace.
    pub command: String,
    /// How many times it may run in this run (at least 1), not counting
    /// the run before the first request.
    pub max_attempts: u32,
    /// Run it once before the first request, and show a failure to the
    /// model (off with `--no-precheck`).
    pub precheck: bool,
    /// Where `--check auto` found the command ("the prompt"); `None` for a
    /// command given with `--check`.
    pub chosen_from: Option<String>,
}
