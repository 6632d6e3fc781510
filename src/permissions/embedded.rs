//! Commands a program may run from its own arguments, whatever the program.
//!
//! Listing the programs that run other programs (`gdb --args`, `valgrind`,
//! `nsenter --`, `split --filter=…`, `git -c tar.tgz.command=…`) never ends,
//! so deny rules, ask rules and the destructive-command rule also read, for
//! every program not known to leave its arguments alone ([`INERT`]):
//!
//! - every tail of its words (`valgrind -q rm -rf x` may run `rm -rf x`);
//! - every argument that holds a space or an `=`, read as a command line
//!   (`capsh -- -c 'touch m'`, `--filter=touch m`, `key=!touch m`).
//! - the value of every `NAME=value` in front of it, the same way
//!   (`BROWSER=cmd`, `MAKEFLAGS=--eval=…`), also as make reads it.
//!
//! Allow rules never read these: they only make refusals more likely. A
//! tail whose first word is computed at run time (`$(echo rm) -rf x`) cannot
//! be read, so deny and ask rules fail closed on it.

/// Programs whose arguments are data, never a command they run: the tail
/// scan skips them when they are named by a bare name (a path may be a copy
/// of anything) and the line neither defines functions nor changes `PATH`.
/// awk and sed programs that run commands are read by
/// [`super::inline_code`]. Left out on purpose: `sort`
/// (`--compress-program`), `rg` (`--pre`), `fd` (`--exec`), `find`, `git`,
/// `make`, `tar`, interpreters, `diff`.
const INERT: [&str; 68] = [
    "[",
    "[[",
    "awk",
    "base64",
    "basename",
    "cat",
    "cd",
    "chmod",
    "cksum",
    "cmp",
    "column",
    "comm",
    "cp",
    "cut",
    "date",
    "df",
    "dirname",
    "du",
    "echo",
    "egrep",
    "expand",
    "false",
    "fgrep",
    "file",
    "fmt",
    "fold",
    "gawk",
    "grep",
    "gsed",
    "head",
    "hexdump",
    "id",
    "jq",
    "ln",
    "ls",
    "mawk",
    "md5sum",
    "mkdir",
    "mktemp",
    "mv",
    "nawk",
    "nl",
    "od",
    "paste",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "readlink",
    "realpath",
    "rev",
    "rm",
    "rmdir",
    "sed",
    "seq",
    "sha1sum",
    "sha256sum",
    "sleep",
    "stat",
    "strings",
    "tac",
    "tail",
    "tee",
    "test",
    "touch",
    "tr",
    "true",
    "uniq",
];

/// How many values after `=` one word gives to be read as command lines
/// (`--filter=cmd`, `key=a=cmd`): a word of thousands of `=` stays cheap.
const MAX_VALUES: usize = 8;

/// How many words of a tail rules read: enough for any rule, and a line
/// of thousands of words (`git add` of every file) stays cheap.
const MAX_TAIL_WORDS: usize = 64;

/// What one program's arguments may run.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Candidates {
    /// Tails of its words: each may be a command it runs.
    pub tails: Vec<Vec<String>>,
    /// Arguments to read as command lines (spaces, or the text after an
    /// `=`, a leading `!` dropped).
    pub lines: Vec<String>,
    /// Why a tail cannot be read, if one starts with a computed word.
    pub unread: Option<String>,
}

/// What the program in `words[0]` may run from `words[1..]`. Nothing when
/// the program is inert and `trusted` (the line renames no program: it
/// defines no function or alias and leaves `PATH` alone).
pub(crate) fn of(words: &[String], trusted: bool) -> Candidates {
    let mut found = Candidates::default();
    let Some(program) = words.first() else {
        return found;
    };
    if trusted && INERT.contains(&program.as_str()) {
        return found;
    }
    for (i, word) in words.iter().enumerate().skip(1) {
        if is_message(words, i) {
            continue;
        }
        // A command does not start with an option; rules read a tail's
        // first words (a long line stays cheap to check).
        if !word.starts_with('-') {
            if found.unread.is_none() && is_computed(word) {
                found.unread = Some(format!(
                    "`{program}` may run a command whose name is computed at run time"
                ));
            }
            let end = words.len().min(i + MAX_TAIL_WORDS);
            found.tails.push(words[i..end].to_vec());
        }
        if word.contains(char::is_whitespace) {
            found.lines.push(word.trim_start_matches('!').to_string());
        }
        if word.matches('=').count() > MAX_VALUES {
            let why = format!("`{program}` has an argument with more `=` than the reader reads");
            found.unread.get_or_insert(why);
        }
        for (at, _) in word.match_indices('=').take(MAX_VALUES) {
            let value = word[at + 1..].trim_start_matches('!');
            if !value.trim().is_empty() {
                found.lines.push(value.to_string());
            }
        }
    }
    found.lines = with_recipe_forms(found.lines);
    found
}

