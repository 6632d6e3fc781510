//! Checkpoints: the workspace as a run found it, kept so that `oc undo` (or
//! `oc run --on-fail revert`) can put back what the run changed, whether a
//! tool or a bash command changed it. Taking one touches none of the user's
//! branches, index or stash: in a git repository the file contents go to the
//! repository's object store ([`git::GitObjects`]); elsewhere copies go
//! under `OC_HOME/checkpoints/` ([`files::FileCopies`]). Ignored files are
//! kept within a budget ([`ignored`]), the rest only named; outside git,
//! files over [`files::MAX_FILE_BYTES`] when the run starts are not kept.
//! In git the index is read too ([`index`]): undo puts it back whole when
//! the run changed what it stages.
//! What is covered is documented in docs/sessions.md "Undo".

mod files;
mod git;
mod git_trust;
mod ignored;
mod index;
mod origins;
mod record;
mod restore;
mod store;
mod stores;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub(crate) use index::IndexStep;
pub(crate) use record::{Change, CheckpointRecord, Snapshot};
pub(crate) use restore::{Step, UndoPlan, plan, redo, undo};
use store::Store;
use stores::store_for;

/// The workspace as a run found it: every path present, and the content of
/// those it keeps.
pub(crate) struct Checkpoint {
    store: Box<dyn Store>,
    root: PathBuf,
    /// The files whose content is kept: the covered ones, and the ignored
    /// ones within the budget.
    start: Snapshot,
    /// Covered files present but not kept (too big, past the limits, a
    /// name that is not UTF-8).
    skipped: Vec<String>,
    /// The ignored files and folders present but not kept.
    ignored: ignored::Ignored,
    /// The git index (`None` outside git).
    index: Option<index::IndexAtStart>,
    /// The inodes of the files present, to tell a rename of one not kept.
    origins: origins::Origins,
    /// Files in the workspace that `oc`'s own stdout or stderr go to
    /// (`oc run … > out.json 2> run.log`): never put back, or the run's
    /// own output would be lost. Also what `oc` keeps in `OC_HOME` when
    /// that is inside the workspace ([`OWN_FILES`]): its sessions and
    /// records are not the run's changes.
    own_output: Vec<String>,
    /// The git directory's device and inode (`None` outside git): a run
    /// that moved or replaced it (`mv .git old && ln -s old .git`) made
    /// git list the old one's files as new ones, which undo would remove.
    git_dir: Option<(u64, u64)>,
}

/// What `oc` writes in `OC_HOME` (folders end in `/`).
const OWN_FILES: [&str; 3] = ["sessions/", "finetune.jsonl", "checkpoints/"];

/// The workspace files (relative to `root`) that this process's stdout and
/// stderr are redirected to, as `/proc/self/fd` names them, and the
/// [`OWN_FILES`] of `home` when it is inside `root`.
fn own_output(root: &Path, home: &Path) -> Vec<String> {
    let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    let in_home = (home.strip_prefix(root).ok())
        .into_iter()
        .flat_map(|rel| OWN_FILES.map(|own| rel.join(own)));
    let mut paths: Vec<String> = [1, 2]
        .iter()
        .filter_map(|fd| std::fs::read_link(format!("/proc/self/fd/{fd}")).ok())
        .filter_map(|target| target.strip_prefix(root).ok().map(Path::to_path_buf))
        .chain(in_home)
        .filter_map(|rel| rel.to_str().map(str::to_string))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// The device and inode of the folder at `path` itself (not a link's).
fn folder_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = path.symlink_metadata().ok()?;
    meta.is_dir().then(|| (meta.dev(), meta.ino()))
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("store", &self.store.kind())
            .field("root", &self.root)
            .field("files", &self.start.len())
            .finish()
    }
}

impl Checkpoint {
    /// Checkpoints the workspace at `root` before a run changes anything:
    /// the covered files, the ignored ones (within the budget of
    /// [`ignored`]), and in git the index.
    ///
    /// Errors: a sentence saying why the workspace could not be read or
    /// the contents not stored (the run goes on without undo).
    pub(crate) fn take(root: &Path, home: &Path) -> Result<Checkpoint, String> {
        let store = store_for(root, home);
        let taken = store.snapshot(root, true)?;
        let entries = store.ignored(root, &taken)?;
        let ignored = ignored::survey(root, &entries);
        let mut start = taken.files;
        start.extend(store.blobs(root, &ignored.keep, true)?);
        let origins = origins::Origins::take(
            root,
            start.keys(),
            taken.skipped.iter().chain(ignored.seen.keys()),
            !ignored.folders.is_empty(),
        )?;
        // An index git cannot read (an older git) costs its undo only.
        let index = match store.kind() {
            record::StoreKind::Git => index::IndexAtStart::read(root).ok(),
            record::StoreKind::Files => None,
        };
        let git_dir = match store.kind() {
            record::StoreKind::Git => folder_id(Path::new(&store.location())),
            record::StoreKind::Files => None,
        };
        Ok(Checkpoint {
            own_output: own_output(root, home),
            store,
            root: root.to_path_buf(),
            start,
            skipped: taken.skipped,
            ignored,
            index,
            origins,
            git_dir,
        })
    }

