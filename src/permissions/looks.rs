//! Command lines that only look: they read files and print, and change
//! nothing, so a change run that ran only these has not done its task
//! (`ls`, `cat a.py | head`, `git status`, `grep -rn x src 2>/dev/null`).
//! A line is one when it is read whole, writes no file, and every command
//! in it is a program of [`LOOKERS`] (with, for a program that has
//! subcommands, one of the subcommands listed). Anything else counts as
//! work: a wrong "only looks" would call a finished task undone.

use super::line::Reading;
use super::reading;

/// Programs that only read and print, whatever their arguments, and
/// programs whose listed subcommands do (`git status`). Left out on
/// purpose: programs that write or run others through an option (`sort
/// -o`, `sed -i`, `find -delete`/`-exec`, `rg --pre`, `awk`, `env`,
/// `xargs`), and interpreters.
const LOOKERS: &[(&str, &[&str])] = &[
    ("[", &[]),
    ("basename", &[]),
    ("cat", &[]),
    ("cd", &[]),
    ("cmp", &[]),
    ("date", &[]),
    ("df", &[]),
    ("diff", &[]),
    ("dirname", &[]),
    ("du", &[]),
    ("echo", &[]),
    ("egrep", &[]),
    ("false", &[]),
    ("fgrep", &[]),
    ("file", &[]),
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
        && reading.embedded_writes.is_empty()
        && reading.writes.iter().all(|w| w == "/dev/null")
}

/// Whether a simple command's words run a program of [`LOOKERS`] as it
/// only looks.
fn looks(words: &[String]) -> bool {
    let Some((program, rest)) = words.split_first() else {
        return true;
    };
    LOOKERS.iter().any(|(name, subcommands)| {
        name == program
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
            "git -c core.pager=less log",
            "sed -i s/a/b/ x",
            "python3 fix.py",
            "cargo test",
            "find . -delete",
            "echo $(rm -rf x)",
            "ls; rm a",
            "",
            "ls 'unterminated",
        ] {
            assert!(!only_looks(line), "{line}");
        }
    }
}
