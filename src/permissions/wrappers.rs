//! Commands that run other commands (`sudo`, `env`, `timeout`, `xargs`,
//! `bash -c`, `eval`, `watch`, `trap`, `su -c`, `chroot`, `strace`…): what
//! each one runs, so rules and hard rules see the real command behind it.

/// Shells that run a script given with `-c` (or read from stdin).
pub const SHELLS: [&str; 6] = ["bash", "sh", "zsh", "dash", "ksh", "fish"];

/// What a wrapper runs.
pub enum Unwrapped {
    /// Not a wrapper (or a wrapper with nothing to run).
    Plain,
    /// The wrapped command, and assignments the wrapper adds (`env A=1`).
    Command(Vec<String>, Vec<String>),
    /// A script given as one string (`bash -c '…'`, `env -S '…'`).
    Script(String),
}

/// What the wrapper `name` with `args` runs. The table knows, per wrapper,
/// the options that take a value and the positional arguments before the
/// command.
pub fn unwrap(name: &str, args: &[String]) -> Unwrapped {
    let plain = |rest: Vec<String>| Unwrapped::Command(rest, Vec::new());
    match name {
        "sudo" | "doas" => plain(skip_options(
            args,
            &[
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
            0,
        )),
        "env" => {
            for (i, a) in args.iter().enumerate() {
                if a == "-S" || a == "--split-string" {
                    return args
                        .get(i + 1)
                        .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone()));
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
        "timeout" => plain(skip_options(
            args,
            &["-s", "-k", "--signal", "--kill-after"],
            1,
        )),
        "nice" => plain(skip_options(args, &["-n", "--adjustment"], 0)),
        "xargs" => plain(skip_options(
            args,
            &[
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
            0,
        )),
        // `command -v x` only looks x up.
        "command" if args.iter().any(|a| a == "-v" || a == "-V") => Unwrapped::Plain,
        "command" | "nohup" | "builtin" | "setsid" | "unbuffer" | "unshare" => {
            plain(skip_options(args, &[], 0))
        }
        "exec" => plain(skip_options(args, &["-a"], 0)),
        "stdbuf" => plain(skip_options(args, &["-i", "-o", "-e"], 0)),
        "ionice" => plain(skip_options(args, &["-c", "-n", "-p", "-P", "-u"], 0)),
        "chrt" | "taskset" => plain(skip_options(args, &[], 1)),
        "flock" => {
            if let Some(i) = args.iter().position(|a| a == "-c" || a == "--command") {
                return args
                    .get(i + 1)
                    .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone()));
            }
            plain(skip_options(
                args,
                &["-w", "--timeout", "-E", "--conflict-exit-code"],
                1,
            ))
        }
        "script" => {
            match args.iter().position(|a| {
                a == "-c"
                    || a == "--command"
                    || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c'))
            }) {
                Some(i) => args
                    .get(i + 1)
                    .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone())),
                None => Unwrapped::Plain,
            }
        }
        shell if SHELLS.contains(&shell) => {
            // The script is the first argument that is not an option after
            // the option cluster holding `c` (`-c`, `-lc`, `-c -e`, `-c --`).
            let c_flag = args
                .iter()
                .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'));
            match c_flag.and_then(|i| args[i + 1..].iter().find(|a| !a.starts_with('-'))) {
                Some(script) => Unwrapped::Script(script.clone()),
                None => Unwrapped::Plain,
            }
        }
        "eval" => Unwrapped::Script(args.join(" ")),
        "logsave" => plain(skip_options(args, &[], 1)),
        "valgrind" => plain(skip_options(args, &[], 0)),
        "nsenter" => plain(skip_options(
            args,
            &[
                "-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root",
            ],
            0,
        )),
        // `perf stat|record|trace [options] CMD…`
        "perf" => match args.first().map(String::as_str) {
            Some("stat" | "record" | "trace") => plain(skip_options(
                &args[1..],
                &[
                    "-o", "--output", "-e", "--event", "-p", "--pid", "-t", "--tid", "-C", "-r",
                    "-x",
                ],
                0,
            )),
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
        "fakeroot" => plain(skip_options(
            args,
            &["-l", "--lib", "--faked", "-s", "-i", "-b"],
            0,
        )),
        "ssh-agent" => plain(skip_options(args, &["-a", "-E", "-t", "-P", "-O"], 0)),
        "sg" => match args.iter().position(|a| a == "-c") {
            Some(i) => args
                .get(i + 1)
                .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone())),
            None => args
                .get(1)
                .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone())),
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
        // `compgen -C cmd`, `complete -C cmd`: a command run for completions.
        "compgen" | "complete" => match args.iter().position(|a| a == "-C") {
            Some(i) => args
                .get(i + 1)
                .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone())),
            None => Unwrapped::Plain,
        },
        // `mapfile -C cmd`: a callback run as a script.
        "mapfile" | "readarray" => match args.iter().position(|a| a == "-C") {
            Some(i) => args
                .get(i + 1)
                .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone())),
            None => Unwrapped::Plain,
        },
        "su" | "runuser" => {
            if let Some(i) = args.iter().position(|a| a == "-c" || a == "--command") {
                return args
                    .get(i + 1)
                    .map_or(Unwrapped::Plain, |s| Unwrapped::Script(s.clone()));
            }
            match args.iter().position(|a| a == "--") {
                Some(i) => plain(args[i + 1..].to_vec()),
                None => Unwrapped::Plain,
            }
        }
        "chroot" => plain(skip_options(args, &["--userspec", "--groups"], 1)),
        "setarch" | "linux32" | "linux64" | "x86_64" | "i386" | "i686" | "aarch64" | "arm64"
        | "uname26" => plain(skip_options(args, &[], usize::from(name == "setarch"))),
        "setpriv" => plain(skip_options(
            args,
            &[
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
            0,
        )),
        "strace" | "ltrace" => plain(skip_options(
            args,
            &[
                "-o", "-e", "-p", "-s", "-u", "-a", "-E", "-P", "-I", "-b", "-O", "-S", "-X",
            ],
            0,
        )),
        "prlimit" => plain(skip_options(args, &["-p", "--pid", "-o", "--output"], 0)),
        _ => Unwrapped::Plain,
    }
}

/// Whether `word` is a `NAME=value` assignment.
pub fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Splits leading `NAME=value` words from the rest.
pub fn split_assignments(mut words: Vec<String>) -> (Vec<String>, Vec<String>) {
    let count = words.iter().take_while(|w| is_assignment(w)).count();
    let rest = words.split_off(count);
    (words, rest)
}

/// The values of `options` (`--opt V`, `--opt=V`, `-oV`).
pub fn option_values(args: &[String], options: &[&str]) -> Vec<String> {
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
