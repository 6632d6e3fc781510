//! `--check auto`: the command that runs the project's tests, taken from
//! the prompt when it says how ("run them with: …", "so that `pytest
//! tests/test_x.py` passes"), or else from the project's own files
//! (`Cargo.toml`, `go.mod`, `package.json`'s test script, Python tests,
//! a Makefile's `test` target).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::test_commands::is_test_command;

/// A command `--check auto` chose, and where it came from, for the note
/// that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chosen {
    pub command: String,
    /// e.g. "the prompt", "`Cargo.toml`".
    pub source: String,
}

/// Commands given exactly: in backticks or double quotes (straight or
/// typographic), or as the first line of a fenced block; a shell prompt's
/// `$ ` before them is not part of them.
static EXACT: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"`(?:\$[ \t]+)?([^`\n]+)`",
        r#""(?:\$[ \t]+)?([^"\n]+)""#,
        r"“(?:\$[ \t]+)?([^”\n]+)”",
        r"(?m)^```[\w+-]*[ \t]*\n[ \t]*(?:\$[ \t]+)?([^\n`]+)",
    ]
    .iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

/// Words a command follows in a sentence: "run them with: …", "Run
/// pytest -q to check", "check it using npm test", "make sure go test
/// ./... passes", "Tests: cargo test".
static CUES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:\b(?:with|using|via|command|run|rerun|running|execute|make sure|ensure)\b|\btests?[ \t]*:)[ \t]*:?[ \t]*",
    )
    .ok()
});

/// Words that are prose again after a command in a sentence ("… to
/// check", "… and make it pass", "… until it passes"): no test command
/// takes one as a bare argument.
const PROSE: &[&str] = &[
    "a", "after", "again", "also", "an", "and", "are", "as", "at", "be", "before", "but", "can",
    "could", "fails", "for", "from", "if", "in", "is", "it", "its", "must", "on", "once", "or",
    "passes", "please", "should", "so", "succeeds", "that", "the", "them", "then", "these", "they",
    "this", "those", "to", "until", "was", "we", "when", "where", "which", "while", "will", "with",
    "without", "works", "would", "you",
];

/// The test command for a run in `root` with `prompt` (its instruction,
/// not its piped `<stdin>` block), or `None` when neither says how the
/// tests run.
pub(crate) fn choose(prompt: &str, root: &Path) -> Option<Chosen> {
    // Piped text (an issue, a log) is context, not the user's word: a
    // command in it is not run.
    from_prompt(crate::input::instruction(prompt))
        .map(|command| Chosen {
            command,
            source: "the prompt".to_string(),
        })
        .or_else(|| from_project(root))
}

/// A test command the prompt gives: the first one, exact in backticks or
/// a fence, or read out of a sentence after a cue ([`in_sentence`]).
fn from_prompt(prompt: &str) -> Option<String> {
    let exact = EXACT
        .iter()
        .flat_map(|re| re.captures_iter(prompt))
        .filter_map(|caps| caps.get(1))
        .map(|m| (m.start(), m.as_str().trim()));
    let cued = CUES.iter().flat_map(|re| re.find_iter(prompt)).map(|m| {
        let line = prompt[m.end()..].lines().next().unwrap_or_default();
        (m.end(), in_sentence(line))
    });
    let mut found: Vec<(usize, &str)> = exact
        .chain(cued)
        .filter(|(_, text)| is_test_command(text))
        .collect();
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().next().map(|(_, c)| c.to_string())
}

/// The command a sentence's `text` starts with: quoted whole when it is
/// quoted, else its words up to the end of the sentence (a `.`, `,`, `!`
/// or `?` that closes a word, not the `.` of `-s .`, `./run.sh` or
/// `./...`) or the first word that is prose again ([`PROSE`]). Quotes
/// inside the command keep their words together.
fn in_sentence(text: &str) -> &str {
    let text = text.trim_start();
    if let Some(quote) = text
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`' | '“' | '‘'))
    {
        let close = match quote {
            '“' => '”',
            '‘' => '’',
            other => other,
        };
        let inner = &text[quote.len_utf8()..];
        return inner.find(close).map_or("", |end| inner[..end].trim());
    }
    let mut end = 0;
    for (at, word) in shell_words(text) {
        if end > 0 && is_prose(word) {
            break;
        }
        if let Some(kept) = sentence_end(word) {
            end = at + kept.len();
            break;
        }
        end = at + word.len();
    }
    let command = text[..end].trim_end_matches(';');
    // "(run pytest -q)": the parenthesis closes the prose, not the command.
    if command.ends_with(')') && command.matches(')').count() > command.matches('(').count() {
        return &command[..command.len() - 1];
    }
    command
}

/// The words of a command line with where each starts: split at blanks
/// outside quotes, up to a backtick outside quotes (the prose's, not the
/// shell's).
fn shell_words(text: &str) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut start = None;
    let mut quote = None;
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '`') => {
                if let Some(s) = start.take() {
                    words.push((s, &text[s..at]));
                }
                return words;
            }
            (None, c) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    words.push((s, &text[s..at]));
                }
            }
            (None, c) => {
                start.get_or_insert(at);
                if matches!(c, '"' | '\'') {
                    quote = Some(c);
                }
            }
        }
    }
    if let Some(s) = start {
        words.push((s, &text[s..]));
    }
    words
}

/// `word` without the punctuation that ends its sentence, when it ends
/// one: `.`, `,`, `!` or `?` right after a letter, digit, `_`, quote or
/// parenthesis (`tests/test_x.py.`), never a word of dots (`.`, `./...`).
fn sentence_end(word: &str) -> Option<&str> {
    let kept = word.trim_end_matches(['.', ',', '!', '?']);
    let before = kept.chars().last()?;
    let ends = kept.len() < word.len()
        && (before.is_alphanumeric() || matches!(before, '_' | '"' | '\'' | ')'));
    ends.then_some(kept)
}

