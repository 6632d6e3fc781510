//! `oc undo [SESSION] [--force] [--dry-run]`: puts back the files a run
//! changed, from the checkpoint its session records (docs/sessions.md "Undo").

use std::path::Path;

use crate::checkpoint::{self, IndexStep, Step};
use crate::cli::UndoArgs;
use crate::error::{Error, ExitStatus, Result};
use crate::session::{Session, Store, now_rfc3339};
use crate::ui::{out, print_note, print_warning, quoted_path, quoted_paths};
use crate::vocab::Mode;

/// Undoes the last run of the chosen session. Prints one line per file
/// (`restored PATH`, `removed PATH`; with `--dry-run`, `would restore …`;
/// a name with a control character or a leading `"` quoted, as git quotes
/// it) on stdout, and a summary on stderr, with the files the checkpoint did
/// not keep and the git index when it is put back.
///
/// Errors: no such session, or none in this directory (exit 2); a session
/// without a checkpoint (exit 2); a file that cannot be read back or written
/// (exit 1). Files (and an index) changed since the run ended are left
/// alone and make the exit code 1, unless `--force`.
pub(super) fn undo(home: &Path, args: &UndoArgs) -> Result<ExitStatus> {
    let store = Store::new(home);
    let mut session = pick(&store, args)?;
    let Some(record) = session.checkpoint.clone() else {
        return Err(Error::Usage(format!(
            "session {} has no checkpoint to undo: only `oc run` runs that were saved have one (not `oc plan`, `oc chat`, `--no-save`, or runs by an older oc)",
            session.id
        )));
    };
    for path in &record.not_covered {
        print_warning(&format!(
            "{} was not kept by the checkpoint (an ignored file past its budget, too big, or past its limits): what the run did to it stays",
            quoted_path(path)
        ));
    }
    if record.changes.is_empty() && record.index.is_none() {
        print_note(&format!(
            "the last run of session {} changed no file it could put back: nothing to undo (only a session's last run can be undone)",
            session.id
        ));
        return Ok(ExitStatus::Success);
    }
    let root = Path::new(&session.cwd);
    let plan = checkpoint::plan(&record, root, args.force)
        .map_err(|why| Error::io("cannot compare the files with the run's", other(why)))?;
    let (restore, remove) = if args.dry_run {
        ("would restore", "would remove")
    } else {
        ("restored", "removed")
    };
    if !args.dry_run {
        checkpoint::undo(&record, root, &plan)
            .map_err(|why| Error::io("undo stopped", other(why)))?;
    }
    for step in &plan.steps {
        match step {
            Step::Restore(path) => out(&format!("{restore} {}\n", quoted_path(path))),
            Step::Remove(path) => out(&format!("{remove} {}\n", quoted_path(path))),
            Step::Unchanged(_) | Step::Refused(_) | Step::Blocked(_) => {}
        }
    }
    let done = (plan.steps.iter())
        .filter(|s| matches!(s, Step::Restore(_) | Step::Remove(_)))
        .count();
    if !args.dry_run && (done > 0 || plan.index == IndexStep::Restore) {
        let mut record = record.clone();
        record.undone_at = Some(now_rfc3339());
        session.checkpoint = Some(record);
        store.save(&mut session)?;
    }
    Ok(summary(&plan, done, &session.id, args.dry_run))
}

/// Says on stderr what the undo did and left alone; its exit status.
fn summary(plan: &checkpoint::UndoPlan, done: usize, id: &str, dry_run: bool) -> ExitStatus {
    let refused = plan.refused();
    let blocked = plan.blocked();
    let verb = if dry_run {
        "would put back"
    } else {
        "put back"
    };
    let index = match plan.index {
        IndexStep::Restore => " and the git index (what was staged)",
        IndexStep::Nothing | IndexStep::Refused => "",
    };
    print_note(&format!(
        "{verb} {done} file{}{index} of session {id}{}",
        if done == 1 { "" } else { "s" },
        match done {
            0 if refused.is_empty() && blocked.is_empty() && index.is_empty() => {
                ": the files are already as the run found them"
            }
            _ => "",
        }
    ));
    if !blocked.is_empty() {
        print_warning(&format!(
            "left alone, a folder on their path is now a link or a file (putting them back could write outside the workspace): {}",
            quoted_paths(&blocked)
        ));
    }
    if !refused.is_empty() {
        print_warning(&format!(
            "left alone, changed since the run ended: {}; `oc undo {id} --force` puts them back too (their newer content is lost)",
            quoted_paths(&refused)
        ));
    }
    let index_refused = plan.index == IndexStep::Refused;
    if index_refused {
        print_warning(&format!(
            "left alone, the git index stages something else since the run ended; `oc undo {id} --force` puts it back too (what was staged since is lost)"
        ));
    }
    match refused.is_empty() && blocked.is_empty() && !index_refused {
        true => ExitStatus::Success,
        false => ExitStatus::Failure,
    }
}

fn other(why: String) -> std::io::Error {
    std::io::Error::other(why)
}

/// The session named, or the newest started in the workspace.
fn pick(store: &Store, args: &UndoArgs) -> Result<Session> {
    if let Some(id) = &args.session {
        return store.load(id);
    }
    let cwd = match &args.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::io("cannot read the current directory", e))?,
    };
    let cwd = cwd.canonicalize().map_err(|e| {
        Error::Usage(format!(
            "cannot open `{}`: {e}; give an existing directory",
            cwd.display()
        ))
    })?;
    // Plan and chat sessions change nothing: the newest run that could
    // have changed files is the one to undo.
    let here = cwd.display().to_string();
    let (sessions, _) = store.list();
    let newest = (sessions.into_iter())
        .find(|s| s.cwd == here && s.mode == Mode::Code && !s.set_aside())
        .ok_or_else(|| {
            Error::Usage(format!(
                "no saved `oc run` session was started in `{here}`; name one (`oc sessions list`); a `--no-save` run leaves none to undo"
            ))
        })?;
    store.load(&newest.id)
}
