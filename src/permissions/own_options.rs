//! Programs whose own options come before their subcommand (`git
//! --no-pager push`, `git -c user.name=x push`, `cargo +nightly publish`,
//! `npm --prefix x publish`): deny and ask rules that name the subcommand
//! (`bash(git push*)`) match the command with those options dropped too.
//!
//! Each program's options are data, in [`PROGRAMS`]: those that take no
//! value, those that take one (the next word, or after `=`), those whose
//! value can only be attached. An option the table does not know, before
//! the subcommand, leaves the command unread: deny and ask rules fail
//! closed on it.

/// A program whose own options come before its subcommand.
struct Program {
    /// Its names (base names: `/usr/bin/git` is `git`).
    names: &'static [&'static str],
    /// Options that take no value.
    flags: &'static [&'static str],
    /// Options that take a value: the next word, or attached after `=`
    /// (`--git-dir=.git`; cargo's short ones also right after the letter,
    /// `-Zflag`, when `short_attached`).
    with_value: &'static [&'static str],
    /// Options whose value can only be attached after `=`
    /// (`--list-cmds=main`); alone they take none (`--exec-path`).
    attached_only: &'static [&'static str],
    /// Whether a short option's value may follow its letter in the same
    /// word (`-Zflag`, `-Cdir`: clap's way; git's way is not).
    short_attached: bool,
    /// Whether any `--name=value` is one option of its own (npm reads every
    /// one as a setting).
    any_attached: bool,
    /// Whether a first word `+NAME` picks a toolchain (rustup's `cargo
    /// +nightly build`).
    toolchain: bool,
}

/// The programs, with their options before the subcommand: git's from
/// `man git` (2.47), cargo's from `cargo --help` (1.8x), npm's and pnpm's
/// most used (any `--name=value` besides).
const PROGRAMS: &[Program] = &[
    Program {
        names: &["git"],
        flags: &[
            "-v",
            "--version",
            "-h",
            "--help",
            "-p",
            "--paginate",
            "-P",
            "--no-pager",
            "--bare",
            "--no-replace-objects",
            "--no-lazy-fetch",
            "--no-optional-locks",
            "--no-advice",
            "--literal-pathspecs",
            "--glob-pathspecs",
            "--noglob-pathspecs",
            "--icase-pathspecs",
            "--html-path",
            "--man-path",
            "--info-path",
            "--exec-path",
        ],
        with_value: &[
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--config-env",
            "--attr-source",
        ],
        attached_only: &["--exec-path", "--list-cmds"],
        short_attached: false,
        any_attached: false,
        toolchain: false,
    },
    Program {
        names: &["cargo"],
        flags: &[
            "-V",
            "--version",
            "--list",
            "-v",
            "-vv",
            "--verbose",
            "-q",
            "--quiet",
            "--locked",
            "--offline",
            "--frozen",
            "-h",
            "--help",
        ],
        with_value: &["--explain", "--color", "-C", "--config", "-Z"],
        attached_only: &[],
        short_attached: true,
        any_attached: false,
        toolchain: true,
    },
    Program {
        names: &["npm"],
        flags: &[
            "-g",
            "--global",
            "-s",
            "--silent",
            "-q",
            "--quiet",
            "-d",
            "-dd",
            "-ddd",
            "--verbose",
            "-y",
            "--yes",
            "-f",
            "--force",
            "--ws",
            "--workspaces",
            "--include-workspace-root",
            "--no-audit",
            "--no-fund",
            "--offline",
            "--prefer-offline",
            "--json",
            "--legacy-peer-deps",
            "--ignore-scripts",
            "--no-progress",
            "--no-color",
            "--foreground-scripts",
        ],
        with_value: &[
            "--prefix",
            "-C",
            "--registry",
            "--userconfig",
            "--cache",
            "--loglevel",
            "-w",
            "--workspace",
        ],
        attached_only: &[],
        short_attached: false,
        any_attached: true,
        toolchain: false,
    },
    Program {
        names: &["pnpm"],
        flags: &[
            "-r",
            "--recursive",
            "-w",
            "--workspace-root",
            "-g",
            "--global",
            "-s",
            "--silent",
            "--stream",
            "--parallel",
            "--aggregate-output",
            "--no-bail",
            "--offline",
            "--prefer-offline",
            "--frozen-lockfile",
        ],
        with_value: &[
            "--filter",
            "-F",
            "-C",
            "--dir",
            "--registry",
            "--reporter",
            "--loglevel",
            "--workspace-concurrency",
        ],
        attached_only: &[],
        short_attached: false,
        any_attached: true,
        toolchain: false,
    },
];

/// A simple command with its program's own options dropped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// Not such a program, or no option before its subcommand.
    Nothing,
    /// The words without the options (the program first, as written).
    Words(Vec<String>),
    /// Why the subcommand cannot be found: an option the table does not
    /// know.
    Unknown(String),
}

