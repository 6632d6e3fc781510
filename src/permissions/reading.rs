//! A bash command line read once, for every permission rule
//! (docs/permissions.md): brush-parser's syntax tree walked into one
//! [`Reading`] — every simple command, with wrappers such as `sudo`, `env`,
//! `timeout`, `xargs`, `bash -c "…"` and `eval` unwrapped ([`super::wrappers`]),
//! command and process substitutions (also inside `${…}` or `$((…))`),
//! `find -exec` commands, brace expansions, the files redirections and
//! options write, the commands options and variables run
//! ([`super::effects`]), and what programs may run from their arguments
//! ([`super::embedded`]).
//!
//! Static reading has limits: a command built at run time (`$CMD`, an
//! alias, `printf … | sh`) cannot be read. [`Reading::unread`] says so,
//! once, with how far the doubt reaches ([`Reach`]); the rules fail closed
//! on it and the hard rules refuse what cannot be read at all.

use brush_parser::ast;

use super::cwd::Folders;
use super::effects;
use super::embedded;
use super::parse_guard::beyond_the_parser;
use super::words::{self, expand_braces};
use super::wrappers::{
    SHELLS, Unwrapped, find_execs, moves_startup_files, reads_script_from_input, split_assignments,
    startup_file, unwrap,
};

/// How deep `bash -c`, `eval` and substitutions are followed.
const MAX_DEPTH: usize = 8;
/// How many arguments of a line, all told, are read as the command lines
/// a program may run from them ([`embedded`]).
const MAX_EMBEDDED_LINES: usize = 64;

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Simple {
    /// `NAME=value` assignments before it (also those given to `env`).
    pub assignments: Vec<String>,
    /// The words, quotes removed, wrappers unwrapped.
    pub words: Vec<String>,
}

/// How far a doubt about a command line reaches, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reach {
    /// Part of what it may run cannot be told: a program may run a
    /// computed command from its arguments, or a program's own option
    /// hides its subcommand (`git --frob push`). Deny and ask rules fail
    /// closed; allow rules still read it as written.
    Part,
    /// It runs code no rule reads (`python3 -c '…'`, `git -c
    /// include.path=…`): deny and ask rules fail closed, only a bare
    /// `bash` allow rule allows it.
    Code,
    /// What it runs cannot be told at all (not complete shell syntax, a
    /// program named at run time, aliases, a shell reading its script from
    /// a pipe): as [`Reach::Code`], and the hard rules refuse it.
    Whole,
}

/// Why a command line cannot be read, and how far that reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    pub why: String,
    pub reach: Reach,
}

/// A command line, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Reading {
    /// The simple commands it runs as written.
    pub commands: Vec<Simple>,
    /// Commands programs may run from their arguments: deny and ask rules
    /// and the destructive-command rule read them, allow rules do not.
    pub embedded: Vec<Simple>,
    /// Files that its redirections and options write (`> f`, `&> f`,
    /// `tee f`, `--output=f`), from where the line starts.
    pub writes: Vec<String>,
    /// Files the embedded commands write.
    pub embedded_writes: Vec<String>,
    /// Files that input redirections read (`< f`).
    pub reads: Vec<String>,
    /// Every text it holds, quoting removed: words (also with their
    /// expansions left out), assignments, here-documents; what the
    /// secret-file rule searches.
    pub texts: Vec<String>,
    /// Whether its globs match dot files too (`shopt -s dotglob`, a
    /// `GLOBIGNORE`).
    pub dotglob: bool,
    /// Why a file it writes cannot be named before it runs, if so
    /// ([`super::cwd`]): deny and ask `write` rules fail closed on it.
    pub unnamed_writes: Option<String>,
    /// The function that starts itself twice in a pipe or the background
    /// (`:(){ :|:& };:`), if one does.
    pub fork_bomb: Option<String>,
    /// Why it cannot be read fully, the widest reach first.
    pub unread: Option<Unread>,
}

