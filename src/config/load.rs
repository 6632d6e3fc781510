//! Loading the settings of one invocation from disk and the environment:
//! `OC_HOME/config.json`, the project config found from the workspace up to
//! the repository root, `--config FILE`, the environment, then the flags.
//! Warnings (unknown keys, a remote host in a project config) are returned
//! for the caller to show.

use std::path::{Path, PathBuf};

use super::defaults::USER_CONFIG;
use super::env::{EnvValues, resolve_home};
use super::file::{self, LoadedFile};
use super::flags::Overrides;
use super::settings::Settings;
use super::{runtime, sandbox};
use crate::error::{Error, Result};
use crate::permissions::project_config::PROJECT_CONFIG;
use crate::vocab::Mode;

/// Where the settings come from, besides the environment.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sources<'a> {
    /// `--home`.
    pub home: Option<&'a Path>,
    /// `-C DIR`: the workspace (default: the current directory).
    pub cwd: Option<&'a Path>,
    /// `--config FILE`.
    pub config: Option<&'a Path>,
}

/// Reads the environment and the config files and resolves the settings.
/// Returns the warnings met on the way (unknown keys, a remote host in a
/// project config), also when the settings are in error.
///
/// Errors (exit 2): an unusable workspace or `OC_HOME`, a malformed config
/// file (with its line and column), a missing `--config` file, an invalid
/// value anywhere.
pub(crate) fn load(
    sources: Sources<'_>,
    flags: &Overrides,
    mode: Mode,
) -> (Vec<String>, Result<Settings>) {
    let mut warnings = Vec::new();
    let settings = load_with(sources, flags, mode, &mut warnings);
    (warnings, settings)
}

fn load_with(
    sources: Sources<'_>,
    flags: &Overrides,
    mode: Mode,
    warnings: &mut Vec<String>,
) -> Result<Settings> {
    let env = EnvValues::from_process();
    let cwd = workspace_dir(sources.cwd)?;
    let home = usable_home(sources.home, &env)?;
    let mut files: Vec<LoadedFile> = Vec::new();
    files.extend(file::load_file(&home.join(USER_CONFIG))?);
    let project_config = find_project_config(&cwd);
    if let Some(mut project) = file::load_file(&project_config)? {
        warnings.extend(file::drop_untrusted_server(&mut project));
        warnings.extend(sandbox::drop_untrusted_sandbox(&mut project));
        warnings.extend(runtime::drop_untrusted_opencode(&mut project));
        files.push(project);
    }
    if let Some(path) = sources.config {
        match file::load_file(path)? {
            Some(loaded) => files.push(loaded),
            None => {
                return Err(Error::Usage(format!(
                    "config file `{}` (from `--config`) does not exist",
                    path.display()
                )));
            }
        }
    }
    for loaded in &files {
        for key in &loaded.unknown_keys {
            let hint = file::closest_key(key)
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            warnings.push(format!(
                "config file `{}`: unknown key `{key}` is ignored{hint}",
                loaded.path.display()
            ));
        }
    }
    let agents = project_instructions(&cwd);
    let mut settings = Settings::resolve(flags, mode, &env, &files, cwd, home)?;
    settings.project_config = project_config;
    if let Some(path) = &flags.system_prompt_file {
        let text = crate::fsutil::read_to_string(path).map_err(|e| {
            Error::Usage(format!(
                "cannot read the system prompt `{}` (from `--system-prompt`): {e}",
                path.display()
            ))
        })?;
        settings.system_prompt = Some(text);
    }
    settings.instructions = match (agents, settings.instructions.take()) {
        (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
        (a, b) => a.or(b),
    };
    Ok(settings)
}

/// `OC_HOME` (see [`resolve_home`]), when it is a directory or does not
/// exist yet.
///
/// Errors (exit 2): no home can be found, or it is not a directory.
pub(crate) fn usable_home(flag: Option<&Path>, env: &EnvValues) -> Result<PathBuf> {
    let home = resolve_home(flag, env)?;
    if home.exists() && !home.is_dir() {
        return Err(Error::Usage(format!(
            "`{}` (OC_HOME) is not a directory; point `OC_HOME` or `--home` at a directory",
            home.display()
        )));
    }
    Ok(home)
}

/// The project config for a workspace: the nearest `.ollama-code.json` of
/// its [`project_dirs`], or, when there is none, `cwd/.ollama-code.json`
/// (where an "always" answer creates it). Outside a repository only the
/// workspace's own file counts: a file in a directory above (`/tmp`, a
/// shared home) is no project's and must not decide the rules.
pub(crate) fn find_project_config(cwd: &Path) -> PathBuf {
    project_dirs(cwd)
        .into_iter()
        .map(|dir| dir.join(PROJECT_CONFIG))
        .find(|candidate| candidate.symlink_metadata().is_ok())
        .unwrap_or_else(|| cwd.join(PROJECT_CONFIG))
}

/// The directories whose project files apply to a workspace, nearest
/// first: from `cwd` up to the repository root (the first directory holding
/// `.git`), or only `cwd` outside a repository.
fn project_dirs(cwd: &Path) -> Vec<&Path> {
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        dirs.push(dir);
        if dir.join(".git").exists() {
            return dirs;
        }
    }
    dirs.truncate(1);
    dirs
}

