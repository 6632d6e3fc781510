//! Permission rules through the binary: `--allow`, `--deny`, config rules,
//! and the messages that say how to allow what was denied.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv, bash_calls, tool_messages};

fn contents(server: &FakeOllama, request: usize) -> Vec<String> {
    tool_messages(&server.chat_requests()[request])
        .iter()
        .map(|t| t["content"].as_str().unwrap().to_string())
        .collect()
}

/// `echo "fix the tests" | oc run` without a terminal and without `--yes`:
/// nothing waits, the edit and the command are denied with the exact rule
/// that would allow them, the denials are listed, and the exit code is 5.
#[test]
fn piped_prompt_without_yes_denies_and_says_how_to_allow() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "pub fn f() -> i32 { 1 }\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            (
                "edit_file",
                json!({"path": "src/lib.rs", "old_string": "1", "new_string": "2"}),
            ),
            ("bash", json!({"command": "cargo test"})),
        ]),
        Reply::answer("Both need approval."),
    ]);
    let out = env
        .oc(&server)
        .arg("run")
        .write_stdin("fix the tests\n")
        .assert()
        .code(5);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("- edit_file src/lib.rs    (--allow 'edit(src/lib.rs)')"),
        "{stderr}"
    );
    assert!(
        stderr.contains("- bash cargo test    (--allow 'bash(cargo test)')"),
        "{stderr}"
    );
    let results = contents(&server, 1);
    assert!(
        results[0].contains("`--yes` or `--allow 'edit(src/lib.rs)'`"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("`--allow 'bash(cargo test)'`"),
        "{}",
        results[1]
    );
    assert_eq!(
        server.chat_requests()[0]["messages"][1]["content"],
        "fix the tests\n"
    );
    assert!(stderr.contains("2 actions needed approval"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(env.work().join("src/lib.rs")).unwrap(),
        "pub fn f() -> i32 { 1 }\n"
    );
    for result in &results {
        assert!(result.contains("not approved"), "{result}");
    }
    let decisions = &env.session()["permissions"];
    assert_eq!(decisions[0]["allowed"], false);
    assert_eq!(decisions[0]["source"], "no_approver");
    assert_eq!(decisions[1]["tool"], "bash");
}

/// `--allow 'bash(cargo test*)'`: `cargo test --lib` runs, `cargo publish`
/// is denied (no terminal).
#[test]
fn allow_rule_lets_matching_commands_run_and_only_those() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("bash", json!({"command": "cargo test --lib"})),
            ("bash", json!({"command": "cargo publish"})),
            ("bash", json!({"command": "cargo test && cargo publish"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--allow", "bash(cargo test*)", "test it"])
        .assert()
        .code(5);
    let results = contents(&server, 1);
    // It ran: cargo itself answers (there is no Cargo.toml here).
    assert!(results[0].contains("[exit code"), "{}", results[0]);
    assert!(!results[0].contains("not approved"), "{}", results[0]);
    assert!(
        results[1].starts_with("error: not approved"),
        "{}",
        results[1]
    );
    assert!(
        results[2].starts_with("error: not approved"),
        "every part must be allowed: {}",
        results[2]
    );
    let decisions = &env.session()["permissions"];
    assert_eq!(decisions[0]["source"], "rule");
    assert_eq!(decisions[0]["rule"], "bash(cargo test*)");
    assert_eq!(decisions[1]["source"], "no_approver");
}

/// `--deny 'write(src/**)'` beats `--yes`, and says which rule.
#[test]
fn deny_rule_beats_yes() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("write_file", json!({"path": "src/new.rs", "content": "x"})),
            ("write_file", json!({"path": "docs/new.md", "content": "x"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "--deny", "write(src/**)", "write"])
        .assert()
        .success();
    assert!(!env.work().join("src/new.rs").exists());
    assert!(env.work().join("docs/new.md").exists());
    let results = contents(&server, 1);
    assert_eq!(
        results[0],
        "error: not approved: the rule `deny write(src/**)` forbids it"
    );
    assert_eq!(env.session()["permissions"][0]["source"], "rule");
}

/// Rules from the project config, with `ask` beating `--yes`.
#[test]
fn config_rules_apply_and_ask_beats_yes() {
    let env = TestEnv::new();
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [
            {"action": "allow", "rule": "bash(echo *)"},
            {"action": "ask", "rule": "bash(git push*)"}
        ]}}"#,
    );
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("bash", json!({"command": "echo allowed"})),
            ("bash", json!({"command": "git push origin main"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "go"])
        .assert()
        .code(5);
    let results = contents(&server, 1);
    assert_eq!(results[0], "allowed\n[exit code 0]");
    assert!(
        results[1].contains("the rule `ask bash(git push*)` requires approval"),
        "{}",
        results[1]
    );
}

#[test]
fn invalid_rules_are_usage_errors_that_show_the_syntax() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--allow", "shell(ls)", "x"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("--allow: invalid rule `shell(ls)`: `shell` is not a tool"),
        "{stderr}"
    );
    assert!(stderr.contains("TOOL(PATTERN)"), "{stderr}");
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [{"action": "allow", "rule": "bash("}]}}"#,
    );
    let out = env.oc(&server).args(["run", "x"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("invalid rule `bash(`"), "{stderr}");
    assert!(server.requests().is_empty());
}

