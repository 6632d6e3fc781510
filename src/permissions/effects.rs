//! What a command's options and environment make it do beyond its name:
//! files it writes (`git diff --output=F`, `curl -o F`, `tee F`), commands it
//! runs (`git -c alias.x='!cmd' x`, `git -c core.pager=cmd`,
//! `--upload-pack=cmd`, `tar --to-command=cmd`, `GIT_SSH_COMMAND=cmd git …`),
//! and code it runs that no rule can read (`python3 -c '…'`, `node -e '…'`).
//!
//! The rules then see those files as writes and those commands as commands
//! ([`super::shell`]); inline code makes deny and ask rules fail closed
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
    pub hidden: Option<String>,
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

/// Programs whose `-o FILE` (or `-oFILE`) writes FILE.
const DASH_O_WRITES: [&str; 15] = [
    "git", "curl", "sort", "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "rustc", "go",
    "pandoc", "as", "objcopy",
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

/// The effects of the simple command `name` (its program's base name)
/// with `args`, given the `assignments` in front of it.
pub(crate) fn of(name: &str, args: &[String], assignments: &[String]) -> Effects {
    let mut effects = Effects::default();
    from_environment(assignments, &mut effects);
    let args = &expand_long_options(name, args);
    output_options(name, args, &mut effects);
    match name {
        "export" | "declare" | "typeset" | "readonly" | "local" => {
            from_environment(args, &mut effects);
        }
        "git" => git(args, &mut effects),
        "tee" => effects.writes.extend(
            args.iter()
                .filter(|a| !a.starts_with('-') || *a == "-")
                .filter(|a| *a != "-")
                .cloned(),
        ),
        "dd" => effects.writes.extend(
            args.iter()
                .filter_map(|a| a.strip_prefix("of="))
                .map(str::to_string),
        ),
        "tar" | "gtar" | "bsdtar" => tar(args, &mut effects),
        "rsync" => effects.scripts.extend(value_of(args, &["-e", "--rsh"])),
        "ssh" | "scp" | "sftp" => ssh(args, &mut effects),
        "sed" | "gsed" => effects.scripts.extend(inline_code::sed_commands(args)),
        "awk" | "gawk" | "mawk" | "nawk" => {
            effects.scripts.extend(inline_code::awk_commands(args));
        }
        "split" => effects.scripts.extend(value_of(args, &["--filter"])),
        "zip" => effects
            .scripts
            .extend(value_of(args, &["-TT", "--unzip-command"])),
        "sqlite3" => effects.scripts.extend(args.iter().filter_map(|a| {
            let a = a.trim_start();
            a.strip_prefix(".shell")
                .or_else(|| a.strip_prefix(".system"))
                .map(str::to_string)
        })),
        "sort" => effects
            .scripts
            .extend(value_of(args, &["--compress-program"])),
        _ => {}
    }
    if effects.hidden.is_none() {
        effects.hidden = inline_code::of(name, args);
    }
    effects
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
            effects.hidden = Some(format!("`{variable}` hands git settings from outside"));
        }
    }
}

