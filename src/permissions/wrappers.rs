//! Commands that run other commands (`sudo`, `env`, `timeout`, `xargs`,
//! `bash -c`, `eval`, `watch`, `trap`, `su -c`, `chroot`, `strace`…): what
//! each one runs, so rules and hard rules see the real command behind it.

use super::shell_input::{SHELLS, ShellRuns, shell_runs};

/// What a wrapper runs.
pub(crate) enum Unwrapped {
    /// Not a wrapper (or a wrapper with nothing to run).
    Plain,
    /// The wrapped command, and assignments the wrapper adds (`env A=1`).
    Command(Vec<String>, Vec<String>),
    /// A script given as one string (`bash -c '…'`, `env -S '…'`).
    Script(String),
}

/// A wrapper that runs the command after its options and its positional
/// arguments.
struct Wrapper {
    /// Its names (`sudo`, `doas`).
    names: &'static [&'static str],
    /// Its options that take a value (the next word).
    with_value: &'static [&'static str],
    /// Its positional arguments before the command (`timeout 5 CMD`).
    positional: usize,
}

/// The wrappers that run the command after their options and positional
/// arguments, and nothing else.
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        names: &["sudo", "doas"],
        with_value: &[
            "-u",
            "-g",
            "-C",
            "-D",
            "-h",
            "-p",
            "-U",
            "-r",
            "-t",
            "--user",
            "--group",
            "--chdir",
            "--prompt",
            "--host",
            "--other-user",
            "--role",
            "--type",
            "--close-from",
        ],
        positional: 0,
    },
    Wrapper {
        names: &["timeout"],
        with_value: &["-s", "-k", "--signal", "--kill-after"],
        positional: 1,
    },
    Wrapper {
        names: &["nice"],
        with_value: &["-n", "--adjustment"],
        positional: 0,
    },
    Wrapper {
        names: &["xargs"],
        with_value: &[
            "-a",
            "-d",
            "-E",
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-lines",
            "--max-chars",
            "--replace",
            "--eof",
            "--process-slot-var",
        ],
        positional: 0,
    },
    Wrapper {
        names: &[
            "command", "nohup", "builtin", "setsid", "unbuffer", "unshare",
        ],
        with_value: &[],
        positional: 0,
    },
    Wrapper {
        names: &["exec"],
        with_value: &["-a"],
        positional: 0,
    },
    Wrapper {
        names: &["stdbuf"],
        with_value: &["-i", "-o", "-e"],
        positional: 0,
    },
    Wrapper {
        names: &["ionice"],
        with_value: &["-c", "-n", "-p", "-P", "-u"],
        positional: 0,
    },
    Wrapper {
        names: &["chrt", "taskset"],
        with_value: &[],
        positional: 1,
    },
    Wrapper {
        names: &["logsave"],
        with_value: &[],
        positional: 1,
    },
    Wrapper {
        names: &["valgrind"],
        with_value: &[],
        positional: 0,
    },
    Wrapper {
        names: &["nsenter"],
        with_value: &[
            "-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root",
        ],
        positional: 0,
    },
    Wrapper {
        names: &["fakeroot"],
        with_value: &["-l", "--lib", "--faked", "-s", "-i", "-b"],
        positional: 0,
    },
    Wrapper {
        names: &["ssh-agent"],
        with_value: &["-a", "-E", "-t", "-P", "-O"],
        positional: 0,
    },
    Wrapper {
        names: &["chroot"],
        with_value: &["--userspec", "--groups"],
        positional: 1,
    },
    Wrapper {
        names: &["setarch"],
        with_value: &[],
        positional: 1,
    },
    Wrapper {
        names: &[
            "linux32", "linux64", "x86_64", "i386", "i686", "aarch64", "arm64", "uname26",
        ],
        with_value: &[],
        positional: 0,
    },
    Wrapper {
        names: &["setpriv"],
        with_value: &[
            "--reuid",
            "--regid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--pdeathsig",
            "--selinux-label",
            "--apparmor-profile",
        ],
        positional: 0,
    },
    Wrapper {
        names: &["strace", "ltrace"],
        with_value: &[
            "-o", "-e", "-p", "-s", "-u", "-a", "-E", "-P", "-I", "-b", "-O", "-S", "-X",
        ],
        positional: 0,
    },
    Wrapper {
        names: &["prlimit"],
        with_value: &["-p", "--pid", "-o", "--output"],
        positional: 0,
    },
];

/// The options of `perf stat|record|trace` that take a value.
const PERF_WITH_VALUE: [&str; 11] = [
    "-o", "--output", "-e", "--event", "-p", "--pid", "-t", "--tid", "-C", "-r", "-x",
];