impl Reading {
    /// Notes a doubt: it replaces one of a smaller reach.
    pub(crate) fn doubt(&mut self, reach: Reach, why: impl Into<String>) {
        if self.unread.as_ref().is_none_or(|u| u.reach < reach) {
            self.unread = Some(Unread {
                why: why.into(),
                reach,
            });
        }
    }

    /// Why it cannot be read, when the doubt reaches at least `reach`.
    pub(crate) fn unread_to(&self, reach: Reach) -> Option<&str> {
        (self.unread.as_ref())
            .filter(|u| u.reach >= reach)
            .map(|u| u.why.as_str())
    }
}

/// Reads `line`. Never fails: what cannot be read is said in
/// [`Reading::unread`].
pub(crate) fn read(line: &str) -> Reading {
    let mut reader = Reader {
        budget: MAX_EMBEDDED_LINES,
        ..Default::default()
    };
    reader.script(line, 0);
    let mut reading = reader.finish_line().reading;
    // The same command found twice (as written and in a script) counts once.
    let mut seen = Vec::new();
    reading.commands.retain(|c| {
        let fresh = !seen.contains(c);
        if fresh {
            seen.push(c.clone());
        }
        fresh
    });
    reading
}

/// A whole reading, and what is left of its budget.
struct Finished {
    reading: Reading,
    budget: usize,
}

/// A simple command as the tree gave it, before it is unwrapped.
struct Found {
    words: Vec<String>,
    assignments: Vec<String>,
    /// Where the line was when it ran.
    folders: Folders,
}

#[derive(Default)]
struct Reader {
    reading: Reading,
    /// Here-documents and here-strings: a shell reading its input runs them.
    inputs: Vec<String>,
    /// The simple commands met, for what programs run from their arguments
    /// ([`embedded`]), read once the whole line is known.
    found: Vec<Found>,
    /// Whether program names may not be what they say: the line defines a
    /// function, changes `PATH` or defines aliases.
    renamed: bool,
    /// Whether the line moved where shells find their start-up files
    /// (`HOME=…`, `export ZDOTDIR=…`) for the commands after it.
    home_moved: bool,
    /// Whether a process substitution (`<(…)`) hands a file to a command.
    substituted: bool,
    /// Functions being read: their bodies' commands run with their callers'
    /// words.
    in_function: usize,
    /// Pipes and background jobs met, for [`Reading::fork_bomb`].
    forks: usize,
    /// The folders the line has moved through so far.
    folders: Folders,
    /// Whether a script it read is not complete shell syntax.
    broken: bool,
    /// How many more arguments may be read as command lines
    /// ([`Reader::embedded`]), in this reading and those inside it: a
    /// line of thousands of `=` stays cheap.
    budget: usize,
}

