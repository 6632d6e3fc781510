//! How a run ends on disk, the same for both runtimes: the session file
//! and its fine-tuning record, what the run changed (for `oc undo`, and
//! `--on-fail revert`), and the final answer in `-o FILE`.

use std::path::Path;

use serde_json::Value;

use crate::checkpoint::{Checkpoint, CheckpointRecord};
use crate::error::ExitStatus;
use crate::session::{FinetuneRecord, Session, Store, Trajectory, now_rfc3339};
use crate::ui::Output;

/// The files a run changed: those its file tools reported, in order, then
/// the others its checkpoint found changed, created or removed (by `bash`,
/// or by the check), so that a change made by a command is not left out.
pub(crate) fn files_changed(reported: &[String], session: &Session) -> Vec<String> {
    let mut files = reported.to_vec();
    let found = (session.checkpoint.iter()).flat_map(|record| &record.changes);
    for change in found {
        if !files.contains(&change.path) {
            files.push(change.path.clone());
        }
    }
    files
}

/// Saves the session and appends its fine-tuning record (`trajectory`:
/// the conversation as the model saw it); a failure is a warning, as the
/// run itself is over.
pub(crate) fn save_with_record(
    store: &Store,
    session: &mut Session,
    schemas: &[Value],
    trajectory: Trajectory,
    out: &mut dyn Output,
) {
    let record = FinetuneRecord::from_session(session, schemas, trajectory);
    let saved = store
        .save(session)
        .and_then(|()| store.append_finetune(&record));
    if let Err(e) = saved {
        out.warn(&format!("{e:#}"));
    }
}

/// Records in the session what the run changed (for `oc undo`); with
/// `--on-fail revert` and a failed run, puts it back at once. Returns the
/// files put back. A checkpoint that cannot be finished or put back is a
/// warning: the run is over.
pub(crate) fn settle_checkpoint(
    checkpoint: Option<&Checkpoint>,
    revert_on_fail: bool,
    session: &mut Session,
    exit: ExitStatus,
    out: &mut dyn Output,
) -> Vec<String> {
    // The record describes this run; a run without one cannot be undone,
    // and an earlier run's record must not stand for it.
    session.checkpoint = None;
    let Some(checkpoint) = checkpoint else {
        return Vec::new();
    };
    let mut record = match checkpoint.finish() {
        Ok(record) => record,
        Err(why) => {
            out.warn(&format!(
                "the run's changes cannot be recorded for `oc undo`: {why}"
            ));
            return Vec::new();
        }
    };
    warn_of_repository_settings(&record, out);
    let mut reverted = Vec::new();
    let failed = revert_on_fail && exit != ExitStatus::Success;
    if failed && !record.not_covered.is_empty() {
        out.warn(&format!(
            "--on-fail revert cannot put back what the checkpoint did not keep (an ignored file past its budget, too big, or past its limits): {}",
            crate::ui::quoted_paths(&record.not_covered)
        ));
    }
    if failed && (!record.changes.is_empty() || record.index.is_some()) {
        let root = Path::new(&session.cwd);
        match revert(&record, root, exit, out) {
            Ok(files) => {
                reverted = files;
                record.undone_at = Some(crate::session::now_rfc3339());
            }
            Err(why) => out.warn(&format!(
                "--on-fail revert could not put the files back: {why}"
            )),
        }
    }
    session.checkpoint = Some(record);
    reverted
}

/// Puts a failed try's changes back so that the next try starts from the
/// tree the run found; its session keeps the record (with the contents
/// the try wrote, for `--attempts` to bring back) marked undone.
/// Returns the files put back; what cannot be put back is a warning.
pub(crate) fn set_aside(
    checkpoint: Option<&Checkpoint>,
    session: &mut Session,
    out: &mut dyn Output,
) -> Vec<String> {
    session.checkpoint = None;
    let Some(checkpoint) = checkpoint else {
        return Vec::new();
    };
    let mut record = match checkpoint.finish_kept() {
        Ok(record) => record,
        Err(why) => {
            out.warn(&format!("this try's changes cannot be set aside: {why}"));
            return Vec::new();
        }
    };
    let files = match put_back(&record, Path::new(&session.cwd)) {
        Ok(files) => {
            record.undone_at = Some(now_rfc3339());
            files
        }
        Err(why) => {
            out.warn(&format!(
                "this try's changes could not all be put back, so the next try does not start from the tree the run found: {why}"
            ));
            Vec::new()
        }
    };
    session.checkpoint = Some(record);
    files
}

