//! The project config `./.ollama-code.json` as the permission code sees it:
//! it holds rules for later runs, so the model must never change it. Only
//! the user's "always" answers add to it ([`add_allow_rule`]), and any change
//! a command makes to it is undone ([`ProjectConfigGuard`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// File name of the project config, looked up in the working directory.
pub const PROJECT_CONFIG: &str = ".ollama-code.json";
/// The project config, which a model must never rewrite: it holds
/// permission rules for later runs.
pub fn is_project_config(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == PROJECT_CONFIG)
}

/// Appends `{"action": "allow", "rule": rule}` to `permissions.rules` of
/// the project config at `path`, creating the file if needed and keeping
/// everything else in it. Returns the file's path.
///
/// Errors: the file exists but is not a JSON object (it is left untouched),
/// or it cannot be written.
pub fn add_allow_rule(path: &Path, rule: &str) -> Result<PathBuf> {
    let path = path.to_path_buf();
    let mut config: serde_json::Value =
        match std::fs::read_to_string(&path) {
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
pub struct ProjectConfigGuard {
    /// The config in use.
    path: PathBuf,
    /// Config files and their bytes (`None`: no file).
    configs: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// `.git` entries that did not exist.
    absent_git: Vec<PathBuf>,
}

impl ProjectConfigGuard {
    /// Remembers the project config at `path`, in use for a run in
    /// `workspace`, and the places between `workspace` and the repository
    /// root (the first directory up holding `.git`; without one, every
    /// directory up).
    pub fn new(path: &Path, workspace: &Path) -> Self {
        let mut configs = vec![(path.to_path_buf(), read_file(path))];
        let mut absent_git = Vec::new();
        for dir in workspace.ancestors() {
            let config = dir.join(PROJECT_CONFIG);
            if config != path {
                let saved = read_file(&config);
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
    pub fn accept(&mut self) {
        let current = read_file(&self.path);
        if let Some(entry) = self.configs.iter_mut().find(|(p, _)| *p == self.path) {
            entry.1 = current;
        }
    }

    /// Puts back what changed; says what, for the model.
    pub fn restore(&self) -> Option<String> {
        let mut said: Vec<String> = self
            .configs
            .iter()
            .filter_map(|(path, saved)| restore_config(path, saved.as_deref()))
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

/// The bytes of a regular file at `path`, or `None`.
fn read_file(path: &Path) -> Option<Vec<u8>> {
    let is_file = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_file());
    if is_file {
        std::fs::read(path).ok()
    } else {
        None
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

/// Puts one config file back as `saved` (`None`: no file) if it changed.
fn restore_config(path: &Path, saved: Option<&[u8]>) -> Option<String> {
    let exists = path.symlink_metadata().is_ok();
    let current = read_file(path);
    if current.as_deref() == saved && exists == saved.is_some() {
        return None;
    }
    if exists && let Err(e) = remove(path) {
        return Some(format!(
            "the command changed `{}`, and it could not be put back: {e}",
            path.display()
        ));
    }
    let write = |bytes: &[u8]| crate::fsutil::write_atomic(path, bytes, 0o666);
    if let Some(bytes) = saved
        && let Err(e) = write(bytes).or_else(|_| {
            if let Some(parent) = path.parent() {
                add_owner_rights(parent, 0o300);
            }
            write(bytes)
        })
    {
        return Some(format!(
            "the command changed `{}`, and it could not be put back: {e}",
            path.display()
        ));
    }
    Some(format!(
        "the command changed `{}`, oc's project config, which the agent may not change; the change was undone",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_file;

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
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["model"], "m");
        assert_eq!(value["extra"], 1);
        assert_eq!(value["permissions"]["rules"][1]["rule"], "edit(src/a.rs)");
        std::fs::write(&path, "{broken").unwrap();
        assert!(add_allow_rule(&dir.path().join(PROJECT_CONFIG), "bash").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{broken");
    }
}
