//! A checkpoint store in a git repository: the workspace's files are added
//! to a throwaway index (a copy of the repository's, so unchanged files
//! cost nothing) and written as objects to the repository's object store,
//! as `git stash create` would, without touching the user's branches,
//! index or stash. Ignored files are not covered. The objects are
//! unreferenced: `git gc` prunes them after its grace period (two weeks by
//! default), and with them the run's undo.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::record::{Blob, StoreKind};
use super::store::{Store, Taken};

/// The object store of a git repository.
pub struct GitObjects {
    git_dir: PathBuf,
}

impl GitObjects {
    /// The store of the repository whose work tree holds `root`; `None`
    /// when there is none, or git cannot be run.
    pub fn open(root: &Path) -> Option<GitObjects> {
        let out = git(root, &["rev-parse", "--absolute-git-dir"], None).ok()?;
        let git_dir = String::from_utf8(out).ok()?;
        let inside = git(root, &["rev-parse", "--is-inside-work-tree"], None).ok()?;
        (inside.trim_ascii() == b"true").then(|| GitObjects::at(PathBuf::from(git_dir.trim())))
    }

    /// The store of the repository whose git directory is `git_dir`.
    pub fn at(git_dir: PathBuf) -> GitObjects {
        GitObjects { git_dir }
    }
}

impl Store for GitObjects {
    fn kind(&self) -> StoreKind {
        StoreKind::Git
    }

    fn location(&self) -> String {
        self.git_dir.display().to_string()
    }

    fn snapshot(&self, root: &Path) -> Result<Taken, String> {
        // A path git creates when the repository has no index yet.
        let scratch =
            tempfile::tempdir().map_err(|e| format!("cannot make a temporary git index: {e}"))?;
        let index = scratch.path().join("index");
        let real_index = self.git_dir.join("index");
        if real_index.exists() {
            std::fs::copy(&real_index, &index)
                .map_err(|e| format!("cannot copy the git index: {e}"))?;
        }
        let index = Some(index.as_path());
        git(root, &["add", "--all", "--ignore-errors", "--", "."], index)?;
        let tree = git(root, &["write-tree"], index)?;
        let tree = String::from_utf8_lossy(&tree).trim().to_string();
        let prefix = git(root, &["rev-parse", "--show-prefix"], None)?;
        let prefix = String::from_utf8_lossy(&prefix).trim().to_string();
        let listing = git(root, &["ls-tree", "-r", "-z", "--full-tree", &tree], None)?;
        let mut taken = Taken {
            files: Default::default(),
            skipped: Vec::new(),
        };
        for entry in listing.split(|b| *b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((head, path)) = entry.split_once('\t') else {
                continue;
            };
            let fields: Vec<&str> = head.split(' ').collect();
            let (Some(rel), [mode, "blob", id]) = (path.strip_prefix(&prefix), fields.as_slice())
            else {
                continue;
            };
            let blob = Blob {
                id: id.to_string(),
                executable: *mode == "100755",
                symlink: *mode == "120000",
            };
            taken.files.insert(rel.to_string(), blob);
        }
        Ok(taken)
    }

    fn blob_of(&self, root: &Path, rel: &str) -> Result<Option<Blob>, String> {
        let path = root.join(rel);
        let Ok(meta) = path.symlink_metadata() else {
            return Ok(None);
        };
        let symlink = meta.file_type().is_symlink();
        if !symlink && !meta.is_file() {
            return Ok(None);
        }
        let id = if symlink {
            let target = std::fs::read_link(&path)
                .map_err(|e| format!("cannot read the link `{}`: {e}", path.display()))?;
            let bytes = target.as_os_str().as_encoded_bytes();
            hash_stdin(root, bytes)?
        } else {
            git(root, &["hash-object", "--", rel], None)?
        };
        Ok(Some(Blob {
            id: String::from_utf8_lossy(&id).trim().to_string(),
            executable: !symlink && meta.permissions().mode() & 0o111 != 0,
            symlink,
        }))
    }

    fn read(&self, root: &Path, rel: &str, blob: &Blob) -> Result<Vec<u8>, String> {
        if blob.symlink {
            return git(root, &["cat-file", "blob", &blob.id], None);
        }
        let path = format!("--path={rel}");
        git(root, &["cat-file", "--filters", &path, &blob.id], None)
    }
}

/// Runs `git ARGS` in `root` (with `index` as its index file) and returns
/// its stdout.
///
/// Errors: git cannot be started, or exits non-zero (its stderr quoted).
fn git(root: &Path, args: &[&str], index: Option<&Path>) -> Result<Vec<u8>, String> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null());
    if let Some(index) = index {
        command.env("GIT_INDEX_FILE", index);
    }
    let out = command
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// `git hash-object --stdin` of `bytes`, without filters (a link target).
fn hash_stdin(root: &Path, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["hash-object", "--no-filters", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(bytes)
            .map_err(|e| format!("cannot hash with git: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot hash with git: {e}"))?;
    Ok(out.stdout)
}
