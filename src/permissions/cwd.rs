//! Where the files a command line writes are, as far as a reader can tell:
//! a write's target is read against every folder the line may have moved
//! to (`cd locked && echo x > n` writes `locked/n`; `cd locked; echo x > n`
//! writes `locked/n`, or `n` when the `cd` failed), and a target that
//! cannot be named before the line runs (computed at run time, or relative
//! to a folder the reader cannot follow) is said to be so, for deny and
//! ask rules to fail closed on ([`super::check`]).

/// Where the line's commands may run, relative to where it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Cwd {
    #[default]
    Start,
    /// A plain path: relative to the start, or absolute.
    Plain(String),
    /// Inside a function's body: wherever it is called from.
    Caller,
    /// Somewhere the reader cannot follow, and why.
    Lost(&'static str),
}

/// Programs that change the folder of the commands after them.
const CHANGE_FOLDER: [&str; 3] = ["cd", "pushd", "popd"];

/// Builtins after which the line goes no further (`cd x || exit 1`;
/// `return` and `logout` outside a function or login shell only complain).
const ENDS_THE_LINE: [&str; 1] = ["exit"];

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

/// Most folders the line is followed in at once; past it, the reader is
/// lost.
const MAX_FOLDERS: usize = 8;

/// Why a `cd` loses the reader.
pub(crate) const UNFOLLOWED: &str = "a `cd`, `pushd` or `popd` went to a folder the reader cannot follow, so the files it writes there cannot be named";
/// Why a computed target cannot be named.
const COMPUTED: &str = "a file it writes is named at run time (a variable, `$(…)`, a glob or `~`)";
/// Why a function's writes cannot be named.
pub(crate) const CALLERS: &str =
    "a function writes in the folder it is called from, which the reader cannot follow";

/// The folders a command line may be in, as it is read command by command.
#[derive(Debug, Clone)]
pub(crate) struct Folders {
    /// Where the line may be now (none: it has ended).
    now: Vec<Cwd>,
    /// Where it may be when the last command failed: where that command
    /// started (a `cd` that fails stays), for `||` and after `&&`.
    failed: Vec<Cwd>,
    /// `pushd`'s stack.
    stack: Vec<Vec<Cwd>>,
    /// How many commands met so far may have moved the line.
    moves: usize,
}

impl Default for Folders {
    fn default() -> Self {
        Folders {
            now: vec![Cwd::Start],
            failed: vec![Cwd::Start],
            stack: Vec::new(),
            moves: 0,
        }
    }
}

/// A write's target as the folders place it ([`Folders::place`]).
pub(crate) struct Placed {
    /// The paths it names from where the line started (as written where
    /// that cannot be told).
    pub writes: Vec<String>,
    /// Why it cannot be named, if so.
    pub unnamed: Option<&'static str>,
    /// Whether it is written in a function's caller's folder.
    pub in_caller: bool,
}

impl Folders {
    /// Somewhere the reader cannot follow, for `why`.
    pub(crate) fn lose(&mut self, why: &'static str) {
        self.now = vec![Cwd::Lost(why)];
        self.failed = self.now.clone();
        self.moves += 1;
    }

    /// How many commands met so far may have moved the line: reading a
    /// part that may run not at all or many times (a loop, a branch, a
    /// function), a change says the line is lost after it.
    pub(crate) fn moves(&self) -> usize {
        self.moves
    }

    /// Inside a function's body, which runs in its callers' folder.
    pub(crate) fn in_function(&self) -> Folders {
        Folders {
            now: vec![Cwd::Caller],
            failed: vec![Cwd::Caller],
            stack: Vec::new(),
            moves: self.moves,
        }
    }

    /// Where the last pipeline left the line: (it succeeded, it failed).
    pub(crate) fn outcome(&self) -> (Vec<Cwd>, Vec<Cwd>) {
        (self.now.clone(), self.failed.clone())
    }

    /// Goes on from `now` (one of an [`Folders::outcome`]'s sides, or
    /// both).
    pub(crate) fn resume(&mut self, now: Vec<Cwd>) {
        self.failed = now.clone();
        self.now = now;
    }

    /// After a part that ran in a process of its own: the line is where
    /// it was, whether the part failed or not.
    pub(crate) fn back_to(&mut self, outside: Folders) {
        *self = outside;
        self.failed = self.now.clone();
    }