impl Reader {
    /// Reads a script (the line, or what `bash -c`, `eval` or a
    /// substitution runs).
    fn script(&mut self, text: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.reading
                .doubt(Reach::Whole, "commands nested too deeply");
            return;
        }
        if let Some(why) = beyond_the_parser(text) {
            self.broken = true;
            return self.reading.doubt(Reach::Whole, why);
        }
        // A panic in the parser on a line no test met is a line that
        // cannot be read, not the end of the run.
        let parsed = std::panic::catch_unwind(|| {
            let options = brush_parser::ParserOptions::default();
            brush_parser::Parser::new(std::io::Cursor::new(text), &options).parse_program()
        });
        let parsed = parsed.unwrap_or(Err(brush_parser::ParseError::ParsingAtEndOfInput));
        match parsed {
            Ok(program) => {
                for list in &program.complete_commands {
                    self.list(list, depth);
                }
            }
            Err(e) => {
                self.broken = true;
                let why = format!("it is not complete shell syntax ({e})");
                self.reading.doubt(Reach::Whole, why);
            }
        }
    }

    fn list(&mut self, list: &ast::CompoundList, depth: usize) {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, ast::SeparatorOperator::Async) {
                self.forks += 1;
            }
            self.pipeline(&and_or.first, depth);
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p, depth),
                }
            }
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, depth: usize) {
        if pipeline.seq.len() > 1 {
            self.forks += 1;
        }
        for command in &pipeline.seq {
            self.command(command, depth);
        }
    }

    fn command(&mut self, command: &ast::Command, depth: usize) {
        let redirects = match command {
            ast::Command::Simple(simple) => return self.simple(simple, depth),
            ast::Command::Function(function) => return self.function(function, depth),
            ast::Command::Compound(compound, redirects) => {
                self.compound(compound, depth);
                redirects
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.test(&test.expr, depth);
                redirects
            }
        };
        for redirect in redirects.iter().flat_map(|r| &r.0) {
            self.redirect(redirect, depth);
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, depth: usize) {
        use ast::CompoundCommand as C;
        match compound {
            C::Arithmetic(a) => self.arithmetic(&a.expr, depth),
            C::ArithmeticForClause(f) => {
                for expr in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(expr, depth);
                }
                self.list(&f.body.list, depth);
            }
            C::BraceGroup(group) => self.list(&group.list, depth),
            C::Subshell(subshell) => self.list(&subshell.list, depth),
            C::ForClause(f) => {
                for value in f.values.iter().flatten() {
                    self.word(value, depth);
                }
                self.list(&f.body.list, depth);
            }
            C::CaseClause(case) => {
                self.word(&case.value, depth);
                for item in &case.cases {
                    for pattern in &item.patterns {
                        self.word(pattern, depth);
                    }
                    if let Some(list) = &item.cmd {
                        self.list(list, depth);
                    }
                }
            }
            C::IfClause(clause) => {
                self.list(&clause.condition, depth);
                self.list(&clause.then, depth);
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition, depth);
                    }
                    self.list(&other.body, depth);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0, depth);
                self.list(&w.1.list, depth);
            }
            C::Coprocess(coprocess) => self.command(&coprocess.body, depth),
        }
    }

    fn test(&mut self, expr: &ast::ExtendedTestExpr, depth: usize) {
        use ast::ExtendedTestExpr as T;
        match expr {
            T::And(a, b) | T::Or(a, b) => {
                self.test(a, depth);
                self.test(b, depth);
            }
            T::Not(a) | T::Parenthesized(a) => self.test(a, depth),
            T::UnaryTest(_, word) => {
                self.word(word, depth);
            }
            T::BinaryTest(_, left, right) => {
                self.word(left, depth);
                self.word(right, depth);
            }
        }
    }

    /// An arithmetic expression: its `$(…)` run, quoted or not.
    fn arithmetic(&mut self, expr: &ast::UnexpandedArithmeticExpr, depth: usize) {
        for inner in words::raw_substitutions(&expr.value) {
            self.script(&inner, depth + 1);
        }
    }

    /// A function definition: its body's commands run when it is called,
    /// with its callers' words.
    fn function(&mut self, function: &ast::FunctionDefinition, depth: usize) {
        self.renamed = true;
        let name = self.word(&function.fname, depth);
        let (commands, forks) = (self.reading.commands.len(), self.forks);
        self.in_function += 1;
        self.compound(&function.body.0, depth);
        self.in_function -= 1;
        for redirect in function.body.1.iter().flat_map(|r| &r.0) {
            self.redirect(redirect, depth);
        }
        let calls = (self.reading.commands[commands..].iter())
            .filter(|c| c.words.first() == Some(&name))
            .count();
        if calls >= 2 && self.forks > forks {
            self.reading.fork_bomb.get_or_insert(name);
        }
    }

    /// Reads one word as written: the commands it substitutes are read, and
    /// its text (quoting removed) comes back.
    fn word(&mut self, word: &ast::Word, depth: usize) -> String {
        let read = words::read(&word.value);
        for inner in &read.substitutions {
            self.script(inner, depth + 1);
        }
        // A `$(…)` its quotes hide may still run: bash evaluates it in
        // arithmetic and array subscripts (`'a[$(…)]'`), inside `${…}`
        // within double quotes, and `PS4`, `eval` and the like run text.
        for inner in words::raw_substitutions(&read.text) {
            if !read.substitutions.contains(&inner) {
                self.script(&inner, depth + 1);
            }
        }
        if read.positional && self.in_function > 0 {
            self.reading.doubt(
                Reach::Whole,
                "a function runs the words its callers give it",
            );
        }
        if read.bare != read.text {
            self.reading.texts.push(read.bare);
        }
        self.reading.texts.push(read.text.clone());
        read.text
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, depth: usize) {
        let (mut words, mut assignments) = (Vec::new(), Vec::new());
        let prefix = simple.prefix.iter().flat_map(|p| &p.0);
        let suffix = simple.suffix.iter().flat_map(|s| &s.0);
        let name: Vec<_> = (simple.word_or_name.iter().cloned())
            .map(ast::CommandPrefixOrSuffixItem::Word)
            .collect();
        for item in prefix.chain(&name).chain(suffix) {
            use ast::CommandPrefixOrSuffixItem as Item;
            match item {
                Item::IoRedirect(redirect) => self.redirect(redirect, depth),
                Item::Word(word) => {
                    let text = self.word(word, depth);
                    if words.is_empty() && text.starts_with(['$', '`']) {
                        self.reading
                            .doubt(Reach::Whole, "the command name is computed at run time");
                    }
                    words.extend(expand_braces(&text));
                }
                Item::AssignmentWord(_, word) => {
                    let text = self.word(word, depth);
                    match words.is_empty() {
                        true => assignments.push(text),
                        false => words.push(text),
                    }
                }
                Item::ProcessSubstitution(_, subshell) => {
                    self.substituted = true;
                    self.list(&subshell.list, depth + 1);
                    words.push("/dev/fd/63".into());
                }
            }
        }
        self.run(words, assignments, depth);
    }

    fn redirect(&mut self, redirect: &ast::IoRedirect, depth: usize) {
        use ast::{IoFileRedirectKind as Kind, IoFileRedirectTarget as Target};
        let (kind, target) = match redirect {
            ast::IoRedirect::File(_, kind, target) => (kind, target),
            ast::IoRedirect::OutputAndError(word, _) => {
                let target = self.word(word, depth);
                return self.place_write(target);
            }
            ast::IoRedirect::HereString(_, word) => {
                let text = self.word(word, depth);
                return self.inputs.push(text);
            }
            ast::IoRedirect::HereDocument(_, here) => {
                let body = &here.doc.value;
                if here.requires_expansion {
                    // Its `$(…)` run; its quotes are text.
                    for inner in words::raw_substitutions(body) {
                        self.script(&inner, depth + 1);
                    }
                }
                self.reading.texts.push(body.clone());
                return self.inputs.push(body.clone());
            }
        };
        let word = match target {
            Target::Fd(_) => return,
            Target::ProcessSubstitution(_, subshell) => {
                self.substituted = true;
                return self.list(&subshell.list, depth + 1);
            }
            Target::Filename(word) | Target::Duplicate(word) => word,
        };
        let target = self.word(word, depth);
        let descriptor = target.chars().all(|c| c.is_ascii_digit() || c == '-');
        match kind {
            Kind::Read => self.reading.reads.push(target),
            Kind::DuplicateInput => {}
            Kind::DuplicateOutput if descriptor => {}
            Kind::Write | Kind::Append | Kind::Clobber | Kind::ReadAndWrite => {
                self.place_write(target)
            }
            Kind::DuplicateOutput => self.place_write(target),
        }
    }

    fn place_write(&mut self, target: String) {
        let reading = &mut self.reading;
        (self.folders).place(target, &mut reading.writes, &mut reading.unnamed_writes);
    }
}