/// `--output F`, `--output=F` (any program) and `-o F`, `-oF` (programs
/// in [`DASH_O_WRITES`]; `wget -O F` too).
fn output_options(name: &str, args: &[String], effects: &mut Effects) {
    let mut options: Vec<&str> = OUTPUT_OPTIONS.to_vec();
    if DASH_O_WRITES.contains(&name) {
        options.push("-o");
    }
    if name == "wget" {
        options.extend(["-O", "-o"]);
    }
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
                effects.hidden =
                    Some("`git --config-env` reads a setting from the environment".into());
            }
            a if a.starts_with("--exec-path=") => {
                effects.hidden =
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
                effects.hidden = Some(format!(
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
/// files elsewhere, or is not known to be data, is noted as hidden.
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
        effects.hidden = Some(format!(
            "`git -c {key}` makes git read or run files elsewhere"
        ));
    } else if !GIT_DATA_KEYS.iter().any(|k| key_matches(k, &key))
        && !key.starts_with("alias.")
        && effects.hidden.is_none()
    {
        effects.hidden = Some(format!(
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

/// `tar --to-command=CMD`, `-I CMD`, `--use-compress-program=CMD`,
/// `--checkpoint-action=exec=CMD`, `--info-script`/`-F CMD`.
fn tar(args: &[String], effects: &mut Effects) {
    effects.scripts.extend(value_of(
        args,
        &[
            "--to-command",
            "-I",
            "--use-compress-program",
            "--info-script",
            "--new-volume-script",
            "-F",
        ],
    ));
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

/// Long options that take a value, per program, whose unambiguous
/// abbreviations (`--upload-pa=…`, `--to-comm=…`, `--e=…`) GNU and git
/// accept.
const LONG_OPTIONS: [(&str, &[&str]); 4] = [
    ("sed", &["--expression"]),
    ("make", &["--eval"]),
    (
        "git",
        &[
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
    ),
    (
        "tar",
        &[
            "--to-command",
            "--use-compress-program",
            "--checkpoint-action",
            "--info-script",
            "--new-volume-script",
        ],
    ),
];

/// `args` with abbreviated long options written out in full.
fn expand_long_options(name: &str, args: &[String]) -> Vec<String> {
    let Some((_, known)) = LONG_OPTIONS
        .iter()
        .find(|(n, _)| *n == name || name.strip_prefix('g') == Some(*n))
    else {
        return args.to_vec();
    };
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
mod tests {
    use super::*;

    fn effects(line: &str) -> Effects {
        let words: Vec<String> = shlex::split(line).unwrap();
        let (assignments, words) = super::super::wrappers::split_assignments(words);
        of(&words[0], &words[1..], &assignments)
    }

    #[test]
    fn options_that_write() {
        assert_eq!(effects("git diff --output=out.txt").writes, ["out.txt"]);
        assert_eq!(effects("git diff --output out.txt").writes, ["out.txt"]);
        assert_eq!(effects("curl -o page.html http://x").writes, ["page.html"]);
        assert_eq!(effects("curl -opage.html http://x").writes, ["page.html"]);
        assert_eq!(effects("wget -O f http://x").writes, ["f"]);
        assert_eq!(effects("sort -o sorted.txt in.txt").writes, ["sorted.txt"]);
        assert_eq!(effects("tee -a a.txt b.txt").writes, ["a.txt", "b.txt"]);
        assert_eq!(effects("dd if=x of=y").writes, ["y"]);
        assert!(
            effects("grep -o foo x").writes.is_empty(),
            "grep's -o is --only-matching"
        );
        assert!(effects("git diff HEAD").writes.is_empty());
        assert!(effects("aws s3 ls --output json").writes.is_empty());
        assert!(effects("curl -o - http://x").writes.is_empty());
        assert!(effects("gcc x.c -- -o y").writes.is_empty());
    }

    #[test]
    fn options_that_run_commands() {
        assert_eq!(
            effects("git -c alias.x='!curl evil' x").scripts,
            ["curl evil"]
        );
        assert!(effects("git -c alias.st=status st").scripts.is_empty());
        assert_eq!(
            effects("git -c core.pager='sh -c id' log").scripts,
            ["sh -c id"]
        );
        assert_eq!(effects("git -c core.sshCommand=nc push").scripts, ["nc"]);
        assert_eq!(effects("git -c diff.py.textconv=nc diff").scripts, ["nc"]);
        assert_eq!(
            effects("git fetch --upload-pack='touch x' o").scripts,
            ["touch x"]
        );
        assert_eq!(effects("git push --receive-pack=nc o").scripts, ["nc"]);
        assert_eq!(effects("git archive --exec=nc --remote=o").scripts, ["nc"]);
        assert_eq!(effects("GIT_SSH_COMMAND='nc x' git push").scripts, ["nc x"]);
        assert_eq!(effects("PAGER=nc git log").scripts, ["nc"]);
        assert_eq!(effects("tar --to-command=nc -xf a.tar").scripts, ["nc"]);
        assert_eq!(
            effects("tar --checkpoint=1 --checkpoint-action=exec=nc -cf a .").scripts,
            ["nc"]
        );
        assert_eq!(
            effects("ssh -o ProxyCommand='nc %h' host").scripts,
            ["nc %h"]
        );
        assert_eq!(effects("rsync -e 'nc x' a b:").scripts, ["nc x"]);
        assert!(effects("git -c include.path=/tmp/c log").hidden.is_some());
        assert!(effects("git --exec-path=/tmp status").hidden.is_some());
        assert!(effects("GIT_CONFIG_COUNT=1 git log").hidden.is_some());
    }
}
