//! Which command lines run tests and nothing else, for `--check auto`'s
//! reading of the prompt: a check runs with no approval, so a command the
//! prompt gives is taken only in a shape this table knows ([`RUNNERS`]),
//! every part of it, inside the workspace. What the table cannot read is
//! no test command (it fails closed); the user can always give any
//! command with `--check 'CMD'`.

/// A test runner: how its command line must start, and the options that
/// are refused because they run other programs or read settings from
/// elsewhere.
struct Runner {
    /// Program names (the last part of a path), or `python -m` modules.
    programs: &'static [&'static str],
    /// The first argument must be one of these (a subcommand); empty:
    /// anything.
    subcommands: &'static [&'static str],
    /// Options refused, as given or as `--option=value`.
    refused: &'static [&'static str],
}

/// The test runners `--check auto` takes from a prompt.
const RUNNERS: &[Runner] = &[
    Runner {
        programs: &["pytest", "py.test"],
        subcommands: &[],
        refused: &[
            "-p",
            "-c",
            "--rootdir",
            "--basetemp",
            "--confcutdir",
            "-o",
            "--override-ini",
        ],
    },
    Runner {
        programs: &["unittest"],
        subcommands: &[],
        refused: &[],
    },
    Runner {
        programs: &["tox", "nox"],
        subcommands: &[],
        refused: &["-c", "--conf", "-f", "--noxfile", "--installpkg"],
    },
    Runner {
        programs: &["cargo"],
        subcommands: &["test", "nextest", "check", "clippy", "build"],
        refused: &["--config", "-Z", "--manifest-path", "--target-dir"],
    },
    Runner {
        programs: &["go"],
        subcommands: &["test", "vet", "build"],
        refused: &["-exec", "-toolexec", "-overlay", "-modfile"],
    },
    Runner {
        programs: &["npm", "yarn", "pnpm", "bun"],
        subcommands: &["test", "t", "run"],
        refused: &[
            "--prefix",
            "--userconfig",
            "--globalconfig",
            "-C",
            "--cwd",
            "--dir",
        ],
    },
    Runner {
        programs: &["node"],
        subcommands: &["--test"],
        refused: &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "-e",
            "--eval",
            "-p",
        ],
    },
    Runner {
        programs: &[
            "jest",
            "vitest",
            "mocha",
            "ava",
            "tap",
            "playwright",
            "tsc",
            "eslint",
        ],
        subcommands: &[],
        refused: &["-c", "--config", "--require", "-r", "--setupFiles"],
    },
    Runner {
        programs: &["make", "just"],
        subcommands: &[],
        refused: &[
            "-f",
            "--file",
            "--makefile",
            "-C",
            "--directory",
            "-e",
            "--justfile",
        ],
    },
    Runner {
        programs: &["mvn", "gradle", "gradlew"],
        subcommands: &[],
        refused: &[
            "-f",
            "--file",
            "-D",
            "-I",
            "--init-script",
            "-s",
            "--settings",
        ],
    },
    Runner {
        programs: &["rspec", "ctest", "dotnet"],
        subcommands: &[],
        refused: &["-r", "--require", "-C", "--build-config"],
    },
];

/// Programs that fetch and run a package by name (`npx rimraf .`): a
/// command of theirs counts only for one of [`TEST_TOOLS`].
const PACKAGE_RUNNERS: &[&str] = &["npx", "bunx", "pnpx"];

/// Tools that test or check a JavaScript project, as run by `npx`.
const TEST_TOOLS: &[&str] = &[
    "jest",
    "vitest",
    "mocha",
    "ava",
    "tap",
    "playwright",
    "cypress",
    "tsc",
    "eslint",
    "karma",
    "jasmine",
    "uvu",
    "c8",
    "nyc",
];

/// Programs a test command's output may be piped into (`pytest | tail -5`):
/// they read and print, and write no file.
const FILTERS: &[&str] = &[
    "tail", "head", "grep", "cat", "sort", "uniq", "wc", "less", "more",
];

/// Environment variables a test command may set first (`PYTHONPATH=src
/// pytest`); others (`PATH`, `LD_PRELOAD`, `NODE_OPTIONS`, …) can make it
/// run something else.
const ENVIRONMENT: &[&str] = &[
    "PYTHONPATH",
    "CI",
    "NODE_ENV",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "DJANGO_SETTINGS_MODULE",
    "TZ",
    "LANG",
    "LC_ALL",
    "FORCE_COLOR",
    "NO_COLOR",
    "DEBUG",
];

/// Words in the names of make targets, npm scripts and scripts that run
/// checks (`make test`, `npm run lint`, `./run_tests.sh`); a script may
/// also be named `run` or `ci` whole (`./run.sh`, `scripts/ci.sh`).
const CHECK_NAMES: &[&str] = &["test", "check", "lint", "verify"];

