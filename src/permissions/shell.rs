//! Shell command lines taken apart for permission checks, with
//! brush-parser's tokenizer (quotes, operators, `$(…)` and backticks as bash
//! reads them): every simple command, with wrappers such as `sudo`, `env`,
//! `timeout`, `nice`, `nohup`, `xargs`, `taskset`, `flock`, `bash -c "…"` and
//! `eval` unwrapped, command and process substitutions (also hidden inside
//! `${…}` or `$((…))`), `find -exec` commands, brace expansions, the
//! targets that redirections and output options write to, and the commands
//! options and variables run ([`super::effects`]).
//!
//! Static reading has limits: a command built at run time (`$CMD`, an
//! alias, `printf … | sh`) cannot be read; [`Parsed::opaque`] says so, and
//! the hard rules refuse such commands rather than guess.

use brush_parser::word::WordPiece;
use brush_parser::{Token, tokenize_str};

use super::cwd::Folders;
use super::effects;
use super::embedded;
use super::wrappers::{
    SHELLS, Unwrapped, is_assignment, moves_startup_files, split_assignments, startup_file, unwrap,
};

/// Operators that end a simple command.
const CONTROL: [&str; 10] = [";", "&&", "||", "|", "|&", "&", "\n", ";;", "(", ")"];
/// How deep `bash -c`, `eval` and substitutions are followed.
const MAX_DEPTH: usize = 8;
/// Most words one brace expansion may produce.
const MAX_BRACE_WORDS: usize = 64;

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Simple {
    /// `NAME=value` assignments before it (also those given to `env`).
    pub assignments: Vec<String>,
    /// The words, quotes removed, wrappers unwrapped.
    pub words: Vec<String>,
}

/// A command line taken apart.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Parsed {
    pub commands: Vec<Simple>,
    /// Files that output redirections write to (`> f`, `>> f`, `&> f`).
    pub writes: Vec<String>,
    /// Files that input redirections read (`< f`).
    pub reads: Vec<String>,
    /// Why a file it writes cannot be named before it runs, if so
    /// ([`super::cwd`]): deny and ask `write` rules fail closed on it.
    pub unnamed_writes: Option<String>,
    /// Why part of the line cannot be read statically, if so: a command
    /// name computed at run time, aliases, a shell reading its script from
    /// a pipe, git settings from elsewhere.
    pub opaque: Option<String>,
    /// Why it may run what the rules cannot read (`python3 -c '…'`, `git
    /// -c include.path=…`; [`super::effects`]): deny and ask rules fail
    /// closed on it.
    pub hidden: Option<String>,
    /// What programs may run from their arguments ([`super::embedded`]).
    pub embedded: Embedded,
}

/// Commands that may run from other programs' arguments: deny and ask rules
/// and the destructive-command rule read them, allow rules do not.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Embedded {
    pub commands: Vec<Simple>,
    /// Files their redirections and options write.
    pub writes: Vec<String>,
    /// Why one of them cannot be read, if so.
    pub unread: Option<String>,
}

/// Takes `line` apart. Errors when it is not complete shell syntax (an
/// unterminated quote or here-document), which callers treat with caution.
pub(crate) fn parse(line: &str) -> Result<Parsed, String> {
    let mut parser = Parser {
        trusted: embedded::names_trusted(line),
        folders: Folders::of_line(line),
        ..Default::default()
    };
    parser.collect(line, 0)?;
    // Substitutions the structured reading may not reach (inside `${…}`,
    // `$((…))`, `<(…)`): every one found in the raw text is read too.
    for inner in hidden_substitutions(line) {
        if parser.collect(&inner, 1).is_err() {
            parser.opaque("a substitution in it cannot be read");
        }
    }
    let substituted = line.contains("<(");
    if parser
        .parsed
        .commands
        .iter()
        .any(|c| reads_script_from_stdin(&c.words, substituted))
    {
        // `… | sh`: every string in the line may be the script; read them,
        // but the line stays opaque (the script may be computed).
        let scripts: Vec<String> = parser
            .parsed
            .commands
            .iter()
            .flat_map(|c| c.words.iter().skip(1))
            .chain(&parser.here_strings)
            .filter(|w| w.contains(char::is_whitespace))
            .cloned()
            .collect();
        for script in scripts {
            let _ = parser.collect(&script, 1);
        }
        parser.opaque("a shell reads its commands from a pipe or input redirection");
    }
    // The same command found twice (structured and raw) counts once.
    let mut seen = Vec::new();
    parser.parsed.commands.retain(|c| {
        let fresh = !seen.contains(c);
        if fresh {
            seen.push(c.clone());
        }
        fresh
    });
    Ok(parser.parsed)
}

