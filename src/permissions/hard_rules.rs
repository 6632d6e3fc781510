//! Rules nothing overrides, `--yes` included (SPEC §7): no tool touches a
//! secret `.env` file, and no destructive shell command runs, also when
//! hidden behind wrappers (`sudo`, `env`, `timeout`, `bash -c "…"`) or inside
//! compound commands (`;`, `&&`, `||`, pipes, `$(…)`, backticks).

use std::path::Path;

use regex::Regex;

/// Whether a file name is a secret environment file: `.env`, `.env.local`,
/// `.env.production`, `prod.env`… Templates (`.env.example`, `.env.sample`,
/// `.env.template`, `.env.dist`) are not secret.
pub fn is_secret_env_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(is_secret_env_name)
}

fn is_secret_env_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let is_env = lower == ".env" || lower.starts_with(".env.") || lower.ends_with(".env");
    let is_template = [".example", ".sample", ".template", ".dist"]
        .iter()
        .any(|suffix| lower.ends_with(suffix));
    is_env && !is_template
}

/// The secret `.env` file a shell command names, if any (`cat .env`,
/// `grep KEY config/.env.local`, `source .env`, `--env-file=.env`).
pub fn env_file_in_command(command: &str) -> Option<String> {
    command
        .split(|c: char| c.is_whitespace() || "'\"`;|&<>()=$/{},:".contains(c))
        .find(|word| !word.is_empty() && is_secret_env_name(word))
        .map(str::to_string)
}

/// Why a shell command is destructive, or `None` when it is not.
pub fn destructive_command(command: &str) -> Option<String> {
    if let Some(reason) = raw_patterns(command) {
        return Some(reason);
    }
    // Two readings: a plain split at every operator character (catches
    // commands hidden inside quotes or broken syntax), and the shell
    // tokenizer's (catches `find -exec`, substitutions, `eval`).
    let naive = command
        .split(|c: char| ";&|\n()`".contains(c))
        .map(split_words);
    let parsed = super::shell::simple_commands(command).unwrap_or_default();
    naive.chain(parsed).find_map(|words| check_words(&words))
}

fn raw_patterns(command: &str) -> Option<String> {
    let device_write =
        Regex::new(r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md|loop|mapper/)").ok()?;
    if device_write.is_match(command) {
        return Some("writes to a block device".into());
    }
    let function = Regex::new(r"([A-Za-z_:][\w:.-]*)\s*\(\s*\)\s*\{([^}]*)\}").ok()?;
    for caps in function.captures_iter(command) {
        let name = &caps[1];
        let body: String = caps[2].chars().filter(|c| !c.is_whitespace()).collect();
        if body.contains(&format!("{name}|{name}")) {
            return Some("is a fork bomb".into());
        }
    }
    None
}

/// Shell words of one simple command; falls back to whitespace splitting
/// (quotes dropped) when the piece's quotes do not balance.
fn split_words(piece: &str) -> Vec<String> {
    shlex::split(piece).unwrap_or_else(|| {
        piece
            .split_whitespace()
            .map(|w| w.trim_matches(|c| c == '\'' || c == '"').to_string())
            .collect()
    })
}

fn check_words(words: &[String]) -> Option<String> {
    let mut rest = words;
    // Leading `VAR=value` assignments.
    while rest.first().is_some_and(|w| is_assignment(w)) {
        rest = &rest[1..];
    }
    let (program, args) = rest.split_first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    match name {
        "sudo" | "doas" => check_words(skip_options(
            args,
            &["-u", "-g", "-C", "-D", "-h", "-p", "-U"],
        )),
        "env" => {
            let args = skip_options(args, &["-u", "-C", "-S"]);
            let start = args.iter().take_while(|w| is_assignment(w)).count();
            check_words(&args[start..])
        }
        "timeout" => {
            let args = skip_options(args, &["-s", "-k", "--signal", "--kill-after"]);
            check_words(args.get(1..).unwrap_or_default())
        }
        "nice" => check_words(skip_options(args, &["-n", "--adjustment"])),
        "xargs" => check_words(skip_options(
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
            ],
        )),
        "nohup" | "command" | "exec" | "builtin" | "time" | "stdbuf" | "ionice" | "chroot" => {
            check_words(skip_options(args, &["-o", "-e", "-i", "-c", "-n"]))
        }
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" => {
            let script = args
                .iter()
                .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
                .and_then(|i| args.get(i + 1));
            script.and_then(|s| destructive_command(s))
        }
        "eval" => destructive_command(&args.join(" ")),
        "rm" => {
            let recursive = args.iter().any(|a| {
                a == "--recursive" || (is_short_cluster(a) && (a.contains('r') || a.contains('R')))
            });
            let force = args
                .iter()
                .any(|a| a == "--force" || (is_short_cluster(a) && a.contains('f')));
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
        "chmod" | "chown" | "chgrp" => {
            let recursive = args
                .iter()
                .any(|a| a == "--recursive" || (is_short_cluster(a) && a.contains('R')));
            let root = args.iter().any(|a| a == "/" || a == "/*");
            (recursive && root).then(|| format!("changes the whole file system with {name} -R"))
        }
        _ if name.starts_with("mkfs") || name == "mke2fs" || name == "mkswap" => {
            Some(format!("formats a file system with {name}"))
        }
        _ => None,
    }
}

fn is_harmless_device(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn is_short_cluster(word: &str) -> bool {
    word.starts_with('-') && !word.starts_with("--") && word.len() > 1
}

/// Skips leading options; those in `with_value` also skip the next word.
fn skip_options<'a>(args: &'a [String], with_value: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return &args[i + 1..];
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
    args.get(i..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_env_files() {
        for name in [
            ".env",
            ".env.local",
            ".env.production",
            "prod.env",
            "config/.env",
            ".ENV",
        ] {
            assert!(is_secret_env_file(Path::new(name)), "{name}");
        }
        for name in [
            ".env.example",
            ".env.sample",
            ".env.template",
            ".envrc",
            "env.rs",
            "environment.md",
        ] {
            assert!(!is_secret_env_file(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn commands_naming_env_files() {
        for cmd in [
            "cat .env",
            "grep KEY .env.local",
            "source .env",
            "docker run --env-file=.env x",
            "cat config/prod.env",
            "x=$(cat .env)",
        ] {
            assert!(env_file_in_command(cmd).is_some(), "{cmd}");
        }
        for cmd in [
            "cat .env.example",
            "printenv",
            "cargo test",
            "cat src/env.rs",
        ] {
            assert_eq!(env_file_in_command(cmd), None, "{cmd}");
        }
    }

    #[test]
    fn destructive_commands_in_any_disguise() {
        for cmd in [
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
            "FOO=1 rm -rf x",
            "/bin/rm -rf x",
        ] {
            assert!(
                destructive_command(cmd).is_some(),
                "{cmd:?} should be refused"
            );
        }
        for cmd in [
            "rm file.txt",
            "rm -r build",
            "rm -f a.o",
            "cargo test --lib",
            "git commit -m 'rm notes'",
            "dd if=a of=b",
            "echo hi > /dev/null",
            "chmod -R 755 src",
            "ls -la",
        ] {
            assert_eq!(destructive_command(cmd), None, "{cmd:?} should be allowed");
        }
    }
}
