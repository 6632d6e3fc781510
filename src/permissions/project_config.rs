//! The project config `./.ollama-code.json` as the permission code sees it:
//! it holds rules for later runs, so the model must never change it. Only
//! the user's "always" answers add to it ([`add_allow_rule`]), and any change
//! a command makes to it is undone ([`ProjectConfigGuard`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// File name of the project config, looked up in the working directory.
pub(crate) const PROJECT_CONFIG: &str = ".ollama-code.json";
/// The project config, which a model must never rewrite: it holds
/// permission rules for later runs.
pub(crate) fn is_project_config(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == PROJECT_CONFIG)
}

/// Appends `{"action": "allow", "rule": rule}` to `permissions.rules` of
/// the project config at `path`, creating the file if needed and keeping
/// everything else in it. Returns the file's path.
///
/// Errors: the file exists but is not a JSON object (it is left untouched),
/// or it cannot be written.
pub(crate) fn add_allow_rule(path: &Path, rule: &str) -> Result<PathBuf> {
    let path = path.to_path_buf();
    let mut config: serde_json::Value =
        match crate::fsutil::read_to_string(&path) {
            Ok(text) if text.trim().is_empty() => serde_json::json!({}),
            Ok(text) => serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
                .map_err(|e| Error::ConfigSyntax {
                    path: path.clone(),
                    line: e.line(),
                    column: e.column(),
                    message: "cannot add the rule to a file that is not valid JSON".into(),
                })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
            Err(source) => return Err(Error::ConfigRead { path, source }),
        };
    let not_object = || {
        Error::Usage(format!(
            "cannot add the rule to `{}`: it must hold a JSON object with `permissions.rules` a list",
            path.display()
        ))
    };
    let permissions = config
        .as_object_mut()
        .ok_or_else(not_object)?
        .entry("permissions")
        .or_insert_with(|| serde_json::json!({}));
    let rules = permissions
        .as_object_mut()
        .ok_or_else(not_object)?
        .entry("rules")
        .or_insert_with(|| serde_json::json!([]))
        .as_array_mut()
        .ok_or_else(not_object)?;
    let entry = serde_json::json!({"action": "allow", "rule": rule});
    if !rules.contains(&entry) {
        rules.push(entry);
    }
    let mut text = serde_json::to_string_pretty(&config)
        .map_err(|e| Error::Server(format!("cannot encode `{}`: {e}", path.display())))?;
    text.push('\n');
    crate::fsutil::write_atomic(&path, text.as_bytes(), 0o666)
        .map_err(|e| Error::io(format!("cannot write `{}`", path.display()), e))?;
    Ok(path)
}

/// What decides the next run's rules, as it was when the run began (or
/// after `oc` itself added a rule): the project config in use, every place
/// between the workspace and the repository root where a new
/// `.ollama-code.json` would shadow it, and every place there where a new
/// `.git` would end the next run's lookup before it reaches it. A shell
/// command can reach these in ways no rule can see (`> .ollama-code.js*`,
/// `git init`, `mkdir .git`), so after every command they are compared and,
/// if changed, put back.
pub(crate) struct ProjectConfigGuard {
    /// The config in use.
    path: PathBuf,
    /// Config files as they were.
    configs: Vec<(PathBuf, Saved)>,
    /// `.git` entries that did not exist.
    absent_git: Vec<PathBuf>,
}

impl ProjectConfigGuard {
    /// Remembers the project config at `path`, in use for a run in
    /// `workspace`, and the places between `workspace` and the repository
    /// root (the first directory up holding `.git`; without one, every
    /// directory up).
    pub(crate) fn new(path: &Path, workspace: &Path) -> Self {
        let mut configs = vec![(path.to_path_buf(), Saved::capture(path))];
        let mut absent_git = Vec::new();
        for dir in workspace.ancestors() {
            let config = dir.join(PROJECT_CONFIG);
            if config != path {
                let saved = Saved::capture(&config);
                configs.push((config, saved));
            }
            let git = dir.join(".git");
            if git.symlink_metadata().is_ok() {
                break;
            }
            absent_git.push(git);
        }
        ProjectConfigGuard {
            path: path.to_path_buf(),
            configs,
            absent_git,
        }
    }

    /// Takes the config in use as the new original (after `oc` changed it).
    pub(crate) fn accept(&mut self) {
        let current = Saved::capture(&self.path);
        if let Some(entry) = self.configs.iter_mut().find(|(p, _)| *p == self.path) {
            entry.1 = current;
        }
    }

    /// Puts back what changed; says what, for the model.
    pub(crate) fn restore(&self) -> Option<String> {
        let mut said: Vec<String> = self
            .configs
            .iter()
            .filter_map(|(path, saved)| restore_config(path, saved))
            .collect();
        for git in &self.absent_git {
            if git.symlink_metadata().is_err() {
                continue;
            }
            said.push(match remove(git) {
                Ok(()) => format!(
                    "the command made `{}`, which would change where later runs find their rules; it was removed",
                    git.display()
                ),
                Err(e) => format!(
                    "the command made `{}`, which would change where later runs find their rules, and it could not be removed: {e}",
                    git.display()
                ),
            });
        }
        (!said.is_empty()).then(|| said.join("; "))
    }
}

/// What was at a config's place.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Saved {
    Absent,
    /// A regular file and its bytes.
    File(Vec<u8>),
    /// A symbolic link (a user's own setup): where it points, and the bytes
    /// read through it (`None`: it dangles).
    Link {
        target: PathBuf,
        content: Option<Vec<u8>>,
    },
    /// Something else (a folder): left alone.
    Other,
}

