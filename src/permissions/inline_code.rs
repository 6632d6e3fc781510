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
pub(crate) fn of(name: &str, args: &[String]) -> Option<String> {
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
    // Options start with `-`, until `--`: after it the program may too.
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let program = |(i, a): (usize, &String)| i > end || !a.starts_with('-');
    if args
        .iter()
        .enumerate()
        .filter(|&p| program(p))
        .any(|(_, a)| a.contains("system") || a.contains('|'))
    {
        return Some("an awk program that runs commands".into());
    }
    None
}

/// The commands an awk program that runs commands may run: every string
/// literal in it (`system("cmd")`, `print | "cmd"`, `"cmd" | getline`), so
/// that the hard rules read them too. Reading a printed string as a command
/// only refuses more.
pub(crate) fn awk_commands(args: &[String]) -> Vec<String> {
    if awk(args).is_none() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for program in args {
        let mut rest = program.as_str();
        while let Some(open) = rest.find('"') {
            let after = &rest[open + 1..];
            let close = after.find('"').unwrap_or(after.len());
            found.push(after[..close].replace("\\\"", "\""));
            rest = after.get(close + 1..).unwrap_or_default();
        }
    }
    found
}

/// sed scripts with the `e` command or the `e` flag of `s` run commands.
fn sed(args: &[String]) -> Option<String> {
    // `[address]e [command]`, or `s/…/…/FLAGS` with an `e` among FLAGS.
    let runs = |script: &str| {
        sed_parts(script).into_iter().any(|part| {
            let command = without_address(part.trim_start());
            // sed's commands are one letter: `e` runs the rest.
            command.starts_with('e') || substitute_flags(command).is_some_and(|f| f.contains('e'))
        })
    };
    sed_scripts(args)
        .iter()
        .any(|s| runs(s))
        .then(|| "a sed script with the `e` command runs commands".into())
}

/// The commands a sed script runs: the text after an `e` command, and the
/// replacement of an `s///e` (what it will most likely run), so that the
/// hard rules read them too.
pub(crate) fn sed_commands(args: &[String]) -> Vec<String> {
    let scripts = sed_scripts(args);
    let mut found = Vec::new();
    for script in scripts {
        let parts = sed_parts(&script);
        // A bare `e` runs the pattern space, which any `s` may have built.
        let bare_e = parts
            .iter()
            .any(|p| without_address(p.trim_start()).trim_end_matches('}').trim() == "e");
        for part in parts {
            let command = without_address(part.trim_start());
            if let Some(rest) = command.strip_prefix('e') {
                found.push(rest.trim_end_matches('}').to_string());
            } else if let Some(flags) = substitute_flags(command)
                && (flags.contains('e') || bare_e)
            {
                found.extend(replacement(command));
            }
        }
    }
    found
}

/// The replacement of a sed `s` command (`s/a/b/g` → `b`).
fn replacement(command: &str) -> Option<String> {
    let rest = command.strip_prefix('s')?;
    let delimiter = rest.chars().next()?;
    let after_pattern = after_delimiter(&rest[delimiter.len_utf8()..], delimiter);
    let flags = after_delimiter(after_pattern, delimiter);
    let end = after_pattern.len() - flags.len();
    Some(after_pattern[..end.saturating_sub(delimiter.len_utf8())].to_string())
}

/// A sed script cut into its commands at `;` and newlines, but not inside
/// an `s` command's pattern or replacement (`s/x/a;b/e` is one command).
fn sed_parts(script: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    while start < script.len() {
        let piece = &script[start..];
        let command = without_address(piece);
        let at = piece.len() - command.len();
        let body_end = match command.strip_prefix('s') {
            Some(rest) if rest.chars().next().is_some_and(|d| d != '\\' && d != '\n') => {
                let d = rest.chars().next().unwrap_or('/');
                let flags = after_delimiter(after_delimiter(&rest[d.len_utf8()..], d), d);
                piece.len() - flags.len()
            }
            _ => at,
        };
        let end = piece[body_end..]
            .find([';', '\n'])
            .map_or(piece.len(), |i| body_end + i);
        parts.push(&piece[..end]);
        start += end + 1;
    }
    parts
}

