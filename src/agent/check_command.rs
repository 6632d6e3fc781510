//! `--check auto`: the command that runs the project's tests, taken from
//! the prompt when it says how ("run them with: …", "so that `pytest
//! tests/test_x.py` passes"), or else from the project's own files
//! (`Cargo.toml`, `go.mod`, `package.json`'s test script, Python tests,
//! a Makefile's `test` target).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// A command `--check auto` chose, and where it came from, for the note
/// that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chosen {
    pub command: String,
    /// e.g. "the prompt", "`Cargo.toml`".
    pub source: String,
}

/// Programs that run tests, as the first word of a command (after `env`
/// assignments): a command in the prompt counts only when it starts with
/// one of these.
const RUNNERS: [&str; 24] = [
    "pytest",
    "py.test",
    "tox",
    "nox",
    "cargo",
    "go",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "bun",
    "node",
    "jest",
    "vitest",
    "mocha",
    "make",
    "just",
    "mvn",
    "gradle",
    "./gradlew",
    "rspec",
    "bundle",
    "dotnet",
    "ctest",
];

/// Commands in backticks, and what follows "with:" / "run:" to the end of
/// its line.
static CANDIDATES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"`([^`\n]+)`",
        r"(?im)\b(?:with|using|run|command)\s*:\s*([^\n`]+?)\s*$",
    ]
    .iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

/// The test command for a run in `root` with `prompt`, or `None` when
/// neither says how the tests run.
pub(crate) fn choose(prompt: &str, root: &Path) -> Option<Chosen> {
    from_prompt(prompt)
        .map(|command| Chosen {
            command,
            source: "the prompt".to_string(),
        })
        .or_else(|| from_project(root))
}

/// A test command the prompt gives.
fn from_prompt(prompt: &str) -> Option<String> {
    let mut found: Vec<(usize, String)> = CANDIDATES
        .iter()
        .flat_map(|re| re.captures_iter(prompt))
        .filter_map(|caps| {
            let m = caps.get(1)?;
            let text = m.as_str().trim().trim_end_matches(['.', ',', ';']).trim();
            is_test_command(text).then(|| (m.start(), text.to_string()))
        })
        .collect();
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().next().map(|(_, c)| c)
}

/// Whether `text` reads as a command that runs tests.
fn is_test_command(text: &str) -> bool {
    let Some(words) = shlex::split(text) else {
        return false;
    };
    let mut words = words
        .iter()
        .map(String::as_str)
        .skip_while(|w| w.contains('=') && !w.starts_with('-'));
    let Some(first) = words.next() else {
        return false;
    };
    let rest: Vec<&str> = words.collect();
    let program = first.rsplit('/').next().unwrap_or(first);
    if program.starts_with("python") {
        return matches!(rest.as_slice(), ["-m", "pytest" | "unittest" | "tox", ..])
            || rest.first().is_some_and(|f| f.contains("test"));
    }
    if matches!(program, "bash" | "sh") || first.starts_with("./") {
        return text.contains("test");
    }
    RUNNERS.contains(&first) || RUNNERS.contains(&program)
}

/// The test command the project's files imply.
fn from_project(root: &Path) -> Option<Chosen> {
    let has = |name: &str| root.join(name).exists();
    let chosen = |command: &str, source: &str| {
        Some(Chosen {
            command: command.to_string(),
            source: format!("`{source}`"),
        })
    };
    if has("Cargo.toml") {
        return chosen("cargo test", "Cargo.toml");
    }
    if has("go.mod") {
        return chosen("go test ./...", "go.mod");
    }
    if let Some(script) = npm_test_script(root) {
        return Some(Chosen {
            command: "npm test".to_string(),
            source: format!("`package.json` (test: `{script}`)"),
        });
    }
    if let Some(chosen) = python_tests(root) {
        return Some(chosen);
    }
    let makefile = crate::fsutil::read_to_string(root.join("Makefile")).unwrap_or_default();
    if makefile.lines().any(|l| l.starts_with("test:")) {
        return chosen("make test", "Makefile");
    }
    None
}

/// `scripts.test` of `package.json`, unless it is npm's placeholder.
fn npm_test_script(root: &Path) -> Option<String> {
    let text = crate::fsutil::read_to_string(root.join("package.json")).ok()?;
    let package: serde_json::Value = serde_json::from_str(&text).ok()?;
    let script = package["scripts"]["test"].as_str()?;
    (!script.contains("no test specified")).then(|| script.to_string())
}

