//! Picking a checkpoint's store: for a workspace, or as a record names it.

use std::path::{Path, PathBuf};

use super::files::FileCopies;
use super::git::GitObjects;
use super::record::{CheckpointRecord, StoreKind};
use super::store::Store;

/// The store of a workspace: the repository's object store when `root` is
/// in a git work tree and git runs; else copies under `home`.
pub(super) fn store_for(root: &Path, home: &Path) -> Box<dyn Store> {
    match GitObjects::open(root) {
        Some(git) => Box::new(git),
        None => Box::new(FileCopies::new(home)),
    }
}

/// The store a record names.
pub(super) fn store_of(record: &CheckpointRecord) -> Box<dyn Store> {
    let location = PathBuf::from(&record.location);
    match record.store {
        StoreKind::Git => Box::new(GitObjects::at(location)),
        StoreKind::Files => Box::new(FileCopies::at(location)),
    }
}
