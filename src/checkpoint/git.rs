//! A checkpoint store in a git repository: every file git would list
//! (tracked, or untracked and not ignored), and the ignored ones the
//! checkpoint keeps (`ignored.rs`), is written as a blob to the
//! repository's object store, its bytes as they are (no clean filter, no
//! line-ending conversion: undo gives back the very bytes), without touching
//! the user's branches, index or stash. The objects are unreferenced: `git gc` prunes them after its grace period
//! (two weeks by default), and with them the run's undo.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::git_trust::{Layout, check_plain, verify_blob};
use super::record::{Blob, Snapshot, StoreKind};
use super::store::{Store, Taken};

/// The object store of a git repository.
pub(super) struct GitObjects {
    git_dir: PathBuf,
}

impl GitObjects {
    /// The store of the repository whose work tree holds `root`; `None`
    /// when there is none, git cannot be run, or its object store is not a
    /// plain folder in the work tree's own `.git` ([`plain_git_dir`]).
    pub(super) fn open(root: &Path) -> Option<GitObjects> {
        plain_git_dir(root).ok().map(GitObjects::at)
    }

    /// The store of the repository whose git directory is `git_dir`.
    pub(super) fn at(git_dir: PathBuf) -> GitObjects {
        GitObjects { git_dir }
    }
}

impl GitObjects {
    /// The blob of the file (or link) at `rel`, written to the object
    /// store when `keep`; its bytes as they are, no filter applied.
    fn blob_of_kept(&self, root: &Path, rel: &str, keep: bool) -> Result<Option<Blob>, String> {
        let path = root.join(rel);
        let Ok(meta) = path.symlink_metadata() else {
            return Ok(None);
        };
        let symlink = meta.file_type().is_symlink();
        if !symlink && !meta.is_file() {
            return Ok(None);
        }
        let bytes = if symlink {
            let target = std::fs::read_link(&path)
                .map_err(|e| format!("cannot read the link `{}`: {e}", path.display()))?;
            target.as_os_str().as_encoded_bytes().to_vec()
        } else {
            crate::fsutil::read(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?
        };
        Ok(Some(Blob {
            id: hash_bytes(root, &bytes, keep)?,
            mode: if symlink {
                0
            } else {
                meta.permissions().mode() & 0o7777
            },
            symlink,
        }))
    }
}

impl Store for GitObjects {
    fn kind(&self) -> StoreKind {
        StoreKind::Git
    }

    fn location(&self) -> String {
        self.git_dir.display().to_string()
    }

    fn snapshot(&self, root: &Path, keep: bool) -> Result<Taken, String> {
        let listed = git(
            root,
            &[
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
                "--",
                ".",
            ],
        )?;
        let mut taken = Taken {
            files: Default::default(),
            skipped: Vec::new(),
        };
        let mut paths: Vec<String> = Vec::new();
        for name in listed.split(|b| *b == 0).filter(|p| !p.is_empty()) {
            match String::from_utf8(name.to_vec()) {
                Ok(name) => paths.push(name),
                // A name that is not UTF-8 cannot be recorded in the session.
                Err(_) => taken
                    .skipped
                    .push(String::from_utf8_lossy(name).into_owned()),
            }
        }
        paths.extend(repository_settings(root));
        paths.sort();
        paths.dedup();
        taken.files = self.blobs(root, &paths, keep)?;
        Ok(taken)
    }

    fn ignored(&self, root: &Path, _covered: &Taken) -> Result<Vec<String>, String> {
        let listed = git(
            root,
            &[
                "ls-files",
                "-z",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--directory",
                "--",
                ".",
            ],
        )?;
        // A name that is not UTF-8 cannot be recorded in the session.
        Ok((listed.split(|b| *b == 0))
            .filter(|p| !p.is_empty())
            .filter_map(|name| String::from_utf8(name.to_vec()).ok())
            .collect())
    }

    fn blobs(&self, root: &Path, paths: &[String], keep: bool) -> Result<Snapshot, String> {
        // Once for the whole batch: the run's commands are not running now.
        if keep {
            plain_git_dir(root)?;
        }
        let mut files = Snapshot::new();
        // The batch is given as absolute paths (git reads relative ones from
        // the repository's top, not from `root`).
        let root_plain = root.to_str().is_some_and(|r| !r.contains(['\n', '\r']));
        let mut batch: Vec<(&String, u32)> = Vec::new();
        for rel in paths {
            let Ok(meta) = root.join(rel).symlink_metadata() else {
                continue;
            };
            let mode = meta.permissions().mode() & 0o7777;
            // `--stdin-paths` unquotes a name that starts with `"` and drops
            // a trailing CR: such names are hashed one by one.
            let plain = !rel.starts_with('"') && !rel.contains(['\n', '\r']) && root_plain;
            if meta.file_type().is_symlink() || !plain {
                if let Some(blob) = self.blob_of_kept(root, rel, keep)? {
                    files.insert(rel.clone(), blob);
                }
            } else if meta.is_file() {
                batch.push((rel, mode));
            }
        }
        let ids = hash_paths(root, batch.iter().map(|(rel, _)| rel.as_str()), keep)?;
        for ((rel, mode), id) in batch.into_iter().zip(ids) {
            let blob = Blob {
                id,
                mode,
                symlink: false,
            };
            files.insert(rel.clone(), blob);
        }
        Ok(files)
    }