impl Saved {
    fn capture(path: &Path) -> Saved {
        match path.symlink_metadata() {
            Err(_) => Saved::Absent,
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(path) {
                Ok(target) => Saved::Link {
                    target,
                    content: crate::fsutil::read(path).ok(),
                },
                Err(_) => Saved::Other,
            },
            Ok(m) if m.file_type().is_file() => {
                crate::fsutil::read(path).map_or(Saved::Other, Saved::File)
            }
            Ok(_) => Saved::Other,
        }
    }
}

/// Removes a file, link or folder at `path`; when the command took the
/// write permission away (`chmod 555 .`, `chmod 0 .git`), gives it back to
/// the owner first.
fn remove(path: &Path) -> std::io::Result<()> {
    let attempt = || {
        if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        }
    };
    attempt().or_else(|_| {
        if let Some(parent) = path.parent() {
            add_owner_rights(parent, 0o300);
        }
        if path.is_dir() && !path.is_symlink() {
            for entry in walkdir_all(path) {
                add_owner_rights(&entry, 0o700);
            }
        }
        attempt()
    })
}

/// Adds `bits` to the owner's rights of the folder `path` (never through a
/// link).
fn add_owner_rights(path: &Path, bits: u32) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = path.symlink_metadata()
        && meta.is_dir()
    {
        let mode = meta.permissions().mode() | bits;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
    }
}

/// `path` and the folders beneath it (after opening each up, so that it
/// can be listed).
fn walkdir_all(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        add_owner_rights(&out[i].clone(), 0o700);
        if let Ok(entries) = std::fs::read_dir(&out[i]) {
            out.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path()),
            );
        }
        i += 1;
    }
    out
}

/// Puts one config back as `saved` if it changed: a file's bytes; a link,
/// and the bytes of the file it points to.
fn restore_config(path: &Path, saved: &Saved) -> Option<String> {
    let current = Saved::capture(path);
    if current == *saved || *saved == Saved::Other {
        return None;
    }
    let failed = |e: std::io::Error| {
        Some(format!(
            "the command changed `{}`, and it could not be put back: {e}",
            path.display()
        ))
    };
    let write = |to: &Path, bytes: &[u8]| {
        crate::fsutil::write_atomic(to, bytes, 0o666).or_else(|_| {
            if let Some(parent) = to.parent() {
                add_owner_rights(parent, 0o300);
            }
            crate::fsutil::write_atomic(to, bytes, 0o666)
        })
    };
    let same_link = matches!((&current, saved), (Saved::Link { target: now, .. }, Saved::Link { target, .. }) if now == target);
    if current != Saved::Absent
        && !same_link
        && let Err(e) = remove(path)
    {
        return failed(e);
    }
    let restored = match saved {
        Saved::File(bytes) => write(path, bytes),
        Saved::Link { target, content } => {
            let linked = match same_link {
                true => Ok(()),
                false => std::os::unix::fs::symlink(target, path),
            };
            // Written where the link points, never over the link.
            let real = path.parent().unwrap_or(Path::new(".")).join(target);
            match (linked, content) {
                (Ok(()), Some(bytes)) if crate::fsutil::read(path).ok().as_ref() != Some(bytes) => {
                    write(&real, bytes)
                }
                (linked, _) => linked,
            }
        }
        Saved::Absent | Saved::Other => Ok(()),
    };
    if let Err(e) = restored {
        return failed(e);
    }
    Some(format!(
        "the command changed `{}`, oc's project config, which the agent may not change; the change was undone",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::file::load_file;

    #[test]
    fn a_linked_config_is_kept_and_put_back_through_its_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("cfg")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("cfg/oc.json"), "{\"a\": 1}").unwrap();
        let config = root.join(PROJECT_CONFIG);
        std::os::unix::fs::symlink("cfg/oc.json", &config).unwrap();
        let guard = ProjectConfigGuard::new(&config, root);
        assert_eq!(guard.restore(), None, "nothing changed");
        assert!(config.is_symlink());
        std::fs::write(root.join("cfg/oc.json"), "{}").unwrap();
        assert!(guard.restore().is_some());
        assert!(config.is_symlink());
        assert_eq!(
            crate::fsutil::read_to_string(&config).unwrap(),
            "{\"a\": 1}"
        );
        std::fs::remove_file(&config).unwrap();
        std::fs::write(&config, "{}").unwrap();
        assert!(guard.restore().is_some());
        assert!(config.is_symlink());
        assert_eq!(
            crate::fsutil::read_to_string(&config).unwrap(),
            "{\"a\": 1}"
        );
    }

    #[test]
    fn allow_rules_are_added_keeping_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = add_allow_rule(&dir.path().join(PROJECT_CONFIG), "bash(cargo test)").unwrap();
        add_allow_rule(&dir.path().join(PROJECT_CONFIG), "bash(cargo test)").unwrap();
        let loaded = load_file(&path).unwrap().unwrap();
        assert_eq!(loaded.config.permissions.unwrap().rules.len(), 1);
        std::fs::write(&path, r#"{"model": "m", "permissions": {"rules": [{"action": "deny", "rule": "bash"}]}, "extra": 1}"#).unwrap();
        add_allow_rule(&dir.path().join(PROJECT_CONFIG), "edit(src/a.rs)").unwrap();
        let value: serde_json::Value =
            serde_json::from_str(&crate::fsutil::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["model"], "m");
        assert_eq!(value["extra"], 1);
        assert_eq!(value["permissions"]["rules"][1]["rule"], "edit(src/a.rs)");
        std::fs::write(&path, "{broken").unwrap();
        assert!(add_allow_rule(&dir.path().join(PROJECT_CONFIG), "bash").is_err());
        assert_eq!(crate::fsutil::read_to_string(&path).unwrap(), "{broken");
    }
}
