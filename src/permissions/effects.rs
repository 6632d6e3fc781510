//! What a command's options and environment make it do beyond its name:
//! files it writes (`git diff --output=F`, `curl -o F`, `tee F`), commands it
//! runs (`git -c alias.x='!cmd' x`, `git -c core.pager=cmd`,
//! `--upload-pack=cmd`, `tar --to-command=cmd`, `GIT_SSH_COMMAND=cmd git …`),
//! and code it runs that no rule can read (`python3 -c '…'`, `node -e '…'`).
//!
//! The rules then see those files as writes and those commands as commands
//! ([`super::reading`]); inline code makes deny and ask rules fail closed
//! ([`super::check`]).

use super::inline_code;
use super::wrappers::option_values as value_of;

/// What one simple command does besides running itself.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Effects {
    /// Files its options write.
    pub writes: Vec<String>,
    /// Command lines its options or environment run.
    pub scripts: Vec<String>,
    /// Why it may run what the rules cannot read: inline code (`python3
    /// -c`, `node -e`), git settings or commands from elsewhere (`-c
    /// include.path=…`, `--exec-path`, `GIT_CONFIG_COUNT`).
    pub unread: Option<String>,
}

/// Long options that name an output file, for any program.
const OUTPUT_OPTIONS: [&str; 6] = [
    "--output",
    "--output-file",
    "--out-file",
    "--outfile",
    "--output-document",
    "--log-file",
];

/// Values of `--output` that name a format, not a file (`aws … --output
/// json`).
const OUTPUT_FORMATS: [&str; 9] = [
    "json", "yaml", "yml", "text", "table", "tsv", "csv", "wide", "name",
];

/// Git settings whose value is a command git runs (compared in lower
/// case; `*` stands for any middle part: `diff.<driver>.textconv`).
const GIT_COMMAND_KEYS: [&str; 36] = [
    "tar.*.command",
    "credential.*.helper",
    "trailer.*.command",
    "trailer.*.cmd",
    "man.*.cmd",
    "man.*.path",
    "browser.*.cmd",
    "browser.*.path",
    "difftool.*.cmd",
    "mergetool.*.cmd",
    "gpg.ssh.defaultkeycommand",
    "uploadpack.packobjectshook",
    "core.alternaterefscommand",
    "sendemail.sendmailcmd",
    "sendemail.tocmd",
    "sendemail.cccmd",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "core.gitproxy",
    "sequence.editor",
    "diff.external",
    "diff.*.textconv",
    "diff.*.command",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "credential.helper",
    "gpg.program",
    "gpg.*.program",
    "pager.*",
];

/// Git settings known to be data: any other setting given with `-c` or
/// stored with `git config` may name a command or a file git runs or
/// reads (new ones come with every release: `man.<tool>.path`), so deny and
/// ask rules fail closed on it and only a bare `bash` allow rule allows it.
const GIT_DATA_KEYS: [&str; 40] = [
    "user.*",
    "author.*",
    "committer.*",
    "color.*",
    "advice.*",
    "i18n.*",
    "log.*",
    "status.*",
    "column.*",
    "init.defaultbranch",
    "commit.gpgsign",
    "commit.verbose",
    "tag.gpgsign",
    "core.quotepath",
    "core.autocrlf",
    "core.safecrlf",
    "core.filemode",
    "core.ignorecase",
    "core.eol",
    "core.abbrev",
    "core.whitespace",
    "core.precomposeunicode",
    "diff.noprefix",
    "diff.renames",
    "diff.algorithm",
    "diff.mnemonicprefix",
    "diff.colormoved",
    "diff.context",
    "merge.conflictstyle",
    "merge.ff",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "fetch.prune",
    "safe.directory",
    "rerere.enabled",
    "rebase.autosquash",
    "rebase.autostash",
    "branch.*.remote",
    "branch.*.merge",
];

/// Git settings that make git read or run things from elsewhere, which
/// cannot be read here.
const GIT_OPAQUE_KEYS: [&str; 3] = ["include.path", "includeif.*", "core.hookspath"];

/// Environment variables whose value is a command the program runs.
const COMMAND_VARIABLES: [&str; 12] = [
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "PAGER",
    "EDITOR",
    "VISUAL",
    "LESSOPEN",
];

/// Environment variables that hand git settings the command line does not
/// show, or another repository's.
const OPAQUE_VARIABLES: [&str; 6] = [
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_EXEC_PATH",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CONFIG_GLOBAL",
];

