//! Permission rules `TOOL(PATTERN)` (docs/permissions.md): `TOOL` is one of `read`,
//! `write`, `edit`, `move`, `list`, `search`, `bash` or `*`; a bare `TOOL`
//! means any argument. Path patterns are gitignore-style globs relative to
//! the workspace (`src/**`, `*.rs`, `secrets/`); bash patterns match a whole
//! simple command with `*` as a wildcard (`cargo test*`, `git diff *`).

use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::tools::ToolName;

/// What a rule does to the calls it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Allow,
    Ask,
    Deny,
}

impl Action {
    /// The word used in config files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Ask => "ask",
            Action::Deny => "deny",
        }
    }
}

/// The tool part of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleTool {
    One(ToolName),
    Any,
}

/// The short name rules use for each tool.
pub(crate) fn rule_name(tool: ToolName) -> &'static str {
    match tool {
        ToolName::ReadFile => "read",
        ToolName::WriteFile => "write",
        ToolName::EditFile => "edit",
        ToolName::MoveFile => "move",
        ToolName::ListFiles => "list",
        ToolName::Search => "search",
        ToolName::Bash => "bash",
    }
}

const SYNTAX: &str = "rules look like TOOL or TOOL(PATTERN) with TOOL one of read, write, edit, move, list, search, bash or *, e.g. 'bash(cargo test*)', 'write(src/**)', 'read'";

/// One parsed rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub action: Action,
    /// The rule as written, e.g. `bash(cargo test*)`.
    pub text: String,
    tool: RuleTool,
    /// `None` for a bare `TOOL`: any argument.
    pattern: Option<Pattern>,
    /// Where the workspace is, seen from the config file that holds the
    /// rule (`src/` for a rule in the repository root's config when `oc`
    /// works in `src/`): path patterns are relative to their file.
    base: String,
}

#[derive(Debug, Clone)]
struct Pattern {
    path: Gitignore,
    command: Regex,
    /// The command pattern with its program named by its base name, when
    /// it names it by a path (`/usr/bin/touch*` → `touch*`): deny and ask
    /// rules match with it too.
    by_name: Option<Regex>,
}

/// A command pattern as a regex: `*` is the wildcard, `\*` a literal star.
fn command_regex(pattern: &str) -> Result<Regex, regex::Error> {
    let wildcard = pattern
        .split("\\*")
        .map(|part| {
            part.split('*')
                .map(regex::escape)
                .collect::<Vec<_>>()
                .join(".*")
        })
        .collect::<Vec<_>>()
        .join("\\*");
    Regex::new(&format!("^{wildcard}$"))
}

/// The command pattern with its program named by its base name, when its
/// first word is a path (`/usr/bin/touch x*` → `touch x*`).
fn by_base_name(pattern: &str) -> Option<String> {
    let (program, rest) = match pattern.split_once(char::is_whitespace) {
        Some((program, rest)) => (program, Some(rest)),
        None => (pattern, None),
    };
    let base = program.rsplit('/').next().filter(|b| !b.is_empty())?;
    if !program.contains('/') {
        return None;
    }
    Some(match rest {
        Some(rest) => format!("{base} {rest}"),
        None => base.to_string(),
    })
}

impl Rule {
    /// Parses `text`. Errors quote the rule and show the syntax.
    pub(crate) fn parse(action: Action, text: &str) -> Result<Rule, String> {
        let invalid = |why: &str| format!("invalid rule `{text}`: {why}; {SYNTAX}");
        let trimmed = text.trim();
        let (name, pattern) = match trimmed.split_once('(') {
            Some((name, rest)) => match rest.strip_suffix(')') {
                Some(pattern) if !pattern.trim().is_empty() => (name.trim(), Some(pattern.trim())),
                Some(_) => return Err(invalid("the pattern in parentheses is empty")),
                None => return Err(invalid("the closing `)` is missing")),
            },
            None => (trimmed, None),
        };
        let tool = match name {
            "*" => RuleTool::Any,
            other => match ToolName::ALL.into_iter().find(|t| rule_name(*t) == other) {
                Some(tool) => RuleTool::One(tool),
                None if other.is_empty() => return Err(invalid("the tool is missing")),
                None => return Err(invalid(&format!("`{other}` is not a tool"))),
            },
        };
        let pattern = match pattern {
            None => None,
            Some(p) => {
                let mut builder = GitignoreBuilder::new("");
                builder
                    .add_line(None, p)
                    .map_err(|e| invalid(&format!("`{p}` is not a valid glob ({e})")))?;
                let path = builder
                    .build()
                    .map_err(|e| invalid(&format!("`{p}` is not a valid glob ({e})")))?;
                let command = command_regex(p)
                    .map_err(|e| invalid(&format!("`{p}` cannot be used ({e})")))?;
                let by_name = match by_base_name(p) {
                    Some(named) => Some(
                        command_regex(&named)
                            .map_err(|e| invalid(&format!("`{p}` cannot be used ({e})")))?,
                    ),
                    None => None,
                };
                Some(Pattern {
                    path,
                    command,
                    by_name,
                })
            }
        };
        Ok(Rule {
            action,
            text: trimmed.to_string(),
            tool,
            pattern,
            base: String::new(),
        })
    }