impl Reader {
    /// Unwraps one simple command and records what it runs.
    fn run(&mut self, words: Vec<String>, mut assignments: Vec<String>, depth: usize) {
        let (leading, words) = split_assignments(words);
        assignments.extend(leading);
        self.note_renames(&words, &assignments);
        self.folders.note_assignments(&assignments);
        self.reading.dotglob |= assignments.iter().any(|a| a.starts_with("GLOBIGNORE"));
        let Some(program) = words.first() else {
            self.home_moved |= assignments.iter().any(|a| moves_startup_files(a));
            // Values may be commands something runs later (`PS4=…`,
            // `GIT_EDITOR=…` then `export`).
            self.found.push(Found {
                words,
                assignments,
                folders: self.folders.clone(),
            });
            return;
        };
        let name = program.rsplit('/').next().unwrap_or(program).to_string();
        if embedded::is_glob(program) {
            let why = "the command name is a glob, expanded at run time";
            self.reading.doubt(Reach::Whole, why);
        }
        if program.contains(['$', '`']) {
            // Also behind a wrapper: `nice $(echo rm) -rf x`.
            let why = "the command name is computed at run time";
            self.reading.doubt(Reach::Whole, why);
        }
        // A shell that runs a start-up file first (`BASH_ENV=rc`,
        // `--rcfile rc`, `-i`, `-l`, another `HOME`): no rule can read it.
        let exported = match name.as_str() {
            "export" | "declare" | "typeset" | "readonly" => &words[1..],
            _ => &[],
        };
        self.home_moved |= exported.iter().any(|w| moves_startup_files(w));
        self.folders.note_assignments(exported);
        self.reading.dotglob |= (name == "shopt" && args_hold(&words, "dotglob"))
            || exported.iter().any(|a| a.starts_with("GLOBIGNORE"));
        // (`env 'BASH_FUNC_f%%=() {…}' bash`: not a shell assignment.)
        let given: Vec<String> = (assignments.iter().chain(exported))
            .chain(words.first())
            .cloned()
            .collect();
        if let Some(why) = startup_file(&name, &words[1..], &given, self.home_moved) {
            self.reading.doubt(Reach::Whole, why);
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
            let why = "xargs hands a shell its script from the input";
            self.reading.doubt(Reach::Whole, why);
        }
        match unwrapped {
            Unwrapped::Command(inner, extra) if !inner.is_empty() => {
                assignments.extend(extra);
                self.run(inner, assignments, depth)
            }
            Unwrapped::Script(script) => self.script(&script, depth + 1),
            Unwrapped::Command(..) | Unwrapped::Plain => {
                if name == "find" {
                    for exec in find_execs(args) {
                        self.run(exec, Vec::new(), depth);
                    }
                }
                self.effects(&name, args, &assignments, depth);
                self.found.push(Found {
                    words: words.clone(),
                    assignments: assignments.clone(),
                    folders: self.folders.clone(),
                });
                self.reading.commands.push(Simple { assignments, words });
            }
        }
    }