/// pytest when the project is set up for it and it is installed, else
/// unittest's discovery where the tests are.
fn python_tests(root: &Path) -> Option<Chosen> {
    let tests_dir = ["tests", "test"]
        .into_iter()
        .find(|d| root.join(d).is_dir());
    let root_tests = std::fs::read_dir(root).ok()?.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
    });
    let python_project = ["pyproject.toml", "setup.py", "setup.cfg"]
        .iter()
        .any(|f| root.join(f).exists());
    if tests_dir.is_none() && !root_tests {
        // Tests inside the package (`toolz/tests/`): unittest's discovery
        // from the top finds them through the packages' `__init__.py`.
        return package_tests(root).then(|| Chosen {
            command: "python3 -m unittest".to_string(),
            source: "the package's Python tests".to_string(),
        });
    }
    if tests_dir.is_some() && !root_tests && !python_project && !has_python(root, tests_dir) {
        return None;
    }
    if wants_pytest(root) && pytest_installed() {
        return Some(Chosen {
            command: "python3 -m pytest -q".to_string(),
            source: "the project's pytest configuration".to_string(),
        });
    }
    let command = match tests_dir {
        Some(dir) if !root_tests && root.join(dir).join("__init__.py").exists() => {
            format!("python3 -m unittest discover -s {dir} -t .")
        }
        Some(dir) if !root_tests => format!("python3 -m unittest discover -s {dir}"),
        _ => "python3 -m unittest discover".to_string(),
    };
    Some(Chosen {
        command,
        source: "the project's Python tests".to_string(),
    })
}

/// Whether a package at the top of `root` holds a test package with
/// Python tests (`pkg/__init__.py`, `pkg/tests/__init__.py`,
/// `pkg/tests/test_x.py`).
fn package_tests(root: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(root) else {
        return false;
    };
    entries.flatten().any(|package| {
        let package = package.path();
        package.join("__init__.py").is_file()
            && ["tests", "test"].iter().any(|d| {
                let dir = package.join(d);
                dir.join("__init__.py").is_file() && has_test_module(&dir)
            })
    })
}

/// Whether `dir` holds a `test_*.py` or `*_test.py` file.
fn has_test_module(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
        })
    })
}

/// Whether the tests folder holds Python files.
fn has_python(root: &Path, dir: Option<&str>) -> bool {
    dir.and_then(|d| std::fs::read_dir(root.join(d)).ok())
        .is_some_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".py"))
        })
}

/// A pytest configuration: `conftest.py`, `pytest.ini`, or a pytest section
/// in `pyproject.toml`, `setup.cfg` or `tox.ini`.
fn wants_pytest(root: &Path) -> bool {
    let read = |name: &str| crate::fsutil::read_to_string(root.join(name)).unwrap_or_default();
    root.join("conftest.py").exists()
        || root.join("pytest.ini").exists()
        || read("pyproject.toml").contains("[tool.pytest")
        || read("setup.cfg").contains("[tool:pytest]")
        || read("tox.ini").contains("[pytest]")
}

/// Whether pytest can be imported, asked without importing anything from
/// the workspace: `-I` keeps the working folder and `PYTHON*` variables off
/// the module path, pytest is found, not run, and the probe runs from `/`
/// (a `pytest.py` the model wrote must not run outside the sandbox).
fn pytest_installed() -> bool {
    let probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('pytest') is None)";
    std::process::Command::new("python3")
        .args(["-I", "-c", probe])
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_prompt_says_how_the_tests_run() {
        let none = tempfile::tempdir().unwrap();
        let cases = [
            (
                "Fix the parser. Run them with: python3 -m unittest discover -s tests",
                "python3 -m unittest discover -s tests",
            ),
            (
                "Make the change so that `pytest tests/test_x.py` passes.",
                "pytest tests/test_x.py",
            ),
            ("`cargo test parse::` fails; fix it", "cargo test parse::"),
            ("npm test is red. Command: npm test.", "npm test"),
        ];
        for (prompt, want) in cases {
            let got = choose(prompt, none.path()).map(|c| c.command);
            assert_eq!(got.as_deref(), Some(want), "{prompt}");
        }
        // Code in backticks that does not run tests is not a check.
        assert_eq!(
            choose("Rename `get_usr` to `get_user` with: sed", none.path()),
            None
        );
    }

    #[test]
    fn the_project_says_how_the_tests_run() {
        let dir = tempfile::tempdir().unwrap();
        let write = |p: &str, t: &str| {
            let full = dir.path().join(p);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, t).unwrap();
        };
        let chosen = || choose("fix it", dir.path()).map(|c| c.command);
        assert_eq!(chosen(), None);
        // Tests inside the package are found from the top.
        write("pkg/__init__.py", "");
        write("pkg/tests/__init__.py", "");
        assert_eq!(chosen(), None, "a test package with no tests");
        write("pkg/tests/test_core.py", "import unittest\n");
        assert_eq!(chosen().as_deref(), Some("python3 -m unittest"));
        write("tests/test_a.py", "import unittest\n");
        write("pkg/a.py", "x = 1\n");
        assert_eq!(
            chosen().as_deref(),
            Some("python3 -m unittest discover -s tests")
        );
        write("tests/__init__.py", "");
        assert_eq!(
            chosen().as_deref(),
            Some("python3 -m unittest discover -s tests -t .")
        );
        write(
            "package.json",
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
        );
        assert_eq!(
            chosen().as_deref(),
            Some("python3 -m unittest discover -s tests -t .")
        );
        write("package.json", r#"{"scripts": {"test": "node --test"}}"#);
        let npm = choose("fix it", dir.path()).unwrap();
        assert_eq!(npm.command, "npm test");
        assert!(npm.source.contains("node --test"), "{}", npm.source);
        write("go.mod", "module m\n");
        assert_eq!(chosen().as_deref(), Some("go test ./..."));
        write("Cargo.toml", "[package]\n");
        assert_eq!(chosen().as_deref(), Some("cargo test"));
    }
}
