//! The workspace root and path confinement: every path a tool touches is
//! resolved to its real location (symlinks included) and must stay inside
//! the canonical root.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::sandbox::policy::Sandbox;

/// The directory the agent works in. Tools never touch anything outside it.
#[derive(Debug, Clone)]
pub(crate) struct Workspace {
    root: PathBuf,
    /// Environment variables commands run in the workspace do not get
    /// (the model server's API key).
    hidden_env: Vec<String>,
    /// How commands run in the workspace are confined.
    sandbox: Arc<Sandbox>,
}

/// A path a tool may use: its real absolute location and how to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolvedPath {
    /// Real path (symlinks resolved; for a path that does not exist yet,
    /// its deepest existing ancestor resolved plus the remaining names).
    pub real: PathBuf,
    /// Relative to the workspace root, `/`-separated; `.` for the root.
    pub display: String,
}

impl Workspace {
    /// Opens `dir` as the workspace. Errors when it does not exist or is not
    /// a directory.
    pub(crate) fn new(dir: &Path) -> std::io::Result<Self> {
        let root = dir.canonicalize()?;
        if !root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("`{}` is not a directory", dir.display()),
            ));
        }
        let sandbox = Arc::new(Sandbox::off(&root));
        Ok(Workspace {
            root,
            hidden_env: Vec::new(),
            sandbox,
        })
    }

    /// The same workspace, its commands confined by `sandbox`.
    pub(crate) fn confined(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = Arc::new(sandbox);
        self
    }

    /// How commands run in the workspace are confined.
    pub(crate) fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The same workspace, with `name` left out of the environment of
    /// every command run in it.
    pub(crate) fn hiding_env(mut self, name: &str) -> Self {
        self.hidden_env.push(name.to_string());
        self
    }

    /// Environment variables left out of commands' environment.
    pub(crate) fn hidden_env(&self) -> &[String] {
        &self.hidden_env
    }

    /// The canonical root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (relative to the root, or absolute) to its real
    /// location and checks that it stays inside the workspace.
    ///
    /// Errors (a sentence for the model): empty path, `~`, a dangling
    /// symlink, `..` through a directory that does not exist, or a real
    /// location outside the root.
    pub(crate) fn resolve(&self, path: &str) -> Result<ResolvedPath, String> {
        let trimmed = path.trim();
        if trimmed.is_empty() {
            return Err("the path is empty; give a path relative to the workspace".into());
        }
        if trimmed.starts_with('~') {
            return Err(format!(
                "`{trimmed}` is in a home directory, outside the workspace `{}`; use paths inside the workspace",
                self.root.display()
            ));
        }
        let joined = self.root.join(trimmed);
        let real = real_location(&joined).map_err(|why| format!("`{trimmed}`: {why}"))?;
        if !real.starts_with(&self.root) {
            return Err(format!(
                "`{trimmed}` resolves to `{}`, outside the workspace `{}`; only paths inside the workspace can be used",
                real.display(),
                self.root.display()
            ));
        }
        Ok(ResolvedPath {
            display: self.display(&real),
            real,
        })
    }

    /// Like [`Workspace::resolve`], but a final symlink is not followed: the
    /// result names the link itself (its directory resolved and confined).
    /// For moving or replacing a link rather than what it points to.
    pub(crate) fn resolve_link(&self, path: &str) -> Result<ResolvedPath, String> {
        let trimmed = path.trim().trim_end_matches('/');
        let joined = self.root.join(trimmed);
        let is_link = joined
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink());
        let (Some(parent), Some(name), true) = (joined.parent(), joined.file_name(), is_link)
        else {
            return self.resolve(path);
        };
        let parent = self.resolve(&parent.to_string_lossy())?;
        let real = parent.real.join(name);
        Ok(ResolvedPath {
            display: self.display(&real),
            real,
        })
    }

    /// `real` relative to the root, `/`-separated (`.` for the root itself).
    pub(crate) fn display(&self, real: &Path) -> String {
        match real.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => real.display().to_string(),
        }
    }
}

/// The real location of `path`: canonical when it exists, else its deepest
/// existing ancestor made canonical plus the names that do not exist yet.
fn real_location(path: &Path) -> Result<PathBuf, String> {
    if path.symlink_metadata().is_ok() {
        return path.canonicalize().map_err(|_| {
            "is a symlink whose target does not exist (a dangling symlink); it cannot be used"
                .to_string()
        });
    }
    let mut missing: Vec<Component<'_>> = Vec::new();
    let mut ancestor = path;
    loop {
        let Some(name) = ancestor.components().next_back() else {
            return Err("has no existing parent directory".into());
        };
        missing.push(name);
        let Some(parent) = ancestor.parent() else {
            return Err("has no existing parent directory".into());
        };
        ancestor = parent;
        if ancestor.symlink_metadata().is_ok() {
            break;
        }
    }
    let mut real = ancestor.canonicalize().map_err(|_| {
        format!(
            "goes through `{}`, a dangling symlink; it cannot be used",
            ancestor.display()
        )
    })?;
    for component in missing.into_iter().rev() {
        match component {
            Component::Normal(name) => real.push(name),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err("uses `..` through a directory that does not exist".into());
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err("is not a valid path".into());
            }
        }
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn paths_inside_resolve_and_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "x").unwrap();
        symlink(outside.path(), dir.path().join("escape")).unwrap();
        symlink(outside.path().join("nope"), dir.path().join("dangling")).unwrap();
        symlink(dir.path().join("src/a.rs"), dir.path().join("inner-link")).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();

        assert_eq!(ws.resolve("src/a.rs").unwrap().display, "src/a.rs");
        assert_eq!(ws.resolve("./src/../src/a.rs").unwrap().display, "src/a.rs");
        assert_eq!(
            ws.resolve("new/dir/file.txt").unwrap().display,
            "new/dir/file.txt"
        );
        assert_eq!(ws.resolve("inner-link").unwrap().display, "src/a.rs");
        assert_eq!(ws.resolve(".").unwrap().display, ".");
        let abs = dir.path().join("src/a.rs");
        assert_eq!(
            ws.resolve(abs.to_str().unwrap()).unwrap().display,
            "src/a.rs"
        );

        // A link itself, not its target, when asked for.
        assert_eq!(ws.resolve_link("inner-link").unwrap().display, "inner-link");
        assert_eq!(ws.resolve_link("escape").unwrap().display, "escape");
        assert_eq!(ws.resolve_link("src/a.rs").unwrap().display, "src/a.rs");
        assert!(ws.resolve_link("../x").is_err());
        for bad in [
            "../x",
            "../../etc/passwd",
            "/etc/passwd",
            "/proc/self/environ",
            "~/.ssh/id_rsa",
            "escape/file",
            "escape",
            "dangling",
            "new/../../x",
            "",
        ] {
            assert!(ws.resolve(bad).is_err(), "{bad} should be refused");
        }
    }
}