    /// Notes what may make a name run another program than its own:
    /// aliases, `BASH_CMDS`, `enable -f`, `hash -p`, a new `PATH`.
    fn note_renames(&mut self, words: &[String], assignments: &[String]) {
        let name = words.first().map(|p| p.rsplit('/').next().unwrap_or(p));
        let args = words.get(1..).unwrap_or_default();
        let cluster = |letter: char| {
            args.iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(letter))
        };
        let mentions = |text: &str| {
            (words.iter().chain(assignments))
                .any(|w| w.contains(text) && !w.contains(char::is_whitespace))
        };
        let why = match name {
            Some("alias") => Some("it defines aliases"),
            Some("shopt") if args_hold(words, "expand_aliases") => Some("it expands aliases"),
            Some("enable") if cluster('f') => Some("`enable -f` gives a program another name"),
            Some("hash") if cluster('p') => Some("`hash -p` gives a program another name"),
            _ if mentions("BASH_ALIASES") => Some("it defines aliases"),
            _ if mentions("BASH_CMDS") => Some("`BASH_CMDS` gives a program another name"),
            _ => None,
        };
        if let Some(why) = why {
            self.reading.doubt(Reach::Whole, why);
        }
        self.renamed |= why.is_some() || mentions("PATH") || name == Some("enable");
    }

    /// Records what the command's options and environment make it write
    /// and run ([`effects`]).
    fn effects(&mut self, name: &str, args: &[String], assignments: &[String], depth: usize) {
        let found = effects::of(name, args, assignments);
        for target in found.writes {
            self.place_write(target);
        }
        if let Some(why) = found.unread {
            self.reading.doubt(Reach::Code, why);
        }
        for script in found.scripts {
            self.script(&script, depth + 1);
        }
    }
}

