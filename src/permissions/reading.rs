//! A bash command line read once, for every permission rule
//! (docs/permissions.md): brush-parser's syntax tree walked into one
//! [`Reading`] ([`super::line`]) — every simple command, with wrappers such as `sudo`, `env`,
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

use super::changes;
use super::cwd::{CALLERS, Folders, UNFOLLOWED, either};
use super::effects;
use super::embedded;
use super::line::{Reach, Reading, Simple};
use super::parse_guard::beyond_the_parser;
use super::shell_input::{self, SHELLS};
use super::words::{self, expand_braces};
use super::wrappers::{Unwrapped, find_execs, split_assignments, startup_file, unwrap};

/// How deep `bash -c`, `eval` and substitutions are followed.
const MAX_DEPTH: usize = 8;
/// How many arguments of a line, all told, are read as the command lines
/// a program may run from them ([`embedded`]).
const MAX_EMBEDDED_LINES: usize = 64;

/// Reads `line`. Never fails: what cannot be read is said in
/// [`Reading::unread`].
pub(crate) fn read(line: &str) -> Reading {
    let mut reader = Reader {
        budget: MAX_EMBEDDED_LINES,
        ..Default::default()
    };
    reader.script(line, 0);
    let mut reading = reader.finish_line().reading;
    reading.count_commands_once();
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
    /// The start-up variables the line set for the commands after it
    /// (`HOME=…`, `export ZDOTDIR=…`, `BASH_ENV=…; export BASH_ENV`).
    startup_moved: Vec<&'static str>,
    /// Whether a process substitution (`<(…)`) hands a file to a command.
    substituted: bool,
    /// Functions being read: their bodies' commands run with their callers'
    /// words.
    in_function: usize,
    /// Pipes and background jobs met, for [`Reading::fork_bomb`].
    forks: usize,
    /// The folders the line may be in so far.
    folders: Folders,
    /// Whether the line (or a part of it) may have moved to another folder.
    ever_moved: bool,
    /// Whether a function writes a file in its caller's folder.
    caller_writes: bool,
    /// Whether the last side of a pipe runs in the line's own shell.
    lastpipe: bool,
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
            match separator {
                ast::SeparatorOperator::Async => {
                    self.forks += 1;
                    self.apart(|r| r.and_or(and_or, depth));
                }
                ast::SeparatorOperator::Sequence => self.and_or(and_or, depth),
            }
        }
    }

    /// `a && b || c`: `&&` goes on where the pipeline before it
    /// succeeded, `||` where it failed (a `cd` that fails stays), and what
    /// comes after the chain, from either.
    fn and_or(&mut self, and_or: &ast::AndOrList, depth: usize) {
        self.pipeline(&and_or.first, depth);
        let (mut ok, mut failed) = self.folders.outcome();
        for next in &and_or.additional {
            let (pipeline, from_ok) = match next {
                ast::AndOr::And(p) => (p, true),
                ast::AndOr::Or(p) => (p, false),
            };
            let from = if from_ok { ok.clone() } else { failed.clone() };
            self.folders.resume(from);
            self.pipeline(pipeline, depth);
            let (now_ok, now_failed) = self.folders.outcome();
            match from_ok {
                true => (ok, failed) = (now_ok, either(failed, now_failed)),
                false => (ok, failed) = (either(ok, now_ok), now_failed),
            }
        }
        self.folders.resume(either(ok, failed));
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, depth: usize) {
        let last = pipeline.seq.len().saturating_sub(1);
        if last > 0 {
            self.forks += 1;
        }
        for (n, command) in pipeline.seq.iter().enumerate() {
            // Each side of a pipe runs in a process of its own (the last
            // in the line's own shell under `shopt -s lastpipe`).
            match n == last && (last == 0 || self.lastpipe) {
                true => self.command(command, depth),
                false => self.apart(|r| r.command(command, depth)),
            }
        }
        if pipeline.bang {
            self.folders.negate();
        }
    }

    /// Reads `part`, which runs in a process of its own (a subshell, a
    /// substitution, a side of a pipe, a background job, a wrapped
    /// program): a `cd` in it does not move the line.
    fn apart(&mut self, part: impl FnOnce(&mut Self)) {
        let folders = self.folders.clone();
        part(self);
        self.folders.back_to(folders);
    }

    /// Reads `part`, which may not run, or, when it `repeats` (a loop),
    /// run many times: a `cd` in it leaves the line where the reader
    /// cannot follow, and in a loop also what it wrote before that `cd`.
    fn branch(&mut self, repeats: bool, part: impl FnOnce(&mut Self)) {
        let (before, writes) = (self.folders.clone(), self.reading.writes.len());
        part(self);
        if self.folders.moves() == before.moves() {
            // It may not have run, or may have ended the line (`exit`).
            return self.folders.or_as_before(before);
        }
        self.folders.lose(UNFOLLOWED);
        if repeats && self.reading.writes.len() > writes {
            (self.reading.unnamed_writes).get_or_insert_with(|| UNFOLLOWED.to_string());
        }
    }

    fn command(&mut self, command: &ast::Command, depth: usize) {
        let redirects = match command {
            ast::Command::Simple(simple) => return self.simple(simple, depth),
            ast::Command::Function(function) => return self.function(function, depth),
            ast::Command::Compound(_, redirects) | ast::Command::ExtendedTest(_, redirects) => {
                redirects
            }
        };
        // Opened before the body runs: `{ cd locked; } > n` writes `n`.
        for redirect in redirects.iter().flat_map(|r| &r.0) {
            self.redirect(redirect, depth);
        }
        match command {
            ast::Command::Compound(compound, _) => self.compound(compound, depth),
            ast::Command::ExtendedTest(test, _) => self.test(&test.expr, depth),
            ast::Command::Simple(_) | ast::Command::Function(_) => {}
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, depth: usize) {
        use ast::CompoundCommand as C;
        match compound {
            C::Arithmetic(a) => self.arithmetic(&a.expr, depth),
            C::ArithmeticForClause(f) => {
                for expr in f.initializer.iter() {
                    self.arithmetic(expr, depth);
                }
                self.branch(true, |r| {
                    for expr in [&f.condition, &f.updater].into_iter().flatten() {
                        r.arithmetic(expr, depth);
                    }
                    r.list(&f.body.list, depth);
                });
            }
            C::BraceGroup(group) => self.list(&group.list, depth),
            C::Subshell(subshell) => self.apart(|r| r.list(&subshell.list, depth)),
            C::ForClause(f) => {
                for value in f.values.iter().flatten() {
                    self.word(value, depth);
                }
                self.note(changes::of_loop_variable(&f.variable_name));
                self.branch(true, |r| r.list(&f.body.list, depth));
            }
            C::CaseClause(case) => {
                self.word(&case.value, depth);
                for item in &case.cases {
                    self.branch(false, |r| {
                        for pattern in &item.patterns {
                            r.word(pattern, depth);
                        }
                        if let Some(list) = &item.cmd {
                            r.list(list, depth);
                        }
                    });
                }
            }
            C::IfClause(clause) => {
                self.list(&clause.condition, depth);
                self.branch(false, |r| r.list(&clause.then, depth));
                for other in clause.elses.iter().flatten() {
                    self.branch(false, |r| {
                        if let Some(condition) = &other.condition {
                            r.list(condition, depth);
                        }
                        r.list(&other.body, depth);
                    });
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => self.branch(true, |r| {
                r.list(&w.0, depth);
                r.list(&w.1.list, depth);
            }),
            C::Coprocess(coprocess) => self.apart(|r| r.command(&coprocess.body, depth)),
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
        self.note(changes::of_arithmetic(&expr.value));
        for inner in words::raw_substitutions(&expr.value) {
            self.substitution(&inner, depth);
        }
    }

    /// A command substitution: it runs in a process of its own.
    fn substitution(&mut self, script: &str, depth: usize) {
        self.apart(|r| r.script(script, depth + 1));
    }

    /// A function definition: its body's commands run when it is called,
    /// with its callers' words.
    fn function(&mut self, function: &ast::FunctionDefinition, depth: usize) {
        self.renamed = true;
        let name = self.word(&function.fname, depth);
        let (commands, forks) = (self.reading.commands.len(), self.forks);
        let outside = self.folders.clone();
        self.folders = outside.in_function();
        self.in_function += 1;
        for redirect in function.body.1.iter().flat_map(|r| &r.0) {
            self.redirect(redirect, depth);
        }
        self.compound(&function.body.0, depth);
        self.in_function -= 1;
        let moved = self.folders.moves() != outside.moves();
        self.folders = outside;
        if moved {
            // Called anywhere after this, it may move the line.
            self.folders.lose(UNFOLLOWED);
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
            self.substitution(inner, depth);
        }
        // A `$(…)` its quotes hide may still run: bash evaluates it in
        // arithmetic and array subscripts (`'a[$(…)]'`), inside `${…}`
        // within double quotes, and `PS4`, `eval` and the like run text.
        for inner in words::raw_substitutions(&read.text) {
            if !read.substitutions.contains(&inner) {
                self.substitution(&inner, depth);
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
            self.reading.patterns.push(read.pattern);
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
                    self.apart(|r| r.list(&subshell.list, depth + 1));
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
                        self.substitution(&inner, depth);
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
                return self.apart(|r| r.list(&subshell.list, depth + 1));
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
        let placed = self.folders.place(&target);
        self.reading.writes.extend(placed.writes);
        if let Some(why) = placed.unnamed {
            self.reading
                .unnamed_writes
                .get_or_insert_with(|| why.to_string());
        }
        self.caller_writes |= placed.in_caller;
    }
}

impl Reader {
    /// Unwraps one simple command and records what it runs.
    fn run(&mut self, words: Vec<String>, mut assignments: Vec<String>, depth: usize) {
        let (leading, words) = split_assignments(words);
        assignments.extend(leading);
        self.note(changes::of(&words, &assignments));
        let Some(program) = words.first() else {
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
        // (`env 'BASH_FUNC_f%%=() {…}' bash`: not a shell assignment.)
        let given: Vec<String> = (assignments.iter()).chain(words.first()).cloned().collect();
        if let Some(why) = startup_file(&name, &words[1..], &given, &self.startup_moved) {
            self.reading.doubt(Reach::Whole, why);
        }
        let args = &words[1..];
        let unwrapped = unwrap(&name, args);
        // A wrapped program, or a shell's `-c`, runs in a process of its
        // own: its `cd` does not move the line (`command`, `builtin` and
        // `eval` run in the line's own shell; `trap` and `mapfile -C` too,
        // at any time, any number of times).
        let own_shell = matches!(name.as_str(), "command" | "builtin" | "eval");
        let any_time = matches!(name.as_str(), "trap" | "mapfile" | "readarray");
        let outside = (!own_shell && !any_time && !matches!(unwrapped, Unwrapped::Plain))
            .then(|| self.folders.clone());
        let moves = self.folders.moves();
        self.folders.follow(&name, args);
        self.ever_moved |= self.folders.moves() != moves;
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
            Unwrapped::Script(script) if any_time => {
                self.branch(true, |r| r.script(&script, depth + 1))
            }
            Unwrapped::Script(script) => self.script(&script, depth + 1),
            Unwrapped::Command(..) | Unwrapped::Plain => {
                if name == "find" {
                    for exec in find_execs(args) {
                        self.apart(|r| r.run(exec, Vec::new(), depth));
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
        if let Some(outside) = outside {
            self.folders.back_to(outside);
        }
    }

    /// Notes what a command changes for the commands after it
    /// ([`changes`]).
    fn note(&mut self, changes: changes::Changes) {
        if let Some(why) = changes.unread {
            self.reading.doubt(Reach::Whole, why);
        }
        self.renamed |= changes.renamed;
        self.startup_moved.extend(changes.startup);
        if changes.loses_folder {
            self.folders.lose(UNFOLLOWED);
            self.ever_moved = true;
        }
        self.reading.dotglob |= changes.dotglob;
        self.reading.nocaseglob |= changes.nocaseglob;
        self.lastpipe |= changes.lastpipe;
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
            self.substitution(&script, depth);
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
        if self.reads_script_from_input(&found) {
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
        if self.caller_writes && self.ever_moved {
            (self.reading.unnamed_writes).get_or_insert_with(|| CALLERS.to_string());
        }
        self.reading.moved |= self.ever_moved;
        Finished {
            reading: self.reading,
            budget: self.budget,
        }
    }

    /// Whether a shell on the line reads its script from the input
    /// ([`shell_input::on_line`]).
    fn reads_script_from_input(&self, found: &[Found]) -> bool {
        let fed = !self.inputs.is_empty() || self.forks > 0 || !self.reading.reads.is_empty();
        let commands =
            (found.iter()).map(|f| (f.words.as_slice(), |file: &str| f.folders.seen_from(file)));
        let tails = self.reading.embedded.iter().map(|c| c.words.as_slice());
        shell_input::on_line(commands, tails, self.substituted, fed)
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
            // A value that is one data glob (`--exclude=*.o`) is no command.
            let one_word = !line.contains(char::is_whitespace);
            if one_word && embedded::is_glob(&line) && !embedded::is_computed(&line) {
                continue;
            }
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
            self.reading.take_embedded(inner);
        }
    }
}

#[cfg(test)]
#[path = "reading_tests.rs"]
mod tests;