#[cfg(test)]
/// Every simple command's words (see [`parse`]).
pub(crate) fn simple_commands(line: &str) -> Result<Vec<Vec<String>>, String> {
    Ok(parse(line)?.commands.into_iter().map(|c| c.words).collect())
}

/// A simple command as one line of text, for matching against rules: words
/// that need quoting are quoted, so `echo "a b"` is not `echo a b`.
pub(crate) fn command_text(words: &[String]) -> String {
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

/// Why `text` may make a name run another program than its own, if it
/// does: aliases, `BASH_CMDS`, `enable -f`, a function fed its callers'
/// words.
fn renames_programs(text: &str) -> Option<&'static str> {
    if text.contains("expand_aliases") || text.contains("alias ") || text.contains("BASH_ALIASES") {
        return Some("it defines or expands aliases");
    }
    if text.contains("BASH_CMDS") || text.contains("enable -f") {
        return Some("`BASH_CMDS` or `enable -f` gives a program another name");
    }
    if defines_function(text) && uses_positional_parameters(text) {
        return Some("a function runs the words its callers give it");
    }
    None
}

/// Whether `line` defines a shell function (`f() …`, `function f …`).
fn defines_function(line: &str) -> bool {
    line.contains("function") || {
        let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        squeezed.contains("()")
    }
}

/// Whether `line` expands positional parameters (`$@`, `$*`, `$1`,
/// `${1}`, `${@:2}`): inside a function, words its callers pass.
fn uses_positional_parameters(line: &str) -> bool {
    line.match_indices('$').any(|(at, _)| {
        let after = line[at + 1..].trim_start_matches('{');
        after.starts_with(|c: char| c.is_ascii_digit() || c == '@' || c == '*')
    })
}

/// A shell (or `.`, `source`) whose script is its input: no `-c` and no
/// script file, a script from `/dev/stdin` or a descriptor, or, in a line
/// with a process substitution (`bash <(…)`), any script.
fn reads_script_from_stdin(words: &[String], substituted: bool) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let script = args.iter().find(|a| !a.starts_with('-'));
    let from_input = script.is_none_or(|s| {
        s.starts_with("/dev/stdin") || s.starts_with("/dev/fd/") || s.starts_with("/proc/")
    });
    let shell = SHELLS.contains(&name)
        && !args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'));
    let sourced = matches!(name, "." | "source") && script.is_some();
    (shell || sourced) && (from_input || substituted)
}

/// Redirection operators; the word after one is its target, not an argument.
fn is_redirection(op: &str) -> bool {
    matches!(
        op,
        ">" | ">>" | "<" | "<<" | "<<-" | "<<<" | ">&" | "<&" | "&>" | "&>>" | "<>" | ">|"
    )
}

/// Redirections that write their target.
fn writes_target(op: &str) -> bool {
    matches!(op, ">" | ">>" | ">&" | "&>" | "&>>" | "<>" | ">|")
}