    fn blob_of(&self, root: &Path, rel: &str) -> Result<Option<Blob>, String> {
        self.blob_of_kept(root, rel, false)
    }

    fn read(&self, root: &Path, _rel: &str, blob: &Blob) -> Result<Vec<u8>, String> {
        let bytes = git(root, &["cat-file", "blob", &blob.id])?;
        verify_blob(&blob.id, &bytes)?;
        Ok(bytes)
    }

    fn has(&self, root: &Path, blob: &Blob) -> bool {
        git(root, &["cat-file", "-e", &blob.id]).is_ok()
    }
}

/// Most files of `.git/hooks` and `.git/info` a checkpoint covers.
const MAX_SETTINGS_FILES: usize = 200;

/// The files of the workspace's own `.git` folder that make git run
/// programs or hide files later, outside any sandbox: `config` (aliases,
/// `core.hooksPath`, `core.fsmonitor`…), the hooks, and `info/` (its
/// `exclude` hides new files from git). A run's command may write them,
/// so the checkpoint covers them like the work tree's files (undo puts
/// them back). Only a real `.git` folder in `root` counts; one above the
/// workspace is outside what the run's commands may write.
fn repository_settings(root: &Path) -> Vec<String> {
    let dot_git = root.join(".git");
    let real = dot_git
        .symlink_metadata()
        .is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink());
    if !real {
        return Vec::new();
    }
    let mut found = Vec::new();
    if dot_git.join("config").symlink_metadata().is_ok() {
        found.push(".git/config".to_string());
    }
    for folder in ["hooks", "info"] {
        let Ok(entries) = std::fs::read_dir(dot_git.join(folder)) else {
            continue;
        };
        for entry in entries.flatten().take(MAX_SETTINGS_FILES) {
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if let (false, Some(name)) = (is_dir, entry.file_name().to_str()) {
                found.push(format!(".git/{folder}/{name}"));
            }
        }
    }
    found
}

/// The git directory of the repository whose work tree holds `root`,
/// when its object store is a plain folder in the work tree's own `.git`
/// ([`check_plain`]): asked again before every write to the store, since
/// the run's commands may have changed it since the last.
///
/// Errors: no repository, git cannot be run, or a sentence saying what is
/// not plain.
pub(super) fn plain_git_dir(root: &Path) -> Result<PathBuf, String> {
    let args = [
        "rev-parse",
        "--is-inside-work-tree",
        "--show-toplevel",
        "--absolute-git-dir",
        "--git-common-dir",
        "--git-path",
        "objects",
    ];
    let out = String::from_utf8(git(root, &args)?)
        .map_err(|_| "git named its folders in bytes that are not UTF-8".to_string())?;
    let lines: Vec<&str> = out.lines().collect();
    let [inside, top, git_dir, common_dir, objects] = lines.as_slice() else {
        return Err(format!("`git rev-parse` said: {out}"));
    };
    if *inside != "true" {
        return Err("not inside a work tree".to_string());
    }
    let layout = Layout {
        top: PathBuf::from(top),
        git_dir: PathBuf::from(git_dir),
        common_dir: root.join(common_dir),
        objects: root.join(objects),
    };
    check_plain(&layout)?;
    Ok(layout.git_dir)
}

/// Runs `git ARGS` in `root` and returns its stdout.
///
/// Errors: git cannot be started, or exits non-zero (its stderr quoted).
pub(super) fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    git_with_input(root, args, &[])
}

/// `git hash-object --stdin` of `bytes` as they are (no filter), written to
/// the object store when `keep`.
pub(super) fn hash_stdin(root: &Path, bytes: &[u8], keep: bool) -> Result<String, String> {
    if keep {
        plain_git_dir(root)?;
    }
    hash_bytes(root, bytes, keep)
}

/// [`hash_stdin`] for a caller that checked the store with
/// [`plain_git_dir`] already.
fn hash_bytes(root: &Path, bytes: &[u8], keep: bool) -> Result<String, String> {
    let mut args = vec!["hash-object", "--no-filters", "--stdin"];
    if keep {
        args.push("-w");
    }
    let out = git_with_input(root, &args, bytes)?;
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// The blob ids of the files at `paths` under `root` (one per line, no line
/// break in any, nor in `root`), as they are (no filter), written to the
/// object store when `keep` (the caller checked the store with
/// [`plain_git_dir`]). The paths go to git absolute: it reads relative
/// ones from the repository's top, which `root` may be below.
fn hash_paths<'a>(
    root: &Path,
    paths: impl Iterator<Item = &'a str>,
    keep: bool,
) -> Result<Vec<String>, String> {
    let input: String = paths
        .map(|p| format!("{}\n", root.join(p).display()))
        .collect();
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = vec!["hash-object", "--no-filters", "--stdin-paths"];
    if keep {
        args.push("-w");
    }
    let out = git_with_input(root, &args, input.as_bytes())?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_string)
        .collect())
}