/// `words` (a simple command, the program first) with the program's own
/// options before its subcommand dropped ([`PROGRAMS`]). Git's also with an
/// alias given with `-c alias.NAME=ARGS` read as its arguments, and its
/// dashed form (`git-push`, in git's exec path) read as `git push`.
pub(crate) fn drop_own_options(words: &[String]) -> Dropped {
    let Some((program, args)) = words.split_first() else {
        return Dropped::Nothing;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if let Some(sub) = name.strip_prefix("git-").filter(|s| !s.is_empty()) {
        let mut git = vec!["git".to_string(), sub.to_string()];
        git.extend(args.iter().cloned());
        return Dropped::Words(git);
    }
    let Some(table) = PROGRAMS.iter().find(|p| p.names.contains(&name)) else {
        return Dropped::Nothing;
    };
    let mut i = 0;
    if table.toolchain && args.first().is_some_and(|a| a.starts_with('+')) {
        i = 1;
    }
    while let Some(arg) = args.get(i) {
        match option_length(table, arg) {
            Some(0) => break,
            Some(n) => i += n,
            None => {
                return Dropped::Unknown(format!(
                    "`{name} {arg}` is an option oc does not know before {name}'s subcommand"
                ));
            }
        }
    }
    if i == 0 {
        return Dropped::Nothing;
    }
    let mut kept = vec![program.clone()];
    kept.extend(args.iter().skip(i).cloned());
    if name == "git" {
        let expanded = through_aliases(&args[..i], kept.clone());
        if expanded != kept {
            // An alias may start with git's own options (`-c … push`); each
            // alias is shorter than the option it came from, so this ends.
            return match drop_own_options(&expanded) {
                Dropped::Nothing => Dropped::Words(expanded),
                other => other,
            };
        }
    }
    Dropped::Words(kept)
}

/// Git's command `words` (after its own options `options`) with its
/// subcommand read through the aliases those options give
/// (`-c alias.p='push -f'`; an alias to a shell command, `!…`, is read as a
/// command of its own by [`super::effects`]).
fn through_aliases(options: &[String], mut words: Vec<String>) -> Vec<String> {
    let aliases: Vec<(String, String)> = options
        .windows(2)
        .filter(|pair| pair[0] == "-c")
        .filter_map(|pair| {
            let (key, value) = pair[1].split_once('=')?;
            let alias = key.to_ascii_lowercase().strip_prefix("alias.")?.to_string();
            Some((alias, value.to_string()))
        })
        .filter(|(_, value)| !value.starts_with('!'))
        .collect();
    // Aliases may name aliases; git stops at a loop, so does this.
    for _ in 0..aliases.len() {
        let Some(sub) = words.get(1).map(|s| s.to_ascii_lowercase()) else {
            break;
        };
        let Some((_, value)) = aliases.iter().find(|(alias, _)| *alias == sub) else {
            break;
        };
        let Some(expanded) = shlex::split(value) else {
            break;
        };
        words.splice(1..2, expanded);
    }
    words
}

/// How many words the option `arg` takes up (itself and its value), `0`
/// when `arg` is not an option (the subcommand), `None` when it is one the
/// table does not know.
fn option_length(table: &Program, arg: &str) -> Option<usize> {
    if !arg.starts_with('-') || arg == "-" {
        return Some(0);
    }
    if table.flags.contains(&arg) {
        return Some(1);
    }
    if table.with_value.contains(&arg) {
        return Some(2);
    }
    let (option, _) = arg.split_once('=').unwrap_or((arg, ""));
    let attached = arg.contains('=')
        && (table.with_value.contains(&option) || table.attached_only.contains(&option))
        && option.starts_with("--");
    let short = table.short_attached
        && !arg.starts_with("--")
        && table
            .with_value
            .iter()
            .any(|o| o.len() == 2 && arg.len() > 2 && arg.starts_with(o));
    let any = table.any_attached && arg.starts_with("--") && arg.contains('=');
    (attached || short || any).then_some(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dropped(line: &str) -> Dropped {
        let words: Vec<String> = line.split(' ').map(str::to_string).collect();
        match drop_own_options(&words) {
            Dropped::Words(w) => Dropped::Words(vec![w.join(" ")]),
            other => other,
        }
    }

    fn words(text: &str) -> Dropped {
        Dropped::Words(vec![text.to_string()])
    }

    #[test]
    fn own_options_before_the_subcommand_are_dropped() {
        for line in [
            "git --no-pager push",
            "git -P push",
            "git -c user.name=x push",
            "git -c a=b -c c=d push",
            "git -C dir push",
            "git --git-dir=.git push",
            "git --git-dir .git push",
            "git --work-tree . push",
            "git --literal-pathspecs push",
            "git --namespace=x push",
            "git --list-cmds=main push",
        ] {
            assert_eq!(dropped(line), words("git push"), "{line}");
        }
        assert_eq!(
            dropped("/usr/bin/git -P push -f o"),
            words("/usr/bin/git push -f o")
        );
        assert_eq!(dropped("cargo +nightly publish"), words("cargo publish"));
        assert_eq!(
            dropped("cargo -Zunstable -q publish"),
            words("cargo publish")
        );
        assert_eq!(
            dropped("cargo --config=a.b=1 publish"),
            words("cargo publish")
        );
        assert_eq!(dropped("npm --prefix x publish"), words("npm publish"));
        assert_eq!(
            dropped("npm --some-setting=1 -g publish"),
            words("npm publish")
        );
        assert_eq!(
            dropped("pnpm -r --filter app publish"),
            words("pnpm publish")
        );
        assert_eq!(dropped("git push -P"), Dropped::Nothing);
        assert_eq!(dropped("git -c alias.p=push p o"), words("git push o"));
        assert_eq!(
            dropped("git -c alias.Q=p -c alias.p=push q"),
            words("git push")
        );
        assert_eq!(dropped("git -c alias.p=!x p"), words("git p"));
        assert_eq!(dropped("git -c alias.p=-P p"), words("git"));
        assert_eq!(dropped("/usr/lib/git-core/git-push o"), words("git push o"));
        assert_eq!(dropped("ls -l"), Dropped::Nothing);
    }

    #[test]
    fn unknown_options_leave_the_command_unread() {
        for line in [
            "git --frobnicate push",
            "git -Cdir push",
            "git -cuser.name=x push",
            "git --super-prefix x push",
            "cargo --frob publish",
            "npm --frob publish",
        ] {
            assert!(
                matches!(dropped(line), Dropped::Unknown(ref why) if why.contains("does not know")),
                "{line}"
            );
        }
    }
}