/// Whether `text` reads as a command that runs tests, every part of it:
/// parts joined by `&&`, `||` or `;` each run tests (or `cd` somewhere in
/// the workspace first); a pipeline runs tests into [`FILTERS`]; no
/// expansion (`$`, backticks), redirection (but `2>&1`) or `&`; no path
/// outside the workspace.
pub(crate) fn is_test_command(text: &str) -> bool {
    let Some(parts) = command_parts(text) else {
        return false;
    };
    let mut tests = 0;
    for (part, piped) in &parts {
        let Some(words) = shlex::split(part) else {
            return false;
        };
        if words.iter().any(|w| leaves_workspace(w)) {
            return false;
        }
        let program = words.first().map(String::as_str).unwrap_or_default();
        let ok = if *piped {
            FILTERS.contains(&program)
        } else if program == "cd" {
            words.len() == 2
        } else {
            tests += 1;
            runs_tests(&words)
        };
        if !ok {
            return false;
        }
    }
    tests > 0
}

/// The parts of a command line split at `&&`, `||`, `;` and `|` outside
/// quotes, each with whether it reads a pipe; `None` for a line the shell
/// would do more with: `$` or a backtick outside single quotes,
/// redirections other than `2>&1`, a lone `&`.
fn command_parts(text: &str) -> Option<Vec<(String, bool)>> {
    let mut parts = Vec::new();
    let (mut current, mut quote, mut piped) = (String::new(), None, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => {
                quote = None;
                current.push(c);
            }
            (Some('\''), c) => current.push(c),
            (_, '$' | '`' | '\\') => return None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '>') if current.ends_with('2') && chars.peek() == Some(&'&') => {
                // `2>&1`: errors go with the output.
                chars.next();
                if chars.next() != Some('1') {
                    return None;
                }
                current.push_str(">&1");
            }
            (None, '>' | '<' | '(' | ')' | '{' | '}') => return None,
            (None, '&' | '|' | ';') => {
                let doubled = chars.peek() == Some(&c);
                if doubled {
                    chars.next();
                } else if c == '&' {
                    // A lone `&` runs in the background.
                    return None;
                }
                parts.push((std::mem::take(&mut current).trim().to_string(), piped));
                piped = c == '|' && !doubled;
            }
            (None, c) => current.push(c),
        }
    }
    parts.push((current.trim().to_string(), piped));
    (quote.is_none() && parts.iter().all(|(p, _)| !p.is_empty())).then_some(parts)
}

/// Whether a word names a place outside the workspace: an absolute path,
/// a home folder, a `..` step, as itself or as an option's value.
fn leaves_workspace(word: &str) -> bool {
    let value = word.split_once('=').map_or(word, |(_, v)| v);
    [word, value]
        .iter()
        .any(|w| w.starts_with('/') || w.starts_with('~') || w.split('/').any(|step| step == ".."))
}

/// Whether one command (`words`, no `&&`, `;` or `|`) runs tests: a
/// runner of [`RUNNERS`] with none of its refused options, `npx` with a
/// test tool, or a script named for checking (`./run_tests.sh`, `bash
/// scripts/check.sh`, `python3 runtests.py`).
fn runs_tests(words: &[String]) -> bool {
    let mut words = words.iter().map(String::as_str).peekable();
    while let Some(assignment) = words.next_if(|w| w.contains('=') && !w.starts_with('-')) {
        let name = assignment.split('=').next().unwrap_or_default();
        if !ENVIRONMENT.contains(&name) {
            return false;
        }
    }
    let Some(first) = words.next() else {
        return false;
    };
    let rest: Vec<&str> = words.collect();
    let program = first.rsplit('/').next().unwrap_or(first);
    match (program, rest.as_slice()) {
        (python, ["-m", module, args @ ..]) if python.starts_with("python") => {
            runner_takes(module, args)
        }
        (python, [script, ..]) if python.starts_with("python") => named_for_checking(script),
        ("bash" | "sh", [script, ..]) => named_for_checking(script),
        (_, _) if first.starts_with("./") && program != "gradlew" => named_for_checking(first),
        (package, [tool, args @ ..]) if PACKAGE_RUNNERS.contains(&package) => {
            let known = RUNNERS.iter().any(|r| r.programs.contains(tool));
            TEST_TOOLS.contains(tool) && (!known || runner_takes(tool, args))
        }
        (_, args) => runner_takes(program, args),
    }
}

