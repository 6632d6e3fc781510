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

/// `oc "fix the tests"` says to use `oc run "…"`.
#[test]
fn a_prompt_without_a_command_points_to_run() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env.oc(&server).arg("fix the tests").assert().code(2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("use `oc run \"fix the tests\"`"),
        "{stderr}"
    );
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
        .args(["run", "--no-save", "x"])
        .assert()
        .success();
    assert!(
        stderr_of(&out).contains("not saved (--no-save)"),
        "{}",
        stderr_of(&out)
    );
    let out = env
        .oc(&server)
        .args(["run", "--no-save", "--output-format", "json", "x"])
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
        .success();
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
        .success();
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
        .args(["run", "read secret.txt"])
        .assert()
        .success();
    let decision = &env.session()["permissions"][0];
    assert_eq!(decision["allowed"], false);
    assert_eq!(decision["rule"], "read(src/secret.txt)");
}
