//! Rules nothing overrides, `--yes` included (docs/permissions.md): no tool touches a
//! secret `.env` file, no tool changes the project config, no file tool
//! changes anything in a `.git`, and no
//! destructive shell command runs, also when hidden behind wrappers (`sudo`,
//! `env`, `timeout`, `bash -c "…"`), reserved words, redirections, quoting
//! or inside compound commands (`;`, `&&`, `||`, pipes, `$(…)`, backticks).
//!
//! Commands are the one reading of the line ([`super::reading`]); a line
//! that cannot be read at all is refused.

use std::path::Path;

use regex::Regex;

use super::line::{Reach, Reading};
use super::secret_globs::{Glob, Matching, SecretFiles};
use crate::secrets::is_secret_env_name;

/// Characters that end a name inside a text (`open('.env')`,
/// `--env-file=.env`, `config/.env`).
const NAME_ENDS: &str = "'\"`;|&<>()=$/{},:\\";

/// The secret `.env` file a shell command names, if any: `cat .env`,
/// `grep KEY config/.env.local`, `source .env`, `--env-file=.env`, inline
/// code (`python3 -c "open('.env')"`), also quoted apart (`.e""nv`), as a
/// glob that matches one in `cwd` (`cat .en?`, `.EN[V]`, `.@(e)nv`), or
/// spelt with expansions that may come to one (`.e${x:-n}v`, `$PWD/.e?v`).
pub(crate) fn env_file_in_command(reading: &Reading, cwd: &Path) -> Option<String> {
    let named = (reading.texts.iter())
        .flat_map(|t| t.split(|c: char| c.is_whitespace() || NAME_ENDS.contains(c)))
        .find(|word| !word.is_empty() && is_secret_env_name(word));
    if let Some(name) = named {
        return Some(name.to_string());
    }
    let after_find_name = |words: &[String], i: usize| {
        i > 0
            && matches!(
                words[i - 1].as_str(),
                "-name" | "-iname" | "-path" | "-ipath" | "-wholename"
            )
    };
    // (word, dotfiles, expanded)
    let mut candidates: Vec<(String, bool, bool)> = Vec::new();
    for simple in reading.commands.iter().chain(&reading.embedded) {
        for (i, word) in simple.words.iter().enumerate() {
            candidates.push((word.clone(), after_find_name(&simple.words, i), false));
        }
    }
    let files = reading.reads.iter().chain(&reading.writes);
    candidates.extend(files.map(|w| (w.clone(), false, false)));
    // An expansion may give the leading dot (`${x}env`).
    candidates.extend(reading.patterns.iter().map(|p| (p.clone(), true, true)));
    let mut secrets = SecretFiles::in_folder(cwd);
    for (word, dotfiles, expanded) in candidates {
        let how = Matching {
            // `shopt -s dotglob` (or any `GLOBIGNORE`) makes `*` match
            // `.env` too.
            dotfiles: dotfiles || reading.dotglob,
            // After a `cd`, a glob may be read from another folder.
            any_depth: reading.moved,
            nocase: reading.nocaseglob,
        };
        // The word whole (`.[[:alpha:]]nv`), and each part of a list or
        // an option's value (`--env-file=.env`, `a:.env`).
        let parts = word.split(|c: char| "=:,".contains(c));
        for part in std::iter::once(word.as_str()).chain(parts) {
            let name = part.rsplit('/').next().unwrap_or(part);
            // A variable alone (`$f`, `x=$y`) is no spelling of a name.
            if expanded && name.chars().all(|c| "*?".contains(c)) {
                continue;
            }
            if is_secret_env_name(name) {
                return Some(name.to_string());
            }
            if let Some(glob) = Glob::of(part, cwd)
                && let Some(found) = secrets.matching(&glob, how)
            {
                return Some(found);
            }
        }
    }
    None
}

/// Whether `path` is a `.git` (a repository's folder, or the file that
/// points to one) or inside one, at any depth: git runs what is there
/// (hooks, `core.fsmonitor`, aliases) later, outside the sandbox.
pub(crate) fn is_in_git_store(path: &Path) -> bool {
    path.components()
        .any(|c| c.as_os_str().to_string_lossy().eq_ignore_ascii_case(".git"))
}

