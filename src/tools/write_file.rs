//! `write_file {path, content}`: creates or replaces a whole file, atomically.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{FileChange, Workspace};

/// Arguments of `write_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Args {
    /// File path, relative to the workspace
    pub path: String,
    /// The whole new content of the file
    pub content: String,
}

/// Computes the change; nothing is written until [`FileChange::apply`].
pub fn prepare(args: &Args, ws: &Workspace) -> Result<FileChange, String> {
    let path = ws.resolve(&args.path)?;
    if path.real.is_dir() {
        return Err(format!("{} is a directory; give a file path", path.display));
    }
    let before = match std::fs::read(&path.real) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display)),
    };
    Ok(FileChange {
        path,
        before,
        after: args.content.clone(),
        note: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_parents_then_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let args = Args {
            path: "a/b/c.txt".into(),
            content: "one\ntwo\n".into(),
        };
        let out = prepare(&args, &ws).unwrap().apply();
        assert!(out.ok);
        assert_eq!(out.summary, "created a/b/c.txt (+2 -0)");
        assert_eq!(out.changed, vec!["a/b/c.txt".to_string()]);
        let args = Args {
            path: "a/b/c.txt".into(),
            content: "one\nTWO\n".into(),
        };
        let out = prepare(&args, &ws).unwrap().apply();
        assert_eq!(out.summary, "updated a/b/c.txt (+1 -1)");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
            "one\nTWO\n"
        );
        let out = prepare(&args, &ws).unwrap().apply();
        assert_eq!(out.summary, "a/b/c.txt: no change");
        assert!(
            prepare(
                &Args {
                    path: "a".into(),
                    content: String::new()
                },
                &ws
            )
            .is_err()
        );
        assert!(
            prepare(
                &Args {
                    path: "../x".into(),
                    content: String::new()
                },
                &ws
            )
            .is_err()
        );
    }

    #[cfg(unix)]
    #[test]
    fn overwrite_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.sh");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let args = Args {
            path: "run.sh".into(),
            content: "new".into(),
        };
        assert!(prepare(&args, &ws).unwrap().apply().ok);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }
}