/// What a program (or a family of programs) does with its arguments
/// besides running itself: one row of [`PROGRAMS`].
struct ProgramSpec {
    /// Its base names.
    names: &'static [&'static str],
    /// Options whose value is a file it writes, besides the long
    /// [`OUTPUT_OPTIONS`] every program has (`curl -o F`).
    writes: &'static [&'static str],
    /// Options whose value is a command line it runs (`rsync -e CMD`).
    runs: &'static [&'static str],
    /// Long options that take a value, whose unambiguous abbreviations
    /// (`--upload-pa=…`, `--to-comm=…`, `--e=…`) it accepts.
    long: &'static [&'static str],
    /// A reader for what options alone do not say: its operands (`tee F`,
    /// `dd of=F`), settings (git), embedded programs (sed, awk).
    read: Option<fn(&[String], &mut Effects)>,
}

const fn spec(names: &'static [&'static str]) -> ProgramSpec {
    ProgramSpec {
        names,
        writes: &[],
        runs: &[],
        long: &[],
        read: None,
    }
}

/// What programs do with their arguments, one row per program or family
/// (the first row naming a program is its own); a program in no row writes
/// only through [`OUTPUT_OPTIONS`] and runs only its inline code
/// ([`inline_code::of`]).
const PROGRAMS: &[ProgramSpec] = &[
    ProgramSpec {
        read: Some(from_environment),
        ..spec(&["export", "declare", "typeset", "readonly", "local"])
    },
    ProgramSpec {
        writes: &["-o"],
        long: &[
            "--upload-pack",
            "--receive-pack",
            "--exec",
            "--extcmd",
            "--open-files-in-pager",
            "--output",
            "--config-env",
            "--exec-path",
            "--prefix",
        ],
        read: Some(git),
        ..spec(&["git"])
    },
    ProgramSpec {
        read: Some(tee),
        ..spec(&["tee"])
    },
    ProgramSpec {
        read: Some(dd),
        ..spec(&["dd"])
    },
    ProgramSpec {
        runs: &[
            "--to-command",
            "-I",
            "--use-compress-program",
            "--info-script",
            "--new-volume-script",
            "-F",
        ],
        long: &[
            "--to-command",
            "--use-compress-program",
            "--checkpoint-action",
            "--info-script",
            "--new-volume-script",
        ],
        read: Some(tar_checkpoints),
        ..spec(&["tar", "gtar", "bsdtar"])
    },
    ProgramSpec {
        runs: &["-e", "--rsh"],
        ..spec(&["rsync"])
    },
    ProgramSpec {
        read: Some(ssh),
        ..spec(&["ssh", "scp", "sftp"])
    },
    ProgramSpec {
        long: &["--expression"],
        read: Some(sed),
        ..spec(&["sed", "gsed"])
    },
    ProgramSpec {
        read: Some(awk),
        ..spec(&["awk", "gawk", "mawk", "nawk"])
    },
    ProgramSpec {
        long: &["--eval"],
        ..spec(&["make", "gmake"])
    },
    ProgramSpec {
        runs: &["--filter"],
        ..spec(&["split"])
    },
    ProgramSpec {
        runs: &["-TT", "--unzip-command"],
        ..spec(&["zip"])
    },
    ProgramSpec {
        read: Some(sqlite_dot_commands),
        ..spec(&["sqlite3"])
    },
    ProgramSpec {
        writes: &["-o"],
        runs: &["--compress-program"],
        ..spec(&["sort"])
    },
    ProgramSpec {
        writes: &["-O", "-o"],
        ..spec(&["wget"])
    },
    ProgramSpec {
        writes: &["-o"],
        ..spec(&[
            "curl", "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "rustc", "go", "pandoc",
            "as", "objcopy",
        ])
    },
];

/// A program in no row of [`PROGRAMS`].
const ANY_PROGRAM: ProgramSpec = spec(&[]);

/// The effects of the simple command `name` (its program's base name)
/// with `args`, given the `assignments` in front of it.
pub(crate) fn of(name: &str, args: &[String], assignments: &[String]) -> Effects {
    let program = (PROGRAMS.iter())
        .find(|p| p.names.contains(&name))
        .unwrap_or(&ANY_PROGRAM);
    let mut effects = Effects::default();
    from_environment(assignments, &mut effects);
    let args = &expand_long_options(program.long, args);
    output_options(program.writes, args, &mut effects);
    effects.scripts.extend(value_of(args, program.runs));
    if let Some(read) = program.read {
        read(args, &mut effects);
    }
    if effects.unread.is_none() {
        effects.unread = inline_code::of(name, args);
    }
    effects
}

