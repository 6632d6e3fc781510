//! Where the files a command line writes are, as far as a reader can tell:
//! a write's target is read against the folder the line has moved to
//! (`cd locked && echo x > n` writes `locked/n`), and a target that cannot
//! be named before the line runs (computed at run time, or relative to a
//! folder the reader cannot follow) is said to be so, for deny and ask
//! rules to fail closed on ([`super::check`]).

/// Where the line's commands run, relative to where it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Cwd {
    #[default]
    Start,
    /// A plain path: relative to the start, or absolute.
    Plain(String),
    /// Somewhere the reader cannot follow, and why.
    Lost(&'static str),
}

/// Programs that change the folder of the commands after them.
const CHANGE_FOLDER: [&str; 3] = ["cd", "pushd", "popd"];

/// Options that start the command they run in another folder
/// (`env -C dir`), per program: what that command writes is relative to a
/// folder the line does not show the reader as a `cd`.
const CHDIR_OPTIONS: &[(&str, &[&str])] = &[
    ("env", &["-C", "--chdir"]),
    ("sudo", &["-D", "--chdir"]),
    ("nsenter", &["-w", "--wd"]),
    // Runs its command in the folder of each file it finds.
    ("find", &["-execdir", "-okdir"]),
];

/// Why a `cd` loses the reader.
pub(crate) const UNFOLLOWED: &str = "a `cd`, `pushd` or `popd` went to a folder the reader cannot follow, so the files it writes there cannot be named";
/// Why a computed target cannot be named.
const COMPUTED: &str = "a file it writes is named at run time (a variable, `$(…)`, a glob or `~`)";

/// Why a function's writes cannot be named.
const CALLERS: &str =
    "a function writes in the folder it is called from, which the reader cannot follow";

/// The folders a command line moves through.
#[derive(Debug, Clone, Default)]
pub(crate) struct Folders {
    cwd: Cwd,
    /// `pushd`'s stack.
    stack: Vec<Cwd>,
    /// How many commands met so far may have moved the line.
    moves: usize,
}

impl Folders {
    /// Notes the words of one command: one that names `CDPATH` (assigns,
    /// exports, reads into or expands it: `CDPATH=…`, `read CDPATH`,
    /// `${CDPATH:=…}`) moves the line in ways no `cd` shows.
    pub(crate) fn note_words<'a>(&mut self, words: impl IntoIterator<Item = &'a String>) {
        if words.into_iter().any(|w| w.contains("CDPATH")) {
            self.lose(UNFOLLOWED);
        }
    }

    /// Somewhere the reader cannot follow, for `why`.
    fn lose(&mut self, why: &'static str) {
        self.cwd = Cwd::Lost(why);
        self.moves += 1;
    }

    /// How many commands met so far may have moved the line: reading a
    /// part that may run not at all or many times (a loop, a branch, a
    /// function), a change says the line is lost after it.
    pub(crate) fn moves(&self) -> usize {
        self.moves
    }

    /// After a part that moved the line but may run not at all or many
    /// times: where the line is cannot be followed.
    pub(crate) fn lose_after_branch(&mut self) {
        self.lose(UNFOLLOWED);
    }

    /// Inside a function's body, which runs in its callers' folder.
    pub(crate) fn in_function(&self) -> Folders {
        Folders {
            cwd: Cwd::Lost(CALLERS),
            stack: Vec::new(),
            moves: self.moves,
        }
    }

    /// Follows one simple command, `name` (its program's base name) with
    /// `args`, before it is unwrapped.
    pub(crate) fn follow(&mut self, name: &str, args: &[String]) {
        let chdir = CHDIR_OPTIONS
            .iter()
            .find(|(program, _)| *program == name)
            .is_some_and(|(_, options)| !super::wrappers::option_values(args, options).is_empty());
        // `shopt -s autocd`: a folder's name alone moves the line there;
        // `cdable_vars`: `cd name` goes where the variable `name` says.
        let shopt = name == "shopt" && args.iter().any(|a| a == "autocd" || a == "cdable_vars");
        if chdir || shopt {
            self.lose(UNFOLLOWED);
        }
        if !CHANGE_FOLDER.contains(&name) {
            return;
        }
        self.moves += 1;
        let operands: Vec<&String> = args
            .iter()
            .filter(|a| !matches!(a.as_str(), "-L" | "-P" | "-e" | "-@" | "--"))
            .collect();
        self.cwd = match (name, operands.as_slice()) {
            ("popd", []) => self.stack.pop().unwrap_or(Cwd::Lost(UNFOLLOWED)),
            ("cd" | "pushd", [dir]) if is_plain(dir) => {
                let to = self.join(dir);
                if name == "pushd" {
                    self.stack.push(self.cwd.clone());
                }
                to
            }
            _ => Cwd::Lost(UNFOLLOWED),
        };
    }

    /// Records that the line writes `target`: into `writes` as the path
    /// it names from where the line started (as written when that cannot
    /// be told), and why it cannot be named into `unnamed`, if so.
    pub(crate) fn place(
        &self,
        target: String,
        writes: &mut Vec<String>,
        unnamed: &mut Option<String>,
    ) {
        if is_computed(&target) {
            unnamed.get_or_insert_with(|| COMPUTED.to_string());
            writes.push(target);
            return;
        }
        match &self.cwd {
            _ if target.starts_with('/') => writes.push(target),
            Cwd::Start => writes.push(target),
            Cwd::Plain(_) => writes.push(self.join_text(&target)),
            Cwd::Lost(why) => {
                unnamed.get_or_insert_with(|| why.to_string());
                writes.push(target);
            }
        }
    }

    /// The folder `dir` names from the current one.
    fn join(&self, dir: &str) -> Cwd {
        match &self.cwd {
            Cwd::Lost(why) => Cwd::Lost(why),
            _ => Cwd::Plain(self.join_text(dir)),
        }
    }

    /// `path` read from the current folder (`path` itself when absolute).
    fn join_text(&self, path: &str) -> String {
        match &self.cwd {
            Cwd::Plain(dir) if !path.starts_with('/') => {
                format!("{}/{path}", dir.trim_end_matches('/'))
            }
            _ => path.to_string(),
        }
    }
}

