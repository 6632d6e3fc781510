//! Permission decisions (docs/permissions.md), in this order: hard rules → plan mode →
//! deny rules → ask rules → allow rules → `--yes` → defaults (reads allowed;
//! writes, edits, moves and bash ask).

pub(crate) mod approver;
pub(crate) mod changes;
pub(crate) mod cwd;
pub(crate) mod effects;
pub(crate) mod embedded;
pub(crate) mod hard_rules;
pub(crate) mod inline_code;
pub(crate) mod line;
pub(crate) mod looks;
pub(crate) mod own_options;
pub(crate) mod parse_guard;
pub(crate) mod project_config;
pub(crate) mod reading;
pub(crate) mod rules;
pub(crate) mod secret_globs;
pub(crate) mod settle;
pub(crate) mod shell_input;
pub(crate) mod verdict;
pub(crate) mod words;
pub(crate) mod wrappers;

use std::path::Path;

use crate::tools::{ResolvedPath, ToolInput, ToolName};
use line::{Reach, Reading};
use rules::{Action, Rule};
use words::command_text;

pub(crate) use approver::{ApprovalRequest, Approver, HeadlessApprover};
pub(crate) use settle::{Settlement, settle};
pub(crate) use verdict::{PermissionMode, PermissionRecord, Source, Verdict};

/// One call, as the rules see it.
pub(crate) struct Request<'a> {
    pub input: &'a ToolInput,
    /// The call's paths as resolved by the workspace (their real names are
    /// checked too, so a symlink to `.env` is caught).
    pub paths: &'a [ResolvedPath],
    /// The workspace root.
    pub root: &'a Path,
}

/// What rules match against: the paths, or the simple commands of a bash
/// call.
enum Subjects {
    Paths(Vec<(String, bool)>),
    Commands(Commands),
}

/// A bash call as rules see it.
struct Commands {
    /// Per simple command: its words (wrappers and assignments removed), and
    /// the same with its `NAME=value` assignments in front. Allow rules must
    /// match the second.
    texts: Vec<(String, String)>,
    /// What deny and ask rules match: both texts above, also with the
    /// program named by its base name (`/usr/bin/curl x` is `curl x`).
    names: Vec<String>,
    /// The same of the commands its programs may run from their arguments
    /// ([`embedded`]): deny and ask rules only.
    embedded_names: Vec<String>,
    /// Files it writes as written, relative to the workspace: what allow
    /// rules must cover.
    writes: Vec<String>,
    /// Those and the files the commands in its arguments write: what deny
    /// and ask `write` rules match.
    all_writes: Vec<String>,
    /// Why a file it writes cannot be named before it runs
    /// ([`cwd`]): deny and ask `write` rules fail closed on it.
    unnamed_writes: Option<String>,
    /// Why it cannot be read fully, and how far that reaches
    /// ([`line::Unread`]), also a program's own option the reader does
    /// not know before its subcommand (`git --frob push`,
    /// [`own_options`]): every deny and ask rule for bash matches it; from
    /// [`Reach::Code`] on only bare allow rules do.
    unread: Option<line::Unread>,
}