/// Settings given on git's command line, where they beat the repository's
/// own `.git/config` (which a model can write): each turns off a way for
/// the repository to make git run a program, run hooks or reach out. `oc`
/// runs git outside the sandbox, so no file in the workspace may choose
/// what it runs.
const HARDENING: [(&str, &str); 11] = [
    // `ls-files` runs the fsmonitor command to learn what changed.
    ("core.fsmonitor", "false"),
    // No hook runs: hooks read from an empty folder.
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("core.askPass", ""),
    // An empty value empties the list of credential helpers.
    ("credential.helper", ""),
    ("diff.external", ""),
    // No transport at all, so no remote helper runs.
    ("protocol.allow", "never"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("core.untrackedCache", "false"),
];

/// Environment variables that would let a program other than git run, or
/// read a configuration file the workspace could have written.
const HARDENING_ENV: [(&str, &str); 5] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_PAGER", "cat"),
    ("GIT_EXTERNAL_DIFF", ""),
];

/// `git -C root` with [`HARDENING`] on its command line and
/// [`HARDENING_ENV`] in its environment: what every git `oc` runs starts
/// from.
fn hardened_git(root: &Path) -> Command {
    let mut git = Command::new("git");
    git.arg("-C").arg(root);
    for (key, value) in HARDENING {
        git.arg("-c").arg(format!("{key}={value}"));
    }
    git.envs(HARDENING_ENV);
    git.env_remove("GIT_ASKPASS").env_remove("SSH_ASKPASS");
    git
}

/// How long one git command `oc` runs for a checkpoint may take: far
/// more than listing or hashing a large work tree takes, and a bound on a
/// git held by a FIFO a command made where git reads.
const GIT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(20);

/// Set once a git `oc` ran did not finish in time: the next ones would
/// most likely wait on the same FIFO, so they fail at once.
static GIT_HELD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs `git ARGS` in `root` with `input` on its stdin (none when empty);
/// its stdout.
///
/// Errors: git cannot be started, or exits non-zero (its stderr quoted).
fn git_with_input(root: &Path, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    use std::sync::atomic::Ordering;
    if GIT_HELD.load(Ordering::Relaxed) {
        return Err(format!(
            "`git {}` was not run: an earlier git of this run did not finish",
            args.join(" ")
        ));
    }
    git_within(root, args, input, GIT_DEADLINE).inspect_err(|e| {
        if e.contains(TIMED_OUT) {
            GIT_HELD.store(true, Ordering::Relaxed);
        }
    })
}

/// The words of [`git_within`]'s error when git did not finish in time.
const TIMED_OUT: &str = "did not finish within";

/// [`git_with_input`] with `deadline` in place of [`GIT_DEADLINE`].
pub(super) fn git_within(
    root: &Path,
    args: &[&str],
    input: &[u8],
    deadline: std::time::Duration,
) -> Result<Vec<u8>, String> {
    let mut child = hardened_git(root)
        .args(args)
        // Its own group, ended with `oc` on SIGINT or SIGTERM.
        .process_group(0)
        .stdin(if input.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take();
    let input = input.to_vec();
    // Written from a thread: git may fill its stdout before it has read
    // all of its stdin.
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(&input);
        }
    });
    let pid = child.id();
    let group = i32::try_from(pid).ok();
    if let Some(group) = group {
        crate::signals::stop_on_exit(group);
    }
    let (sent, done) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = sent.send(child.wait_with_output());
    });
    let out = match done.recv_timeout(deadline) {
        Ok(out) => out.map_err(|e| format!("cannot run git: {e}"))?,
        Err(_) => {
            // A FIFO where git reads (`.gitignore`, `.git/config`) would
            // hold it, and the run with it, for good.
            if let Ok(pid) = i32::try_from(pid) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let _ = waiter.join();
            let _ = writer.join();
            if let Some(group) = group {
                crate::signals::forget_on_exit(group);
            }
            return Err(format!(
                "`git {}` {TIMED_OUT} {} s (is something where git reads, such as a `.gitignore` or `.git/config`, a FIFO?)",
                args.join(" "),
                deadline.as_secs()
            ));
        }
    };
    let _ = waiter.join();
    let _ = writer.join();
    if let Some(group) = group {
        crate::signals::forget_on_exit(group);
    }
    if !out.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}
