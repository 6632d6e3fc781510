//! What a session records of a run's checkpoint: the files the run
//! changed, as blobs in a store.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One file of a snapshot: the id of its content in the store and how to
/// put it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Blob {
    /// git: the blob's object id; files: the SHA-256 of the bytes (hex).
    pub id: String,
    /// The file's permission bits (`0o644`, `0o755`, …); 0 for a link.
    #[serde(default)]
    pub mode: u32,
    /// The entry was a symbolic link; the blob holds its target.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub symlink: bool,
}

/// The files of a workspace: `/`-separated paths relative to its root.
pub(crate) type Snapshot = BTreeMap<String, Blob>;

/// Where a checkpoint keeps file contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum StoreKind {
    /// The git repository's object store.
    Git,
    /// Copies under `OC_HOME/checkpoints/objects`.
    Files,
}

/// A file the run changed: what it was before (`None`: the run created
/// it) and after (`None`: the run removed it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Change {
    pub path: String,
    pub before: Option<Blob>,
    pub after: Option<Blob>,
}

/// A run's checkpoint as its session records it (session field
/// `checkpoint`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CheckpointRecord {
    pub store: StoreKind,
    /// git: the repository's git directory; files: the directory of copies.
    pub location: String,
    /// The files the run changed, created or removed, by path.
    pub changes: Vec<Change>,
    /// Files the checkpoint did not keep (too big, past the limits, or
    /// ignored and past the ignored files' budget; a folder ends in `/`):
    /// a change the run made to one of them cannot be undone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_covered: Vec<String>,
    /// What was staged in the git index, when the run changed it (`git add`,
    /// `git mv`); `None` outside git, when the run left it alone, and in
    /// sessions of an older `oc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexChange>,
    /// When the changes were put back (`oc undo`, `--on-fail revert`),
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone_at: Option<String>,
}

/// The git index before and after a run that changed what it stages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct IndexChange {
    /// The blob of the index file's bytes before the run, in the
    /// repository's object store; `None`: there was no index file.
    pub before: Option<String>,
    /// The SHA-256 (hex) of `git ls-files --stage -z` before the run: what
    /// was staged, without the file times git caches.
    pub staged_before: String,
    /// The same after the run: undo puts the index back only when it still
    /// stages this (nothing changed it since), unless forced.
    pub staged_after: String,
}
