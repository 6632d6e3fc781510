//! What one simple command changes for the commands after it on the same
//! line, as the command reader needs to know ([`super::reading`]): names
//! that may run another program (aliases, `PATH`, `hash -p`), start-up
//! variables a later shell runs a file from (`BASH_ENV`, `HOME`), variables
//! and shell options that move a `cd` or a glob (`CDPATH`, `dotglob`,
//! `lastpipe`), and what makes the rest unreadable (a variable whose name
//! is computed at run time, a name reference).

use super::wrappers::moves_startup_files;

/// A builtin that sets the shell variables some of its arguments name
/// (`export BASH_ENV`, `read HOME`, `printf -v ENV …`).
struct Setter {
    names: &'static [&'static str],
    /// Options that take a value that is not a variable's name.
    with_value: &'static [&'static str],
    /// Options whose value names a variable (`printf -v NAME`).
    name_options: &'static [&'static str],
    /// Which operands (after the options) name variables.
    operands: Operands,
}

/// Which operands of a [`Setter`] name variables.
#[derive(Clone, Copy)]
enum Operands {
    All,
    Last,
    Second,
    None,
}

/// The builtins that set variables (bash(1), "Shell builtin commands");
/// `let` sets what its expressions name ([`of_arithmetic`]).
const SETTERS: [Setter; 5] = [
    Setter {
        names: &["export", "declare", "typeset", "readonly", "local"],
        with_value: &[],
        name_options: &[],
        operands: Operands::All,
    },
    Setter {
        names: &["read"],
        with_value: &["-d", "-i", "-n", "-N", "-p", "-t", "-u"],
        name_options: &["-a"],
        operands: Operands::All,
    },
    Setter {
        names: &["printf"],
        with_value: &[],
        name_options: &["-v"],
        operands: Operands::None,
    },
    Setter {
        names: &["mapfile", "readarray"],
        with_value: &["-d", "-n", "-O", "-s", "-u", "-C", "-c"],
        name_options: &[],
        operands: Operands::Last,
    },
    Setter {
        names: &["getopts"],
        with_value: &[],
        name_options: &[],
        operands: Operands::Second,
    },
];

/// What setting a variable does to the commands after it.
#[derive(Clone, Copy)]
enum Effect {
    /// A `cd` goes where the reader cannot follow (`CDPATH`, `DIRSTACK`).
    LosesFolder,
    /// Globs match dot files (`GLOBIGNORE`).
    Dotglob,
    /// A program's name may run another program (`PATH`).
    Renamed,
}

/// The variables whose value changes what later commands do.
const VARIABLES: [(&str, Effect); 4] = [
    ("CDPATH", Effect::LosesFolder),
    ("DIRSTACK", Effect::LosesFolder),
    ("GLOBIGNORE", Effect::Dotglob),
    ("PATH", Effect::Renamed),
];

/// What turning a shell option on does.
type Turned = fn(&mut Changes);

/// What `shopt -s NAME` does to the commands after it.
const SHELL_OPTIONS: [(&str, Turned); 6] = [
    ("dotglob", |c| c.dotglob = true),
    ("nocaseglob", |c| c.nocaseglob = true),
    ("lastpipe", |c| c.lastpipe = true),
    // A folder's name alone moves the line there.
    ("autocd", |c| c.loses_folder = true),
    // `cd name` goes where the variable `name` says.
    ("cdable_vars", |c| c.loses_folder = true),
    ("expand_aliases", |c| {
        c.unread.get_or_insert("it expands aliases");
    }),
];

/// What one command changes for the commands after it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Why no rule can read the line after it, if so.
    pub unread: Option<&'static str>,
    /// Whether a program's name may run another program after it.
    pub renamed: bool,
    /// The start-up variables it sets ([`moves_startup_files`]).
    pub startup: Vec<&'static str>,
    /// Whether a `cd` after it goes where the reader cannot follow.
    pub loses_folder: bool,
    /// Shell options it turns on.
    pub dotglob: bool,
    pub nocaseglob: bool,
    pub lastpipe: bool,
}

