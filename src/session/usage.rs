//! Token counts, as Ollama reports them.

use serde::{Deserialize, Serialize};

/// Token counts of a run (summed) or of one reply, from Ollama's
/// `prompt_eval_count` and `eval_count`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}
