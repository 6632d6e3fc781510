//! The kernel's refusals in a command's output, explained in one line, so
//! that the model changes course instead of retrying. Read from the text
//! (the kernel does not say who refused): "Permission denied" naming a
//! path outside the writable places that `oc` itself could write (so the
//! refusal was the sandbox's, not the file's permissions), a refused or
//! failed connection while the network is off, a refused signal, a read
//! of a credential store.

use std::path::{Component, Path, PathBuf};

use nix::unistd::{AccessFlags, access};

use super::reads::Reads;
use crate::vocab::{Confinement, Network, SandboxMode};

/// What the kernel says when Landlock refuses (EACCES, EPERM).
const REFUSALS: [&str; 3] = ["Permission denied", "Operation not permitted", "EACCES"];

/// How programs report a connection that could not be made, whatever the
/// reason (curl says the same for a refused and a forbidden connect).
const FAILED_CONNECTIONS: [&str; 2] = ["Couldn't connect to server", "Failed to connect"];

/// Words of a refused connection or listening socket, beside a refusal.
const NETWORK_WORDS: [&str; 9] = [
    "connect",
    "socket",
    "Connection",
    "network",
    "bind",
    "http",
    "urlopen",
    "port",
    "resolve",
];

/// Paths bash turns into connections.
const NETWORK_PATHS: [&str; 2] = ["/dev/tcp/", "/dev/udp/"];

/// The explanation for `output` of a command run in `cwd` under
/// `confinement`, writable beneath `writable`, kept from reading
/// `reads.denied`; `None` when nothing in it looks like the sandbox
/// refusing.
pub(crate) fn explain(
    output: &str,
    cwd: &Path,
    writable: &[PathBuf],
    reads: &Reads,
    confinement: &Confinement,
) -> Option<String> {
    let refusals: Vec<&str> = output
        .lines()
        .filter(|line| REFUSALS.iter().any(|r| line.contains(r)))
        .collect();
    let failed_connection = FAILED_CONNECTIONS.iter().any(|f| output.contains(f));
    if refusals.is_empty() && !failed_connection {
        return None;
    }
    let network_path = refusals
        .iter()
        .any(|line| NETWORK_PATHS.iter().any(|p| line.contains(p)));
    let unreadable = refusals.iter().find_map(|line| {
        paths_in(line).map(|path| absolute(cwd, path)).find(|path| {
            reads.denied.iter().any(|d| path.starts_with(d))
                && !reads.allowed.iter().any(|a| path.starts_with(a))
        })
    });
    if let Some(path) = unreadable {
        return Some(format!(
            "[sandbox: `{}` is in a credential store (or oc's own records) that commands may not read, so the kernel refused it; do without it (the user can allow a folder with `--allow-read DIR`)]",
            path.display()
        ));
    }
    if confinement.mode != SandboxMode::Off {
        let outside = refusals.iter().find_map(|line| {
            paths_in(line)
                .filter(|path| !NETWORK_PATHS.iter().any(|p| path.starts_with(p)))
                .map(|path| real_location(&absolute(cwd, path)))
                .find(|path| {
                    !writable.iter().any(|w| path.starts_with(w)) && writable_by_user(path)
                })
        });
        if let Some(path) = outside {
            return Some(filesystem_line(&path, confinement));
        }
    }
    // Python's `[Errno 13] Permission denied` stands alone under a
    // traceback that names the socket call.
    let networked = network_path
        || failed_connection
        || (output.contains("Errno 13") && NETWORK_WORDS.iter().any(|w| output.contains(w)))
        || refusals
            .iter()
            .any(|line| NETWORK_WORDS.iter().any(|w| line.contains(w)));
    if confinement.network == Network::Off && networked {
        return Some(
            "[sandbox: network access is off for commands, so connections and listening sockets are refused by the kernel; do without the network (the user can allow it with `--network on`)]".to_string(),
        );
    }
    let signal = refusals
        .iter()
        .any(|line| line.contains("kill") && line.contains("Operation not permitted"));
    (confinement != &Confinement::NONE && signal).then(|| {
        "[sandbox: commands may not send signals to processes outside the sandbox, `oc` included]"
            .to_string()
    })
}

fn filesystem_line(path: &Path, confinement: &Confinement) -> String {
    let extra = if confinement.add_dirs.is_empty() {
        ""
    } else {
        " and the --add-dir directories"
    };
    match confinement.mode {
        SandboxMode::ReadOnly => format!(
            "[sandbox: in this run commands may write only in $TMPDIR{extra} (read-only sandbox), so the kernel refused `{}`]",
            path.display()
        ),
        _ => format!(
            "[sandbox: `{}` is outside the places commands may write (the workspace, $TMPDIR{extra}), so the kernel refused it; write inside the workspace or in $TMPDIR instead]",
            path.display()
        ),
    }
}

