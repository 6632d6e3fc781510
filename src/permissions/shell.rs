//! Shell command lines taken apart for permission checks, with
//! brush-parser's tokenizer (quotes, operators, `$(…)` and backticks as bash
//! reads them): every simple command, wrappers such as `sudo`, `env`,
//! `timeout`, `nice`, `nohup`, `xargs`, `bash -c "…"` and `eval` unwrapped,
//! command substitutions and `find -exec` commands included.

use brush_parser::word::WordPiece;
use brush_parser::{Token, tokenize_str};

/// Operators that end a simple command.
const CONTROL: [&str; 10] = [";", "&&", "||", "|", "|&", "&", "\n", ";;", "(", ")"];
/// How deep `bash -c`, `eval` and substitutions are followed.
const MAX_DEPTH: usize = 8;

/// Every simple command in `line`, as its words with quotes removed,
/// redirections left out, wrappers unwrapped. When a shell in the line reads
/// its script from stdin (`… | sh`, `bash <<< '…'`), every string in the line
/// is also read as a script. Errors when the line is not complete shell
/// syntax (an unterminated quote or here-document), which callers treat with
/// caution.
pub fn simple_commands(line: &str) -> Result<Vec<Vec<String>>, String> {
    let mut out = Vec::new();
    let mut here_strings = Vec::new();
    collect(line, 0, &mut out, &mut here_strings)?;
    if out.iter().any(|words| reads_script_from_stdin(words)) {
        let scripts: Vec<String> = out
            .iter()
            .flat_map(|words| words.iter().skip(1))
            .chain(&here_strings)
            .filter(|w| w.contains(char::is_whitespace))
            .cloned()
            .collect();
        for script in scripts {
            // A string that is no valid script cannot run as one either.
            let _ = collect(&script, 1, &mut out, &mut Vec::new());
        }
    }
    Ok(out)
}

/// A simple command as one line of text, for matching against rules: words
/// that need quoting are quoted, so `echo "a b"` is not `echo a b`.
pub fn command_text(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain =
                !w.is_empty() && !w.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"');
            match shlex::try_quote(w) {
                Ok(quoted) if !plain => quoted.into_owned(),
                _ => w.clone(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const SHELLS: [&str; 6] = ["bash", "sh", "zsh", "dash", "ksh", "fish"];

/// A shell with neither `-c` nor a script file reads its script from stdin.
fn reads_script_from_stdin(words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    SHELLS.contains(&name) && args.iter().all(|a| a.starts_with('-'))
}

/// Redirection operators; the word after one is its target, not an argument.
fn is_redirection(op: &str) -> bool {
    matches!(
        op,
        ">" | ">>" | "<" | "<<" | "<<-" | "<<<" | ">&" | "<&" | "&>" | "&>>" | "<>" | ">|"
    )
}

fn collect(
    line: &str,
    depth: usize,
    out: &mut Vec<Vec<String>>,
    here_strings: &mut Vec<String>,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err("commands nested too deeply".into());
    }
    let tokens = tokenize_str(line).map_err(|e| format!("cannot parse the command: {e}"))?;
    let mut words: Vec<String> = Vec::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            Token::Operator(op, _) if CONTROL.contains(&op.as_str()) => {
                finish(std::mem::take(&mut words), depth, out, here_strings)?;
            }
            Token::Operator(op, _) if is_redirection(&op) => {
                // The target: not an argument, but a here-string may be a
                // script, and a substitution in it still runs.
                if let Some(Token::Word(target, _)) = tokens.next() {
                    for inner in substitutions(&target) {
                        collect(&inner, depth + 1, out, here_strings)?;
                    }
                    if op == "<<<" {
                        here_strings.push(literal(&target));
                    }
                }
            }
            Token::Operator(op, _) => words.push(op),
            Token::Word(word, _) => {
                let io_number = word.chars().all(|c| c.is_ascii_digit())
                    && matches!(tokens.peek(), Some(Token::Operator(op, _)) if is_redirection(op));
                if io_number {
                    continue;
                }
                for inner in substitutions(&word) {
                    collect(&inner, depth + 1, out, here_strings)?;
                }
                words.push(literal(&word));
            }
        }
    }
    finish(words, depth, out, here_strings)
}