impl Reader {
    /// What is known once the whole line is read: what programs may run
    /// from their arguments, and scripts a shell reads from its input.
    fn finish_line(mut self) -> Finished {
        let found = std::mem::take(&mut self.found);
        for command in &found {
            self.embedded(command);
        }
        if (self.reading.commands.iter())
            .any(|c| reads_script_from_input(&c.words, self.substituted))
        {
            // `… | sh`: every string in the line may be the script; read
            // them, but the line stays unread (the script may be computed).
            let scripts: Vec<String> = (self.reading.commands.iter())
                .flat_map(|c| c.words.iter().skip(1))
                .chain(&self.inputs)
                .filter(|w| w.contains(char::is_whitespace))
                .cloned()
                .collect();
            for script in scripts {
                let mut inner = Reader::default();
                inner.script(&script, 1);
                self.reading.commands.append(&mut inner.reading.commands);
            }
            let why = "a shell reads its commands from a pipe or input redirection";
            self.reading.doubt(Reach::Whole, why);
        }
        Finished {
            reading: self.reading,
            budget: self.budget,
        }
    }

    /// Records what the program may run from its arguments
    /// ([`embedded::of`]); an argument that is not a command line runs
    /// nothing.
    fn embedded(&mut self, command: &Found) {
        let mut found = embedded::of(&command.words, !self.renamed);
        // A variable's value may be a command the program runs
        // (`BROWSER=cmd`, `MAKEFLAGS=--eval=…`, `TAR_OPTIONS=…`).
        found
            .lines
            .extend(embedded::assigned_lines(&command.assignments));
        if let Some(why) = found.unread {
            self.reading.doubt(Reach::Part, why);
        }
        for tail in found.tails {
            let simple = Simple {
                assignments: Vec::new(),
                words: tail,
            };
            self.reading.embedded.push(simple);
        }
        for line in found.lines {
            if self.budget == 0 {
                let why = "its arguments hold more possible commands than the reader reads";
                self.reading.doubt(Reach::Part, why);
                break;
            }
            let mut inner = Reader {
                renamed: self.renamed,
                folders: command.folders.clone(),
                budget: self.budget - 1,
                ..Default::default()
            };
            inner.script(&line, 1);
            if inner.broken {
                self.budget = inner.budget;
                continue;
            }
            let Finished {
                reading: mut inner,
                budget,
            } = inner.finish_line();
            self.budget = budget;
            if let Some(unread) = inner.unread.take() {
                self.reading.doubt(Reach::Part, unread.why);
            }
            self.take_embedded(inner);
        }
    }

    fn take_embedded(&mut self, mut inner: Reading) {
        let reading = &mut self.reading;
        reading.embedded.append(&mut inner.commands);
        reading.embedded.append(&mut inner.embedded);
        reading.embedded_writes.append(&mut inner.writes);
        reading.embedded_writes.append(&mut inner.embedded_writes);
        reading.unnamed_writes = reading.unnamed_writes.take().or(inner.unnamed_writes);
    }
}

/// Whether one of a command's arguments is `word`.
fn args_hold(words: &[String], word: &str) -> bool {
    words.iter().skip(1).any(|w| w == word)
}

#[cfg(test)]
#[path = "reading_tests.rs"]
mod tests;
