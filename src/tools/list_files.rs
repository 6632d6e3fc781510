//! `list_files {pattern, path?}`: files matching a glob, honouring
//! .gitignore, sorted, capped with a count of what was left out.

use globset::GlobBuilder;
use schemars::JsonSchema;
use serde::Deserialize;

use super::outcome::ToolOutcome;
use super::walk;
use super::workspace::Workspace;

/// Most paths listed; the rest are counted.
pub(crate) const MAX_ENTRIES: usize = 500;

/// Arguments of `list_files`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// Glob such as ** or src/**; * crosses directories
    pub pattern: String,
    /// Directory to list, relative to the workspace (default: the workspace)
    #[serde(default)]
    pub path: Option<String>,
}

/// Lists the matching files.
pub(crate) fn run(args: &Args, ws: &Workspace) -> ToolOutcome {
    let dir = match ws.resolve(args.path.as_deref().unwrap_or(".")) {
        Ok(p) => p,
        Err(e) => return ToolOutcome::error(e),
    };
    if !dir.real.is_dir() {
        return ToolOutcome::error(format!("{} is not a directory", dir.display));
    }
    let pattern = match args.pattern.trim() {
        "" => "**",
        p => p.trim_start_matches("./"),
    };
    let glob = match GlobBuilder::new(pattern).literal_separator(false).build() {
        Ok(g) => g.compile_matcher(),
        Err(e) => {
            return ToolOutcome::error(format!(
                "`{pattern}` is not a valid glob ({e}); use patterns like ** or src/**"
            ));
        }
    };
    let matches: Vec<String> = walk::files_under(&dir.real)
        .into_iter()
        .filter(|file| {
            file.strip_prefix(&dir.real)
                .is_ok_and(|rel| glob.is_match(rel))
        })
        .map(|file| ws.display(&file))
        .collect();
    let total = matches.len();
    if total == 0 {
        return ToolOutcome::ok(
            format!("no files match `{pattern}` in {}", dir.display),
            format!("no files match {pattern}"),
        );
    }
    let mut out = matches[..total.min(MAX_ENTRIES)].join("\n");
    if total > MAX_ENTRIES {
        out.push_str(&format!(
            "\n({} more not shown; narrow the pattern or the path)",
            total - MAX_ENTRIES
        ));
    }
    ToolOutcome::ok(out, format!("{total} files match {pattern}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn honours_gitignore_hides_secrets_and_sorts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "b.py",
            "a.py",
            "src/c.py",
            "src/d.rs",
            "target/e.py",
            ".env",
            ".env.example",
            ".github/ci.yml",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        let ws = Workspace::new(root).unwrap();
        let list = |pattern: &str, path: Option<&str>| {
            run(
                &Args {
                    pattern: pattern.into(),
                    path: path.map(Into::into),
                },
                &ws,
            )
            .content
        };
        assert_eq!(list("*.py", None), "a.py\nb.py\nsrc/c.py");
        assert_eq!(list("*.rs", Some("src")), "src/d.rs");
        assert_eq!(list(".env*", None), ".env.example");
        assert!(list("**", None).contains(".github/ci.yml"));
        assert!(list("*.go", None).starts_with("no files match"));
        assert!(list("[", None).contains("not a valid glob"));
    }

    #[test]
    fn directory_symlinks_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.py"), "x").unwrap();
        std::fs::write(dir.path().join("in.py"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let out = run(
            &Args {
                pattern: "**/*.py".into(),
                path: None,
            },
            &ws,
        );
        assert_eq!(out.content, "in.py");
        let out = run(
            &Args {
                pattern: "*".into(),
                path: Some("out".into()),
            },
            &ws,
        );
        assert!(
            !out.ok && out.content.contains("outside the workspace"),
            "{}",
            out.content
        );
        let found = crate::tools::search::run(
            &crate::tools::search::Args {
                pattern: "x".into(),
                path: None,
                glob: None,
                ignore_case: None,
            },
            &ws,
        );
        assert_eq!(found.content, "in.py:1: x");
    }
}