/// The refusal of a file tool's change to `path`, inside `.git`: what it
/// is, why, and what to do instead.
pub(crate) fn git_store_refusal(path: &Path, root: &Path) -> String {
    let shown = path.strip_prefix(root).unwrap_or(path);
    format!(
        "`{}` is in `.git`, the repository's own files (settings and hooks git runs later, outside the sandbox); the file tools never change anything there: change the work tree's files, and leave the repository to git commands",
        shown.display()
    )
}

/// Why a shell command is destructive, or `None` when it is not: also
/// what programs may run from their arguments (`gdb --args rm -rf x`),
/// and a line that cannot be read at all.
pub(crate) fn destructive_command(reading: &Reading) -> Option<String> {
    if let Some(why) = reading.unread_to(Reach::Whole) {
        return Some(format!("cannot be checked ({why})"));
    }
    if let Some(name) = &reading.fork_bomb {
        return Some(format!("is a fork bomb (`{name}` starts itself twice)"));
    }
    let written = reading.writes.iter().chain(&reading.embedded_writes);
    if written.clone().any(|w| is_block_device(w)) {
        return Some("writes to a block device".into());
    }
    (reading.commands.iter())
        .chain(&reading.embedded)
        .find_map(|c| check_words(&c.words))
}

/// Paths of block devices.
const BLOCK_DEVICE: &str = r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md|loop|mapper/|sr)";

fn is_block_device(word: &str) -> bool {
    Regex::new(BLOCK_DEVICE).is_ok_and(|r| r.is_match(word))
}

/// `/`, `/.`, `//`, `/*`, `/./` and the like: the root itself.
fn is_root(word: &str) -> bool {
    let trimmed: String = word.chars().filter(|c| *c != '/' && *c != '.').collect();
    word.starts_with('/') && (trimmed.is_empty() || trimmed == "*")
}

fn check_words(words: &[String]) -> Option<String> {
    let mut rest = words;
    // Leading `VAR=value` assignments.
    while rest
        .first()
        .is_some_and(|w| super::wrappers::is_assignment(w))
    {
        rest = &rest[1..];
    }
    let (program, args) = rest.split_first()?;
    if super::embedded::is_computed(program) {
        // A name computed at run time may be any destructive program.
        return possible_names(program).into_iter().find_map(|name| {
            let mut words = vec![name.to_string()];
            words.extend(args.iter().cloned());
            check_words(&words)
        });
    }
    // Commands come unwrapped (`sudo rm …` is read as `rm …`), and every
    // tail of a program's arguments is a command of its own.
    let name = program.rsplit('/').next().unwrap_or(program);
    match name {
        "rm" => {
            // GNU takes any unambiguous prefix of a long option (`--rec`).
            let long = |a: &str, full: &str| a.len() >= 3 && full.starts_with(a);
            let recursive = args.iter().any(|a| {
                long(a, "--recursive")
                    || (is_short_cluster(a) && (a.contains('r') || a.contains('R')))
            });
            let force = args.iter().any(|a| {
                long(a, "--force")
                    || a.split_once('=')
                        .is_some_and(|(o, v)| long(o, "--interactive") && v.starts_with('n'))
                    || (is_short_cluster(a) && a.contains('f'))
            });
            (recursive && force).then(|| "is a recursive forced removal (rm -rf)".to_string())
        }
        "dd" => args
            .iter()
            .any(|a| a.starts_with("of=/dev/") && !is_harmless_device(&a[3..]))
            .then(|| "writes to a device with dd".to_string()),
        "shred" | "wipefs" | "blkdiscard" => args
            .iter()
            .any(|a| a.starts_with("/dev/"))
            .then(|| format!("wipes a device with {name}")),
        "tee" | "cp" | "mv" | "install" | "rsync" | "pv" | "sfdisk" | "sgdisk" | "parted"
        | "truncate" => args
            .iter()
            .any(|a| is_block_device(a))
            .then(|| format!("writes to a block device with {name}")),
        "chmod" | "chown" | "chgrp" => {
            let recursive = args
                .iter()
                .any(|a| a == "--recursive" || (is_short_cluster(a) && a.contains('R')));
            let root = args.iter().any(|a| is_root(a));
            (recursive && root).then(|| format!("changes the whole file system with {name} -R"))
        }
        _ if (name.starts_with("mkfs") || name == "mke2fs" || name == "mkswap")
            && !args.is_empty() =>
        {
            Some(format!("formats a file system with {name}"))
        }
        _ => None,
    }
}