    /// The rule with its path patterns read from a config file in a parent
    /// of the workspace: `base` is the workspace relative to that file's
    /// directory (`src/deep/`), prefixed to every path matched.
    pub(crate) fn relative_to(mut self, base: &str) -> Rule {
        self.base = match base.trim_matches('/') {
            "" => String::new(),
            b => format!("{b}/"),
        };
        self
    }

    /// The rule with a path pattern written as an absolute path read
    /// relative to `dir`, the directory its paths are relative to (the
    /// workspace, or the config file's directory above it):
    /// `write(/home/me/proj/src/**)` is `write(src/**)` in `/home/me/proj`.
    /// A pattern that starts with `/` and whose first name is an entry of
    /// `dir`, or no entry of `/`, stays a gitignore pattern anchored at
    /// `dir` (`/build`). Command patterns are left alone.
    ///
    /// Errors (a sentence for a usage error): a path outside `dir` (`/etc/**`,
    /// `~/x`, `../x`), which no file tool can reach and the rule would never
    /// match.
    pub(crate) fn anchored_in(self, dir: &Path) -> Result<Rule, String> {
        let Some(pattern) = self
            .pattern_text()
            .filter(|_| self.tool != RuleTool::One(ToolName::Bash))
        else {
            return Ok(self);
        };
        let outside = |why: &str| {
            format!(
                "invalid rule `{}`: `{pattern}` {why} outside `{}`, where the rule's paths start; write paths relative to it (`write(src/**)`, `read(docs/*.md)`): no file tool reaches a path outside it, so the rule would never match",
                self.text,
                dir.display()
            )
        };
        if pattern.starts_with('~') {
            return Err(outside("names a home directory,"));
        }
        if pattern == ".." || pattern.starts_with("../") {
            return Err(outside("goes up with `..` to a path"));
        }
        let Some(absolute) = pattern.strip_prefix('/') else {
            return Ok(self);
        };
        if let Some(relative) = inside(dir, &pattern) {
            let name = self.text.split_once('(').map_or("*", |(n, _)| n.trim());
            let mut rule = Rule::parse(self.action, &format!("{name}({relative})"))?;
            rule.text = self.text;
            return Ok(rule);
        }
        let first = absolute.split('/').next().unwrap_or_default();
        let entry = |at: &Path| !first.is_empty() && at.join(first).symlink_metadata().is_ok();
        if entry(dir) || !entry(Path::new("/")) {
            return Ok(self);
        }
        Err(outside("is an absolute path"))
    }

    /// The pattern in parentheses, as written.
    fn pattern_text(&self) -> Option<String> {
        self.pattern.as_ref()?;
        let (_, rest) = self.text.split_once('(')?;
        Some(rest.strip_suffix(')')?.trim().to_string())
    }

    /// Whether the rule is about `tool`.
    pub(crate) fn covers(&self, tool: ToolName) -> bool {
        match self.tool {
            RuleTool::Any => true,
            RuleTool::One(t) => t == tool,
        }
    }

    /// Whether the rule takes any argument (a bare `TOOL`, or `TOOL(*)`).
    pub(crate) fn is_bare(&self) -> bool {
        self.pattern
            .as_ref()
            .is_none_or(|p| p.command.as_str() == "^.*$")
    }

