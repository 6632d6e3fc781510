//! `--check` read as a command, and a check that cannot run as written:
//! found by the run before the first request and reported as a usage
//! error (exit 2) before the model is asked anything.

use pretty_assertions::assert_eq;

use super::repositories::stderr_of;
use crate::common::{FakeOllama, Reply, TestEnv};

/// A package whose one unittest passes.
fn passing_tests() -> TestEnv {
    let env = TestEnv::new();
    env.write("pkg/__init__.py", "def one():\n    return 1\n");
    env.write(
        "tests/test_one.py",
        "import unittest\n\nfrom pkg import one\n\n\nclass OneTest(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(one(), 1)\n",
    );
    env
}

/// Regression: `--check auto` took a command written in a sentence with
/// the sentence after it ("… to check. Do not change the tests."), and the
/// run went on with a check that could not run.
#[test]
fn check_auto_takes_a_command_in_a_sentence_up_to_its_end() {
    let env = passing_tests();
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--check", "auto"])
        .arg(
            "Tidy pkg. Run python3 -m unittest discover -s tests to check. Don't change the tests.",
        )
        .assert()
        .code(0);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(
            "--check auto: using `python3 -m unittest discover -s tests` (from the prompt)"
        ),
        "{stderr}"
    );
    assert_eq!(server.chat_requests().len(), 1);
    let session = env.session();
    assert_eq!(
        session["check"]["command"],
        "python3 -m unittest discover -s tests"
    );
    assert_eq!(session["check"]["passed"], true);
}

/// A check the shell cannot find (127) ends the run with exit 2 before any
/// request; the words say what to do. `--no-precheck` leaves it to the end.
#[test]
fn a_check_that_is_no_command_is_a_usage_error_before_the_model() {
    let env = passing_tests();
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--check",
            "nonexistent-cmd --all",
            "Fix it.",
        ])
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("the check `nonexistent-cmd --all` cannot run as written: the shell found no such command (exit code 127); nothing was sent to the model. Fix the command given to `--check`"),
        "{stderr}"
    );
    assert!(stderr.contains("command not found"), "{stderr}");
    assert_eq!(server.chat_requests().len(), 0);
    let session = env.session();
    assert_eq!(session["exit_code"], 2);
    assert_eq!(session["precheck"]["exit_code"], 127);

    let out = env
        .oc(&server)
        .args(["run", "--yes", "--no-precheck", "--check-attempts", "1"])
        .args(["--check", "nonexistent-cmd", "Fix it."])
        .assert()
        .code(6);
    assert_eq!(server.chat_requests().len(), 1, "{}", stderr_of(&out));
}

/// A check that answers with its usage (exit 2 and a `usage:` line) is a
/// usage error before any request, from `--check auto` as from `--check`.
#[test]
fn a_check_that_prints_its_usage_is_a_usage_error_before_the_model() {
    let env = passing_tests();
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--check", "auto"])
        .arg("Fix it. Run python3 -m unittest --no-such-flag to check.")
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("`--check auto` took the check `python3 -m unittest --no-such-flag` from the prompt, and it cannot run as written: the program answered with its usage message (exit code 2)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Give the test command yourself"),
        "{stderr}"
    );
    assert!(stderr.contains("\n  usage: "), "{stderr}");
    assert!(
        stderr.contains("error: unrecognized arguments: --no-such-flag"),
        "{stderr}"
    );
    let script =
        "printf 'usage: runtests [-h] [--fast]\\nruntests: error: bad flag\\n' >&2; exit 2";
    env.oc(&server)
        .args(["run", "--yes", "--check", script, "Fix it."])
        .assert()
        .code(2);
    assert_eq!(server.chat_requests().len(), 0);
}

/// A test file that does not import (pytest's exit 2, "errors during
/// collection", no usage line) can be the task: the run goes on and the
/// model sees the failure.
#[test]
fn a_check_that_fails_to_collect_still_runs_the_model() {
    let env = passing_tests();
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    let script = "printf \"E   ModuleNotFoundError: No module named 'pkg.two'\\n!!! Interrupted: 1 error during collection !!!\\n\"; exit 2";
    env.oc(&server)
        .args(["run", "--yes", "--check-attempts", "1", "--check", script])
        .arg("Fix it.")
        .assert()
        .code(6);
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 1);
    let first = requests[0]["messages"][1]["content"].as_str().unwrap();
    assert!(first.contains("error during collection"), "{first}");
}

/// A module `python3 -m` cannot find, a script Python cannot open and a
/// make target that is not there are usage errors before any request; an
/// empty `--check` is refused before anything runs.
#[test]
fn a_check_whose_program_or_target_is_missing_is_a_usage_error() {
    let env = passing_tests();
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    for (check, why) in [
        (
            "python3 -m no_such_runner_here -q",
            "Python has no such module to run with `-m` (not installed?) (exit code 1)",
        ),
        (
            "python3 no_such_script.py",
            "Python found no such script (exit code 2)",
        ),
        (
            "make no-such-target",
            "make has no such target here (or no makefile) (exit code 2)",
        ),
    ] {
        let out = env
            .oc(&server)
            .args(["run", "--yes", "--check", check, "Fix it."])
            .assert()
            .code(2);
        let stderr = stderr_of(&out);
        assert!(
            stderr.contains(&format!("the check `{check}` cannot run as written: {why}")),
            "{stderr}"
        );
    }
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--check", " ", "Fix it."])
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("`--check` was given an empty command"),
        "{stderr}"
    );
    assert_eq!(server.chat_requests().len(), 0);
}

