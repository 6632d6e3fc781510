//! How a checkpoint keeps and finds file contents: the seam between the
//! git object store and copies under `OC_HOME`.

use std::path::Path;

use super::record::{Blob, Snapshot, StoreKind};

/// What a store took of a workspace.
pub struct Taken {
    pub files: Snapshot,
    /// Files left out: over the size limit, or past the count limit.
    pub skipped: Vec<String>,
}

/// How a checkpoint keeps and finds file contents.
pub trait Store {
    fn kind(&self) -> StoreKind;
    /// Recorded in the session so that `oc undo` finds the store again.
    fn location(&self) -> String;
    /// Stores the contents of every covered file under `root`.
    fn snapshot(&self, root: &Path) -> Result<Taken, String>;
    /// The blob the file at `rel` holds now; `None` when there is none.
    fn blob_of(&self, root: &Path, rel: &str) -> Result<Option<Blob>, String>;
    /// The bytes of a stored blob, as they go back at `rel`.
    fn read(&self, root: &Path, rel: &str, blob: &Blob) -> Result<Vec<u8>, String>;
}