/// `tee F…`: its operands.
fn tee(args: &[String], effects: &mut Effects) {
    effects.writes.extend(
        args.iter()
            .filter(|a| !a.starts_with('-') && *a != "-")
            .cloned(),
    );
}

/// `dd of=F`.
fn dd(args: &[String], effects: &mut Effects) {
    effects.writes.extend(
        args.iter()
            .filter_map(|a| a.strip_prefix("of="))
            .map(str::to_string),
    );
}

/// The commands of sed's `e` command and `s///e` flag.
fn sed(args: &[String], effects: &mut Effects) {
    effects.scripts.extend(inline_code::sed_commands(args));
}

/// The commands of awk's `system()` and pipes.
fn awk(args: &[String], effects: &mut Effects) {
    effects.scripts.extend(inline_code::awk_commands(args));
}

/// `sqlite3 DB '.shell CMD'`, `'.system CMD'`.
fn sqlite_dot_commands(args: &[String], effects: &mut Effects) {
    effects.scripts.extend(args.iter().filter_map(|a| {
        let a = a.trim_start();
        a.strip_prefix(".shell")
            .or_else(|| a.strip_prefix(".system"))
            .map(str::to_string)
    }));
}

fn from_environment(assignments: &[String], effects: &mut Effects) {
    for assignment in assignments {
        let Some((variable, value)) = assignment.split_once('=') else {
            continue;
        };
        if COMMAND_VARIABLES.contains(&variable) && !value.is_empty() {
            effects.scripts.push(value.to_string());
        }
        if OPAQUE_VARIABLES.contains(&variable) || variable.starts_with("GIT_CONFIG_KEY_") {
            effects.unread = Some(format!("`{variable}` hands git settings from outside"));
        }
    }
}

/// `--output F`, `--output=F` (any program) and the program's own output
/// options (`-o F`, `-oF`: [`ProgramSpec::writes`]).
fn output_options(own: &[&str], args: &[String], effects: &mut Effects) {
    let mut options: Vec<&str> = OUTPUT_OPTIONS.to_vec();
    options.extend(own);
    let before_end = args.split(|a| a == "--").next().unwrap_or_default();
    effects.writes.extend(
        value_of(before_end, &options)
            .into_iter()
            .filter(|v| v != "-" && !OUTPUT_FORMATS.contains(&v.as_str())),
    );
}

/// `git -c key=value`, `--config-env`, `--exec-path`, `--upload-pack`,
/// `--receive-pack`, `--exec`.
fn git(args: &[String], effects: &mut Effects) {
    let mut settings = global_options(args, effects);
    let sub = subcommand(args);
    if sub == Some("config") {
        settings.extend(stored_setting(args));
    }
    for setting in settings {
        git_setting(&setting, effects);
    }
    effects.scripts.extend(value_of(
        args,
        &["--upload-pack", "--receive-pack", "--exec"],
    ));
    if let Some(sub) = sub {
        effects.scripts.extend(subcommand_scripts(sub, args));
        effects.writes.extend(subcommand_writes(sub, args));
    }
    // `ext::cmd args` remote URLs run a command.
    effects.scripts.extend(
        args.iter()
            .filter_map(|a| a.strip_prefix("ext::"))
            .map(|cmd| cmd.replace("% ", " ").replace("%%", "%")),
    );
}

/// Git's own options: returns the settings given with `-c`; options that
/// make git read settings or run commands the rules cannot see
/// (`--config-env`, `--exec-path`, another repository or work tree) are
/// noted in `effects`.
fn global_options(args: &[String], effects: &mut Effects) -> Vec<String> {
    let mut settings: Vec<String> = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        match arg.as_str() {
            "-c" => settings.extend(args.get(i + 1).cloned()),
            a if a == "--config-env" || a.starts_with("--config-env=") => {
                effects.unread =
                    Some("`git --config-env` reads a setting from the environment".into());
            }
            a if a.starts_with("--exec-path=") => {
                effects.unread =
                    Some("`git --exec-path` runs git's commands from elsewhere".into());
            }
            // Another repository's settings and hooks, which a command may
            // have written (`git -C made-here x`, `--work-tree=.git/hooks`).
            a if i < subcommand_at(args)
                && (a == "-C"
                    || a.starts_with("--git-dir")
                    || a.starts_with("--work-tree")
                    || a.starts_with("--namespace")) =>
            {
                effects.unread = Some(format!(
                    "`git {a}` uses another repository or work tree, whose settings and hooks the rules cannot read"
                ));
            }
            _ => {}
        }
    }
    settings
}