/// The text a word stands for with its quoting removed: `.e""nv` and `.\env`
/// are `.env`, `$'-rf'` is `-rf`. Expansions keep their source text.
fn literal(word: &str) -> String {
    fn text(pieces: &[brush_parser::word::WordPieceWithSource], source: &str) -> String {
        let mut out = String::new();
        for piece in pieces {
            match &piece.piece {
                WordPiece::Text(s)
                | WordPiece::SingleQuotedText(s)
                | WordPiece::AnsiCQuotedText(s) => out.push_str(s),
                WordPiece::EscapeSequence(s) => out.push_str(s.strip_prefix('\\').unwrap_or(s)),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    out.push_str(&text(inner, source))
                }
                _ => out.push_str(
                    source
                        .get(piece.start_index..piece.end_index)
                        .unwrap_or_default(),
                ),
            }
        }
        out
    }
    match brush_parser::word::parse(word, &Default::default()) {
        Ok(pieces) => text(&pieces, word),
        Err(_) => match shlex::split(word) {
            Some(mut parts) if parts.len() == 1 => parts.remove(0),
            _ => word.to_string(),
        },
    }
}

/// The command substitutions (`$(…)`, backticks) inside one word, also
/// inside double quotes.
fn substitutions(word: &str) -> Vec<String> {
    fn walk(pieces: &[brush_parser::word::WordPieceWithSource], out: &mut Vec<String>) {
        for piece in pieces {
            match &piece.piece {
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    out.push(s.clone());
                }
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => walk(inner, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    if word.contains('$') || word.contains('`') {
        match brush_parser::word::parse(word, &Default::default()) {
            Ok(pieces) => walk(&pieces, &mut out),
            // Unparseable: look inside anyway, as a command of its own.
            Err(_) => out.push(
                word.trim_matches(|c| c == '"' || c == '`' || c == '$')
                    .to_string(),
            ),
        }
    }
    out
}

/// Reserved words that may start a simple command's words (`{ rm …; }`,
/// `if …; then rm …`, `! rm …`).
const RESERVED: [&str; 16] = [
    "{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time",
    "esac", "coproc", "select",
];

/// Unwraps one simple command and adds what it runs to `out`.
fn finish(
    words: Vec<String>,
    depth: usize,
    out: &mut Vec<Vec<String>>,
    here_strings: &mut Vec<String>,
) -> Result<(), String> {
    let mut words = strip_assignments(words);
    // `function name {` and `name() {` define a function: its body is a
    // command of its own, the definition runs nothing.
    if words.first().is_some_and(|w| w == "function") {
        words.drain(..words.len().min(2));
    }
    let start = words
        .iter()
        .take_while(|w| RESERVED.contains(&w.as_str()))
        .count();
    let words = strip_assignments(words.split_off(start));
    let Some(program) = words.first() else {
        return Ok(());
    };
    let name = program.rsplit('/').next().unwrap_or(program).to_string();
    let args = &words[1..];
    let inner: Option<Vec<String>> = match name.as_str() {
        "sudo" | "doas" => Some(skip_options(
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
        )),
        "env" => {
            // `env -S 'cmd args'` splits one string into the command.
            if let Some(i) = args.iter().position(|a| a == "-S" || a == "--split-string")
                && let Some(script) = args.get(i + 1)
            {
                return collect(script, depth + 1, out, here_strings);
            }
            Some(strip_assignments(skip_options(
                args,
                &["-u", "-C", "--unset", "--chdir"],
            )))
        }
        "timeout" => {
            let rest = skip_options(args, &["-s", "-k", "--signal", "--kill-after"]);
            Some(rest.into_iter().skip(1).collect())
        }
        "nice" => Some(skip_options(args, &["-n", "--adjustment"])),
        "xargs" => Some(skip_options(
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
        // `command -v x` only looks x up.
        "command" if args.iter().any(|a| a == "-v" || a == "-V") => None,
        "nohup" | "command" | "exec" | "builtin" | "stdbuf" | "ionice" | "chrt" | "setsid"
        | "unbuffer" => Some(skip_options(args, &["-o", "-e", "-i", "-c", "-n", "-p"])),
        shell if SHELLS.contains(&shell) => {
            // The script is the first argument that is not an option after
            // the option cluster holding `c` (`-c`, `-lc`, `-c -e`, `-c --`).
            let c_flag = args
                .iter()
                .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'));
            let script = c_flag.and_then(|i| args[i + 1..].iter().find(|a| !a.starts_with('-')));
            if let Some(script) = script {
                return collect(script, depth + 1, out, here_strings);
            }
            None
        }
        "eval" => return collect(&args.join(" "), depth + 1, out, here_strings),
        _ => None,
    };
    match inner {
        Some(inner) if !inner.is_empty() => finish(inner, depth, out, here_strings),
        // A wrapper alone (`sudo`, `env`) is a command of its own.
        Some(_) | None => {
            if name == "find" {
                for exec in find_execs(args) {
                    finish(exec, depth, out, here_strings)?;
                }
            }
            out.push(words);
            Ok(())
        }
    }
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir`.
fn find_execs(args: &[String]) -> Vec<Vec<String>> {
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

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn strip_assignments(words: Vec<String>) -> Vec<String> {
    let start = words.iter().take_while(|w| is_assignment(w)).count();
    words.into_iter().skip(start).collect()
}

/// Skips leading options; those in `with_value` also take the next word.
fn skip_options(args: &[String], with_value: &[&str]) -> Vec<String> {
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
    args.get(i..).unwrap_or_default().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn texts(line: &str) -> Vec<String> {
        simple_commands(line)
            .unwrap()
            .iter()
            .map(|w| w.join(" "))
            .collect()
    }

    #[test]
    fn command_text_quotes_words_with_spaces() {
        let words: Vec<String> = ["echo", "a b", "*.o", "it's"].map(String::from).to_vec();
        assert_eq!(command_text(&words), r#"echo 'a b' *.o "it's""#);
    }

    #[test]
    fn compound_commands_are_split() {
        assert_eq!(
            texts("cargo fmt && cargo test --lib"),
            ["cargo fmt", "cargo test --lib"]
        );
        assert_eq!(texts("a; b || c | d\ne &"), ["a", "b", "c", "d", "e"]);
        assert_eq!(
            texts("git commit -m \"fix; rm -rf x\""),
            ["git commit -m fix; rm -rf x"]
        );
        assert_eq!(
            texts("echo \"$(cargo publish)\" `ls -a`"),
            ["cargo publish", "ls -a", "echo $(cargo publish) `ls -a`"]
        );
        assert_eq!(texts("(cd sub && make)"), ["cd sub", "make"]);
        assert_eq!(texts("cargo test 2>&1 > out.log"), ["cargo test"]);
        assert_eq!(texts(">/dev/null rm -rf b"), ["rm -rf b"]);
        assert_eq!(texts("{ rm -rf b; }"), ["rm -rf b"]);
        assert_eq!(texts("if true; then rm -rf b; fi"), ["true", "rm -rf b"]);
        assert_eq!(
            texts("for d in b; do rm -rf \"$d\"; done"),
            ["for d in b", "rm -rf $d"]
        );
        assert_eq!(texts("! rm -rf b"), ["rm -rf b"]);
        assert_eq!(texts("f(){ rm -rf b; }; f"), ["f", "rm -rf b", "f"]);
        assert_eq!(texts("function b { b|b& }; b"), ["b", "b", "b"]);
        assert_eq!(texts("rm \\\n-rf b"), ["rm -rf b"]);
        assert_eq!(texts("rm $'-rf' b"), ["rm -rf b"]);
        assert_eq!(texts("cat .e\"\"nv .\\env"), ["cat .env .env"]);
    }

    #[test]
    fn wrappers_are_unwrapped() {
        assert_eq!(texts("sudo -u root cargo publish"), ["cargo publish"]);
        assert_eq!(texts("env RUST_LOG=1 FOO=bar cargo test"), ["cargo test"]);
        assert_eq!(
            texts("RUST_LOG=debug timeout -s KILL 10 cargo test"),
            ["cargo test"]
        );
        assert_eq!(texts("nice -n 5 nohup make"), ["make"]);
        assert_eq!(
            texts("bash -c \"cargo test && cargo publish\""),
            ["cargo test", "cargo publish"]
        );
        assert_eq!(texts("sh -lc 'rm -r -f .'"), ["rm -r -f ."]);
        assert_eq!(texts("eval 'git push'"), ["git push"]);
        assert_eq!(
            texts("find . -name '*.o' -exec rm -f {} \\;"),
            ["rm -f {}", "find . -name *.o -exec rm -f {} ;"]
        );
        assert_eq!(texts("ls | xargs -n 1 rm"), ["ls", "rm"]);
        assert_eq!(texts("sudo"), ["sudo"]);
        assert_eq!(texts("sudo --user root rm -rf b"), ["rm -rf b"]);
        assert_eq!(texts("sh -c -- 'rm -rf b'"), ["rm -rf b"]);
        assert_eq!(texts("bash -c -e 'rm -rf b'"), ["rm -rf b"]);
        assert_eq!(texts("env -S 'rm -rf b'"), ["rm -rf b"]);
        assert_eq!(texts("command -v mkfs.ext4"), ["command -v mkfs.ext4"]);
        assert_eq!(
            texts("echo 'rm -rf b' | sh"),
            ["echo rm -rf b", "sh", "rm -rf b"]
        );
        assert_eq!(texts("bash <<< 'rm -rf b'"), ["bash", "rm -rf b"]);
    }

    #[test]
    fn incomplete_syntax_is_an_error() {
        assert!(simple_commands("echo 'unterminated").is_err());
        assert!(simple_commands("cat <<EOF").is_err());
        assert_eq!(texts(""), Vec::<String>::new());
    }
}