/// Destructive programs [`check_words`] knows by name.
const DESTRUCTIVE: [&str; 22] = [
    "rm",
    "dd",
    "shred",
    "wipefs",
    "blkdiscard",
    "tee",
    "cp",
    "mv",
    "install",
    "rsync",
    "truncate",
    "chmod",
    "chown",
    "chgrp",
    "mkfs",
    "mkfs.ext4",
    "mkfs.ext3",
    "mkfs.xfs",
    "mkfs.btrfs",
    "mkfs.vfat",
    "mke2fs",
    "mkswap",
];

/// The destructive programs a computed program word may be: those a glob
/// matches (`/usr/bin/r?`); for an expansion (`$(echo rm)`) all that are
/// destructive by their arguments (`shred`'s rule covers any `/dev/` one, so
/// a computed `mkfs` is not refused for its name alone).
fn possible_names(program: &str) -> Vec<&'static str> {
    let base = program.rsplit('/').next().unwrap_or(program);
    match globset::Glob::new(base) {
        Ok(glob) if !program.contains(['$', '`']) => {
            let matcher = glob.compile_matcher();
            DESTRUCTIVE
                .into_iter()
                .filter(|n| matcher.is_match(n))
                .collect()
        }
        _ => DESTRUCTIVE
            .into_iter()
            .filter(|n| !n.starts_with("mk"))
            .collect(),
    }
}

