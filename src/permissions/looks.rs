//! Command lines that only look: they read files and print, and change
//! nothing, so a change run that ran only these has not done its task
//! (`ls`, `cat a.py | head`, `git status`, `grep -rn x src 2>/dev/null`).
//! A line is one when it is read whole, writes no file, and every command
//! in it (those its options run included: `git -c core.pager=CMD`) is a
//! program of [`LOOKERS`] (with, for a program that has subcommands, one
//! of the subcommands listed). Anything else counts as work: a wrong "only
//! looks" would call a finished task undone. Files changed all the same
//! are found by the run's checkpoint.

use super::line::Reading;
use super::own_options::{Dropped, drop_own_options};
use super::reading;

/// Programs that only read and print, whatever their arguments (but
/// [`WRITING_OPTIONS`]), and programs whose listed subcommands do (`git
/// status`, after git's own options). Named by their bare name or in
/// `/bin`, `/usr/bin`. Left out on purpose: programs that write or run
/// others through an option (`sort -o`, `sed -i`, `rg --pre`, `awk`,
/// `env`, `xargs`, `date -s`), and interpreters. A file written all the
/// same (`file -C`) is found by the run's checkpoint.
const LOOKERS: &[(&str, &[&str])] = &[
    ("[", &[]),
    ("basename", &[]),
    ("cat", &[]),
    ("cd", &[]),
    ("cmp", &[]),
    ("df", &[]),
    ("diff", &[]),
    ("dirname", &[]),
    ("du", &[]),
    ("echo", &[]),
    ("egrep", &[]),
    ("false", &[]),
    ("fgrep", &[]),
    ("file", &[]),
    ("find", &[]),
    ("grep", &[]),
    ("head", &[]),
    ("id", &[]),
    ("less", &[]),
    ("ls", &[]),
    ("nl", &[]),
    ("pwd", &[]),
    ("readlink", &[]),
    ("realpath", &[]),
    ("stat", &[]),
    ("tail", &[]),
    ("test", &[]),
    ("tree", &[]),
    ("true", &[]),
    ("type", &[]),
    ("uname", &[]),
    ("wc", &[]),
    ("which", &[]),
    ("whoami", &[]),
    (
        "git",
        &[
            "blame",
            "diff",
            "grep",
            "log",
            "ls-files",
            "rev-parse",
            "show",
            "status",
        ],
    ),
    ("cargo", &["metadata", "tree"]),
];

/// Options that make a program of [`LOOKERS`] write or run something.
const WRITING_OPTIONS: &[(&str, &[&str])] = &[(
    "find",
    &[
        "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
    ],
)];

/// Whether running `line` changes nothing: see the module's doc.
pub(crate) fn only_looks(line: &str) -> bool {
    let reading = reading::read(line);
    read_whole_and_writes_nothing(&reading)
        && !reading.commands.is_empty()
        && reading.commands.iter().all(|c| looks(&c.words))
}

fn read_whole_and_writes_nothing(reading: &Reading) -> bool {
    reading.unread.is_none()
        && reading.unnamed_writes.is_none()
        && reading.writes.iter().all(|w| w == "/dev/null")
}

/// Whether a simple command's words run a program of [`LOOKERS`] as it
/// only looks.
fn looks(words: &[String]) -> bool {
    let words = match drop_own_options(words) {
        Dropped::Nothing => words.to_vec(),
        Dropped::Words(words) => words,
        Dropped::Unknown(_) => return false,
    };
    let Some((program, rest)) = words.split_first() else {
        return true;
    };
    let program = ["/usr/bin/", "/bin/"]
        .iter()
        .find_map(|dir| program.strip_prefix(dir))
        .unwrap_or(program);
    let writes = WRITING_OPTIONS.iter().any(|(name, options)| {
        *name == program && rest.iter().any(|w| options.contains(&w.as_str()))
    });
    !writes
        && LOOKERS.iter().any(|(name, subcommands)| {
            *name == program
                && (subcommands.is_empty()
                    || rest
                        .first()
                        .is_some_and(|s| subcommands.contains(&s.as_str())))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_only_look() {
        for line in [
            "ls",
            "ls -la src",
            "cat a.py | head -20",
            "grep -rn 'def main' src 2>/dev/null",
            "cd src && ls",
            "git status",
            "git log --oneline | head -5",
            "wc -l *.py",
            "git --no-pager log -3",
            "/bin/ls src",
            "find . -name '*.py'",
            "git log --format='%h -> %s'",
        ] {
            assert!(only_looks(line), "{line}");
        }
    }

    #[test]
    fn lines_that_may_change_something() {
        for line in [
            "touch a",
            "cat a > b",
            "ls | tee listing.txt",
            "git commit -am x",
            "git -c core.pager='touch m' log",
            "sed -i s/a/b/ x",
            "python3 fix.py",
            "cargo test",
            "find . -delete",
            "find . -name x -exec rm {} +",
            "date -s 12:00",
            "./ls",
            "echo $(rm -rf x)",
            "ls; rm a",
            "",
            "ls 'unterminated",
        ] {
            assert!(!only_looks(line), "{line}");
        }
    }
}