/// Undoes `record` in `root`: the files put back.
///
/// Errors: a file changed since, or one the store cannot give back.
pub(crate) fn put_back(
    record: &CheckpointRecord,
    root: &Path,
) -> std::result::Result<Vec<String>, String> {
    let plan = crate::checkpoint::plan(record, root, false)?;
    let left: Vec<&str> = plan.refused().into_iter().chain(plan.blocked()).collect();
    if !left.is_empty() {
        return Err(format!("left alone: {}", left.join(", ")));
    }
    crate::checkpoint::undo(record, root, &plan)?;
    Ok(plan.put_back())
}

/// Says so when the run changed the repository's own settings (`.git`'s
/// config, hooks or `info/`): git runs hooks and the programs its config
/// names outside any sandbox, the next time anyone uses it.
fn warn_of_repository_settings(record: &crate::checkpoint::CheckpointRecord, out: &mut dyn Output) {
    let changed: Vec<&str> = (record.changes.iter())
        .map(|c| c.path.as_str())
        .filter(|p| p.starts_with(".git/"))
        .collect();
    if !changed.is_empty() {
        out.warn(&format!(
            "the run changed the repository's own settings: {}; git runs hooks and the programs its config names outside any sandbox the next time it is used. Look at them before you use git here; `oc undo` puts them back",
            crate::ui::quoted_paths(&changed)
        ));
    }
}

/// Puts back what `record` says the failed run changed (`exit`: its exit
/// status), saying so; the files put back.
///
/// Errors: as [`crate::checkpoint::undo`].
fn revert(
    record: &crate::checkpoint::CheckpointRecord,
    root: &Path,
    exit: ExitStatus,
    out: &mut dyn Output,
) -> Result<Vec<String>, String> {
    use crate::checkpoint::IndexStep;
    let plan = crate::checkpoint::plan(record, root, false)?;
    crate::checkpoint::undo(record, root, &plan)?;
    let left: Vec<&str> = plan.refused().into_iter().chain(plan.blocked()).collect();
    if !left.is_empty() {
        out.warn(&format!(
            "--on-fail revert left alone (changed meanwhile, or a folder on their path is now a link or a file): {}",
            crate::ui::quoted_paths(&left)
        ));
    }
    if plan.index == IndexStep::Refused {
        out.warn("--on-fail revert left the git index alone: it stages something else since the run ended");
    }
    let reverted = plan.put_back();
    if reverted.is_empty() && plan.index != IndexStep::Restore {
        out.warn(&format!(
            "--on-fail revert: the run failed (exit {}); nothing could be put back",
            exit.code()
        ));
        return Ok(reverted);
    }
    out.warn(&format!(
        "--on-fail revert: the run failed (exit {}); put back {}{} as the run found {}",
        exit.code(),
        crate::ui::quoted_paths(&reverted),
        match plan.index {
            IndexStep::Restore if reverted.is_empty() => "the git index",
            IndexStep::Restore => " and the git index",
            IndexStep::Nothing | IndexStep::Refused => "",
        },
        if reverted.len() == 1 { "it" } else { "them" }
    ));
    Ok(reverted)
}

/// Writes the final answer to `-o FILE` (nothing when there is none).
/// Returns the exit status: a run that would succeed fails when the file
/// cannot be written, as a script waiting for it must not see success.
pub(crate) fn write_last_message(
    path: &Path,
    text: &str,
    exit: ExitStatus,
    out: &mut dyn Output,
) -> ExitStatus {
    if text.is_empty() {
        return exit;
    }
    let mut text = text.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match crate::fsutil::write_atomic(path, text.as_bytes(), 0o666) {
        Ok(()) => exit,
        Err(e) => {
            out.error(&format!(
                "cannot write the last message to `{}`: {e}",
                path.display()
            ));
            match exit {
                ExitStatus::Success | ExitStatus::Denied => ExitStatus::Failure,
                other => other,
            }
        }
    }
}