/// The scripts of a sed command line: `-e S`, `-eS`, the `e` ending a
/// cluster of short options (`-ne S`), `--expression=S` (abbreviations such
/// as `--expr=S` are written out by [`super::effects`] first), and every
/// argument that is not an option
/// (the script when no `-e` is given; reading a file name as a script only
/// refuses more).
fn sed_scripts(args: &[String]) -> Vec<String> {
    let mut scripts = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if let Some(value) = arg.strip_prefix("--expression=") {
            scripts.push(value.to_string());
        } else if arg == "--expression" {
            scripts.extend(rest.next().cloned());
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            // `-n`, `-i.bak`, `-ne S`, `-e1d`: what follows `e` is the script.
            if let Some(at) = cluster.find('e').filter(|_| !cluster.starts_with('i')) {
                match &cluster[at + 1..] {
                    "" => scripts.extend(rest.next().cloned()),
                    inline => scripts.push(inline.to_string()),
                }
            }
        } else if !arg.starts_with('-') {
            scripts.push(arg.clone());
        }
    }
    scripts
}

/// A sed command without its address: numbers, `$`, `first~step`,
/// `/re/` or `\cREc` with the `I` and `M` flags, a second address after
/// `,` (also `0,/re/`, `addr,+N`, `addr,~N`), `!`, spaces and `{`.
fn without_address(command: &str) -> &str {
    let mut rest = command.trim_start();
    for _ in 0..2 {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || "$~+".contains(c));
        let delimiter = match rest.chars().next() {
            Some('/') => Some(('/', 1)),
            Some('\\') => rest[1..].chars().next().map(|d| (d, 1 + d.len_utf8())),
            _ => None,
        };
        if let Some((d, skip)) = delimiter {
            rest = after_delimiter(&rest[skip..], d);
            rest = rest.trim_start_matches(['I', 'M']);
        }
        match rest.strip_prefix(',') {
            Some(second) => rest = second.trim_start(),
            None => break,
        }
    }
    rest.trim_start_matches(|c: char| "! {".contains(c))
}

/// `text` after the first `delimiter` that no backslash escapes.
fn after_delimiter(text: &str, delimiter: char) -> &str {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == delimiter && !escaped => return &text[i + c.len_utf8()..],
            _ => escaped = false,
        }
    }
    ""
}

/// The flags of a sed `s` command (`s/a/b/ge` → `ge`).
fn substitute_flags(command: &str) -> Option<&str> {
    let rest = command.strip_prefix('s')?;
    // Any character but backslash and newline delimits, letters too
    // (`sxaxbxe`).
    let delimiter = rest.chars().next().filter(|c| *c != '\\' && *c != '\n')?;
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
    // Their command languages can all start programs (`!`, `shell`,
    // `call system()`, `job_start`, `python …`): any command counts.
    (commands.count() > 0).then(|| "an editor or debugger command may run shell commands".into())
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
    if let Some(code) = code_in_options(args) {
        return Some(format!(
            "`{name} {code}` gives code in an option, which may start any command"
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

/// Options that take a value, for the interpreters above.
const VALUE_OPTIONS: [&str; 10] = [
    "-W",
    "-X",
    "--import",
    "--require",
    "-r",
    "-M",
    "-I",
    "--loader",
    "--experimental-loader",
    "-C",
];

/// An option (or an option's value) before the script that holds code:
/// `python3 '-Ecimport os;…'`, `perl '-Mstrict;system…'`, `node --import
/// 'data:…'`. The options end at the script, or at `-m MODULE`.
fn code_in_options(args: &[String]) -> Option<&String> {
    let looks_like_code = |a: &str| {
        a.contains([';', '(', '"', '\'']) || a.contains(char::is_whitespace) || a.contains("data:")
    };
    let mut value_next = false;
    for a in args {
        if value_next || a.starts_with('-') {
            if looks_like_code(a) {
                return Some(a);
            }
            if a == "-m" {
                return None;
            }
            value_next = !value_next && VALUE_OPTIONS.contains(&a.as_str());
            continue;
        }
        return None;
    }
    None
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