/// The setting `git config [--global] alias.x '!cmd'` stores for later, as
/// `key=value`. Options come before the key; the value may start with `-`
/// (an alias to `-c …`).
fn stored_setting(args: &[String]) -> Option<String> {
    let words: Vec<&String> = args
        .iter()
        .skip_while(|a| a.as_str() != "config")
        .skip(1)
        .skip_while(|a| a.starts_with('-'))
        // `git config set|add|replace-all KEY VALUE` (git 2.46 and later)
        .skip_while(|a| matches!(a.as_str(), "set" | "add" | "replace-all"))
        .skip_while(|a| a.starts_with('-'))
        .collect();
    match words.as_slice() {
        [key, value, ..] => Some(format!("{key}={value}")),
        _ => None,
    }
}

/// What one git setting (`key=value`) makes git run: an alias's command
/// (or its arguments, read as given to git), a URL rewritten into a
/// command, a setting whose value is a command; one that reads or runs
/// files elsewhere, or is not known to be data, is noted as unread.
fn git_setting(setting: &str, effects: &mut Effects) {
    let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
    let key = key.to_ascii_lowercase();
    if key.starts_with("alias.")
        && let Some(script) = value.strip_prefix('!')
    {
        effects.scripts.push(script.to_string());
    } else if key.starts_with("alias.") {
        // An alias to git's own arguments: read them as given to git
        // (`alias.x=-c core.pager=cmd log`).
        // Each value is shorter than the setting it came from.
        git(&shlex::split(value).unwrap_or_default(), effects);
    } else if let Some(rest) = setting
        .get(..9)
        .filter(|h| h.eq_ignore_ascii_case("url.ext::"))
        .map(|_| &setting[9..])
        && let Some((url, _)) = rest
            .split_once('=')
            .map(|(k, _)| k)
            .and_then(|k| k.rsplit_once('.'))
    {
        // `url.ext::CMD.insteadOf=…` rewrites a URL into a command.
        effects
            .scripts
            .push(url.replace("% ", " ").replace("%%", "%"));
    } else if let Some(url) = value.strip_prefix("ext::") {
        effects
            .scripts
            .push(url.replace("% ", " ").replace("%%", "%"));
    } else if GIT_COMMAND_KEYS.iter().any(|k| key_matches(k, &key)) && !value.is_empty() {
        effects
            .scripts
            .push(value.strip_prefix('!').unwrap_or(value).to_string());
    } else if GIT_OPAQUE_KEYS.iter().any(|k| key_matches(k, &key)) {
        effects.unread = Some(format!(
            "`git -c {key}` makes git read or run files elsewhere"
        ));
    } else if !GIT_DATA_KEYS.iter().any(|k| key_matches(k, &key))
        && !key.starts_with("alias.")
        && effects.unread.is_none()
    {
        effects.unread = Some(format!(
            "the git setting `{key}` is not known to be data; it may name a command or file git runs"
        ));
    }
}

/// The commands git's subcommand `sub` runs, given its options.
fn subcommand_scripts(sub: &str, args: &[String]) -> Vec<String> {
    match sub {
        // `-u` is `--upload-pack` for clone only (fetch's `-u` takes no value).
        "clone" => value_of(args, &["-u"]),
        "difftool" => value_of(args, &["--extcmd", "-x"]),
        "rebase" => value_of(args, &["-x"]),
        "grep" => {
            let mut scripts = value_of(args, &["--open-files-in-pager"]);
            // `-Ocmd` (attached; a bare `-O` takes no value).
            scripts.extend(
                args.iter()
                    .filter_map(|a| a.strip_prefix("-O").filter(|v| !v.is_empty()))
                    .map(str::to_string),
            );
            scripts
        }
        // `git bisect run CMD ARGS…`
        "bisect" => match args.iter().position(|a| a == "run") {
            Some(i) => {
                let words = args[i + 1..].iter().map(String::as_str);
                shlex::try_join(words).ok().into_iter().collect()
            }
            None => Vec::new(),
        },
        "filter-branch" => value_of(
            args,
            &[
                "--tree-filter",
                "--index-filter",
                "--msg-filter",
                "--env-filter",
                "--commit-filter",
                "--parent-filter",
                "--tag-name-filter",
            ],
        ),
        _ => Vec::new(),
    }
}