/// What the command `words` (none for an assignment alone), with the
/// `assignments` in front of it, changes.
pub(crate) fn of(words: &[String], assignments: &[String]) -> Changes {
    let mut changes = Changes::default();
    let name = words.first().map(|p| p.rsplit('/').next().unwrap_or(p));
    let args = words.get(1..).unwrap_or_default();
    renames(name, args, words.iter().chain(assignments), &mut changes);
    for assigned in assignments {
        set(name_of(assigned), words.is_empty(), &mut changes);
    }
    let nameref = matches!(name, Some("declare" | "typeset" | "local"))
        && args.iter().any(|a| is_cluster_with(a, 'n'));
    if nameref {
        changes.unread.get_or_insert("it makes a name reference");
    }
    if name == Some("let") {
        for arg in args {
            changes.merge(of_arithmetic(arg));
        }
    }
    for variable in name.map(|n| set_names(n, args)).unwrap_or_default() {
        if name_of(variable).contains(['$', '`']) {
            let why = "it sets a variable whose name is computed at run time";
            changes.unread.get_or_insert(why);
        }
        set(name_of(variable), true, &mut changes);
    }
    // `${NAME:=value}`, `${NAME=value}` set NAME.
    for word in words.iter().chain(assignments) {
        for (at, _) in word.match_indices("${") {
            let inner = &word[at + 2..];
            let end = inner.find([':', '=', '}']).unwrap_or(inner.len());
            let assigns = inner[end..].starts_with(":=") || inner[end..].starts_with('=');
            if assigns {
                set(&inner[..end], true, &mut changes);
            }
        }
    }
    if name == Some("shopt") {
        for option in args.iter().filter(|a| !a.starts_with('-')) {
            if option.contains(['$', '`']) {
                changes
                    .unread
                    .get_or_insert("it sets a shell option named at run time");
            }
            for (known, apply) in SHELL_OPTIONS {
                if option == known {
                    apply(&mut changes);
                }
            }
        }
    }
    changes
}

/// The arguments of the builtin `name` that name the variables it sets
/// ([`SETTERS`]).
fn set_names<'a>(name: &str, args: &'a [String]) -> Vec<&'a String> {
    let Some(setter) = SETTERS.iter().find(|s| s.names.contains(&name)) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with(['-', '+']) || arg.len() == 1 {
            break;
        }
        if setter.name_options.contains(&arg.as_str()) {
            names.extend(args.get(i + 1));
        }
        let takes_value = setter.with_value.contains(&arg.as_str());
        i += if takes_value || setter.name_options.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    let operands = args.get(i..).unwrap_or_default();
    match setter.operands {
        Operands::All => names.extend(operands),
        Operands::Last => names.extend(operands.last()),
        Operands::Second => names.extend(operands.get(1)),
        Operands::None => {}
    }
    names
}

impl Changes {
    /// Adds what `other` changes.
    pub(crate) fn merge(&mut self, other: Changes) {
        self.unread = self.unread.or(other.unread);
        self.renamed |= other.renamed;
        self.startup.extend(other.startup);
        self.loses_folder |= other.loses_folder;
        self.dotglob |= other.dotglob;
        self.nocaseglob |= other.nocaseglob;
        self.lastpipe |= other.lastpipe;
    }
}

/// What an arithmetic expression (`(( X = 1 ))`, `$(( … ))`) may set:
/// any variable it names.
pub(crate) fn of_arithmetic(text: &str) -> Changes {
    let mut changes = Changes::default();
    let names = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    for name in names.filter(|n| !n.is_empty()) {
        set(name, true, &mut changes);
    }
    changes
}

/// What a `for NAME in …` loop sets.
pub(crate) fn of_loop_variable(name: &str) -> Changes {
    let mut changes = Changes::default();
    set(name, true, &mut changes);
    changes
}

/// Notes that the variable `name` is set; `persists` when it outlives the
/// command (not an assignment in front of a program, which the program's
/// own start-up checks read).
fn set(name: &str, persists: bool, changes: &mut Changes) {
    for (variable, effect) in VARIABLES {
        if name == variable {
            match effect {
                Effect::LosesFolder => changes.loses_folder = true,
                Effect::Dotglob => changes.dotglob = true,
                Effect::Renamed => changes.renamed = true,
            }
        }
    }
    if persists {
        changes.startup.extend(moves_startup_files(name));
    }
}

/// What may make a name run another program than its own: aliases,
/// `BASH_CMDS`, `enable -f`, `hash -p`.
fn renames<'a>(
    name: Option<&str>,
    args: &[String],
    all: impl Iterator<Item = &'a String> + Clone,
    changes: &mut Changes,
) {
    let cluster = |letter: char| args.iter().any(|a| is_cluster_with(a, letter));
    let mentions =
        |text: &str| (all.clone()).any(|w| w.contains(text) && !w.contains(char::is_whitespace));
    let why = match name {
        Some("alias") => Some("it defines aliases"),
        Some("enable") if cluster('f') => Some("`enable -f` gives a program another name"),
        Some("hash") if cluster('p') => Some("`hash -p` gives a program another name"),
        _ if mentions("BASH_ALIASES") => Some("it defines aliases"),
        _ if mentions("BASH_CMDS") => Some("`BASH_CMDS` gives a program another name"),
        _ => None,
    };
    if let Some(why) = why {
        changes.unread.get_or_insert(why);
    }
    changes.renamed |= why.is_some() || name == Some("enable");
}

/// Whether `arg` is a short option cluster holding `letter` (`-n`, `-xn`).
fn is_cluster_with(arg: &str, letter: char) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg.contains(letter)
}

/// The variable a `NAME=value` (or `NAME+=value`, `NAME[i]=value`, or a
/// bare `NAME`) sets.
fn name_of(word: &str) -> &str {
    let end = word.find(['=', '+', '[']).unwrap_or(word.len());
    &word[..end]
}
