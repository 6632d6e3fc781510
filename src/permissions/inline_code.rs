//! Code a command is given inline, which no rule can read: an
//! interpreter's `-c`/`-e` or its input (`python3 -c '…'`, `node -e '…'`,
//! `python3 - <<EOF`), an awk program that runs commands, sed's `e`, an
//! editor's or debugger's shell escape. Deny and ask rules fail closed on
//! it ([`super::effects`]).

use super::wrappers::option_values as value_of;

/// Interpreters and the options that give them code inline.
const INLINE_CODE: [(&str, &[&str]); 13] = [
    ("tclsh", &[]),
    ("wish", &[]),
    ("python", &["-c"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("nodejs", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("Rscript", &["-e"]),
    ("osascript", &["-e"]),
];

/// Why the simple command `name` (its program's base name) with `args`
/// runs code the rules cannot read, if it does.
pub fn of(name: &str, args: &[String]) -> Option<String> {
    match name {
        "awk" | "gawk" | "mawk" | "nawk" => awk(args),
        "sed" | "gsed" => sed(args),
        "vim" | "vi" | "nvim" | "ex" | "view" | "gdb" => editor(args),
        "make" | "gmake" => args
            .iter()
            .any(|a| a == "-E" || a.starts_with("--eval"))
            .then(|| "`make --eval` runs recipes given inline".to_string()),
        _ => interpreter(name, args),
    }
}

/// awk programs that run commands (`system(…)`, `print | "cmd"`, `"cmd" |
/// getline`) are inline code.
fn awk(args: &[String]) -> Option<String> {
    if args
        .iter()
        .any(|a| !a.starts_with('-') && (a.contains("system") || a.contains('|')))
    {
        return Some("an awk program that runs commands".into());
    }
    None
}

/// sed scripts with the `e` command or the `e` flag of `s` run commands.
fn sed(args: &[String]) -> Option<String> {
    // `[address]e [command]`, or `s/…/…/FLAGS` with an `e` among FLAGS.
    let runs = |script: &str| {
        script.split([';', '\n']).any(|part| {
            let command = without_address(part.trim_start());
            // sed's commands are one letter: `e` runs the rest.
            command.starts_with('e') || substitute_flags(command).is_some_and(|f| f.contains('e'))
        })
    };
    let scripts = value_of(args, &["-e", "--expression"])
        .into_iter()
        .chain(args.iter().find(|a| !a.starts_with('-')).cloned());
    scripts
        .into_iter()
        .any(|s| runs(&s))
        .then(|| "a sed script with the `e` command runs commands".into())
}

/// The commands a sed script runs: the text after an `e` command, and the
/// replacement of an `s///e` (what it will most likely run), so that the
/// hard rules read them too.
pub fn sed_commands(args: &[String]) -> Vec<String> {
    let scripts = value_of(args, &["-e", "--expression"])
        .into_iter()
        .chain(args.iter().find(|a| !a.starts_with('-')).cloned());
    let mut found = Vec::new();
    for script in scripts {
        for part in script.split([';', '\n']) {
            let command = without_address(part.trim_start());
            if let Some(rest) = command.strip_prefix('e') {
                found.push(rest.trim_end_matches('}').to_string());
            } else if substitute_flags(command).is_some_and(|f| f.contains('e')) {
                let delimiter = command.chars().nth(1).unwrap_or('/');
                found.extend(command.split(delimiter).nth(2).map(str::to_string));
            }
        }
    }
    found
}

/// A sed command without its address (`1`, `$`, `1,5`, `/re/`, `!`).
fn without_address(command: &str) -> &str {
    let mut rest = command;
    if let Some(after) = rest.strip_prefix('/') {
        rest = after.find('/').map_or("", |end| &after[end + 1..]);
    }
    rest.trim_start_matches(|c: char| c.is_ascii_digit() || "$,~+! {".contains(c))
}

/// The flags of a sed `s` command (`s/a/b/ge` → `ge`).
fn substitute_flags(command: &str) -> Option<&str> {
    let rest = command.strip_prefix('s')?;
    let delimiter = rest
        .chars()
        .next()
        .filter(|c| !c.is_alphanumeric() && !c.is_whitespace())?;
    let mut seen = 0;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == delimiter && !escaped => {
                seen += 1;
                if seen == 3 {
                    let flags = &rest[i + c.len_utf8()..];
                    return Some(flags.split(['}', ' ']).next().unwrap_or(flags));
                }
            }
            _ => escaped = false,
        }
    }
    None
}

/// `vim -c '!cmd'`, `vim +'!cmd'`, `gdb -ex 'shell cmd'`: editor and
/// debugger commands that run shell commands.
fn editor(args: &[String]) -> Option<String> {
    let commands = value_of(args, &["-c", "--cmd", "-ex", "--eval-command"])
        .into_iter()
        .chain(
            args.iter()
                .filter_map(|a| a.strip_prefix('+').map(str::to_string)),
        );
    commands
        .into_iter()
        .any(|c| c.contains('!') || c.contains("shell") || c.contains("system"))
        .then(|| "an editor or debugger command runs shell commands".into())
}

/// The inline code an interpreter is given, said as `python3 -c`; also
/// code read from stdin (`python3 - <<EOF`, `… | node`).
fn interpreter(name: &str, args: &[String]) -> Option<String> {
    let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let (_, options) = INLINE_CODE
        .iter()
        .find(|(n, _)| *n == family || *n == name)?;
    let informational = |a: &String| matches!(a.as_str(), "--version" | "-V" | "--help" | "-h");
    let script = args.iter().find(|a| !a.starts_with('-') || *a == "-");
    let from_stdin = args.iter().all(|a| a.starts_with('-') && a != "-m")
        && !args.iter().any(informational)
        || script.is_some_and(|a| {
            a == "-"
                || a.starts_with("/dev/stdin")
                || a.starts_with("/dev/fd/")
                || a.starts_with("/proc/")
        });
    if from_stdin && !options.contains(&"eval") {
        return Some(format!(
            "`{name}` reading code from its input may start any command"
        ));
    }
    let option = args.iter().find(|a| {
        options.iter().any(|o| {
            *a == o
                || (!o.starts_with("--") && o.len() == 2 && a.starts_with(o) && a.len() > 2)
                // a cluster ending in the option: `python3 -Ic`, `perl -le`
                || (o.len() == 2
                    && a.starts_with('-')
                    && !a.starts_with("--")
                    && a.ends_with(&o[1..]))
                || (o.starts_with("--") && a.starts_with(&format!("{o}=")))
        })
    })?;
    Some(format!(
        "`{name} {}` runs code that may start any command",
        option
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of_line(line: &str) -> Option<String> {
        let words: Vec<String> = shlex::split(line).unwrap();
        of(&words[0], &words[1..])
    }

    #[test]
    fn inline_code_is_found() {
        for line in [
            "python3 -c 'import os'",
            "python -c'x'",
            "python3.12 -c x",
            "perl -e 'system 1'",
            "node -e x",
            "node --eval=x",
            "ruby -e x",
            "awk 'BEGIN{system(\"id\")}'",
        ] {
            assert!(of_line(line).is_some(), "{line}");
        }
        assert!(of_line("python3 -").is_some());
        assert!(of_line("python3").is_some());
        for line in [
            "python3 script.py",
            "python3 -m pytest",
            "python3 --version",
            "node app.js",
            "awk '{print $1}' f",
        ] {
            assert!(of_line(line).is_none(), "{line}");
        }
    }
}
