//! Where sessions and the fine-tuning file live (`OC_HOME`): atomic
//! saves after every turn, listing, finding by id or prefix, loading, and
//! appending a record to `finetune.jsonl`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::file::{Session, now_rfc3339, read_session};
use super::record::FinetuneRecord;
use crate::error::{Error, Result};
use crate::fsutil;
use crate::images::ImageStore;

/// Where sessions and the fine-tuning file live (`OC_HOME`).
#[derive(Debug, Clone)]
pub(crate) struct Store {
    home: PathBuf,
}

impl Store {
    /// A store rooted at `home` (`OC_HOME`); nothing is created until a save.
    pub(crate) fn new(home: &Path) -> Self {
        Store {
            home: home.to_path_buf(),
        }
    }

    /// `OC_HOME/sessions/<id>.json`.
    pub(crate) fn session_path(&self, id: &str) -> PathBuf {
        self.home.join("sessions").join(format!("{id}.json"))
    }

    /// `OC_HOME/finetune.jsonl`.
    pub(crate) fn finetune_path(&self) -> PathBuf {
        self.home.join("finetune.jsonl")
    }

    /// Saves the session atomically (temp file + rename): a crash leaves the
    /// previous save intact.
    pub(crate) fn save(&self, session: &mut Session) -> Result<()> {
        session.updated_at = now_rfc3339();
        let path = self.session_path(&session.id);
        let hint = "point `OC_HOME` or `--home` at a writable directory, or pass `--no-save`";
        fsutil::private_dir(&self.home.join("sessions")).map_err(|e| {
            Error::io(
                format!("cannot create `{}` ({hint})", self.home.display()),
                e,
            )
        })?;
        let named;
        let session: &Session = if session.has_images() {
            let mut copy = session.clone();
            ImageStore::new(&self.home).name_all(copy.all_messages())?;
            named = copy;
            &named
        } else {
            session
        };
        let json = serde_json::to_vec_pretty(session)
            .map_err(|e| Error::Server(format!("cannot encode the session: {e}")))?;
        fsutil::write_atomic(&path, &json, 0o600).map_err(|e| {
            Error::io(
                format!("cannot save the session to `{}` ({hint})", path.display()),
                e,
            )
        })
    }

    /// Every saved session, newest first. Files that cannot be read are
    /// returned as errors beside the sessions, so one bad file hides nothing.
    pub(crate) fn list(&self) -> (Vec<Session>, Vec<String>) {
        let dir = self.home.join("sessions");
        let mut sessions = Vec::new();
        let mut problems = Vec::new();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return (sessions, problems);
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            match read_session(&path) {
                Ok(session) => sessions.push(session),
                Err(e) => problems.push(e.to_string()),
            }
        }
        sessions.sort_by(|a, b| b.id.cmp(&a.id));
        (sessions, problems)
    }

    /// The session whose id is `id` or starts with it.
    ///
    /// Errors (exit 2): no such session, or a prefix that fits several.
    pub(crate) fn find(&self, id: &str) -> Result<PathBuf> {
        // Ids are ULIDs: upper case, so `01m8…` means `01M8…`.
        let upper = id.trim().to_ascii_uppercase();
        let id = upper.as_str();
        let dir = self.home.join("sessions");
        let exact = dir.join(format!("{id}.json"));
        if !id.is_empty() && !id.contains('/') && exact.is_file() {
            return Ok(exact);
        }
        let mut matches: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.extension().is_some_and(|e| e == "json")
                            && p.file_stem().is_some_and(|s| {
                                !id.is_empty() && s.to_string_lossy().starts_with(id)
                            })
                    })
                    .collect()
            })
            .unwrap_or_default();
        matches.sort();
        match matches.len() {
            1 => Ok(matches.remove(0)),
            0 => Err(Error::Usage(format!(
                "no saved session `{id}` in `{}`; see `oc sessions list`",
                dir.display()
            ))),
            n => Err(Error::Usage(format!(
                "`{id}` fits {n} sessions; give more of the id (see `oc sessions list`)"
            ))),
        }
    }

    /// Loads the session `id` (or a unique prefix of it).
    pub(crate) fn load(&self, id: &str) -> Result<Session> {
        let mut session = read_session(&self.find(id)?)?;
        session.normalize_loaded();
        ImageStore::new(&self.home).load_all(session.all_messages())?;
        Ok(session)
    }

    /// The newest session started in `cwd`, if any, a try set aside by
    /// `--attempts` passed by (normalised as by
    /// [`Store::load`]). Errors: as [`ImageStore::load_all`].
    pub(crate) fn newest_in(&self, cwd: &Path) -> Result<Option<Session>> {
        let cwd = cwd.display().to_string();
        let sessions = self.list().0.into_iter();
        let Some(mut session) = sessions.filter(|s| !s.set_aside()).find(|s| s.cwd == cwd) else {
            return Ok(None);
        };
        session.normalize_loaded();
        ImageStore::new(&self.home).load_all(session.all_messages())?;
        Ok(Some(session))
    }

    /// Appends one record as one line, with credentials redacted first (see
    /// [`redact`]), under an exclusive lock so concurrent runs never
    /// interleave.
    pub(crate) fn append_finetune(&self, record: &FinetuneRecord) -> Result<()> {
        let path = self.finetune_path();
        let context = || format!("cannot append to `{}`", path.display());
        let mut named = record.clone();
        let messages = named.messages.iter_mut();
        let markers = named.compactions.iter_mut();
        let marked = markers.flat_map(|c| c.replaced.iter_mut().chain(c.by.iter_mut()));
        ImageStore::new(&self.home).name_all(messages.chain(marked))?;
        let mut value = serde_json::to_value(&named)
            .map_err(|e| Error::Server(format!("cannot encode the finetune record: {e}")))?;
        let redactions = crate::secrets::shapes::redact_value(&mut value);
        value["redactions"] = Value::from(redactions);
        let mut line = value.to_string();
        line.push('\n');
        fsutil::private_dir(&self.home).map_err(|e| Error::io(context(), e))?;
        fsutil::append_locked(&path, line.as_bytes()).map_err(|e| Error::io(context(), e))
    }
}
