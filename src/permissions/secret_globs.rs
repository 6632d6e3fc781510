//! Which secret env files a shell glob in a command may name, for the
//! hard rule on them ([`super::hard_rules::env_file_in_command`]): the
//! workspace's secret files are found once a check, and each glob word is
//! matched against them as bash would expand it, leaning to a match where
//! the line leaves bash's reading open (an expansion, an extglob group, a
//! folder the line moved to).

use std::path::{Path, PathBuf};

use crate::secrets::is_secret_env_name;

/// How deep below the workspace secret files are looked for: as deep as
/// their values are scrubbed from results (docs/permissions.md,
/// "Secrets").
const DEPTH: usize = 16;

/// The longest glob matched; a longer one (thousands of characters, past
/// what the glob library compiles) is taken to name a secret file.
const MAX_GLOB: usize = 4096;

/// A word read as a glob over the workspace.
pub(crate) struct Glob {
    pattern: String,
    /// Whether an extglob group in it may give a leading dot (`@(.e)nv`).
    dot_inside: bool,
}

/// How bash would expand a glob on the line.
#[derive(Clone, Copy)]
pub(crate) struct Matching {
    /// A leading `.` need not be written (`dotglob`, a `find -name`
    /// pattern, an expansion that may give it).
    pub dotfiles: bool,
    /// A name without a folder may be in any folder (the line moved).
    pub any_depth: bool,
    /// Case does not matter (`nocaseglob`).
    pub nocase: bool,
}

impl Glob {
    /// `part` as a glob, when it is one: extglob groups (`@(e)`, `!(x)`)
    /// as `*`, `a/..` resolved, a leading `..` or a computed leading folder
    /// (`*/…`, `~+/…`) as any folder, the workspace's own path taken off.
    pub(crate) fn of(part: &str, cwd: &Path) -> Option<Glob> {
        let mut pattern = String::new();
        let mut dot_inside = false;
        let part = without_classes(part);
        let mut chars = part.chars().peekable();
        while let Some(c) = chars.next() {
            if !("?*+@!".contains(c) && chars.peek() == Some(&'(')) {
                pattern.push(c);
                continue;
            }
            let mut depth = 0;
            for inner in chars.by_ref() {
                dot_inside |= inner == '.';
                depth += match inner {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                if depth == 0 {
                    break;
                }
            }
            pattern.push('*');
        }
        // `[` is a glob only with a `]` after it (not the `[` command).
        let bracket = pattern
            .find('[')
            .is_some_and(|i| pattern[i + 1..].contains(']'));
        if !pattern.contains(['*', '?']) && !bracket {
            return None;
        }
        let root = format!("{}/", cwd.display());
        let pattern = pattern.strip_prefix(&root).unwrap_or(&pattern);
        Some(Glob {
            pattern: resolved(pattern),
            dot_inside,
        })
    }
}

/// `part` with each bracket expression that holds a POSIX class, an
/// equivalence class or a collating symbol (`[[:alpha:]]`, `[[=e=]]`,
/// `[[.a.]]`), which the glob library does not read, as `?`.
fn without_classes(part: &str) -> String {
    let mut out = String::new();
    let mut rest = part;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let inner = ["[:", "[=", "[."].iter().any(|p| after[1..].starts_with(p));
        let close = [":]]", "=]]", ".]]"]
            .iter()
            .filter_map(|c| after.find(c))
            .min();
        match close {
            Some(end) if inner => {
                // The expression may go on past the class (`[[:alpha:]x]`).
                let tail = &after[end + 2..];
                out.push('?');
                rest = tail.find(']').map_or(tail, |i| &tail[i + 1..]);
            }
            _ => {
                out.push('[');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `pattern` with `./` and `a/..` taken out; what stays unknown in front
/// (`..`, `~…`, a folder that is all wildcards) is any folder (`**`).
fn resolved(pattern: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in pattern.split('/') {
        match part {
            "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let unknown = |p: &str| p == ".." || p.starts_with('~') || p.chars().all(|c| c == '*');
    let lead = parts.iter().take_while(|p| unknown(p)).count();
    if lead == 0 || lead == parts.len() {
        return parts.join("/");
    }
    std::iter::once("**")
        .chain(parts[lead..].iter().copied())
        .collect::<Vec<_>>()
        .join("/")
}

/// The secret env files under a folder, found once a check and only when
/// a glob asks: `node_modules` only when a glob matches dot files (with
/// `dotglob`, `cat node_modules/p/*` reads its `.env` files).
pub(crate) struct SecretFiles<'a> {
    cwd: &'a Path,
    /// Found outside `node_modules`, and inside it: (path from `cwd`, name).
    found: [Option<Vec<(PathBuf, String)>>; 2],
}

impl<'a> SecretFiles<'a> {
    pub(crate) fn in_folder(cwd: &'a Path) -> Self {
        SecretFiles {
            cwd,
            found: [None, None],
        }
    }

    /// A secret file `glob` would match, `how` bash would expand it. Like
    /// bash, a leading `.` must be matched explicitly, unless
    /// `how.dotfiles` or a group may give it.
    pub(crate) fn matching(&mut self, glob: &Glob, how: Matching) -> Option<String> {
        let pattern = glob.pattern.as_str();
        if pattern.len() > MAX_GLOB {
            return Some(format!("{:.40}… (a glob too long to check)", pattern));
        }
        let dotfiles = how.dotfiles || glob.dot_inside;
        let name_glob = pattern.rsplit('/').next().unwrap_or(pattern);
        let matcher = |pattern: &str| {
            globset::GlobBuilder::new(pattern)
                .literal_separator(true)
                .case_insensitive(how.nocase)
                .build()
                .map(|g| g.compile_matcher())
        };
        // What the library cannot read (`[]`), bash takes as text.
        let (whole, name_only) = (matcher(pattern).ok()?, matcher(name_glob).ok()?);
        let cwd = self.cwd;
        let found = self.found[usize::from(dotfiles)].get_or_insert_with(|| walk(cwd, dotfiles));
        found.iter().find_map(|(rel, name)| {
            if name.starts_with('.') && !name_glob.starts_with('.') && !dotfiles {
                return None;
            }
            let top = rel.components().count() == 1;
            let hit = match dotfiles || !pattern.contains('/') {
                true => name_only.is_match(name) && (dotfiles || how.any_depth || top),
                false => whole.is_match(rel),
            };
            hit.then(|| name.clone())
        })
    }
}

/// The secret env files below `cwd` ([`DEPTH`] down; in `node_modules`
/// too when `node_modules`): (path from `cwd`, name).
fn walk(cwd: &Path, node_modules: bool) -> Vec<(PathBuf, String)> {
    let walker = ignore::WalkBuilder::new(cwd)
        .standard_filters(false)
        .max_depth(Some(DEPTH))
        .filter_entry(move |e| {
            e.file_name() != ".git" && (node_modules || e.file_name() != "node_modules")
        })
        .build();
    (walker.flatten())
        .map(|e| (e.file_name().to_string_lossy().to_string(), e))
        .filter(|(name, _)| is_secret_env_name(name))
        .map(|(name, e)| (e.path().strip_prefix(cwd).unwrap_or(e.path()).into(), name))
        .collect()
}