/// What the wrapper `name` with `args` runs. The table ([`WRAPPERS`])
/// knows, per wrapper, the options that take a value and the positional
/// arguments before the command; the others are read one by one.
pub(crate) fn unwrap(name: &str, args: &[String]) -> Unwrapped {
    // `command -v x` only looks x up.
    if name == "command" && args.iter().any(|a| a == "-v" || a == "-V") {
        return Unwrapped::Plain;
    }
    if let Some(wrapper) = WRAPPERS.iter().find(|w| w.names.contains(&name)) {
        return plain(skip_options(args, wrapper.with_value, wrapper.positional));
    }
    match name {
        "env" => env(args),
        "flock" => flock(args),
        "script" => script(args),
        shell if SHELLS.contains(&shell) => shell_script(args),
        "eval" => Unwrapped::Script(args.join(" ")),
        // `perf stat|record|trace [options] CMD…`
        "perf" => match args.first().map(String::as_str) {
            Some("stat" | "record" | "trace") => {
                plain(skip_options(&args[1..], &PERF_WITH_VALUE, 0))
            }
            _ => Unwrapped::Plain,
        },
        // `gdb --args CMD…`
        "gdb" => match args.iter().position(|a| a == "--args") {
            Some(i) => plain(args[i + 1..].to_vec()),
            None => Unwrapped::Plain,
        },
        // `capsh … -- ARGS`: ARGS go to bash.
        "capsh" => match args.iter().position(|a| a == "--") {
            Some(i) => {
                let mut bash = vec!["bash".to_string()];
                bash.extend(args[i + 1..].iter().cloned());
                plain(bash)
            }
            None => Unwrapped::Plain,
        },
        "sg" => match args.iter().position(|a| a == "-c") {
            Some(i) => script_at(args, i + 1),
            None => script_at(args, 1),
        },
        // `watch` joins its arguments into a shell command.
        "watch" => Unwrapped::Script(
            skip_options(args, &["-n", "--interval", "-d", "-q", "--equexit"], 0).join(" "),
        ),
        // `trap 'cmd' EXIT` runs its first argument as a script.
        "trap" => match args.iter().find(|a| *a != "--") {
            Some(first) if !first.starts_with('-') => Unwrapped::Script(first.clone()),
            _ => Unwrapped::Plain,
        },
        // `compgen -C cmd`, `complete -C cmd`: a command run for
        // completions; `mapfile -C cmd`: a callback run as a script.
        "compgen" | "complete" | "mapfile" | "readarray" => {
            match args.iter().position(|a| a == "-C") {
                Some(i) => script_at(args, i + 1),
                None => Unwrapped::Plain,
            }
        }
        "su" | "runuser" => su(args),
        _ => Unwrapped::Plain,
    }
}

/// The wrapped command `rest`, with no assignments.
fn plain(rest: Vec<String>) -> Unwrapped {
    Unwrapped::Command(rest, Vec::new())
}

/// The script `args[i]` (nothing to run when there is no such word).
fn script_at(args: &[String], i: usize) -> Unwrapped {
    args.get(i)
        .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone()))
}

/// What `env` runs: the script given with `-S` (`--split-string`), else
/// the command after its options, with the assignments in front of it.
fn env(args: &[String]) -> Unwrapped {
    for (i, a) in args.iter().enumerate() {
        if a == "-S" || a == "--split-string" {
            return script_at(args, i + 1);
        }
        if let Some(script) = a
            .strip_prefix("--split-string=")
            .or_else(|| a.strip_prefix("-S").filter(|s| !s.is_empty()))
        {
            return Unwrapped::Script(script.to_string());
        }
    }
    let rest = skip_options(args, &["-u", "-C", "--unset", "--chdir"], 0);
    let (assigned, rest) = split_assignments(rest);
    Unwrapped::Command(rest, assigned)
}

/// What `flock` runs: the script given with `-c` (`--command`), else the
/// command after its options and the lock file.
fn flock(args: &[String]) -> Unwrapped {
    if let Some(i) = args.iter().position(|a| a == "-c" || a == "--command") {
        return script_at(args, i + 1);
    }
    plain(skip_options(
        args,
        &["-w", "--timeout", "-E", "--conflict-exit-code"],
        1,
    ))
}

/// What `script` runs: the script given with `-c` (`--command`, or an
/// option cluster ending in `c`).
fn script(args: &[String]) -> Unwrapped {
    match args.iter().position(|a| {
        a == "-c"
            || a == "--command"
            || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c'))
    }) {
        Some(i) => script_at(args, i + 1),
        None => Unwrapped::Plain,
    }
}

