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

/// The project config as it was when the run began (or after `oc` itself
/// added a rule). A shell command can reach the file in ways no rule can
/// see (`> .ollama-code.js*`), so after every command the file is compared
/// and, if changed, put back.
pub struct ProjectConfigGuard {
    path: PathBuf,
    /// The bytes, or `None` when there was no file.
    saved: Option<Vec<u8>>,
}

impl ProjectConfigGuard {
    /// Remembers the project config at `path` as it is now.
    pub fn new(path: &Path) -> Self {
        let path = path.to_path_buf();
        let saved = Self::read(&path);
        ProjectConfigGuard { path, saved }
    }

    fn read(path: &Path) -> Option<Vec<u8>> {
        let is_file = path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_file());
        if is_file {
            std::fs::read(path).ok()
        } else {
            None
        }
    }

    /// Takes the current file as the new original (after `oc` changed it).
    pub fn accept(&mut self) {
        self.saved = Self::read(&self.path);
    }

    /// Puts the file back if it changed; says so, for the model.
    pub fn restore(&self) -> Option<String> {
        let exists = self.path.symlink_metadata().is_ok();
        let current = Self::read(&self.path);
        if current == self.saved && (exists == self.saved.is_some()) {
            return None;
        }
        if exists {
            let removed = if self.path.is_dir() && !self.path.is_symlink() {
                std::fs::remove_dir_all(&self.path)
            } else {
                std::fs::remove_file(&self.path)
            };
            if let Err(e) = removed {
                return Some(format!(
                    "the command changed `{}`, and it could not be put back: {e}",
                    PROJECT_CONFIG
                ));
            }
        }
        if let Some(bytes) = &self.saved
            && let Err(e) = crate::fsutil::write_atomic(&self.path, bytes, 0o666)
        {
            return Some(format!(
                "the command changed `{}`, and it could not be put back: {e}",
                PROJECT_CONFIG
            ));
        }
        Some(format!(
            "the command changed `{}`, oc's project config, which the agent may not change; the change was undone",
            PROJECT_CONFIG
        ))
    }
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