/// The model may read the project config but never change it: it holds the
/// rules of later runs. A command that changes it anyway is undone.
#[test]
fn the_agent_cannot_rewrite_the_project_config() {
    let env = TestEnv::new();
    env.write(".ollama-code.json", "{}\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("read_file", json!({"path": ".ollama-code.json"})),
            (
                "write_file",
                json!({"path": ".ollama-code.json", "content": "{\"permissions\": {\"rules\": [{\"action\": \"allow\", \"rule\": \"bash\"}]}}"}),
            ),
            ("bash", json!({"command": "cat .ollama-code.json"})),
            (
                "bash",
                json!({"command": "echo '{\"permissions\": {\"rules\": [{\"action\": \"allow\", \"rule\": \"bash\"}]}}' > .ollama-code.js*"}),
            ),
            ("bash", json!({"command": "f=.ollama-code; rm $f.json"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "escalate"])
        .assert()
        .success();
    let results = contents(&server, 1);
    assert!(results[0].contains("1\t{}"), "{}", results[0]);
    assert!(results[1].contains("oc's project config"), "{}", results[1]);
    assert_eq!(results[2], "{}\n[exit code 0]", "reading it is fine");
    assert!(
        results[3].contains("the change was undone"),
        "{}",
        results[3]
    );
    assert!(
        results[4].contains("the change was undone"),
        "{}",
        results[4]
    );
    assert_eq!(
        std::fs::read_to_string(env.work().join(".ollama-code.json")).unwrap(),
        "{}\n"
    );
}

/// A file a deny rule keeps from being read does not show up in listings or
/// searches either.
#[test]
fn denied_paths_are_hidden_from_list_and_search() {
    let env = TestEnv::new();
    env.write("secrets/db.txt", "password=hunter2-secret-db\n");
    env.write("app.txt", "password is asked at start\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("search", json!({"pattern": "password"})),
            ("list_files", json!({"pattern": "**"})),
            ("read_file", json!({"path": "secrets/db.txt"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--deny", "*(secrets/)", "look"])
        .assert()
        .success();
    let results = contents(&server, 1);
    assert!(!results[0].contains("hunter2"), "{}", results[0]);
    assert!(results[0].contains("app.txt:1:"), "{}", results[0]);
    assert!(
        results[0].contains("hidden by deny rules"),
        "{}",
        results[0]
    );
    assert!(!results[1].contains("secrets/db.txt"), "{}", results[1]);
    assert!(results[2].contains("forbids it"), "{}", results[2]);
}

/// Runs `rows` as bash calls in one reply under `oc run ARGS`, and returns
/// each row whose tool result does not contain `expect`, with that result:
/// every row is reported, so one that fails does not hide the others.
fn rows_without(env: &TestEnv, args: &[&str], rows: &[&str], expect: &str) -> Vec<String> {
    let server = bash_calls(rows);
    let _ = env.oc(&server).args(args).arg("try").assert();
    let results = contents(&server, 1);
    assert_eq!(results.len(), rows.len(), "every row was answered");
    rows.iter()
        .zip(&results)
        .filter(|(_, result)| !result.contains(expect))
        .map(|(row, result)| format!("`{row}` → {result}"))
        .collect()
}

/// Issue 41, item 4: a rule written with a program's path
/// (`bash(/usr/bin/touch*)`) did not stop `touch`. Deny and ask rules now
/// match a program by its base name either way; no marker file is made.
#[test]
fn rules_match_a_program_by_its_path_or_its_name() {
    let env = TestEnv::new();
    let rows = [
        "touch m0",
        "/usr/bin/touch m1",
        "/bin/touch m2",
        "env touch m3",
        "command touch m4",
        "bash -c 'touch m5'",
        "nice /usr/bin/touch m6",
    ];
    for rule in [
        "bash(/usr/bin/touch*)",
        "bash(touch*)",
        "bash(/bin/touch m*)",
    ] {
        let args = ["run", "--yes", "--deny", rule];
        let passed = rows_without(
            &env,
            &args,
            &rows,
            &format!("the rule `deny {rule}` forbids it"),
        );
        assert!(
            passed.is_empty(),
            "not denied by {rule}:\n{}",
            passed.join("\n")
        );
    }
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [{"action": "ask", "rule": "bash(/usr/bin/touch*)"}]}}"#,
    );
    let asked = rows_without(&env, &["run", "--yes"], &rows, "requires approval");
    assert!(asked.is_empty(), "not asked:\n{}", asked.join("\n"));
    for n in 0..rows.len() {
        assert!(!env.work().join(format!("m{n}")).exists(), "m{n} was made");
    }
}