/// Names of the files holding instructions for agents: the shared
/// convention, then oc's own.
const INSTRUCTION_FILES: [&str; 2] = ["AGENTS.md", ".ollama-code.md"];

/// Most bytes of project instructions put in the system prompt.
pub(crate) const MAX_INSTRUCTIONS_BYTES: usize = 4 * 1024;

/// The project's instructions for agents: every `AGENTS.md` (or
/// `.ollama-code.md`) from the repository root down to the workspace, the
/// outermost first, each headed by its path; at most
/// [`MAX_INSTRUCTIONS_BYTES`], the nearest kept when there is too much.
pub(crate) fn project_instructions(cwd: &Path) -> Option<String> {
    let dirs = project_dirs(cwd);
    let top = dirs.last().and_then(|d| d.canonicalize().ok());
    let mut parts: Vec<String> = Vec::new();
    let mut left = MAX_INSTRUCTIONS_BYTES;
    for dir in dirs {
        let Some((name, text)) = INSTRUCTION_FILES
            .iter()
            .find_map(|n| instruction_text(&dir.join(n), top.as_deref()?).map(|t| (*n, t)))
        else {
            continue;
        };
        let shown = dir.strip_prefix(cwd).map_or_else(
            |_| dir.join(name).display().to_string(),
            |rel| rel.join(name).display().to_string(),
        );
        let mut text = text.trim().to_string();
        if text.len() > left {
            let mut end = left;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str("\n[… cut]");
        }
        left = left.saturating_sub(text.len());
        parts.push(format!("Instructions from {shown}:\n{text}"));
        if left == 0 {
            break;
        }
    }
    parts.reverse();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The text of an instructions file, if it is one: a file, or a link to
/// one, inside the repository (`top`) and not a secret `.env` file. A link
/// that leads out (a command may have made `AGENTS.md → ~/.aws/credentials`)
/// is not read: `oc` reads these itself, outside the sandbox.
fn instruction_text(path: &Path, top: &Path) -> Option<String> {
    let real = path.canonicalize().ok()?;
    let inside = real.starts_with(top) && !crate::secrets::is_secret_env_file(&real);
    inside
        .then(|| crate::fsutil::read_to_string(&real).ok())
        .flatten()
}

/// The workspace: `flag` or the current directory, canonical.
fn workspace_dir(flag: Option<&Path>) -> Result<PathBuf> {
    let dir = match flag {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| Error::io("cannot read the current directory", e))?,
    };
    let canonical = dir.canonicalize().map_err(|e| {
        Error::Usage(format!(
            "cannot use `{}` as the working directory: {e}",
            dir.display()
        ))
    })?;
    if !canonical.is_dir() {
        return Err(Error::Usage(format!(
            "`{}` is not a directory; pass a directory to `-C`",
            dir.display()
        )));
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_config_is_found_up_to_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let sub = root.join("src/deep");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        assert_eq!(find_project_config(&sub), sub.join(PROJECT_CONFIG));
        std::fs::write(root.join(PROJECT_CONFIG), "{}").unwrap();
        assert_eq!(find_project_config(&sub), root.join(PROJECT_CONFIG));
        std::fs::write(root.join("src").join(PROJECT_CONFIG), "{}").unwrap();
        assert_eq!(
            find_project_config(&sub),
            root.join("src").join(PROJECT_CONFIG),
            "the nearest wins"
        );
        // Not above the repository root.
        std::fs::write(dir.path().join(PROJECT_CONFIG), "{}").unwrap();
        std::fs::remove_file(root.join(PROJECT_CONFIG)).unwrap();
        std::fs::remove_file(root.join("src").join(PROJECT_CONFIG)).unwrap();
        assert_eq!(find_project_config(&sub), sub.join(PROJECT_CONFIG));
    }

    /// Outside a repository, a file in a directory above (a shared `/tmp`)
    /// is nobody's project config.
    #[test]
    fn outside_a_repository_only_the_workspace_file_counts() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("work/sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(dir.path().join("work").join(PROJECT_CONFIG), "{}").unwrap();
        assert_eq!(find_project_config(&sub), sub.join(PROJECT_CONFIG));
        std::fs::write(sub.join(PROJECT_CONFIG), "{}").unwrap();
        assert_eq!(find_project_config(&sub), sub.join(PROJECT_CONFIG));
    }
}