/// Whether a `cd` operand is a path the reader can follow: not computed,
/// not `-` (the previous folder) and not `pushd`'s `+N`/`-N`.
fn is_plain(dir: &str) -> bool {
    !dir.is_empty() && !dir.starts_with(['-', '+']) && !is_computed(dir)
}

/// Whether a path is named at run time: a variable, a substitution, a
/// glob, or `~` (a home directory, which may be moved).
fn is_computed(path: &str) -> bool {
    path.contains(['$', '`', '*', '?', '[']) || path.starts_with('~')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(line: &[(&str, &[&str])], target: &str) -> (Vec<String>, bool) {
        let mut folders = Folders::default();
        for (name, args) in line {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            folders.follow(name, &args);
        }
        let (mut writes, mut unnamed) = (Vec::new(), None);
        folders.place(target.to_string(), &mut writes, &mut unnamed);
        (writes, unnamed.is_some())
    }

    #[test]
    fn writes_are_read_from_the_folder_the_line_moved_to() {
        assert_eq!(
            written(&[("cd", &["locked"])], "n"),
            (vec!["locked/n".into()], false)
        );
        assert_eq!(
            written(&[("cd", &["a/"]), ("cd", &["b"])], "n"),
            (vec!["a/b/n".into()], false)
        );
        assert_eq!(
            written(&[("pushd", &["a"]), ("popd", &[])], "n"),
            (vec!["n".into()], false)
        );
        assert_eq!(
            written(&[("cd", &["-P", "a"])], "/abs"),
            (vec!["/abs".into()], false)
        );
        for lost in [
            &[("cd", &["$D"] as &[&str])] as &[(&str, &[&str])],
            &[("cd", &[])],
            &[("cd", &["-"])],
            &[("popd", &[])],
            &[("pushd", &["+1"])],
            &[("env", &["-C", "locked", "sh"])],
            &[("find", &["locked", "-execdir", "sh", "-c", "x", ";"])],
            &[("cd", &["$D"]), ("cd", &["a"])],
        ] {
            assert!(written(lost, "n").1, "{lost:?}");
        }
        for computed in ["$D/n", "$(echo locked)/n", "lock*/n", "~/n"] {
            assert!(written(&[], computed).1, "{computed}");
        }
        assert_eq!(written(&[], "n"), (vec!["n".into()], false));
    }
}
