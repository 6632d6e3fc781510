//! What both runtimes share (`agent`, oc's own loop, and `opencode`, a
//! server's loop that oc follows): the [`Job`] a run is given, the
//! workspace it opens, how it is interrupted, the words that mark a reply
//! failed, the record's steps, and how a run ends on disk (session file,
//! fine-tuning record, checkpoint, `-o`). It imports neither runtime.

pub mod interrupt;
pub mod job;
pub mod nudges;
pub mod output_schema;
pub mod record;
pub mod steps;
pub mod text_calls;
pub mod workspace;

pub use job::{CheckPlan, Job};
pub use output_schema::OutputSchema;
pub use record::{save_with_record, settle_checkpoint, write_last_message};
pub use workspace::open_workspace;
