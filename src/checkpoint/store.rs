//! How a checkpoint keeps and finds file contents: the seam between the
//! git object store and copies under `OC_HOME`.

use std::path::Path;

use super::record::{Blob, Snapshot, StoreKind};

/// What a store took of a workspace.
pub(super) struct Taken {
    pub files: Snapshot,
    /// Files left out: over the size limit, or past the count limit.
    pub skipped: Vec<String>,
}

/// How a checkpoint keeps and finds file contents.
pub(super) trait Store {
    fn kind(&self) -> StoreKind;
    /// Recorded in the session so that `oc undo` finds the store again.
    fn location(&self) -> String;
    /// The blobs of every covered file under `root`, their contents kept
    /// in the store when `keep` (the checkpoint); without `keep` (the end
    /// of the run) only their ids, and no size limit applies.
    fn snapshot(&self, root: &Path, keep: bool) -> Result<Taken, String>;
    /// The ignored entries under `root` (those `covered` leaves out):
    /// files, and folders whose every file is ignored as one entry ending
    /// in `/`, `/`-separated relative paths.
    fn ignored(&self, root: &Path, covered: &Taken) -> Result<Vec<String>, String>;
    /// The blobs of the files (or links) at `paths` under `root`, their
    /// contents kept in the store when `keep`; a path with no file is left
    /// out.
    fn blobs(&self, root: &Path, paths: &[String], keep: bool) -> Result<Snapshot, String>;
    /// The blob the file at `rel` holds now; `None` when there is none.
    fn blob_of(&self, root: &Path, rel: &str) -> Result<Option<Blob>, String>;
    /// The bytes of a stored blob, as they go back at `rel`.
    fn read(&self, root: &Path, rel: &str, blob: &Blob) -> Result<Vec<u8>, String>;
    /// Whether the store still holds `blob` (git may have pruned it).
    fn has(&self, root: &Path, blob: &Blob) -> bool;
}