/// What a shell runs: the command string of `-c` (`-c`, `-lc`, `-ec --`).
fn shell_script(args: &[String]) -> Unwrapped {
    match shell_runs(args) {
        ShellRuns::Command(Some(script)) => Unwrapped::Script(script),
        _ => Unwrapped::Plain,
    }
}

/// What `su` (or `runuser`) runs: the script given with `-c`
/// (`--command`), else the command after `--`.
fn su(args: &[String]) -> Unwrapped {
    if let Some(i) = args.iter().position(|a| a == "-c" || a == "--command") {
        return script_at(args, i + 1);
    }
    match args.iter().position(|a| a == "--") {
        Some(i) => plain(args[i + 1..].to_vec()),
        None => Unwrapped::Plain,
    }
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir`.
pub(crate) fn find_execs(args: &[String]) -> Vec<Vec<String>> {
    let mut execs = Vec::new();
    let mut rest = args;
    while let Some(start) = rest
        .iter()
        .position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
    {
        let after = &rest[start + 1..];
        let end = after
            .iter()
            .position(|a| a == ";" || a == "+" || a == "\\;")
            .unwrap_or(after.len());
        execs.push(after[..end].to_vec());
        rest = &after[end.min(after.len())..];
        if rest.is_empty() {
            break;
        }
        rest = &rest[1..];
    }
    execs
}

/// Whether `word` is a `NAME=value` assignment.
pub(crate) fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Splits leading `NAME=value` words from the rest.
pub(crate) fn split_assignments(mut words: Vec<String>) -> (Vec<String>, Vec<String>) {
    let count = words.iter().take_while(|w| is_assignment(w)).count();
    let rest = words.split_off(count);
    (words, rest)
}

/// The values of `options` (`--opt V`, `--opt=V`, `-oV`).
pub(crate) fn option_values(args: &[String], options: &[&str]) -> Vec<String> {
    let mut values = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        for option in options {
            if arg == option {
                values.extend(args.get(i + 1).cloned());
            } else if let Some(value) = arg.strip_prefix(option) {
                let value = match option.starts_with("--") {
                    true => value.strip_prefix('='),
                    false => Some(value),
                };
                values.extend(value.filter(|v| !v.is_empty()).map(str::to_string));
            }
        }
    }
    values
}

/// Skips leading options (those in `with_value` also take the next word),
/// then `positional` arguments; returns the rest.
fn skip_options(args: &[String], with_value: &[&str], positional: usize) -> Vec<String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        i += if with_value.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    args.get(i + positional..).unwrap_or_default().to_vec()
}

/// How a shell comes to read a start-up file before its script: a file no
/// rule can read, which a command may have just written.
enum Trigger {
    /// A variable given to the program (`BASH_ENV=rc bash -c …`).
    Variable(&'static str),
    /// A variable given to a shell that names where its start-up files
    /// are (`ZDOTDIR=. zsh -c …`, `HOME=$PWD bash -l`); also one assigned
    /// or exported earlier on the line.
    Home(&'static str),
    /// A long option before the script (`--rcfile rc`), also with `=`.
    Long(&'static str),
    /// A letter in a short option cluster before the script (`-i`, `-lc`),
    /// or a `-o` option's value (`zsh -o login`).
    Short(char, &'static str),
    /// None of these options, nor a short cluster with `c`: the program
    /// starts an interactive shell (`script` without `-c`), which runs its
    /// rc file and reads its commands from the input.
    Without(&'static [&'static str]),
}

/// One way a program reads a start-up file, and why it cannot be read.
struct StartupFile {
    trigger: Trigger,
    /// The programs it applies to; empty for any program.
    shells: &'static [&'static str],
    why: &'static str,
}

/// Every way a shell is made to read a start-up file (docs/permissions.md,
/// "Hard rules"): the hard rules refuse such a command, and deny and ask
/// rules fail closed on it.
const STARTUP_FILES: &[StartupFile] = &[
    StartupFile {
        trigger: Trigger::Variable("BASH_ENV"),
        shells: &[],
        why: "`BASH_ENV` or `ENV` makes a shell run a file first",
    },
    StartupFile {
        trigger: Trigger::Variable("ENV"),
        shells: &[],
        why: "`BASH_ENV` or `ENV` makes a shell run a file first",
    },
    // `BASH_FUNC_f%%=() {…}` defines a function bash then runs.
    StartupFile {
        trigger: Trigger::Variable("BASH_FUNC_"),
        shells: &[],
        why: "`BASH_FUNC_…` makes bash define a function first",
    },
    StartupFile {
        trigger: Trigger::Long("--rcfile"),
        shells: &SHELLS,
        why: "`--rcfile` makes a shell run a file first",
    },
    StartupFile {
        trigger: Trigger::Long("--init-file"),
        shells: &SHELLS,
        why: "`--init-file` makes a shell run a file first",
    },
    StartupFile {
        trigger: Trigger::Long("--init-command"),
        shells: &["fish"],
        why: "`fish --init-command` runs a command first",
    },
    StartupFile {
        trigger: Trigger::Short('C', "init-command"),
        shells: &["fish"],
        why: "`fish -C` runs a command first",
    },
    // A login or interactive shell (`bash -lc`, `-i`) runs the user's own
    // profile and rc files, which a sandboxed command cannot write: only
    // one pointed elsewhere (another `HOME`, `ZDOTDIR`, below) reads a
    // file the line may have written.
    StartupFile {
        trigger: Trigger::Without(&["--command"]),
        shells: &["script"],
        why: "`script` without `-c` starts an interactive shell, which runs its rc file and reads commands from the input",
    },
    StartupFile {
        trigger: Trigger::Without(&["--command", "--session-command"]),
        shells: &["su"],
        why: "`su` without `-c` starts a shell, which runs its start-up files and reads commands from the input",
    },
    StartupFile {
        trigger: Trigger::Home("HOME"),
        shells: &SHELLS,
        why: "a shell given another `HOME` runs start-up files from there",
    },
    StartupFile {
        trigger: Trigger::Home("ZDOTDIR"),
        shells: &SHELLS,
        why: "`ZDOTDIR` makes zsh run start-up files from there",
    },
    StartupFile {
        trigger: Trigger::Home("XDG_CONFIG_HOME"),
        shells: &SHELLS,
        why: "`XDG_CONFIG_HOME` makes fish run start-up files from there",
    },
];

/// The start-up variable (`BASH_ENV`, `ENV`, `HOME`, `ZDOTDIR`, …) that
/// `word` (`NAME` or `NAME=value`) sets, if any: a shell started later on
/// the same line runs a file it names, or reads start-up files from there.
pub(crate) fn moves_startup_files(word: &str) -> Option<&'static str> {
    let name = word.split_once('=').map_or(word, |(n, _)| n);
    STARTUP_FILES.iter().find_map(|row| match row.trigger {
        Trigger::Variable(var) | Trigger::Home(var)
            if name == var || (var.ends_with('_') && name.starts_with(var)) =>
        {
            Some(var)
        }
        _ => None,
    })
}

/// Why the program `name` with `args`, given `assignments`, runs a
/// start-up file before its script ([`STARTUP_FILES`]), if it does.
/// `moved` names the start-up variables the line set earlier
/// ([`moves_startup_files`]). Options count only before the script.
pub(crate) fn startup_file(
    name: &str,
    args: &[String],
    assignments: &[String],
    moved: &[&str],
) -> Option<&'static str> {
    let options = shell_options(args);
    STARTUP_FILES.iter().find_map(|row| {
        let applies = row.shells.is_empty() || row.shells.contains(&name);
        let assigned = |var: &str| {
            assignments.iter().any(|a| {
                a.starts_with(var) && (var.ends_with('_') || a[var.len()..].starts_with('='))
            })
        };
        let hit = match row.trigger {
            Trigger::Variable(var) | Trigger::Home(var) => assigned(var) || moved.contains(&var),
            Trigger::Long(option) => options
                .iter()
                .any(|o| o == option || o.strip_prefix(option).is_some_and(|v| v.starts_with('='))),
            Trigger::Without(given) => !args.iter().any(|a| {
                let cluster = a.starts_with('-') && !a.starts_with("--") && a.contains('c');
                cluster || given.iter().any(|g| a.split('=').next() == Some(*g))
            }),
            Trigger::Short(letter, long) => options.iter().any(|o| {
                (o.starts_with('-') && !o.starts_with("--") && o.contains(letter)) || o == long
            }),
        };
        (applies && hit).then_some(row.why)
    })
}

/// A shell's options before its script or command string: option
/// clusters (`-lc`), long options, and the values of `-o`/`+o` (`zsh -o
/// login`), which are given as the bare value.
fn shell_options(args: &[String]) -> Vec<String> {
    let mut options = Vec::new();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        match arg.as_str() {
            "--" | "-" => break,
            "-o" | "+o" | "-O" | "+O" => options.extend(words.next().cloned()),
            "--rcfile" | "--init-file" | "--init-command" => {
                options.push(arg.clone());
                words.next();
            }
            a if a.starts_with('-') => options.push(arg.clone()),
            a if a.starts_with('+') => {}
            _ => break,
        }
    }
    options
}
