//! The everyday surface as a new user meets it: errors that point to the
//! fix, what CI logs show, project rules from anywhere in the repository.

use serde_json::{Value, json};

use crate::common::{FakeOllama, Reply, TestEnv};

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

/// `oc "fix the tests"` says to use `oc run '…'`; `oc undoo` asks
/// whether `oc undo` was meant.
#[test]
fn a_prompt_without_a_command_points_to_run() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env.oc(&server).arg("fix the tests").assert().code(2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("use `oc run 'fix the tests'`"), "{stderr}");
    assert!(!stderr.contains("did you mean"), "{stderr}");
    // A command misspelt: the one it is close to, and every command.
    let out = env.oc(&server).arg("undoo").assert().code(2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("did you mean `oc undo`?"), "{stderr}");
    assert!(
        stderr.contains(
            "(commands: run, plan, chat, sessions, undo, models, export-ft, completions)"
        ),
        "{stderr}"
    );
}

/// A `--check` the deny rules refuse is a usage error before anything is
/// sent (it cost a whole model run, then exit 6); a check the rules let
/// through runs.
#[test]
fn a_check_the_rules_refuse_is_said_before_the_model_is_asked() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("ok")]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--deny",
            "bash(make*)",
            "--check",
            "make test",
            "fix the tests",
        ])
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("the check `make test` cannot run:"),
        "{stderr}"
    );
    assert!(stderr.contains("change the check, or the rule"), "{stderr}");
    assert!(server.chat_requests().is_empty());
    env.oc(&server)
        .args([
            "run",
            "--deny",
            "bash(make*)",
            "--check",
            "true",
            "fix the tests",
        ])
        .assert()
        .success();
    assert_eq!(server.chat_requests().len(), 1);
}

/// Errors that point to the fix: the default model missing names
/// `OC_MODEL`; a config key that is almost right gets a suggestion; an
/// out-of-range value names its file; an unwritable `OC_HOME` mentions
/// `--no-save`.
#[test]
fn errors_point_to_the_fix() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("ok")]);
    let out = env
        .oc(&server)
        .env_remove("OC_MODEL")
        .args(["run", "x"])
        .assert()
        .code(3);
    assert!(
        stderr_of(&out).contains("`OC_MODEL`"),
        "{}",
        stderr_of(&out)
    );

    env.write(".ollama-code.json", r#"{"modle": "m", "temperature": -2}"#);
    let out = env.oc(&server).args(["run", "x"]).assert().code(2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("unknown key `modle` is ignored; did you mean `model`?"),
        "{stderr}"
    );
    assert!(stderr.contains("config file `"), "{stderr}");
    assert!(
        stderr.contains(".ollama-code.json`: temperature -2 is out of range"),
        "{stderr}"
    );
    std::fs::remove_file(env.work().join(".ollama-code.json")).unwrap();

    let home = env.work().join("not-a-dir");
    std::fs::write(&home, "").unwrap();
    let out = env
        .oc(&server)
        .env("OC_HOME", &home)
        .args(["run", "x"])
        .assert()
        .code(2);
    assert!(stderr_of(&out).contains("OC_HOME"), "{}", stderr_of(&out));
    let blocked = env.work().join("home");
    std::fs::create_dir(&blocked).unwrap();
    std::fs::write(blocked.join("sessions"), "a file where a folder goes").unwrap();
    let out = env
        .oc(&server)
        .env("OC_HOME", &blocked)
        .args(["run", "x"])
        .assert()
        .failure();
    assert!(stderr_of(&out).contains("--no-save"), "{}", stderr_of(&out));
}

/// `--no-save` does not print a session id that `oc sessions show` cannot
/// find, and the JSON result says `saved: false`.
#[test]
fn no_save_says_nothing_was_saved() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("ok"), Reply::answer("ok")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "--no-save", "x"])
        .assert()
        .success();
    assert!(
        stderr_of(&out).contains("not saved (--no-save)"),
        "{}",
        stderr_of(&out)
    );
    let out = env
        .oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--no-save",
            "--output-format",
            "json",
            "x",
        ])
        .assert()
        .success();
    let result: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(result["saved"], false);
}

/// What a CI log shows: `--verbose` prints tool output; an error is shown
/// whole, not cut to its first line; `tool.result` events carry the result.
#[test]
fn ci_logs_show_tool_output_and_whole_errors() {
    let env = TestEnv::new();
    env.write("a.py", "x = 1\ny = 2\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("bash", json!({"command": "echo one; echo two"}))]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "a.py", "old_string": "z = 3", "new_string": "z = 4"}),
        )]),
        Reply::answer("Done."),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--verbose", "go"])
        .assert()
        .code(4); // an echo and a failed edit change nothing: `unchanged`
    let stderr = stderr_of(&out);
    assert!(stderr.contains("one\n    two"), "{stderr}");
    assert!(stderr.contains("closest: lines"), "{stderr}");
    assert!(
        stderr.contains("x = 1"),
        "the error shows the closest lines: {stderr}"
    );

    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("bash", json!({"command": "echo hello"}))]),
        Reply::answer("Done."),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--output-format", "stream-json", "go"])
        .assert()
        .code(4); // an echo changes nothing: `unchanged`
    let result = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "tool.result")
        .unwrap();
    assert!(
        result["content"].as_str().unwrap().contains("hello"),
        "{result}"
    );
}