    /// Whether the rule matches a path relative to the workspace
    /// (`/`-separated), or one of its parent directories.
    pub(crate) fn matches_path(&self, rel: &str, is_dir: bool) -> bool {
        let Some(pattern) = &self.pattern else {
            return true;
        };
        let anchored = format!("{}{}", self.base, rel.trim_start_matches("./"));
        let path = Path::new(&anchored);
        if pattern.path.matched(path, is_dir).is_ignore() {
            return true;
        }
        path.ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
            .any(|p| pattern.path.matched(p, true).is_ignore())
    }

    /// Whether the rule matches one simple command. A deny or ask rule
    /// that names its program by a path (`bash(/usr/bin/touch*)`) also
    /// matches it by its base name (`touch x`; commands run by a path are
    /// matched by their base name too, [`super::Commands`]); an allow rule
    /// matches the command as written.
    pub(crate) fn matches_command(&self, command: &str) -> bool {
        self.pattern.as_ref().is_none_or(|p| {
            p.command.is_match(command)
                || (self.action != Action::Allow
                    && p.by_name.as_ref().is_some_and(|r| r.is_match(command)))
        })
    }
}

/// The absolute path pattern `pattern` made relative to `dir` and anchored
/// there (`/home/me/proj/src/**` → `/src/**` in `/home/me/proj`; `**` for
/// `dir` itself), if it is inside. The part before its first wildcard is
/// made canonical first, so a link on the way (`/tmp` → `/private/tmp`)
/// does not matter.
fn inside(dir: &Path, pattern: &str) -> Option<String> {
    let wild = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
    let (literal, after) = pattern.split_at(wild);
    let literal_path = Path::new(literal);
    let real = literal_path.ancestors().find_map(|a| {
        let known = a.canonicalize().ok()?;
        Some(known.join(literal_path.strip_prefix(a).ok()?))
    })?;
    let rest = real.strip_prefix(dir).ok()?.to_string_lossy().into_owned();
    let sep = match !rest.is_empty() && literal.ends_with('/') {
        true => "/",
        false => "",
    };
    Some(match (rest.is_empty(), after.is_empty()) {
        (true, true) => "**".to_string(),
        _ => format!("/{rest}{sep}{after}"),
    })
}