/// Words of `line` that look like paths (holding a `/`, stripped of quotes
/// and punctuation), and the word right before `: Permission denied`
/// (`bash: line 1: out.txt: Permission denied`).
fn paths_in(line: &str) -> impl Iterator<Item = &str> {
    let named = REFUSALS
        .iter()
        .find_map(|r| line.find(&format!(": {r}")))
        .and_then(|end| line[..end].rsplit([' ', ':', '\'', '‘', '’']).next())
        .filter(|word| !word.is_empty());
    line.split(|c: char| c.is_whitespace() || "'\"`‘’“”()[],;".contains(c))
        .map(|word| word.trim_end_matches([':', '.']))
        .filter(|word| word.contains('/') && !word.contains("://"))
        .chain(named)
}

/// `path` made absolute against `cwd`, with `.` and `..` resolved by name.
fn absolute(cwd: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for component in cwd.join(path).components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Where `path` really is: its deepest existing ancestor with symlinks
/// resolved, and the rest (a link in the workspace may point outside, a
/// dangling one too).
fn real_location(path: &Path) -> PathBuf {
    if let Ok(target) = std::fs::read_link(path)
        && !path.exists()
    {
        let parent = path.parent().unwrap_or(Path::new("/"));
        return real_location(&absolute(parent, &target.to_string_lossy()));
    }
    let mut rest = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest
                .iter()
                .rev()
                .fold(real, |acc: PathBuf, name| acc.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Whether the user could write `path` (or create it in its deepest
/// existing directory) without the sandbox: if not, its refusal was the
/// file's own permissions.
fn writable_by_user(path: &Path) -> bool {
    let mut existing = path;
    while !existing.exists() {
        match existing.parent() {
            Some(parent) => existing = parent,
            None => return true,
        }
    }
    access(existing, AccessFlags::W_OK).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workspace and a directory beside it, both real.
    struct Dirs {
        _tmp: tempfile::TempDir,
        ws: PathBuf,
        outside: PathBuf,
        run_tmp: PathBuf,
    }

    fn dirs() -> Dirs {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (ws, outside, run_tmp) = (base.join("ws"), base.join("out"), base.join("oc-run-1"));
        for dir in [&ws, &outside, &run_tmp] {
            std::fs::create_dir(dir).unwrap();
        }
        Dirs {
            _tmp: tmp,
            ws,
            outside,
            run_tmp,
        }
    }

    fn confinement(mode: SandboxMode, network: Network) -> Confinement {
        Confinement {
            mode,
            network,
            add_dirs: Vec::new(),
        }
    }

    fn explain_in(d: &Dirs, output: &str, c: &Confinement) -> Option<String> {
        let writable = match c.mode {
            SandboxMode::ReadOnly => vec![d.run_tmp.clone()],
            _ => vec![d.ws.clone(), d.run_tmp.clone()],
        };
        explain(output, &d.ws, &writable, &Reads::default(), c)
    }

    #[test]
    fn a_refused_read_of_a_credential_store_is_named() {
        let d = dirs();
        let c = confinement(SandboxMode::WorkspaceWrite, Network::Off);
        let reads = Reads {
            denied: vec![PathBuf::from("/home/u/.ssh")],
            allowed: vec![PathBuf::from("/home/u/.ssh/public")],
        };
        let line = explain(
            "cat: /home/u/.ssh/id_rsa: Permission denied\n",
            &d.ws,
            &[],
            &reads,
            &c,
        )
        .unwrap();
        assert!(
            line.contains("`/home/u/.ssh/id_rsa` is in a credential store"),
            "{line}"
        );
        assert!(line.contains("--allow-read DIR"), "{line}");
        let allowed = explain(
            "cat: /home/u/.ssh/public/k: Permission denied\n",
            &d.ws,
            &[],
            &reads,
            &c,
        );
        assert!(!allowed.is_some_and(|l| l.contains("credential store")));
    }

    #[test]
    fn a_refused_write_outside_is_named() {
        let d = dirs();
        let write = confinement(SandboxMode::WorkspaceWrite, Network::Off);
        let out = d.outside.display().to_string();
        for (output, path) in [
            (
                "bash: line 1: ../out/x.txt: Permission denied".to_string(),
                format!("{out}/x.txt"),
            ),
            (
                format!("touch: cannot touch '{out}/y': Permission denied"),
                format!("{out}/y"),
            ),
            (
                format!("PermissionError: [Errno 13] Permission denied: '{out}/a/b'"),
                format!("{out}/a/b"),
            ),
            (
                format!("mkdir: cannot create directory ‘{out}/d’: Permission denied"),
                format!("{out}/d"),
            ),
        ] {
            let line = explain_in(&d, &output, &write).unwrap_or_default();
            assert!(line.contains(&format!("`{path}`")), "{output} → {line}");
            assert!(line.contains("outside the places"), "{line}");
        }
    }

    #[test]
    fn a_link_in_the_workspace_pointing_out_is_seen_through() {
        let d = dirs();
        std::os::unix::fs::symlink(&d.outside, d.ws.join("link")).unwrap();
        let write = confinement(SandboxMode::WorkspaceWrite, Network::Off);
        let line =
            explain_in(&d, "bash: line 1: link/f: Permission denied", &write).unwrap_or_default();
        assert!(
            line.contains(&format!("`{}/f`", d.outside.display())),
            "{line}"
        );
    }

    #[test]
    fn a_dangling_link_pointing_out_is_seen_through() {
        let d = dirs();
        std::os::unix::fs::symlink(d.outside.join("new.txt"), d.ws.join("dangling")).unwrap();
        let write = confinement(SandboxMode::WorkspaceWrite, Network::Off);
        let line =
            explain_in(&d, "bash: line 1: dangling: Permission denied", &write).unwrap_or_default();
        assert!(
            line.contains(&format!("`{}/new.txt`", d.outside.display())),
            "{line}"
        );
    }

    #[test]
    fn writes_inside_and_other_errors_are_left_alone() {
        let d = dirs();
        let open = confinement(SandboxMode::WorkspaceWrite, Network::On);
        for output in [
            "bash: line 1: sub/in.txt: Permission denied".to_string(),
            format!(
                "touch: cannot touch '{}/x': Permission denied",
                d.run_tmp.display()
            ),
            "cat: missing.txt: No such file or directory".to_string(),
            "mknod: nul: Permission denied".to_string(),
            "OSError: [Errno 13] Permission denied: 'nul'".to_string(),
            "all good".to_string(),
        ] {
            assert_eq!(explain_in(&d, &output, &open), None, "{output}");
        }
    }

    #[test]
    #[allow(clippy::print_stderr)]
    fn a_refusal_by_the_files_own_permissions_is_not_the_sandboxs() {
        let d = dirs();
        let locked = d.outside.join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o555))
            .unwrap();
        if access(&locked, AccessFlags::W_OK).is_ok() {
            eprintln!("skipped as root: root writes whatever the permissions say");
            return;
        }
        let write = confinement(SandboxMode::WorkspaceWrite, Network::On);
        let output = format!(
            "touch: cannot touch '{}/x': Permission denied",
            locked.display()
        );
        assert_eq!(explain_in(&d, &output, &write), None);
    }

    #[test]
    fn read_only_names_the_mode() {
        let d = dirs();
        let read_only = Confinement {
            add_dirs: vec!["/cache".into()],
            ..confinement(SandboxMode::ReadOnly, Network::Off)
        };
        let line = explain_in(&d, "bash: line 1: in.txt: Permission denied", &read_only)
            .unwrap_or_default();
        assert!(line.contains("read-only sandbox"), "{line}");
        assert!(line.contains("--add-dir directories"), "{line}");
        assert!(
            line.contains(&format!("`{}/in.txt`", d.ws.display())),
            "{line}"
        );
    }

    #[test]
    fn a_refused_connection_is_explained_only_with_the_network_off() {
        let d = dirs();
        let off = confinement(SandboxMode::WorkspaceWrite, Network::Off);
        let on = confinement(SandboxMode::WorkspaceWrite, Network::On);
        for output in [
            "  File \"socket.py\", line 851, in create_connection\nPermissionError: [Errno 13] Permission denied",
            "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server",
            "bash: line 1: /dev/tcp/127.0.0.1/8000: Permission denied",
        ] {
            let line = explain_in(&d, output, &off).unwrap_or_default();
            assert!(line.contains("network access is off"), "{output} → {line}");
            assert_eq!(explain_in(&d, output, &on), None, "{output}");
        }
    }

    #[test]
    fn a_refusal_that_is_not_about_the_network_gets_no_network_line() {
        let d = dirs();
        let off = confinement(SandboxMode::WorkspaceWrite, Network::Off);
        for output in [
            "mknod: nul: Permission denied",
            "OSError: [Errno 13] Permission denied: 'nul'",
        ] {
            assert_eq!(explain_in(&d, output, &off), None, "{output}");
        }
    }

    #[test]
    fn a_refused_signal_is_explained() {
        let d = dirs();
        let write = confinement(SandboxMode::WorkspaceWrite, Network::On);
        let line = explain_in(
            &d,
            "bash: line 1: kill: (4242) - Operation not permitted",
            &write,
        )
        .unwrap_or_default();
        assert!(line.contains("may not send signals"), "{line}");
    }
}