/// Regression: a `deny` rule in the repository's `.ollama-code.json` did
/// not apply when `oc` ran in a subdirectory. The nearest project config
/// up to the repository root applies.
#[test]
fn project_rules_apply_from_a_subdirectory() {
    let env = TestEnv::new();
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [{"action": "deny", "rule": "read(src/secret.txt)"}]}}"#,
    );
    env.write("src/secret.txt", "classified\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "secret.txt"}))]),
        Reply::answer("Could not."),
    ]);
    env.oc(&server)
        .current_dir(env.work().join("src"))
        .args(["run", "--task", "answer", "read secret.txt"])
        .assert()
        .success();
    let decision = &env.session()["permissions"][0];
    assert_eq!(decision["allowed"], false);
    assert_eq!(decision["rule"], "read(src/secret.txt)");
}

/// Regression: `(sleep 2; echo …) | oc run "fix these failures"` dropped the
/// late input, and `-` among the words was taken for prompt text. A `-`
/// among the words now waits for stdin, however long it takes.
#[test]
fn a_dash_among_the_words_waits_for_stdin() {
    use std::io::Write;
    use std::process::Stdio;
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("Fixed.")]);
    let mut child = env
        .oc_process(&server)
        .args(["run", "fix these failures", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"FAILED test_add\n").unwrap();
    drop(stdin);
    // The model only says it fixed them: a change run that changed nothing.
    assert_eq!(child.wait().unwrap().code(), Some(4));
    assert_eq!(
        server.chat_requests()[0]["messages"][1]["content"],
        "fix these failures\n\n<stdin>\nFAILED test_add\n</stdin>"
    );
}

/// `--think high "fix"` warns that `high` went into the prompt.
#[test]
fn a_bare_think_before_a_level_warns() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("ok")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "--think", "high", "fix"])
        .assert()
        .success();
    assert!(
        stderr_of(&out).contains("write `--think=high`"),
        "{}",
        stderr_of(&out)
    );
}

/// `AGENTS.md` from the repository root down to the workspace goes into the
/// system prompt (shown by `--dry-run`), with `--append-system-prompt`;
/// `--system-prompt FILE` replaces oc's own.
#[test]
fn project_instructions_reach_the_system_prompt() {
    let env = TestEnv::new();
    env.write("AGENTS.md", "Run `make test` before you finish.\n");
    env.write("pkg/AGENTS.md", "This package is Python 3.9.\n");
    env.write("mine.txt", "You are a careful assistant.\n");
    let server = FakeOllama::start(vec![]);
    let system_of = |args: &[&str]| -> String {
        let out = env
            .oc(&server)
            .current_dir(env.work().join("pkg"))
            .args(args)
            .assert()
            .success();
        let body: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
        body["messages"][0]["content"].as_str().unwrap().to_string()
    };
    let system = system_of(&[
        "run",
        "--dry-run",
        "--append-system-prompt",
        "Be brief.",
        "x",
    ]);
    let root = system.find("Run `make test`").unwrap();
    let package = system.find("Python 3.9").unwrap();
    assert!(root < package, "the outermost first: {system}");
    assert!(system.ends_with("Be brief."), "{system}");
    assert!(system.starts_with("You are oc"), "{system}");
    let system = system_of(&["run", "--dry-run", "--system-prompt", "../mine.txt", "x"]);
    assert!(
        system.starts_with("You are a careful assistant."),
        "{system}"
    );
    assert!(system.contains("Python 3.9"), "{system}");
}

/// An `AGENTS.md` or `.ollama-code.md` that links out of the repository (a
/// command may make one pointing at a credential store) or to a `.env` file
/// is not read into the system prompt: `oc` reads them outside the sandbox.
#[test]
fn instructions_that_link_out_are_not_read() {
    let env = TestEnv::new();
    let store = env.home.path().join("credentials");
    std::fs::write(&store, "aws_secret_access_key=fakeAwsSecretValue987654\n").unwrap();
    std::os::unix::fs::symlink(&store, env.work().join("AGENTS.md")).unwrap();
    env.write(".env", "TOKEN=envsecretvalue123\n");
    env.write("pkg/keep.txt", "");
    std::os::unix::fs::symlink(".env", env.work().join(".ollama-code.md")).unwrap();
    env.write("sub/AGENTS.md", "Use tabs.\n");
    std::os::unix::fs::symlink("../sub/AGENTS.md", env.work().join("pkg/AGENTS.md")).unwrap();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .current_dir(env.work().join("pkg"))
        .args(["run", "--dry-run", "x"])
        .assert()
        .success();
    let body: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(!system.contains("fakeAwsSecretValue"), "{system}");
    assert!(!system.contains("envsecretvalue"), "{system}");
    assert!(
        system.contains("Use tabs."),
        "a link inside the repository is read: {system}"
    );
}

/// `oc sessions list --here` shows the sessions of this directory only.
#[test]
fn sessions_can_be_listed_for_this_directory() {
    let env = TestEnv::new();
    std::fs::create_dir(env.work().join("sub")).unwrap();
    let server = FakeOllama::start(vec![Reply::answer("a"), Reply::answer("b")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "top"])
        .assert()
        .success();
    env.oc(&server)
        .current_dir(env.work().join("sub"))
        .args(["run", "--task", "answer", "below"])
        .assert()
        .success();
    let list = |args: &[&str]| -> Vec<Value> {
        let out = env
            .oc(&server)
            .current_dir(env.work().join("sub"))
            .args(args)
            .assert()
            .success();
        serde_json::from_str(&stdout_of(&out)).unwrap()
    };
    assert_eq!(list(&["sessions", "list", "--json"]).len(), 2);
    let here = list(&["sessions", "list", "--json", "--here"]);
    assert_eq!(here.len(), 1);
    assert_eq!(here[0]["title"], "below");
}
