//! Sessions (`OC_HOME/sessions/<id>.json`, saved atomically after every
//! turn) and the fine-tuning record appended to `OC_HOME/finetune.jsonl` at
//! the end of every saved run (docs/sessions.md, docs/fine-tuning.md): the
//! session file (`file`), where they are kept (`store`), the record and the
//! success rule (`record`), each reply's step (`step`), token counts
//! (`usage`), and `export-ft` (`export`).

pub mod export;
mod export_images;
mod file;
mod journal;
mod record;
mod step;
mod store;
mod usage;

pub use file::{
    AbortedReply, Check, Compaction, CutReply, Repair, SESSION_VERSION, Session, Status,
    now_rfc3339, read_session,
};
pub use journal::Journal;
pub use record::{
    FINETUNE_VERSION, FinetuneRecord, WORKSPACE_PLACEHOLDER, is_markup_only, succeeded,
};
pub use step::{GROUNDING_CALL, Step, Trajectory, is_grounding_read};
pub use store::Store;
pub use usage::Usage;

#[cfg(test)]
mod tests;