fn is_harmless_device(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

fn is_short_cluster(word: &str) -> bool {
    word.starts_with('-') && !word.starts_with("--") && word.len() > 1
}

#[cfg(test)]
mod tests {
    use super::super::tests::all_rows_hold;
    use super::*;

    fn env_file_in_command(line: &str, cwd: &Path) -> Option<String> {
        super::env_file_in_command(&super::super::reading::read(line), cwd)
    }

    fn destructive_command(line: &str) -> Option<String> {
        super::destructive_command(&super::super::reading::read(line))
    }

    /// Each row of `table` that does not hold, saying it `failed` so.
    fn rows(table: &[&str], failed: &str, holds: impl Fn(&str) -> bool) -> Vec<String> {
        (table.iter())
            .filter(|row| !holds(row))
            .map(|row| format!("{row:?} {failed}"))
            .collect()
    }

    #[test]
    fn commands_naming_env_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "K=v").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        std::fs::create_dir(dir.path().join("config")).unwrap();
        std::fs::write(dir.path().join("config/.env"), "K=v").unwrap();
        std::fs::create_dir_all(dir.path().join("a/b/c/d")).unwrap();
        std::fs::write(dir.path().join("a/b/c/d/.env"), "K=v").unwrap();
        let named = &[
            "cat .env",
            "grep KEY .env.local",
            "source .env",
            "docker run --env-file=.env x",
            "cat config/prod.env",
            "x=$(cat .env)",
            "cat .e\"\"nv",
            "cat .\\env",
            "cat .en?",
            "cat .[e]nv",
            "cat .env~",
            "cat {.,}env",
            "cat .e$()nv",
            "cat .e${X}nv",
            "find . -name '*nv' -exec cat {} +",
            "cat */.en?",
            "cat < .e\"\"nv",
            "python3 -c \"print(open('.env').read())\"",
            "python3 <<'EOF'\nprint(open('.env').read())\nEOF",
            // spelt with expansions, extglob, another case
            "cat .e${x:-n}v",
            "x=n; cat .e${x}v",
            "shopt -s extglob; cat .@(e)nv",
            "cat .!(x)nv",
            "shopt -s nocaseglob; cat .EN[V]",
            "cat $PWD/.e?v",
            "cat \"$PWD\"/.e?v",
            "cat ~+/.e?v",
            "cat $D/config/.e?v",
            // a dot an expansion or a group gives, `..`, another folder
            "x=.; cat ${x}env",
            "cat ${x:-.e}nv",
            "cat $(echo .e)nv",
            "cat `echo .`env",
            "shopt -s extglob\ncat @(.e)nv",
            "cat ?(.)env",
            "cat src/../.en?",
            "cd src && cat ../.en?",
            "cd config; cat .e?v",
            "cat a/b/c/d/.en?",
            // POSIX classes the glob library does not read
            "cat .[[:alpha:]]nv",
            "cat .e[[:lower:]]v",
            "cat .[[=e=]]nv",
            "grep K .[[=e=]]n[[:alpha:]]",
            "cat config/.[[:alpha:]]nv",
        ];
        let mut failed = rows(named, "names no secret file", |cmd| {
            env_file_in_command(cmd, dir.path()).is_some()
        });
        let clean = [
            "cat .env.example",
            "printenv",
            "cargo test",
            "cat src/env.rs",
            "cat *",
            "cat note?.txt",
            "echo $HOME \"$x\" ${y:-z}",
            "cat $f",
            "ls $dir/*.txt",
            "cat ${name}.txt",
            "cat $PWD/notes.txt",
            "ls .E*",
            "cat .e?v.example",
            "tmp=$(mktemp); tail \"$tmp\"",
            "export PATH=\"$HOME/.cargo/bin:$PATH\"",
            "echo x=$y a,$b",
            "cat [[:upper:]]*.md",
        ];
        failed.extend(rows(&clean, "names a secret file", |cmd| {
            env_file_in_command(cmd, dir.path()).is_none()
        }));
        all_rows_hold(&failed);
    }

    #[test]
    fn destructive_commands_in_any_disguise() {
        let refused = [
            "rm -rf build",
            "rm -fr /",
            "rm -r -f .",
            "rm --recursive --force x",
            "rm -Rf x",
            "echo ok && rm -rf build",
            "sudo rm -fr /",
            "sudo -u root rm -rf /",
            "sh -c 'rm -r -f .'",
            "bash -lc \"rm -rf ~\"",
            "find . -type d -exec rm -rf {} +",
            "eval \"rm -rf x\"",
            "env FOO=1 rm -rf x",
            "timeout 5 rm -rf x",
            "nice -n 5 rm -rf x",
            "nohup rm -rf x",
            "find . | xargs rm -rf",
            "echo $(rm -rf x)",
            "echo `rm -rf x`",
            "true\nrm -rf x",
            "mkfs.ext4 /dev/sda1",
            "dd if=/dev/zero of=/dev/sda",
            "echo x > /dev/sda",
            ":(){ :|:& };:",
            "bomb(){ bomb|bomb& }; bomb",
            "chmod -R 777 /",
            "chmod -R 777 /.",
            "chmod -R 777 //",
            "{ rm -rf b; }",
            "f(){ rm -rf b; }; f",
            "if true; then rm -rf b; fi",
            "for d in b; do rm -rf \"$d\"; done",
            "! rm -rf b",
            ">/dev/null rm -rf b",
            "rm \\\n-rf b",
            "rm $'-rf' b",
            "rm --rec --force b",
            "echo 'rm -rf b' | sh",
            "bash <<< 'rm -rf b'",
            "sh -c -- 'rm -rf b'",
            "bash -c -e 'rm -rf b'",
            "env -S 'rm -rf b'",
            "sudo --user root rm -rf b",
            "tee /dev/sda < img",
            "cp /dev/zero /dev/sda",
            "function b { b|b& }; b",
            "b(){ b & b; }; b",
            "f() ( f | f & ); f",
            "env -S'rm -rf x'",
            "env --split-string='rm -rf x'",
            "command -p rm -rf x",
            "exec -a x rm -rf x",
            "time -p rm -rf x",
            "bash <<'EOF'\nrm -rf x\nEOF",
            "{rm,-rf,x}",
            "rm $'\\x2drf' x",
            "$'\\x72\\x6d' -rf x",
            "printf 'rm%s-rf x' ' ' | sh",
            "taskset 1 rm -rf x",
            "flock lockf rm -rf x",
            "unshare rm -rf x",
            "script -qc 'rm -rf x' /dev/null",
            "xargs --process-slot-var V rm -rf x",
            "R=rm; $R -rf x",
            "$(echo rm) -rf x",
            "shopt -s expand_aliases; alias r=rm; r -rf x",
            "rm -r --interactive=never x",
            "echo x > \"/dev/sda\"",
            "echo x >| /dev/sda",
            "echo x >/dev/s''da",
            "time -p mkfs.ext4 /dev/sda1",
            "FOO=1 rm -rf x",
            "/bin/rm -rf x",
            // Programs that run a command from their arguments, named or not.
            "gdb -batch -ex run --args rm -rf x",
            "valgrind -q rm -rf x",
            "nsenter -- rm -rf x",
            "perf stat -o /dev/null rm -rf x",
            "logsave lg rm -rf x",
            "capsh -- -c 'rm -rf x'",
            "split -n 1 --filter='rm -rf x' f",
            "make --eval=$'x:\\n\\trm -rf v' x",
            "git -c tar.tgz.command='rm -rf x' archive --format=tgz HEAD",
            "some-new-runner --quiet rm -rf x",
            "nsenter -- $(echo rm) -rf x",
            "nsenter -- /usr/bin/r? -rf x",
            // a sixth attack
            "shopt -s extglob\n/usr/bin/@(r)m -rf victim",
            "declare \"BASH_CMDS[cat]=/usr/bin/rm\"; cat -rf victim",
            "f(){ rm \"$@\"; }; f -rf victim",
            "cat ( ) { rm \"$@\"; }; cat -rf victim",
            "awk -- '-1{system(\"rm -rf victim\");exit}' README.md",
            "sed -n 'sxhelloxrm -rf victimxe' README.md",
            "sed -n '0,/x/e rm -rf victim' README.md",
            "sed -n '/x/Ie rm -rf victim' README.md",
            "sed README.md -ne '1e rm -rf victim'",
            "sed --expr='1e rm -rf victim' README.md",
            "BROWSER='rm -rf victim' python3 -m webbrowser x",
            "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm -rf victim' tar -cf a.tar f",
            // What runs inside a here-document's expansions.
            "cat <<EOF\n$(rm -rf x)\nEOF",
            // A helper's attack on the one-pass reader: `$(…)` that bash
            // runs through quotes, brace forms, values run later.
            "(( '$(rm -rf victim)' ))",
            "echo $(( '$(rm -rf victim)' ))",
            "[[ -v 'a[$(rm -rf victim)]' ]]",
            "a['$(rm -rf victim)']=1",
            "echo \"${x:-'$(rm -rf victim)'}\"",
            "cat <<EOF\nx\\\" '$(rm -rf victim)' \\\"x\nEOF",
            "r{m..m} -rf victim",
            "{{rm,-rf},victim}",
            "PS4='$(rm -rf victim)'; set -x; true",
        ];
        let mut failed = rows(&refused, "was allowed", |cmd| {
            destructive_command(cmd).is_some()
        });
        let allowed = [
            "rm file.txt",
            "rm -r build",
            "rm -f a.o",
            "cargo test --lib",
            "git commit -m 'rm notes'",
            "dd if=a of=b",
            "echo hi > /dev/null",
            "chmod -R 755 src",
            "ls -la",
            "git commit -m \"fix; rm -rf build\"",
            "echo \"a && rm -rf b\"",
            "command -v mkfs.ext4",
            "cat /dev/sda | head -c 10",
            "f(){ echo hi; }; f",
            "grep -rn 'rm -rf' .",
            "cargo test $(cat list)",
            "some-runner -- $(echo mkfs) x",
            "pytest tests/test_*.py -x",
            "[ -f x ] && echo yes",
            "sed -i 's/version = 1/version = 2/' Cargo.toml",
            "awk -F'|' '{print $1}' f",
            // Words that only mention what renames a program.
            "git commit -m 'alias r=rm; explain PATH'",
            "cat <<'EOF'\n$(rm -rf x)\nEOF",
            "grep -rn 'cout << ' src",
            "cat > main.cpp <<'EOF'\nint main() { std::cout << \"hi\" << std::endl; }\nEOF",
            "cat > a.txt <<EOF\n$HOME \\\" done\nEOF",
        ];
        failed.extend(rows(&allowed, "was refused", |cmd| {
            destructive_command(cmd).is_none()
        }));
        all_rows_hold(&failed);
    }

    /// A line that is not complete shell syntax is refused, and says why.
    #[test]
    fn a_line_that_cannot_be_read_is_refused() {
        for cmd in ["echo 'unterminated", "rm -rf x; echo \"", "cargo test |"] {
            let why = destructive_command(cmd).unwrap_or_default();
            assert!(
                why.starts_with("cannot be checked (it is not complete shell syntax"),
                "{cmd:?}: {why}"
            );
        }
    }
}
