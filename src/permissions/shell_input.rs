//! How a shell is told what to run (bash(1), "Invocation"; dash, zsh, ksh
//! and fish alike), and whether a shell on a command line reads its script
//! from the input, which no rule can read ([`super::reading`]).

use super::embedded;

/// Shells that run a script given with `-c` (or read from stdin).
pub(crate) const SHELLS: [&str; 14] = [
    "bash", "sh", "zsh", "dash", "ksh", "fish", "rbash", "ash", "mksh", "lksh", "pdksh", "yash",
    "posh", "oksh",
];

/// Where a shell takes its commands from.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ShellRuns {
    /// `-c`: the first word after the options (none: bash refuses).
    Command(Option<String>),
    /// A script file (which may be the input: [`names_input`]).
    File(String),
    /// Its input: `-s`, or no script file.
    Input,
    /// Nothing: it prints and ends (`--version`, `--help`).
    Nothing,
}

/// Where a shell with `args` takes its commands from, as bash(1)
/// "Invocation" reads them (dash, zsh, ksh and fish alike): options up to
/// the first word that is not one, where `-o`, `+o`, `-O` and `+O` take the
/// next word, also inside a cluster (`-eo pipefail`), and `--rcfile`,
/// `--init-file` and `--init-command` take theirs; `-c` and `-s` may stand
/// in any cluster.
pub(crate) fn shell_runs(args: &[String]) -> ShellRuns {
    let (mut command, mut input) = (false, false);
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        match arg.as_str() {
            "--" | "-" => break,
            "--rcfile" | "--init-file" | "--init-command" => i += 1,
            "--version" | "--help" => return ShellRuns::Nothing,
            long if long.starts_with("--") => {}
            cluster if cluster.len() > 1 && cluster.starts_with(['-', '+']) => {
                for letter in cluster[1..].chars() {
                    match letter {
                        'c' => command = true,
                        's' => input = true,
                        'o' | 'O' => i += 1,
                        _ => {}
                    }
                }
            }
            _ => {
                i -= 1;
                break;
            }
        }
    }
    let first = args.get(i).cloned();
    match first {
        _ if command => ShellRuns::Command(first),
        _ if input => ShellRuns::Input,
        Some(file) => ShellRuns::File(file),
        None => ShellRuns::Input,
    }
}

/// Whether the file `path` is the input, however spelt: `/dev/stdin`,
/// `//dev/./stdin`, `/dev/fd/N`, `/proc/…/fd/N`.
fn names_input(path: &str) -> bool {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let path = parts.join("/");
    path == "dev/stdin" || path.starts_with("dev/fd/") || path.starts_with("proc/")
}

/// A shell (or `.`, `source`) whose script is its input: no `-c` and no
/// script file, a script file that `is_input` (`/dev/stdin`, a
/// descriptor, one named at run time), or, in a line with a process
/// substitution (`bash <(…)`), any script.
fn reads_script_from_input(
    words: &[String],
    substituted: bool,
    is_input: &dyn Fn(&str) -> bool,
) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    match program.rsplit('/').next().unwrap_or(program) {
        shell if SHELLS.contains(&shell) => match shell_runs(args) {
            ShellRuns::Command(_) | ShellRuns::Nothing => false,
            ShellRuns::File(file) => substituted || is_input(&file),
            ShellRuns::Input => true,
        },
        "." | "source" => args
            .iter()
            .find(|a| *a != "--")
            .is_some_and(|script| substituted || is_input(script)),
        _ => false,
    }
}

/// Whether a shell on a line reads its script from the input: one of the
/// line's `commands` (each with what a file name is from the folders the
/// line may be in there: `stdin` after `cd /dev` is `/dev/stdin`), or, on a line that is `fed` input (a pipe,
/// `<`, a here-document), a shell among the `tails` of a program's
/// arguments (`/usr/bin/time bash <<< …`). On a fed line a script named at
/// run time (`bash $D <<< …`) may be the input; `substituted`: the line
/// hands a command a process substitution (`bash <(…)`).
pub(crate) fn on_line<'a, Seen: Fn(&str) -> Vec<String>>(
    mut commands: impl Iterator<Item = (&'a [String], Seen)>,
    mut tails: impl Iterator<Item = &'a [String]>,
    substituted: bool,
    fed: bool,
) -> bool {
    let is_input = |seen: Vec<String>, file: &str| {
        (fed && embedded::is_computed(file)) || seen.iter().any(|p| names_input(p))
    };
    commands.any(|(words, seen)| {
        reads_script_from_input(words, substituted, &|file| is_input(seen(file), file))
    }) || (fed
        && tails.any(|words| {
            let as_written = |file: &str| is_input(vec![file.to_string()], file);
            reads_script_from_input(words, substituted, &as_written)
        }))
}