/// The files and folders git's subcommand `sub` writes, given its options.
fn subcommand_writes(sub: &str, args: &[String]) -> Vec<String> {
    match sub {
        "clone" => vec![new_folder(args, "clone")],
        "format-patch" => {
            // Patches go to `--output-directory`, `-o`, or the working folder.
            let dirs = value_of(args, &["--output-directory"]);
            let mut writes = Vec::new();
            if dirs.is_empty() && !args.iter().any(|a| a.starts_with("-o")) {
                writes.push(".".to_string());
            }
            writes.extend(dirs);
            writes
        }
        "worktree" if args.iter().any(|a| a == "add") => vec![new_folder(args, "add")],
        "checkout-index" => value_of(args, &["--prefix"]),
        // Patches applied, a repository made, a config file written.
        "apply" | "am" => vec![".".to_string()],
        "init" => vec![new_folder(args, "init")],
        "config" => value_of(args, &["--file", "-f"]),
        // `git bundle create FILE …` writes FILE.
        "bundle" => match args.iter().position(|a| a == "create") {
            Some(i) => (args[i + 1..].iter().find(|a| !a.starts_with('-')).cloned())
                .into_iter()
                .collect(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The folder `git clone SRC [DEST]` or `git worktree add PATH` makes:
/// the last word after `after` that is not an option (`.` when none).
fn new_folder(args: &[String], after: &str) -> String {
    args.iter()
        .skip_while(|a| a.as_str() != after)
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .last()
        .cloned()
        .unwrap_or_else(|| ".".to_string())
}

/// Git's subcommand: the first word that is neither an option nor the
/// value of `-c` or `-C`.
fn subcommand(args: &[String]) -> Option<&str> {
    args.get(subcommand_at(args)).map(String::as_str)
}

/// Where git's subcommand is among `args` (`args.len()` when none).
fn subcommand_at(args: &[String]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-c" | "-C" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => return i,
        }
    }
    args.len()
}

/// Whether a git setting `key` matches `pattern`, whose `*` stands for
/// one or more dotted parts.
fn key_matches(pattern: &str, key: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == key,
        Some((head, tail)) => {
            key.len() > head.len() + tail.len() && key.starts_with(head) && key.ends_with(tail)
        }
    }
}

/// `tar --checkpoint-action=exec=CMD` (its other options that run a
/// command are in [`PROGRAMS`]).
fn tar_checkpoints(args: &[String], effects: &mut Effects) {
    for action in value_of(args, &["--checkpoint-action"]) {
        if let Some(command) = action.strip_prefix("exec=") {
            effects.scripts.push(command.to_string());
        }
    }
}

/// `ssh -o ProxyCommand=CMD`, `-o LocalCommand=CMD`.
fn ssh(args: &[String], effects: &mut Effects) {
    let options = args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a.as_str() {
            "-o" => args.get(i + 1).map(String::as_str),
            _ => a.strip_prefix("-o"),
        });
    for option in options {
        let (key, value) = option.split_once(['=', ' ']).unwrap_or((option, ""));
        let key = key.to_ascii_lowercase();
        if matches!(
            key.as_str(),
            "proxycommand" | "localcommand" | "knownhostscommand"
        ) {
            effects.scripts.push(value.trim().to_string());
        }
    }
}

/// `args` with abbreviated long options of `known` written out in full.
fn expand_long_options(known: &[&str], args: &[String]) -> Vec<String> {
    args.iter()
        .map(|arg| {
            let (option, value) = arg
                .split_once('=')
                .map_or((arg.as_str(), None), |(o, v)| (o, Some(v)));
            if !option.starts_with("--") || option.len() < 3 || known.contains(&option) {
                return arg.clone();
            }
            let matching: Vec<&&str> = known.iter().filter(|k| k.starts_with(option)).collect();
            match (matching.as_slice(), value) {
                ([full], Some(v)) => format!("{full}={v}"),
                ([full], None) => (**full).to_string(),
                _ => arg.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "effects_tests.rs"]
mod tests;