/// `lines`, and each as make reads it: recipe prefixes (`@`, `+`, `-`)
/// taken off the start of its lines (`--eval=$'x:\n\t@cmd'` runs `cmd`),
/// and `\ ` as a space (`MAKEFLAGS='--eval=x:;cmd\ arg'`).
fn with_recipe_forms(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let bare: Vec<&str> = line
            .lines()
            .map(|l| l.trim_start().trim_start_matches(['@', '+', '-']))
            .collect();
        let bare = bare.join("\n").replace("\\ ", " ");
        let differs = bare != line;
        out.push(line);
        if differs {
            out.push(bare);
        }
    }
    out
}

/// A git commit or tag message (`-m TEXT`, `-am TEXT`, `--message=TEXT`):
/// git never runs it.
fn is_message(words: &[String], i: usize) -> bool {
    let git = words[0] == "git";
    let flag = &words[i - 1];
    let cluster = flag.strip_prefix('-').is_some_and(|letters| {
        letters.ends_with('m') && letters.chars().all(|c| c.is_ascii_alphabetic())
    });
    git && (cluster || flag == "--message" || words[i].starts_with("--message="))
}

/// The values of `NAME=value` assignments, read as command lines (and,
/// like arguments, the text after each further `=`).
pub(crate) fn assigned_lines(assignments: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    // A `…PATH` (`PATH`, `PYTHONPATH`, `MANPATH`) is a list of folders.
    let folders = |a: &&String| {
        a.split_once('=')
            .is_some_and(|(name, _)| name.ends_with("PATH"))
    };
    for assignment in assignments.iter().filter(|a| !folders(a)) {
        for (at, _) in assignment.match_indices('=').take(MAX_VALUES) {
            let value = assignment[at + 1..].trim_start_matches(['!', '|']);
            if !value.trim().is_empty() {
                lines.push(value.to_string());
            }
        }
    }
    with_recipe_forms(lines)
}

/// A glob bash expands: `*`, `?`, `[…]` (not the `[` command), and the extended `@(…)`, `+(…)`,
/// `!(…)`.
pub(crate) fn is_glob(word: &str) -> bool {
    let bracket = word
        .find('[')
        .is_some_and(|open| word[open + 1..].contains(']'));
    word.contains(['*', '?']) || bracket || ["@(", "+(", "!("].iter().any(|g| word.contains(g))
}

/// A word bash computes when it runs (`$x`, `${x}`, `$(…)`, `` `…` ``),
/// or a glob that may name a program (`/usr/bin/tou?`; a data glob such as
/// `tests/*.py` does not).
pub(crate) fn is_computed(word: &str) -> bool {
    let data_glob = || {
        let last = word.rsplit('/').next().unwrap_or(word);
        last.rsplit_once('.').is_some_and(|(_, ext)| {
            ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        })
    };
    word.contains(['$', '`']) || (is_glob(word) && !data_glob())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        shlex::split(line).unwrap()
    }

    #[test]
    fn tails_and_lines_of_a_program_that_may_run_commands() {
        let found = of(
            &words("gdb -batch -ex 'shell touch m' --args rm -rf x"),
            true,
        );
        assert!(found.tails.contains(&words("rm -rf x")));
        assert!(found.lines.contains(&"shell touch m".to_string()));
        let found = of(&words("split --filter='touch m' f"), true);
        assert!(found.lines.contains(&"touch m".to_string()));
        let found = of(&words("git -c 'alias.x=!touch m' x"), true);
        assert!(found.lines.contains(&"touch m".to_string()));
        assert_eq!(found.unread, None);
        let found = of(&words("git commit -m 'fix; rm -rf build'"), true);
        assert!(found.lines.is_empty());
    }

    #[test]
    fn inert_programs_are_skipped_only_when_named_plainly() {
        assert_eq!(
            of(&words("grep -rn 'rm -rf' ."), true),
            Candidates::default()
        );
        assert_ne!(of(&words("./grep rm -rf ."), true), Candidates::default());
        assert_ne!(of(&words("grep rm -rf ."), false), Candidates::default());
    }

    #[test]
    fn long_lines_give_short_tails() {
        let mut line = vec!["git".to_string(), "add".to_string()];
        line.extend((0..2000).map(|i| format!("f{i}.py")));
        let found = of(&line, true);
        assert_eq!(found.tails.len(), 2001);
        assert!(found.tails.iter().all(|t| t.len() <= MAX_TAIL_WORDS));
        let found = of(&words("valgrind -q -q touch m"), true);
        assert!(found.tails.contains(&words("touch m")));
        assert!(!found.tails.iter().any(|t| t[0] == "-q"));
    }

    #[test]
    fn a_computed_tail_cannot_be_read() {
        let found = of(&words("nsenter -- '$(echo rm)' -rf x"), true);
        assert!(found.unread.unwrap().contains("nsenter"));
        assert!(
            of(&words("nsenter -- /usr/bin/tou? m"), true)
                .unread
                .is_some()
        );
        assert_eq!(of(&words("pytest tests/test_*.py"), true).unread, None);
        assert_eq!(of(&words("echo $HOME"), true).unread, None);
    }
}
