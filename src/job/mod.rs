//! A job, and what both runtimes share in doing it (`agent`, oc's own
//! loop, and `opencode`, a server's loop that oc follows): the [`Job`] a
//! run is given, the
//! workspace it opens, how it is interrupted, the words that mark a reply
//! failed, the record's steps, and how a run ends on disk (session file,
//! fine-tuning record, checkpoint, `-o`: `finish`). It imports neither
//! runtime.

pub(crate) mod calls_in_text;
pub(crate) mod finish;
pub(crate) mod interrupt;
pub(crate) mod nudges;
pub(crate) mod output_schema;
pub(crate) mod record;
pub(crate) mod spec;
pub(crate) mod steps;
pub(crate) mod workspace;

pub(crate) use finish::{Finish, Finished, RunVerdict};
pub(crate) use output_schema::OutputSchema;
pub(crate) use record::{files_changed, put_back, write_last_message};
pub(crate) use spec::{CheckPlan, Job};
pub(crate) use workspace::open_workspace;