    /// After a part that may not have run (and moved nothing): where the
    /// line may be is where it was before it, or where the part left it.
    pub(crate) fn or_as_before(&mut self, before: Folders) {
        self.now = either(before.now, std::mem::take(&mut self.now));
        self.failed = either(before.failed, std::mem::take(&mut self.failed));
    }

    /// `!` in front of a pipeline: success and failure change places.
    pub(crate) fn negate(&mut self) {
        std::mem::swap(&mut self.now, &mut self.failed);
    }

    /// Follows one simple command, `name` (its program's base name) with
    /// `args`, before it is unwrapped.
    pub(crate) fn follow(&mut self, name: &str, args: &[String]) {
        self.failed = self.now.clone();
        if ENDS_THE_LINE.contains(&name) {
            self.now.clear();
            self.failed.clear();
            return;
        }
        let chdir = CHDIR_OPTIONS
            .iter()
            .find(|(program, _)| *program == name)
            .is_some_and(|(_, options)| !super::wrappers::option_values(args, options).is_empty());
        // `dirs -c`, `dirs +1`: the stack is not the reader's copy.
        if chdir || (name == "dirs" && !args.is_empty()) {
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
        let to = match (name, operands.as_slice()) {
            ("popd", []) => self.stack.pop().unwrap_or(vec![Cwd::Lost(UNFOLLOWED)]),
            ("cd" | "pushd", [dir]) if is_plain(dir) => {
                if name == "pushd" {
                    self.stack.push(self.now.clone());
                }
                self.now.iter().map(|cwd| cwd.join(dir)).collect()
            }
            _ => vec![Cwd::Lost(UNFOLLOWED)],
        };
        self.now = bounded(to);
    }

    /// Where the line writes `target`: from every folder it may be in.
    pub(crate) fn place(&self, target: &str) -> Placed {
        let mut placed = Placed {
            writes: Vec::new(),
            unnamed: None,
            in_caller: false,
        };
        if is_computed(target) {
            placed.unnamed = Some(COMPUTED);
        }
        for cwd in &self.now {
            match cwd {
                Cwd::Plain(dir) if placed.unnamed.is_none() && !target.starts_with('/') => placed
                    .writes
                    .push(format!("{}/{target}", dir.trim_end_matches('/'))),
                Cwd::Lost(why) if !target.starts_with('/') => {
                    placed.unnamed.get_or_insert(why);
                }
                Cwd::Caller if !target.starts_with('/') => placed.in_caller = true,
                _ => {}
            }
        }
        let elsewhere = placed.writes.len();
        if elsewhere < self.now.len() || placed.writes.is_empty() {
            placed.writes.push(target.to_string());
        }
        placed
    }
}

impl Folders {
    /// `path` as seen from every folder the line may be in that the
    /// reader can name (`stdin` after `cd /dev` is `/dev/stdin`).
    pub(crate) fn seen_from(&self, path: &str) -> Vec<String> {
        (self.now.iter())
            .map(|cwd| match cwd.join(path) {
                Cwd::Plain(joined) => joined,
                _ => path.to_string(),
            })
            .collect()
    }
}

impl Cwd {
    /// The folder `dir` names from this one.
    fn join(&self, dir: &str) -> Cwd {
        match self {
            Cwd::Lost(why) => Cwd::Lost(why),
            Cwd::Caller => Cwd::Lost(CALLERS),
            _ if dir.starts_with('/') => Cwd::Plain(dir.to_string()),
            Cwd::Start => Cwd::Plain(dir.to_string()),
            Cwd::Plain(from) => Cwd::Plain(format!("{}/{dir}", from.trim_end_matches('/'))),
        }
    }
}

/// `cwds` without repeats; past [`MAX_FOLDERS`], lost.
fn bounded(mut cwds: Vec<Cwd>) -> Vec<Cwd> {
    let mut seen = Vec::new();
    cwds.retain(|c| {
        let fresh = !seen.contains(c);
        if fresh {
            seen.push(c.clone());
        }
        fresh
    });
    match cwds.len() > MAX_FOLDERS {
        true => vec![Cwd::Lost(UNFOLLOWED)],
        false => cwds,
    }
}

/// Both sides of an outcome, for what comes after a chain (`a && cd x;
/// b`: `b` runs where `a` failed, or in `x`).
pub(crate) fn either(a: Vec<Cwd>, b: Vec<Cwd>) -> Vec<Cwd> {
    bounded(a.into_iter().chain(b).collect())
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
        let placed = folders.place(target);
        (placed.writes, placed.unnamed.is_some())
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