    /// The checkpoint with `file` (absolute, or relative to the workspace
    /// root) among `oc`'s own output, as `-o FILE` is: what the run
    /// writes for the user is not one of its changes, and undo keeps it.
    pub(crate) fn with_own_file(mut self, file: &Path) -> Self {
        let file = self.root.join(file);
        // The file may not exist yet; its folder may be reached by a link.
        let folder = file.parent().and_then(|p| std::fs::canonicalize(p).ok());
        let resolved = match (folder, file.file_name()) {
            (Some(folder), Some(name)) => folder.join(name),
            _ => file,
        };
        if let Some(rel) = resolved
            .strip_prefix(&self.root)
            .ok()
            .and_then(Path::to_str)
        {
            self.own_output.push(rel.to_string());
        }
        self
    }

    /// Whether `path` is one of [`Checkpoint::own_output`]'s files, or in
    /// one of its folders.
    fn is_own_output(&self, path: &str) -> bool {
        (self.own_output.iter())
            .any(|own| own == path || (own.ends_with('/') && path.starts_with(own.as_str())))
    }

    /// Errors: the run moved, replaced or linked away the repository's
    /// git directory, or made it other than a plain folder; git would then
    /// describe another repository, and undo could remove the old one.
    fn same_git_dir(&self) -> Result<(), String> {
        let Some(id) = self.git_dir else {
            return Ok(());
        };
        let location = self.store.location();
        let plain = git::plain_git_dir(&self.root).is_ok_and(|dir| folder_id(&dir) == Some(id));
        if folder_id(Path::new(&location)) == Some(id) && plain {
            return Ok(());
        }
        Err(format!(
            "the run moved or replaced the repository's git directory `{location}` (or made it a link); \
             put it back by hand (`git status` shows what git sees now)"
        ))
    }

    /// As [`Checkpoint::finish`], and the store also keeps what each
    /// changed file holds now, so that [`redo`] can put the run's changes
    /// back in after they were undone.
    ///
    /// Errors: as [`Checkpoint::take`].
    pub(crate) fn finish_kept(&self) -> Result<CheckpointRecord, String> {
        let record = self.finish()?;
        let now: Vec<String> = (record.changes.iter())
            .filter(|c| c.after.is_some())
            .map(|c| c.path.clone())
            .collect();
        self.store.blobs(&self.root, &now, true)?;
        Ok(record)
    }

    /// Compares the workspace now with the checkpoint: the record of what
    /// the run changed. A path the checkpoint did not find is one the run
    /// made, whatever its file times (a rename keeps them), unless it holds
    /// a file the checkpoint saw without keeping ([`origins`]: named in
    /// `not_covered`, never removed); ignored files the run made are not
    /// recorded (docs/sessions.md "Undo").
    ///
    /// Errors: as [`Checkpoint::take`].
    pub(crate) fn finish(&self) -> Result<CheckpointRecord, String> {
        self.same_git_dir()?;
        let mut end = self.store.snapshot(&self.root, false)?.files;
        // Kept files the listing leaves out now: ignored ones, and gone ones
        // (those under a folder that is now a link or a file are gone).
        let unlisted: Vec<String> = (self.start.keys())
            .filter(|path| !end.contains_key(*path))
            .filter(|path| restore::blocking_ancestor(&self.root, path).is_none())
            .cloned()
            .collect();
        let now_unlisted = self.store.blobs(&self.root, &unlisted, false)?;
        let mut changes = Vec::new();
        let mut not_covered: BTreeSet<String> = self.skipped.iter().cloned().collect();
        not_covered.extend(self.ignored.lost(&self.root));
        for (path, before) in &self.start {
            match end.get(path).or_else(|| now_unlisted.get(path)) {
                Some(after) if after == before => {}
                after => changes.push(Change {
                    path: path.clone(),
                    before: Some(before.clone()),
                    after: after.cloned(),
                }),
            }
        }
        let skipped: BTreeSet<&str> = self.skipped.iter().map(String::as_str).collect();
        end.retain(|path, _| !self.start.contains_key(path) && !skipped.contains(path.as_str()));
        for (path, after) in end {
            // Present when the run began, its content not kept.
            if let Some(folder) = self.ignored.present_not_kept(&path) {
                not_covered.extend(folder);
                continue;
            }
            // Made by the run from a file whose content was not kept.
            if self.origins.may_hold_unkept(&self.root, &path) {
                not_covered.insert(path);
                continue;
            }
            changes.push(Change {
                path,
                before: None,
                after: Some(after),
            });
        }
        changes.retain(|c| !self.is_own_output(&c.path));
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        let index = match &self.index {
            Some(index) => index.finish(&self.root).ok().flatten(),
            None => None,
        };
        Ok(CheckpointRecord {
            store: self.store.kind(),
            location: self.store.location(),
            changes,
            not_covered: not_covered.into_iter().collect(),
            index,
            undone_at: None,
        })
    }
}

#[cfg(test)]
mod tests;