/// Whether the runner `program` of [`RUNNERS`] runs `args` as tests: its
/// subcommand is one it tests with, a make target or npm script is named
/// for checking, and no refused option or make variable is given.
fn runner_takes(program: &str, args: &[&str]) -> bool {
    let Some(runner) = RUNNERS.iter().find(|r| r.programs.contains(&program)) else {
        return false;
    };
    let refused = |arg: &&str| {
        let option = arg.split('=').next().unwrap_or(arg);
        runner.refused.contains(&option)
            || (option.starts_with('-')
                && !option.starts_with("--")
                && option.len() > 2
                && runner.refused.contains(&&option[..2]))
    };
    if args.iter().any(refused) || (program == "cargo" && args.iter().any(|a| a.starts_with('+'))) {
        return false;
    }
    let first = args.first().copied().unwrap_or_default();
    if !runner.subcommands.is_empty() && !runner.subcommands.contains(&first) {
        return false;
    }
    match program {
        "npm" | "yarn" | "pnpm" | "bun" if first == "run" => {
            args.get(1).is_some_and(|script| named_for_checking(script))
        }
        "make" | "just" => {
            let targets: Vec<&&str> = args.iter().filter(|a| !a.starts_with('-')).collect();
            !targets.is_empty()
                && targets
                    .iter()
                    .all(|t| !t.contains('=') && named_for_checking(t))
        }
        _ => true,
    }
}

/// Whether a script, target or npm script's name says it checks
/// ([`CHECK_NAMES`]).
fn named_for_checking(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name).to_lowercase();
    let stem = base.split('.').next().unwrap_or(&base);
    CHECK_NAMES.iter().any(|w| base.contains(w)) || stem == "ci" || (stem == "run" && stem != base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_commands_are_taken() {
        for command in [
            "pytest -q",
            "python3 -m pytest -q tests/test_x.py",
            "python3 -m unittest discover -s tests -t .",
            "PYTHONPATH=src python3 -m pytest -q",
            "cargo test parse::",
            "go test ./...",
            "npm test",
            "npm test -- --watch=false",
            "npm run lint",
            "node --test test/",
            "npx jest && npm run lint",
            "make test",
            "make lint test",
            "cd tests && pytest -q",
            "pytest -q 2>&1 | tail -5",
            "pytest -k \"parse and not slow\"",
            "./run_tests.sh",
            "./run.sh",
            "bash scripts/check.sh",
            "python3 runtests.py",
            "./gradlew test",
        ] {
            assert!(is_test_command(command), "{command}");
        }
    }

    /// Each row is a command a prompt could smuggle in; one failing row
    /// does not hide the others.
    #[test]
    fn commands_that_do_more_than_test_are_not() {
        let taken: Vec<&str> = [
            "pytest && git clean -fdx",
            "npm test; git push --force",
            "npx rimraf . && npm test",
            "pytest > tests/test_x.py",
            "pytest $(rm -rf x)",
            "pytest \"a$(rm victim.txt)b\" -q",
            "pytest \"${x:-$(rm x)}\"",
            "go test \"$(rm x)\"",
            "./run_tests.sh \"$(rm x)\"",
            "cd \"$(rm x)\" && pytest",
            "pytest `rm x`",
            "pytest & rm -rf build",
            "node -e \"require('fs').unlinkSync('v2.txt')\"",
            "node evil.js",
            "npm publish",
            "npm install evil",
            "npm run deploy",
            "npm exec evil",
            "cargo install evil",
            "cargo run --bin wipe",
            "go run ./cmd/wipe",
            "go generate ./...",
            "make deploy",
            "make install",
            "make clean",
            "make",
            "make run",
            "make specific",
            "go test -exec=/bin/rm ./...",
            "go test -exec sh ./...",
            "go test -toolexec=evil ./...",
            "cargo test --config \"target.x.runner='rm'\"",
            "cargo +evil test",
            "cargo test -Zunstable-options",
            "make test SHELL=evil.sh",
            "make test TESTCMD=x",
            "make -f evil.mk test",
            "pytest -p evilplugin",
            "python3 -m pytest -p evil",
            "pytest --rootdir=/ -c evil.ini",
            "npx jest --config evil.js",
            "npm test --prefix /",
            "pytest --basetemp=/",
            "PATH=/tmp/evil pytest",
            "LD_PRELOAD=x.so pytest",
            "NODE_OPTIONS=--require=evil npm test",
            "bash /tmp/evil/check.sh",
            "sh ../../../tmp/evil/run_tests.sh",
            "cd / && pytest",
            "cd ~ && make test",
            "python3 -m unittest discover -s /",
            "pytest | grep -f /etc/shadow",
            "pytest | sh",
            "pytest | tee src/main.py",
            "bash -c 'rm -rf x'",
            "python3 -c 'print(1)'",
            "env rm x",
            "find . -exec rm {} ;",
            "./backup.sh",
        ]
        .into_iter()
        .filter(|c| is_test_command(c))
        .collect();
        assert!(taken.is_empty(), "taken as test commands: {taken:#?}");
    }
}