/// The rule that allows exactly this path or command, for messages and the
/// terminal's "always" answer: `edit(src/lib.rs)`, `bash(cargo test --lib)`.
/// A `*` in a command is written `\*`, so the rule matches only the command
/// itself.
pub(crate) fn exact_rule(tool: ToolName, argument: &str) -> String {
    let argument = if tool == ToolName::Bash {
        argument.replace('*', "\\*")
    } else {
        argument.to_string()
    };
    format!("{}({argument})", rule_name(tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Rule {
        Rule::parse(Action::Allow, text).unwrap()
    }

    #[test]
    fn syntax() {
        assert!(rule("bash").is_bare());
        assert!(rule("bash(*)").is_bare());
        assert!(!rule("bash(cargo test*)").is_bare());
        assert!(rule("*(src/**)").covers(ToolName::WriteFile));
        assert!(rule("edit").covers(ToolName::EditFile));
        assert!(!rule("edit").covers(ToolName::WriteFile));
        for bad in ["", "shell(ls)", "bash(", "bash()", "(x)", "write_file(src)"] {
            let err = Rule::parse(Action::Deny, bad).unwrap_err();
            assert!(err.contains(&format!("invalid rule `{bad}`")), "{err}");
            assert!(err.contains("TOOL(PATTERN)"), "{err}");
        }
    }

    #[test]
    fn path_patterns_are_gitignore_style() {
        let src = rule("write(src/**)");
        assert!(src.matches_path("src/lib.rs", false));
        assert!(src.matches_path("src/a/b.rs", false));
        assert!(!src.matches_path("tests/a.rs", false));
        assert!(!src.matches_path("lib/src/a.rs", false));
        let rs = rule("edit(*.rs)");
        assert!(rs.matches_path("main.rs", false));
        assert!(rs.matches_path("deep/down/main.rs", false));
        assert!(!rs.matches_path("main.py", false));
        let dir = rule("read(secrets/)");
        assert!(dir.matches_path("secrets/key.pem", false));
        assert!(dir.matches_path("secrets", true));
        assert!(!dir.matches_path("public/key.pem", false));
        assert!(rule("read").matches_path("anything", false));
    }

    #[test]
    fn command_patterns_use_star_wildcards() {
        let test = rule("bash(cargo test*)");
        assert!(test.matches_command("cargo test"));
        assert!(test.matches_command("cargo test --lib"));
        assert!(!test.matches_command("cargo publish"));
        assert!(!test.matches_command("xcargo test"));
        let diff = rule("bash(git diff *)");
        assert!(diff.matches_command("git diff HEAD~1"));
        assert!(!diff.matches_command("git diff"));
        let dots = rule("bash(make a.b)");
        assert!(
            !dots.matches_command("make aXb"),
            "regex characters are literal"
        );
        assert_eq!(exact_rule(ToolName::Bash, "cargo test"), "bash(cargo test)");
        let exact = Rule::parse(Action::Allow, &exact_rule(ToolName::Bash, "rm *.o")).unwrap();
        assert_eq!(exact.text, r"bash(rm \*.o)");
        assert!(exact.matches_command("rm *.o"));
        assert!(!exact.matches_command("rm -r victim-dir src x.o"));
    }

    /// A deny rule written with the program's path matches the program by
    /// its base name; an allow rule only as written.
    #[test]
    fn deny_rules_with_a_program_path_match_the_base_name() {
        let deny = Rule::parse(Action::Deny, "bash(/usr/bin/touch*)").unwrap();
        for command in ["touch x", "/usr/bin/touch x", "touch"] {
            assert!(deny.matches_command(command), "{command}");
        }
        assert!(!deny.matches_command("retouch x"));
        let ask = Rule::parse(Action::Ask, "bash(./bin/deploy prod)").unwrap();
        assert!(ask.matches_command("deploy prod"));
        assert!(!ask.matches_command("deploy staging"));
        let allow = rule("bash(/usr/bin/touch*)");
        assert!(allow.matches_command("/usr/bin/touch x"));
        assert!(!allow.matches_command("touch x"));
    }

    /// Issue 41, item 4: a path pattern written as an absolute path inside
    /// the workspace is read relative to it (anchored there); one outside
    /// is an error that says so; `/build` stays a gitignore pattern.
    #[test]
    fn absolute_path_patterns_are_read_in_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("etc")).unwrap();
        let at = |text: &str| Rule::parse(Action::Deny, text).unwrap().anchored_in(&root);
        let cases = [
            ("src/**", "src/deep/a.rs", true),
            ("src/", "src/a.rs", true),
            ("notes.txt", "notes.txt", true),
            ("notes.txt", "src/notes.txt", false),
            ("*.rs", "main.rs", true),
            ("*.rs", "src/main.rs", false),
            ("", "anything/at/all", true),
            ("src/deep/a.rs", "src/deep/a.rs", true),
        ];
        for (tail, path, expected) in cases {
            let text = format!("write({}/{tail})", root.display());
            let rule = at(&text).unwrap();
            assert_eq!(rule.matches_path(path, false), expected, "{text} vs {path}");
            assert_eq!(rule.text, text, "the rule is shown as written");
        }
        assert!(
            at("write(/etc/**)").unwrap().matches_path("etc/x", false),
            "an entry of the workspace"
        );
        let anchored = at("write(/.no-such-top-entry)").unwrap();
        assert!(
            anchored.matches_path(".no-such-top-entry", true),
            "anchored, as before"
        );
        assert!(!anchored.matches_path("src/.no-such-top-entry", true));
        for bad in [
            "write(/usr/**)",
            "*(/tmp/x)",
            "read(~/.ssh/id_rsa)",
            "edit(../other/a.rs)",
        ] {
            let err = at(bad).unwrap_err();
            assert!(err.contains(&format!("invalid rule `{bad}`")), "{err}");
            assert!(err.contains("write paths relative to it"), "{err}");
        }
        let bash = at("bash(/usr/bin/touch*)").unwrap();
        assert!(
            bash.matches_command("touch x"),
            "command patterns are left alone"
        );
    }

    /// A rule from the repository root's config, with `oc` working in
    /// `src/`: its patterns stay relative to the repository root.
    #[test]
    fn rules_from_a_parent_config_are_anchored_there() {
        let r = rule("read(src/secret.txt)").relative_to("src");
        assert!(r.matches_path("secret.txt", false));
        assert!(!r.matches_path("src/secret.txt", false));
        let any = rule("write(*.lock)").relative_to("src/deep/");
        assert!(
            any.matches_path("Cargo.lock", false),
            "unanchored patterns match anywhere"
        );
        let docs = rule("write(docs/**)").relative_to("src");
        assert!(!docs.matches_path("docs/a.md", false));
    }
}