/// Every `$(…)`, `<(…)`, `>(…)` and `` `…` `` in `text`, found by bracket
/// counting (quotes ignored: reading too much only refuses more).
fn hidden_substitutions(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        let opens = matches!((bytes[i], bytes[i + 1]), (b'$' | b'<' | b'>', b'('));
        if opens {
            let start = i + 2;
            let mut depth = 1;
            let mut j = start;
            while j < bytes.len() && depth > 0 {
                match bytes[j] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            let end = if depth == 0 { j - 1 } else { j };
            if let Some(inner) = text.get(start..end).filter(|i| !i.trim().is_empty()) {
                found.push(inner.to_string());
            }
            i = start;
        } else if bytes[i] == b'`' {
            if let Some(close) = text[i + 1..].find('`') {
                found.push(text[i + 1..i + 1 + close].to_string());
                i += close + 2;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    found
}

#[derive(Default)]
struct Parser {
    parsed: Parsed,
    here_strings: Vec<String>,
    /// Whether program names on the line are what they say
    /// ([`embedded::names_trusted`]).
    trusted: bool,
    /// Whether the line moved where shells find their start-up files
    /// (`HOME=…`, `export ZDOTDIR=…`) for the commands after it.
    home_moved: bool,
    /// The folders the line has moved through so far.
    folders: Folders,
}

impl Parser {
    fn opaque(&mut self, why: &str) {
        if self.parsed.opaque.is_none() {
            self.parsed.opaque = Some(why.to_string());
        }
    }

    fn collect(&mut self, line: &str, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("commands nested too deeply".into());
        }
        // Read as written and with quotes taken out (`alia''s`), also in
        // what `eval` and `bash -c` run.
        let unquoted: String = line.chars().filter(|c| !"'\"\\".contains(*c)).collect();
        for text in [line, unquoted.as_str()] {
            if let Some(why) = renames_programs(text) {
                self.opaque(why);
            }
        }
        let tokens = tokenize_str(line).map_err(|e| format!("cannot parse the command: {e}"))?;
        let mut words: Vec<String> = Vec::new();
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                Token::Operator(op, _) if CONTROL.contains(&op.as_str()) => {
                    self.finish(std::mem::take(&mut words), Vec::new(), depth)?;
                }
                Token::Operator(op, _) if op == "<<" || op == "<<-" => {
                    // A here-document: the delimiter, the body, the closing
                    // delimiter. The body is input, not words.
                    let delimiter = match tokens.next() {
                        Some(Token::Word(d, _)) => literal(&d),
                        _ => continue,
                    };
                    if let Some(Token::Word(body, _)) = tokens.peek()
                        && literal(body) != delimiter
                    {
                        self.here_strings.push(literal(body));
                        tokens.next();
                    }
                    if matches!(tokens.peek(), Some(Token::Word(end, _)) if literal(end) == delimiter)
                    {
                        tokens.next();
                    }
                }
                Token::Operator(op, _) if is_redirection(&op) => {
                    if let Some(Token::Word(target, _)) = tokens.next() {
                        for inner in substitutions(&target) {
                            self.collect(&inner, depth + 1)?;
                        }
                        let target = literal(&target);
                        if op == "<<<" {
                            self.here_strings.push(target);
                        } else if writes_target(&op)
                            && !target.chars().all(|c| c.is_ascii_digit() || c == '-')
                        {
                            let parsed = &mut self.parsed;
                            (self.folders).place(
                                target,
                                &mut parsed.writes,
                                &mut parsed.unnamed_writes,
                            );
                        } else if op == "<" {
                            self.parsed.reads.push(target);
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
                        self.collect(&inner, depth + 1)?;
                    }
                    let text = literal(&word);
                    if text.starts_with(['$', '`']) && words.iter().all(|w| is_assignment(w)) {
                        self.opaque("the command name is computed at run time");
                    }
                    words.extend(expand_braces(&text));
                }
            }
        }
        self.finish(words, Vec::new(), depth)
    }

    /// Unwraps one simple command and records what it runs.
    fn finish(
        &mut self,
        words: Vec<String>,
        mut assignments: Vec<String>,
        depth: usize,
    ) -> Result<(), String> {
        let (leading, mut words) = split_assignments(words);
        assignments.extend(leading);
        // `function name {` and `name() {` define a function: its body is a
        // command of its own, the definition runs nothing.
        if words.first().is_some_and(|w| w == "function") {
            words.drain(..words.len().min(2));
        }
        let start = words
            .iter()
            .take_while(|w| RESERVED.contains(&w.as_str()))
            .count();
        let timed = words[..start].iter().any(|w| w == "time");
        let mut words = words.split_off(start);
        if timed {
            // `time -p cmd`
            let skip = words.iter().take_while(|w| w.starts_with('-')).count();
            words.drain(..skip);
        }
        let (more, words) = split_assignments(words);
        assignments.extend(more);
        let Some(program) = words.first() else {
            self.home_moved |= assignments.iter().any(|a| moves_startup_files(a));
            return Ok(());
        };
        let name = program.rsplit('/').next().unwrap_or(program).to_string();
        if embedded::is_glob(program) {
            self.opaque("the command name is a glob, expanded at run time");
        }
        if program.contains(['$', '`']) {
            // Also behind a wrapper: `nice $(echo rm) -rf x`.
            self.opaque("the command name is computed at run time");
        }
        let path_option =
            |w: &String| w.starts_with('-') && !w.starts_with("--") && w.contains('p');
        if name == "hash" && words.iter().any(path_option) {
            self.opaque("`hash -p` gives a program another name");
        }
        // A shell that runs a start-up file first (`BASH_ENV=rc`,
        // `--rcfile rc`, `-i`, `-l`, another `HOME`): no rule can read it.
        let exported = match name.as_str() {
            "export" | "declare" | "typeset" | "readonly" => &words[1..],
            _ => &[],
        };
        self.home_moved |= exported.iter().any(|w| moves_startup_files(w));
        // (`env 'BASH_FUNC_f%%=() {…}' bash`: not a shell assignment.)
        let given: Vec<String> = (assignments.iter().chain(exported))
            .chain(words.first())
            .cloned()
            .collect();
        if let Some(why) = startup_file(&name, &words[1..], &given, self.home_moved) {
            self.opaque(why);
        }
        let args = &words[1..];
        self.folders.follow(&name, args);
        let unwrapped = unwrap(&name, args);
        if let Unwrapped::Command(inner, _) = &unwrapped
            && name == "xargs"
            && inner
                .first()
                .is_some_and(|p| SHELLS.contains(&p.rsplit('/').next().unwrap_or(p)))
        {
            self.opaque("xargs hands a shell its script from the input");
        }
        match unwrapped {
            Unwrapped::Command(inner, extra) if !inner.is_empty() => {
                assignments.extend(extra);
                self.finish(inner, assignments, depth)
            }
            Unwrapped::Script(script) => self.collect(&script, depth + 1),
            Unwrapped::Command(..) | Unwrapped::Plain => {
                if name == "find" {
                    for exec in find_execs(args) {
                        self.finish(exec, Vec::new(), depth)?;
                    }
                }
                self.effects(&name, args, &assignments, depth)?;
                self.embedded(&words, &assignments, depth);
                self.parsed.commands.push(Simple { assignments, words });
                Ok(())
            }
        }
    }
}

impl Parser {
    /// Records what the command's options and environment make it write
    /// and run ([`effects`]).
    fn effects(
        &mut self,
        name: &str,
        args: &[String],
        assignments: &[String],
        depth: usize,
    ) -> Result<(), String> {
        let found = effects::of(name, args, assignments);
        for target in found.writes {
            let parsed = &mut self.parsed;
            (self.folders).place(target, &mut parsed.writes, &mut parsed.unnamed_writes);
        }
        if self.parsed.hidden.is_none() {
            self.parsed.hidden = found.hidden;
        }
        for script in found.scripts {
            self.collect(&script, depth + 1)?;
        }
        Ok(())
    }
}

impl Parser {
    /// Records what the program may run from its arguments
    /// ([`embedded::of`]); a line that cannot be parsed runs nothing.
    fn embedded(&mut self, words: &[String], assignments: &[String], depth: usize) {
        let mut found = embedded::of(words, self.trusted);
        // A variable's value may be a command the program runs
        // (`BROWSER=cmd`, `MAKEFLAGS=--eval=…`, `TAR_OPTIONS=…`).
        found.lines.extend(embedded::assigned_lines(assignments));
        let unread = &mut self.parsed.embedded.unread;
        if unread.is_none() {
            *unread = found.computed;
        }
        for tail in found.tails {
            let simple = Simple {
                assignments: Vec::new(),
                words: tail,
            };
            self.parsed.embedded.commands.push(simple);
        }
        for line in found.lines {
            let mut inner = Parser {
                trusted: self.trusted,
                folders: self.folders.clone(),
                ..Default::default()
            };
            match inner.collect(&line, depth + 1) {
                Ok(()) => {
                    let mut inner = inner.parsed;
                    let found = &mut self.parsed.embedded;
                    found.commands.append(&mut inner.commands);
                    found.commands.append(&mut inner.embedded.commands);
                    found.writes.append(&mut inner.writes);
                    found.writes.append(&mut inner.embedded.writes);
                    let unnamed = inner.unnamed_writes;
                    self.parsed.unnamed_writes = self.parsed.unnamed_writes.take().or(unnamed);
                    let why = inner.opaque.or(inner.hidden).or(inner.embedded.unread);
                    if found.unread.is_none() {
                        found.unread = why;
                    }
                }
                Err(e) if e.contains("nested") => {
                    self.parsed.embedded.unread.get_or_insert(e);
                }
                Err(_) => {}
            }
        }
    }
}

/// Single-level brace expansion as bash does it: `{rm,-rf,x}` is three
/// words, `{.,}env` is `.env env`. Words without a `{a,b}` come back whole.
fn expand_braces(word: &str) -> Vec<String> {
    let Some(open) = word.find('{') else {
        return vec![word.to_string()];
    };
    let Some(close) = word[open..].find('}').map(|c| open + c) else {
        return vec![word.to_string()];
    };
    let inner = &word[open + 1..close];
    if !inner.contains(',') || inner.contains('{') {
        return vec![word.to_string()];
    }
    let (prefix, suffix) = (&word[..open], &word[close + 1..]);
    let mut out = Vec::new();
    for alternative in inner.split(',') {
        for rest in expand_braces(suffix) {
            if out.len() < MAX_BRACE_WORDS {
                out.push(format!("{prefix}{alternative}{rest}"));
            }
        }
    }
    // Bash joins the alternatives of a whole-word brace into separate words;
    // with a prefix or suffix each result is still one word.
    if prefix.is_empty() && suffix.is_empty() {
        out
    } else {
        out.into_iter().filter(|w| !w.is_empty()).collect()
    }
}

/// The text a word stands for with its quoting removed: `.e""nv` and `.\env`
/// are `.env`, `$'\x2drf'` is `-rf`. Expansions keep their source text.
fn literal(word: &str) -> String {
    fn text(pieces: &[brush_parser::word::WordPieceWithSource], source: &str) -> String {
        let mut out = String::new();
        for piece in pieces {
            match &piece.piece {
                WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => out.push_str(s),
                WordPiece::AnsiCQuotedText(s) => out.push_str(&ansi_c(s)),
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

/// The text of a `$'…'` string: `\xHH`, octal `\NNN`, `\uHHHH` and the
/// usual letter escapes decoded.
fn ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let mut number = |radix: u32, max: usize, first: Option<char>| {
            let mut digits: String = first.into_iter().collect();
            while digits.len() < max && chars.peek().is_some_and(|d| d.is_digit(radix)) {
                digits.extend(chars.next());
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            'x' => number(16, 2, None),
            'u' => number(16, 4, None),
            'U' => number(16, 8, None),
            '0'..='7' => number(8, 3, Some(e)),
            _ => None,
        };
        match decoded {
            Some(d) => out.push(d),
            None => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    out
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

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
