//! `oc undo [SESSION] [--force] [--dry-run]`: puts back the files a run
//! changed, from the checkpoint its session records (docs/sessions.md "Undo").

use std::path::Path;

use crate::checkpoint::{self, Step};
use crate::cli::UndoArgs;
use crate::error::{Error, ExitStatus, Result};
use crate::session::{Session, Store, now_rfc3339};
use crate::ui::{out, print_note, print_warning};
use crate::vocab::Mode;

/// Undoes the last run of the chosen session. Prints one line per file
/// (`restored PATH`, `removed PATH`; with `--dry-run`, `would restore …`)
/// on stdout, and a summary on stderr.
///
/// Errors: no such session, or none in this directory (exit 2); a session
/// without a checkpoint (exit 2); a file that cannot be read back or written
/// (exit 1). Files changed since the run ended are left alone and make the
/// exit code 1, unless `--force`.
pub(super) fn undo(home: &Path, args: &UndoArgs) -> Result<ExitStatus> {
    let store = Store::new(home);
    let mut session = pick(&store, args)?;
    let Some(record) = session.checkpoint.clone() else {
        return Err(Error::Usage(format!(
            "session {} has no checkpoint to undo: only `oc run` runs that were saved have one (not `oc plan`, `oc chat`, `--no-save`, or runs by an older oc)",
            session.id
        )));
    };
    if record.changes.is_empty() {
        print_note(&format!(
            "the last run of session {} changed no file: nothing to undo (only a session's last run can be undone)",
            session.id
        ));
        return Ok(ExitStatus::Success);
    }
    let root = Path::new(&session.cwd);
    let plan = checkpoint::plan(&record, root, args.force)
        .map_err(|why| Error::io("cannot compare the files with the run's", other(why)))?;
    for path in &record.not_covered {
        print_warning(&format!(
            "{path} was not covered by the checkpoint (too big, or past its limits); any change the run made to it stays"
        ));
    }
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
            Step::Restore(path) => out(&format!("{restore} {path}\n")),
            Step::Remove(path) => out(&format!("{remove} {path}\n")),
            Step::Unchanged(_) | Step::Refused(_) | Step::Blocked(_) => {}
        }
    }
    let done = (plan.steps.iter())
        .filter(|s| matches!(s, Step::Restore(_) | Step::Remove(_)))
        .count();
    let refused = plan.refused();
    let blocked = plan.blocked();
    if !args.dry_run && done > 0 {
        let mut record = record.clone();
        record.undone_at = Some(now_rfc3339());
        session.checkpoint = Some(record);
        store.save(&mut session)?;
    }
    let verb = if args.dry_run {
        "would put back"
    } else {
        "put back"
    };
    print_note(&format!(
        "{verb} {done} file{} of session {}{}",
        if done == 1 { "" } else { "s" },
        session.id,
        match done {
            0 if refused.is_empty() && blocked.is_empty() => {
                ": the files are already as the run found them"
            }
            _ => "",
        }
    ));
    if !blocked.is_empty() {
        print_warning(&format!(
            "left alone, a folder on their path is now a link or a file (putting them back could write outside the workspace): {}",
            blocked.join(", ")
        ));
    }
    if !refused.is_empty() {
        print_warning(&format!(
            "left alone, changed since the run ended: {}; `oc undo {} --force` puts them back too (their newer content is lost)",
            refused.join(", "),
            session.id
        ));
    }
    match refused.is_empty() && blocked.is_empty() {
        true => Ok(ExitStatus::Success),
        false => Ok(ExitStatus::Failure),
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
        .find(|s| s.cwd == here && s.mode == Mode::Code)
        .ok_or_else(|| {
            Error::Usage(format!(
                "no saved `oc run` session was started in `{here}`; name one (`oc sessions list`); a `--no-save` run leaves none to undo"
            ))
        })?;
    store.load(&newest.id)
}