/// Whether `word` is prose rather than an argument: one of [`PROSE`], or a
/// dash or parenthesis that opens an aside.
fn is_prose(word: &str) -> bool {
    let lower = word.trim_end_matches(['.', ',', '!', '?']).to_lowercase();
    PROSE.contains(&lower.as_str()) || word.starts_with(['(', '—', '–'])
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
    let root_tests = has_test_module(root);
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
            // A command inside a sentence ends where the sentence does.
            (
                "Fix the bug. Run python3 -m unittest -q to check. Do not change the tests.",
                "python3 -m unittest -q",
            ),
            (
                "Fix the bug. Check with: python3 -m unittest -q to check. Don't change the tests.",
                "python3 -m unittest -q",
            ),
            ("Run pytest tests/test_x.py.", "pytest tests/test_x.py"),
            (
                "Run pytest tests/test_x.py, then tell me what changed.",
                "pytest tests/test_x.py",
            ),
            ("Can you run pytest -q?", "pytest -q"),
            ("Run ./run_tests.sh to check.", "./run_tests.sh"),
            ("Run go test ./... until it passes", "go test ./..."),
            ("Run go test ./...", "go test ./..."),
            (
                "Run python3 -m unittest discover -s . and make it pass.",
                "python3 -m unittest discover -s .",
            ),
            (
                "Run python3 -m unittest discover -s .",
                "python3 -m unittest discover -s .",
            ),
            ("Run the tests with pytest -x -q.", "pytest -x -q"),
            ("Verify using npm test; it should pass", "npm test"),
            ("Fix it (run cargo test parse).", "cargo test parse"),
            ("Fix it (run cargo test).", "cargo test"),
            ("Run make test — it is red", "make test"),
            ("Tests: run make test as well.", "make test"),
            ("Run: make lint; make test", "make lint; make test"),
            // Quotes keep their words, and a quoted command is exact.
            (
                "Run pytest -k \"parse and not slow\" to check.",
                "pytest -k \"parse and not slow\"",
            ),
            (
                "Run 'pytest -q tests/a.py' to check.",
                "pytest -q tests/a.py",
            ),
            (
                "Run \"python3 -m unittest discover -s .\". Then stop.",
                "python3 -m unittest discover -s .",
            ),
            // Backticks are exact, a final `.` included.
            (
                "Check with `python3 -m unittest discover -s .` please.",
                "python3 -m unittest discover -s .",
            ),
            (
                "Running `npm test -- --watch=false` shows the failure.",
                "npm test -- --watch=false",
            ),
            (
                "The tests:\n```sh\n$ python3 -m pytest -q tests\n```\nFix them.",
                "python3 -m pytest -q tests",
            ),
            (
                "Please run PYTHONPATH=src python3 -m pytest -q to see the failure.",
                "PYTHONPATH=src python3 -m pytest -q",
            ),
            // Quotes without a cue, typographic quotes, a shell prompt's `$`.
            ("Fix it so that \"pytest -q\" passes.", "pytest -q"),
            ("Fix it so that “npm test” passes.", "npm test"),
            ("Run ‘cargo test’ to check.", "cargo test"),
            ("Check with `$ go test ./...` please.", "go test ./..."),
            // More cues, and scripts named for checking.
            ("Make sure cargo test passes.", "cargo test"),
            ("Ensure go test ./... succeeds", "go test ./..."),
            ("Tests: python3 -m pytest -q", "python3 -m pytest -q"),
            ("Run ./run.sh to check.", "./run.sh"),
            ("Check with bash scripts/check.sh.", "bash scripts/check.sh"),
            // Chains and pipes of test commands.
            (
                "Run `cd tests && pytest -q` to check.",
                "cd tests && pytest -q",
            ),
            (
                "Run `pytest -q 2>&1 | tail -5` to check.",
                "pytest -q 2>&1 | tail -5",
            ),
            (
                "Run `npx jest && npm run lint` to check.",
                "npx jest && npm run lint",
            ),
        ];
        for (prompt, want) in cases {
            let got = choose(prompt, none.path()).map(|c| c.command);
            assert_eq!(got.as_deref(), Some(want), "{prompt}");
        }
        // Code in backticks that does not run tests is not a check, nor is
        // prose after a cue.
        for prompt in [
            "Rename `get_usr` to `get_user` with: sed",
            "Run the linter with care.",
            "Fix the crash that happens when you run it.",
            // A script the task is about is no check.
            "`./backup.sh` prints the wrong usage; fix it.",
            "Make sure the tests pass.",
            // Every part of a chain runs tests, or it is no test command.
            "Make sure \"python3 -m unittest && git clean -fdx\" passes.",
            "Run `npm test; git push --force` to check.",
            "Run `npx rimraf . && npm test` to check.",
            "Run `make test; truncate -s0 pkg/iters.py` to check.",
            "Run `pytest > tests/test_x.py` to check.",
            "Run `pytest $(rm -rf ~)` to check.",
            "Run `pytest & rm -rf build` to check.",
            "Don't say \"it works\" before it does.",
        ] {
            assert_eq!(choose(prompt, none.path()), None, "{prompt}");
        }
        // A command in piped text (an issue, a log) is not the user's word.
        let piped = crate::input::with_context(
            "Fix the issue below.",
            "Steps: make sure `pytest -q && git clean -fdx` passes. Run pytest -q.",
        );
        assert_eq!(choose(&piped, none.path()), None);
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