impl Request<'_> {
    /// The one reading of a bash call's command line ([`reading`]).
    fn reading(&self) -> Option<Reading> {
        match self.input {
            ToolInput::Bash(args) => Some(reading::read(&args.command)),
            _ => None,
        }
    }

    fn subjects(&self, reading: Option<&Reading>) -> Subjects {
        match reading {
            Some(reading) => Subjects::Commands(self.commands(reading)),
            None => Subjects::Paths(
                self.paths
                    .iter()
                    .map(|p| (p.display.clone(), p.real.is_dir()))
                    .collect(),
            ),
        }
    }

    fn commands(&self, reading: &Reading) -> Commands {
        let mut doubts = reading.clone();
        let mut texts = Vec::new();
        let mut names = Vec::new();
        for simple in &reading.commands {
            let plain = command_text(&simple.words);
            let with = |text: &str| match simple.assignments.is_empty() {
                true => text.to_string(),
                false => format!("{} {text}", simple.assignments.join(" ")),
            };
            let full = with(&plain);
            let (spelled, why) = spellings(&simple.words);
            for text in spelled {
                names.push(with(&text));
                names.push(text);
            }
            if let Some(why) = why {
                doubts.doubt(Reach::Part, why);
            }
            texts.push((plain, full));
        }
        if texts.is_empty() {
            // No simple command (`(( … ))`, `[[ … ]]`, an assignment): rules
            // match the line as written, so no allow rule passes it unread.
            let whole = match self.input {
                ToolInput::Bash(args) => args.command.trim().to_string(),
                _ => String::new(),
            };
            names.push(whole.clone());
            texts.push((whole.clone(), whole));
        }
        let mut embedded_names = Vec::new();
        for simple in &reading.embedded {
            let (spelled, why) = spellings(&simple.words);
            embedded_names.extend(spelled);
            if let Some(why) = why {
                doubts.doubt(Reach::Part, why);
            }
        }
        let writes = self.relative_writes(&reading.writes);
        let mut all_writes = writes.clone();
        all_writes.extend(self.relative_writes(&reading.embedded_writes));
        Commands {
            texts,
            names,
            embedded_names,
            writes,
            all_writes,
            unnamed_writes: reading.unnamed_writes.clone(),
            unread: doubts.unread,
        }
    }

    /// Files written, relative to the workspace; the standard streams left
    /// out.
    fn relative_writes(&self, writes: &[String]) -> Vec<String> {
        writes
            .iter()
            .filter(|w| !matches!(w.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr"))
            .map(|w| self.relative(w))
            .collect()
    }

    /// A redirect target relative to the workspace, `.` and `..` resolved
    /// as written (`../ws/locked/n` from the workspace `ws` is
    /// `locked/n`); a target outside it is its whole path, which no
    /// workspace rule matches, so it needs approval.
    fn relative(&self, target: &str) -> String {
        let path = lexical(&self.root.join(target));
        match path.strip_prefix(lexical(self.root)) {
            Ok(inside) => inside.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }
}

/// `path` with `.` and `..` resolved as written, not through links.
fn lexical(path: &Path) -> std::path::PathBuf {
    let mut resolved = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                resolved.pop();
            }
            std::path::Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved
}

impl Commands {
    /// Whether the doubt about it reaches `reach`.
    fn reaches(&self, reach: Reach) -> bool {
        self.unread.as_ref().is_some_and(|u| u.reach >= reach)
    }

    /// Why a deny or ask `rule` matched, when not by the command as
    /// written: it cannot be read, or a program may run what the rule
    /// names from its arguments.
    fn why_matched(&self, rule: &Rule) -> String {
        if rule.is_bare() {
            return String::new();
        }
        if !rule.covers(ToolName::Bash) {
            // A `write` rule: a file it writes matched, or one it cannot name.
            let written = self.all_writes.iter().any(|w| rule.matches_path(w, false));
            return match self.unnamed_writes.as_ref().filter(|_| !written) {
                Some(why) => {
                    format!(" (fail closed: {why}; rules cannot tell which file it writes)")
                }
                None => String::new(),
            };
        }
        if self.names.iter().any(|n| rule.matches_command(n)) {
            return String::new();
        }
        if let Some(name) = (self.embedded_names.iter()).find(|n| rule.matches_command(n)) {
            return format!(" (a program in it may run `{name}` from its arguments)");
        }
        match &self.unread {
            Some(unread) => format!(
                " (fail closed: {}; rules cannot read what it runs)",
                unread.why
            ),
            None => String::new(),
        }
    }
}

/// The ways deny and ask rules read one simple command: as written, with
/// its program named by its base name, and both with the program's own
/// options before its subcommand dropped ([`own_options`]); and why they
/// cannot find its subcommand, if so.
fn spellings(words: &[String]) -> (Vec<String>, Option<String>) {
    let mut spelled = Vec::new();
    let mut unsure = None;
    let mut add = |words: &[String]| {
        spelled.extend(by_base_name(words));
        spelled.push(command_text(words));
    };
    add(words);
    match own_options::drop_own_options(words) {
        own_options::Dropped::Words(dropped) => add(&dropped),
        own_options::Dropped::Unknown(why) => unsure = Some(why),
        own_options::Dropped::Nothing => {}
    }
    (spelled, unsure)
}

/// The command with its program named by its base name, when it was
/// named by a path (`/usr/bin/curl -s x` → `curl -s x`).
fn by_base_name(words: &[String]) -> Option<String> {
    let (program, args) = words.split_first()?;
    let base = program
        .rsplit('/')
        .next()
        .filter(|b| program.contains('/') && !b.is_empty())?;
    let mut renamed = vec![base.to_string()];
    renamed.extend(args.iter().cloned());
    Some(command_text(&renamed))
}

/// Whether a deny or ask `rule` matches any subject of the call. A `write`
/// rule also covers `edit_file`, `move_file` and bash redirections: every
/// way of changing a file.
fn rule_matches(rule: &Rule, tool: ToolName, subjects: &Subjects) -> bool {
    let write_rule = rule.covers(ToolName::WriteFile);
    let covered = rule.covers(tool)
        || (write_rule && matches!(tool, ToolName::EditFile | ToolName::MoveFile));
    match subjects {
        Subjects::Paths(paths) => covered && paths.iter().any(|(p, d)| rule.matches_path(p, *d)),
        Subjects::Commands(c) => {
            let named =
                || (c.names.iter().chain(&c.embedded_names)).any(|n| rule.matches_command(n));
            let by_command = covered && (c.unread.is_some() || named());
            let by_write = write_rule
                && (c.unnamed_writes.is_some()
                    || c.all_writes.iter().any(|w| rule.matches_path(w, false)));
            by_command || by_write
        }
    }
}

/// The allow rules that together cover every subject of the call, or `None`.
fn allowed_by(rules: &[Rule], tool: ToolName, subjects: &Subjects) -> Option<Vec<String>> {
    let allows = |for_tool: ToolName| -> Vec<&Rule> {
        rules
            .iter()
            .filter(|r| r.action == Action::Allow && r.covers(for_tool))
            .collect()
    };
    let mut used: Vec<String> = Vec::new();
    let mut note = |rule: &Rule| {
        if !used.contains(&rule.text) {
            used.push(rule.text.clone());
        }
    };
    match subjects {
        Subjects::Paths(paths) => {
            let allows = allows(tool);
            for (path, is_dir) in paths {
                note(allows.iter().find(|r| r.matches_path(path, *is_dir))?);
            }
        }
        Subjects::Commands(c) => {
            let bash = allows(tool);
            if c.reaches(Reach::Code) {
                note(bash.iter().find(|r| r.is_bare())?);
            } else {
                for (_, full) in &c.texts {
                    note(bash.iter().find(|r| r.matches_command(full))?);
                }
            }
            // What the command writes must be allowed as a write too.
            let writes = allows(ToolName::WriteFile);
            for target in &c.writes {
                note(writes.iter().find(|r| r.matches_path(target, false))?);
            }
        }
    }
    Some(used)
}

/// Decides a call, and gives the rules that would allow exactly it
/// ([`exact_rules_read`]), from one reading of its command line.
pub(crate) fn decide(
    mode: PermissionMode,
    rules: &[Rule],
    request: &Request<'_>,
) -> (Verdict, Vec<String>) {
    let reading = request.reading();
    let verdict = guarded(|| check_read(mode, rules, request, reading.as_ref()));
    (verdict, exact_rules_read(request, reading.as_ref()))
}

/// The verdict `check` gives; a panic in it (a case no test met) is a
/// refusal that says so, not the end of the run.
fn guarded(check: impl FnOnce() -> Verdict) -> Verdict {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or_else(|_| {
        Verdict::Deny {
            source: Source::HardRule,
            reason: "the permission check failed on this call (an error in oc; please report it), so it was not run".into(),
            rule: None,
        }
    })
}

/// Decides a call; see the module docs for the order.
pub(crate) fn check(mode: PermissionMode, rules: &[Rule], request: &Request<'_>) -> Verdict {
    guarded(|| check_read(mode, rules, request, request.reading().as_ref()))
}

/// [`check`], with the command line already read.
fn check_read(
    mode: PermissionMode,
    rules: &[Rule],
    request: &Request<'_>,
    reading: Option<&Reading>,
) -> Verdict {
    let input = request.input;
    if let Some(reason) = hard_rule(input, request.paths, request.root, reading) {
        return Verdict::Deny {
            source: Source::HardRule,
            reason,
            rule: None,
        };
    }
    let tool = input.tool();
    let read_only = tool.is_read_only();
    if mode == PermissionMode::Plan && !read_only {
        return Verdict::Deny {
            source: Source::Mode,
            reason: format!(
                "{} is not available in plan mode (read-only)",
                tool.as_str()
            ),
            rule: None,
        };
    }
    let subjects = request.subjects(reading);
    let first = |action: Action| {
        rules
            .iter()
            .find(|r| r.action == action && rule_matches(r, tool, &subjects))
    };
    let unread = |rule: &Rule| match &subjects {
        Subjects::Commands(c) => c.why_matched(rule),
        Subjects::Paths(_) => String::new(),
    };
    if let Some(rule) = first(Action::Deny) {
        return Verdict::Deny {
            source: Source::Rule,
            reason: format!("the rule `deny {}` forbids it{}", rule.text, unread(rule)),
            rule: Some(rule.text.clone()),
        };
    }
    if let Some(rule) = first(Action::Ask) {
        return Verdict::Ask {
            rule: Some(rule.text.clone()),
        };
    }
    if let Some(used) = allowed_by(rules, tool, &subjects) {
        return Verdict::Allow {
            source: Source::Rule,
            rule: Some(used.join(", ")),
        };
    }
    match mode {
        _ if read_only => Verdict::Allow {
            source: Source::Default,
            rule: None,
        },
        PermissionMode::Yolo => Verdict::Allow {
            source: Source::Yes,
            rule: None,
        },
        PermissionMode::Plan | PermissionMode::Normal => Verdict::Ask { rule: None },
    }
}

/// The rules that would allow exactly this call: one per path, or one per
/// simple command (`bash(cargo test --lib)`), for messages and the
/// terminal's "always" answer.
fn exact_rules_read(request: &Request<'_>, reading: Option<&Reading>) -> Vec<String> {
    let tool = request.input.tool();
    let mut out: Vec<String> = match request.subjects(reading) {
        Subjects::Paths(paths) => paths
            .iter()
            .map(|(p, _)| rules::exact_rule(tool, p))
            .collect(),
        Subjects::Commands(c) if c.reaches(Reach::Code) => {
            vec![rules::rule_name(tool).to_string()]
        }
        Subjects::Commands(c) => c
            .texts
            .iter()
            .map(|(_, full)| rules::exact_rule(tool, full))
            .chain(
                c.writes
                    .iter()
                    .map(|w| rules::exact_rule(ToolName::WriteFile, w)),
            )
            .collect(),
    };
    out.dedup();
    out
}

fn hard_rule(
    input: &ToolInput,
    paths: &[ResolvedPath],
    root: &Path,
    reading: Option<&Reading>,
) -> Option<String> {
    let given = input.paths();
    let secret = given
        .iter()
        .map(|p| std::path::Path::new(p).to_path_buf())
        .chain(paths.iter().map(|p| p.real.clone()))
        .find(|p| crate::secrets::is_secret_env_file(p));
    if let Some(path) = secret {
        return Some(format!(
            "`{}` is a secret environment file; no tool may {} it",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            verb(input.tool())
        ));
    }
    let writes = matches!(
        input,
        ToolInput::WriteFile(_) | ToolInput::EditFile(_) | ToolInput::MoveFile(_)
    );
    let config = paths
        .iter()
        .find(|p| project_config::is_project_config(&p.real));
    if let (true, Some(config)) = (writes, config) {
        return Some(format!(
            "`{}` is oc's project config; the agent may read it but never change it",
            config.display
        ));
    }
    let in_git = given
        .iter()
        .map(|p| Path::new(p).to_path_buf())
        .chain(paths.iter().map(|p| p.real.clone()))
        .find(|p| hard_rules::is_in_git_store(p));
    if let (true, Some(path)) = (writes, in_git) {
        return Some(hard_rules::git_store_refusal(&path, root));
    }
    if let Some(reading) = reading {
        if let Some(file) = hard_rules::env_file_in_command(reading, root) {
            return Some(format!(
                "the command names `{file}`, a secret environment file; commands may not touch it"
            ));
        }
        if let Some(why) = hard_rules::destructive_command(reading) {
            return Some(format!(
                "the command {why}; destructive commands are never run"
            ));
        }
    }
    None
}

/// What a call to `tool` does to the file it names, for refusals: a read
/// is refused as a read, not as a write.
fn verb(tool: ToolName) -> &'static str {
    match tool {
        ToolName::Bash => "touch",
        other => rules::rule_name(other),
    }
}

#[cfg(test)]
mod attack_tests;
#[cfg(test)]
mod tests;
