//! Sessions (`OC_HOME/sessions/<id>.json`, saved atomically after every
//! turn) and the fine-tuning record appended to `OC_HOME/finetune.jsonl` at
//! the end of every saved run (docs/sessions.md, docs/fine-tuning.md): the
//! session file (`file`), where they are kept (`store`), the record and the
//! success rule (`record`), each reply's step (`step`), token counts
//! (`usage`), and `export-ft` (`export`).

pub(crate) mod export;
mod export_images;
mod file;
mod journal;
mod record;
mod step;
mod store;
mod usage;

pub(crate) use file::{
    AbortedReply, Attempt, Check, Compaction, CutReply, Repair, Session, Status, now_rfc3339,
    read_session,
};
pub(crate) use journal::Journal;
pub(crate) use record::{FinetuneRecord, is_markup_only};
pub(crate) use step::{GROUNDING_CALL, Step, Trajectory, is_grounding_read};
pub(crate) use store::Store;
pub(crate) use usage::Usage;

#[cfg(test)]
mod tests;