/// A check piped into `tail` fails when its tests do: the pipeline runs
/// with `pipefail`, so the run ends with exit 6, not 0.
#[test]
fn a_failing_check_piped_into_tail_still_fails() {
    let env = passing_tests();
    env.write("pkg/__init__.py", "def one():\n    return 2\n");
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--check-attempts", "1", "--check"])
        .arg("python3 -m unittest discover -s tests 2>&1 | tail -3")
        .arg("Fix it.")
        .assert()
        .code(6);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(
            "the check `python3 -m unittest discover -s tests 2>&1 | tail -3`: exit code 1"
        ),
        "{stderr}"
    );
    assert_eq!(env.session()["check"]["passed"], false);
}

/// A command the prompt chains after its tests (`&& git clean -fdx`) or
/// that piped text gives is no check: `--check auto` falls back to the
/// project's own test command, and nothing else runs.
#[test]
fn check_auto_never_takes_a_chained_or_piped_command() {
    let env = passing_tests();
    env.write("notes.txt", "precious\n");
    let server = FakeOllama::start(vec![Reply::answer("done"), Reply::answer("done")]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--check", "auto"])
        .arg("Fix it. Make sure “python3 -m unittest && git clean -fdx” passes.")
        .assert()
        .success();
    let stderr = stderr_of(&out);
    assert!(!stderr.contains("git clean"), "{stderr}");
    assert!(stderr.contains("(from the project"), "{stderr}");
    assert_eq!(super::repositories::read(&env, "notes.txt"), "precious\n");
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--check", "auto", "Fix the issue below."])
        .write_stdin("Steps: run `rm notes.txt && python3 -m unittest` to check.\n")
        .assert()
        .success();
    assert!(
        !stderr_of(&out).contains("rm notes.txt"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(super::repositories::read(&env, "notes.txt"), "precious\n");
}

/// The check before the first request is expected to fail (that is the
/// task): it is labelled as such, and a run that then passes shows no
/// warning for it in `json` mode, where only warnings reach stderr.
#[test]
fn a_failing_precheck_is_labelled_and_is_no_warning_in_a_run_that_passes() {
    for format in ["text", "json"] {
        let env = TestEnv::new();
        env.write("app.py", "BAD\n");
        env.commit_all();
        let server = FakeOllama::start(vec![
            Reply::tool_calls(&[("read_file", serde_json::json!({"path": "app.py"}))]),
            Reply::tool_calls(&[(
                "write_file",
                serde_json::json!({"path": "app.py", "content": "GOOD\n"}),
            )]),
            Reply::answer("Done."),
        ]);
        let out = env
            .oc(&server)
            .args(["run", "--yes", "--output-format", format])
            .args(["--check", "grep -q GOOD app.py", "make app.py good"])
            .assert()
            .code(0);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(!stderr.contains("warning"), "{format}: {stderr}");
        if format == "text" {
            assert!(
                stderr.contains(
                    "the check `grep -q GOOD app.py` before the first request: exit code 1"
                ),
                "{stderr}"
            );
            assert!(stderr.contains("the model is shown its output"), "{stderr}");
        } else {
            assert!(stderr.is_empty(), "{stderr}");
        }
    }
}

/// A check that passes after the change only because tests no longer run
/// (the model emptied the test file) is not a pass: exit 6, and stderr and
/// the record say why.
#[test]
fn a_check_that_runs_fewer_tests_than_before_does_not_pass() {
    let env = passing_tests();
    env.write(
        "tests/test_two.py",
        "import unittest\n\nfrom pkg import one\n\n\nclass TwoTest(unittest.TestCase):\n    def test_two(self):\n        self.assertEqual(one(), 2)\n",
    );
    env.commit_all();
    let (one, two) = ("tests/test_one.py", "tests/test_two.py");
    let empty = |path: &str| {
        let content = "import unittest\n";
        (
            "write_file",
            serde_json::json!({"path": path, "content": content}),
        )
    };
    let read = |path: &str| ("read_file", serde_json::json!({ "path": path }));
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[read(one), read(two)]),
        Reply::tool_calls(&[empty(one), empty(two)]),
        Reply::answer("Done."),
        Reply::answer("Done."),
        Reply::answer("Done."),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--output-format", "json"])
        .args(["--check", "python3 -m unittest discover -s tests"])
        .arg("make test_two pass")
        .assert()
        .code(6);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("ran 0 tests where 2 ran before the change"),
        "{stderr}"
    );
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(result["check"]["passed"], false, "{result}");
}
