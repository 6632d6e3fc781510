//! The kernel's refusals in a command's output, explained in one line, so
//! that the model changes course instead of retrying: "Permission denied"
//! naming a path outside the writable places, or a refused connection when
//! the network is off.

use std::path::{Component, Path, PathBuf};

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

/// The explanation for `output` of a command run in `cwd` under
/// `confinement`, writable beneath `writable`; `None` when nothing in it
/// looks like the sandbox refusing.
pub fn explain(
    output: &str,
    cwd: &Path,
    writable: &[PathBuf],
    confinement: Confinement,
) -> Option<String> {
    let refusals: Vec<&str> = output
        .lines()
        .filter(|line| REFUSALS.iter().any(|r| line.contains(r)))
        .collect();
    let failed_connection = FAILED_CONNECTIONS.iter().any(|f| output.contains(f));
    if refusals.is_empty() && !failed_connection {
        return None;
    }
    if confinement.mode != SandboxMode::Off {
        let outside = refusals.iter().find_map(|line| {
            paths_in(line)
                .map(|path| absolute(cwd, path))
                .find(|path| !writable.iter().any(|w| path.starts_with(w)))
        });
        if let Some(path) = outside {
            return Some(filesystem_line(&path, confinement.mode));
        }
    }
    let networked = failed_connection
        || output.contains("Errno 13")
        || refusals
            .iter()
            .any(|line| NETWORK_WORDS.iter().any(|w| line.contains(w)));
    (confinement.network == Network::Off && networked).then(|| {
        "[sandbox: network access is off for commands, so connections and listening sockets are refused by the kernel; do without the network (the user can allow it with `--network on`)]".to_string()
    })
}

fn filesystem_line(path: &Path, mode: SandboxMode) -> String {
    match mode {
        SandboxMode::ReadOnly => format!(
            "[sandbox: commands may not write files in this run (read-only sandbox), so the kernel refused `{}`; only $TMPDIR is writable]",
            path.display()
        ),
        _ => format!(
            "[sandbox: `{}` is outside the places commands may write (the workspace and $TMPDIR), so the kernel refused it; write inside the workspace or in $TMPDIR instead]",
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

#[cfg(test)]
mod tests {
    use super::*;

    const WRITE: Confinement = Confinement {
        mode: SandboxMode::WorkspaceWrite,
        network: Network::Off,
    };

    fn writable() -> Vec<PathBuf> {
        vec![PathBuf::from("/work/ws"), PathBuf::from("/tmp/oc-run-1")]
    }

    fn explain_in_ws(output: &str, confinement: Confinement) -> Option<String> {
        explain(output, Path::new("/work/ws"), &writable(), confinement)
    }

    #[test]
    fn a_refused_write_outside_is_named() {
        for (output, path) in [
            (
                "bash: line 1: ../outside.txt: Permission denied",
                "/work/outside.txt",
            ),
            (
                "touch: cannot touch '/tmp/x/y': Permission denied",
                "/tmp/x/y",
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/home/u/.cache/pip'",
                "/home/u/.cache/pip",
            ),
            (
                "mkdir: cannot create directory ‘/opt/a’: Permission denied",
                "/opt/a",
            ),
        ] {
            let line = explain_in_ws(output, WRITE).unwrap_or_default();
            assert!(line.contains(&format!("`{path}`")), "{output} → {line}");
            assert!(line.contains("outside the places"), "{line}");
        }
    }

    #[test]
    fn writes_inside_and_other_errors_are_left_alone() {
        for output in [
            "bash: line 1: sub/in.txt: Permission denied",
            "touch: cannot touch '/tmp/oc-run-1/x': Permission denied",
            "cat: missing.txt: No such file or directory",
            "all good",
        ] {
            let off = Confinement {
                network: Network::On,
                ..WRITE
            };
            assert_eq!(explain_in_ws(output, off), None, "{output}");
        }
    }

    #[test]
    fn read_only_names_the_mode() {
        let read_only = Confinement {
            mode: SandboxMode::ReadOnly,
            network: Network::Off,
        };
        let line = explain(
            "bash: line 1: in.txt: Permission denied",
            Path::new("/work/ws"),
            &[PathBuf::from("/tmp/oc-run-1")],
            read_only,
        )
        .unwrap_or_default();
        assert!(line.contains("read-only sandbox"), "{line}");
        assert!(line.contains("`/work/ws/in.txt`"), "{line}");
    }

    #[test]
    fn a_refused_connection_is_explained_only_with_the_network_off() {
        let output = "  File \"socket.py\", line 851, in create_connection\nPermissionError: [Errno 13] Permission denied";
        let line = explain_in_ws(output, WRITE).unwrap_or_default();
        assert!(line.contains("network access is off"), "{line}");
        let on = Confinement {
            network: Network::On,
            ..WRITE
        };
        assert_eq!(explain_in_ws(output, on), None);
        let curl = "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server";
        assert!(explain_in_ws(curl, WRITE).is_some());
    }
}
