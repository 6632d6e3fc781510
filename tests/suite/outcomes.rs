//! Outcomes you can trust: writes that would lose data are refused with the
//! reason, long lines can be read, and a run says what really happened.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv, tool_messages, tool_results};

fn read(env: &TestEnv, path: &str) -> String {
    std::fs::read_to_string(env.work().join(path)).unwrap()
}

/// The tool results the last request carried, as text.
fn results(server: &FakeOllama) -> Vec<String> {
    tool_results(server.chat_requests().last().unwrap())
}

const LIB: &str = "pub fn a() -> u8 {\n    1\n}\n";

/// Regression: `write_file` with empty content emptied a 10-line file.
#[test]
fn empty_content_over_a_file_is_refused() {
    let env = TestEnv::new();
    env.write("src/lib.rs", LIB);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "src/lib.rs"}))]),
        Reply::tool_calls(&[("write_file", json!({"path": "src/lib.rs", "content": ""}))]),
        Reply::answer("Emptied."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "empty it"])
        .assert()
        .code(4);
    assert_eq!(read(&env, "src/lib.rs"), LIB);
    let result = &results(&server)[1];
    assert!(result.contains("\"allow_shrink\": true"), "{result}");
}

/// Regression: a file changed on disk after the model read it was
/// overwritten from the old text. Now `write_file` is refused and
/// `edit_file` applies but says the file had changed.
#[test]
fn a_file_changed_since_it_was_read_is_not_overwritten() {
    let env = TestEnv::new();
    env.write("a.rs", LIB);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "a.rs"}))]),
        Reply::tool_calls(&[("bash", json!({"command": "echo '// formatted' >> a.rs"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "a.rs", "content": "pub fn a() -> u8 {\n    2\n}\n"}),
        )]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "a.rs", "old_string": "    1", "new_string": "    2"}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "make it return 2"])
        .assert()
        .success();
    let results = results(&server);
    assert!(
        results[2].contains("changed on disk since you read it"),
        "{}",
        results[2]
    );
    assert!(
        results[3].contains("the file had changed on disk since you last read it"),
        "{}",
        results[3]
    );
    assert_eq!(
        read(&env, "a.rs"),
        "pub fn a() -> u8 {\n    2\n}\n// formatted\n"
    );
}

/// Regression: content with `\n` written as two characters became a
/// one-line file, reported as created.
#[test]
fn escaped_line_breaks_are_not_written() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "doc.md", "content": "# Title\\n\\nFirst paragraph.\\n"}),
        )]),
        Reply::answer("Written."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "write the doc"])
        .assert()
        .code(4);
    assert!(!env.work().join("doc.md").exists());
    let result = &results(&server)[0];
    assert!(result.contains("no real line break"), "{result}");
}

/// Regression: in a 2 MB single-line file nothing past the first 2000
/// characters could be reached, and a search hit far into the line showed
/// text without the match.
#[test]
fn long_lines_are_reachable_by_read_and_search() {
    let env = TestEnv::new();
    let line: String = (0..300_000).map(|i| format!("\"k{i:05}\":1,")).collect();
    env.write("min.json", &format!("{{{line}}}\n"));
    let column = line.chars().count() + 2 - 199;
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("search", json!({"pattern": "k00042"}))]),
        Reply::tool_calls(&[(
            "read_file",
            json!({"path": "min.json", "offset": 1, "column": column}),
        )]),
        Reply::answer("Found it."),
    ]);
    env.oc(&server)
        .args(["plan", "where is k00042?"])
        .assert()
        .success();
    let results = results(&server);
    assert!(
        results[0].starts_with("min.json:1: [column "),
        "{}",
        &results[0]
    );
    assert!(results[0].contains("\"k00042\":1"), "{}", &results[0]);
    let left_out = format!("[… characters 1-{} left out]", column - 1);
    assert!(results[1].contains(&left_out), "{}", &results[1][..200]);
    assert!(
        results[1].contains("\"k299999\":1,}"),
        "{}",
        &results[1][results[1].len() - 300..]
    );
}

/// Regression: a reply that is only a call to a tool that does not exist
/// (```` ```json {"name": "create_goal", …} ````) was printed as the answer,
/// exit 0, recorded as a success. It is a call: it gets the unknown-tool
/// error and the loop goes on. A call whose JSON does not parse cannot run:
/// the run ends as an unexecuted call, not a success.
#[test]
fn calls_that_cannot_run_get_errors_not_applause() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::answer(
            "```json\n{\"name\": \"create_goal\", \"arguments\": {\"goal\": \"x\"}}\n```",
        ),
        Reply::answer("I cannot set goals; there is no such tool."),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "--yes", "set the goal to x"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "I cannot set goals; there is no such tool.\n"
    );
    let unknown = tool_messages(&server.chat_requests()[1])[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        unknown.contains("there is no tool `create_goal`; available tools: read_file"),
        "{unknown}"
    );
    let server = FakeOllama::start(vec![Reply::answer(
        "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}</tool_call>",
    )]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "--yes", "what is in a.txt?"])
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("left unrun (written in a shape that does not run"),
        "{stderr}"
    );
    assert_eq!(env.finetune()[1]["success"], false);
}

/// Regression: a run that exited 5 (every edit denied, nothing changed, the
/// model then claimed success) was recorded `success: true` and exported by
/// `export-ft --success-only`.
#[test]
fn a_run_with_denials_is_not_a_success() {
    let env = TestEnv::new();
    env.write("a.txt", "old\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("write_file", json!({"path": "b.txt", "content": "new\n"}))]),
        Reply::answer("Done, tests pass."),
    ]);
    env.oc(&server).args(["run", "write b"]).assert().code(5);
    let record = &env.finetune()[0];
    assert_eq!(record["success"], false);
    assert_eq!(record["exit_code"], 5);
    let exported = env
        .oc(&server)
        .args(["export-ft", "--success-only"])
        .assert()
        .success();
    assert!(exported.get_output().stdout.is_empty());
    // The list says how it ended, not only that it finished.
    let listed = env
        .oc(&server)
        .args(["sessions", "list"])
        .assert()
        .success();
    let listed = String::from_utf8_lossy(&listed.get_output().stdout).to_string();
    assert!(listed.contains("finished (exit 5)"), "{listed}");
    let json = env
        .oc(&server)
        .args(["sessions", "list", "--json"])
        .assert()
        .success();
    let json = String::from_utf8_lossy(&json.get_output().stdout).to_string();
    assert!(json.contains("\"exit_code\":5"), "{json}");
}
/// A long reply of distinct lines (a table) is not stopped.
#[test]
fn a_long_table_is_not_a_loop() {
    let env = TestEnv::new();
    let table: String = (0..200).map(|i| format!("| {i} | item {i} |\n")).collect();
    let server = FakeOllama::start(vec![Reply::answer(&table)]);
    let out = env
        .oc(&server)
        .args(["run", "list them"])
        .assert()
        .success();
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), table);
}

/// A reply that reaches the cap (`done_reason: "length"`) runs none of its
/// calls; the model is told to make smaller changes.
#[test]
fn a_reply_at_the_cap_is_cut_off() {
    let env = TestEnv::new();
    let cut = Reply::lines(vec![
        crate::common::fake_ollama::tool_call_chunk(&[(
            "write_file",
            json!({"path": "big.txt", "content": "half"}),
        )]),
        crate::common::fake_ollama::done_chunk("length"),
    ]);
    let server = FakeOllama::start(vec![cut, Reply::answer("I will make smaller changes.")]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--yes",
            "--output-format",
            "stream-json",
            "write big.txt",
        ])
        .assert()
        .success();
    assert!(!env.work().join("big.txt").exists());
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let completed = events
        .iter()
        .find(|e| e["type"] == "turn.completed")
        .unwrap();
    assert_eq!(completed["cut"], "length");
    let result = &results(&server)[0];
    assert!(result.contains("cut off at the length limit"), "{result}");
}

/// In a reply with several calls written as text, each is answered on its
/// own: the valid one runs, the one to a missing tool gets its error.
#[test]
fn each_text_call_of_a_reply_is_answered_on_its_own() {
    let env = TestEnv::new();
    env.write("a.txt", "hello\n");
    let server = FakeOllama::start(vec![
        Reply::answer(
            "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}</tool_call>\n<tool_call>{\"name\": \"deploy\", \"arguments\": {}}</tool_call>",
        ),
        Reply::answer("Read it; there is no deploy tool."),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "read and deploy"])
        .assert()
        .success();
    let results = results(&server);
    assert!(results[0].contains("hello"), "{}", results[0]);
    assert!(
        results[1].contains("there is no tool `deploy`"),
        "{}",
        results[1]
    );
}

/// `exit_reason` is a stable word a script can match on, and
/// `exit_detail` the same in words (docs/output.md "Why a run ended"):
/// in the JSON result, the session and the record alike.
#[test]
fn exit_reason_is_a_stable_word_and_exit_detail_its_words() {
    let read = || Reply::tool_calls(&[("read_file", serde_json::json!({"path": "a.txt"}))]);
    for (extra, replies, code, reason, detail) in [
        (
            vec!["--max-turns", "1"],
            vec![read()],
            4,
            "max_turns",
            "max turns (1) reached",
        ),
        (
            vec!["--check", "false", "--no-precheck", "--check-rounds", "1"],
            vec![Reply::answer("Done.")],
            6,
            "check_failed",
            "answered, but the check `false` failed",
        ),
        (
            vec!["--task", "answer"],
            vec![Reply::answer("Done.")],
            0,
            "answered",
            "answered",
        ),
        (
            vec![],
            vec![Reply::answer("Done.")],
            4,
            "unchanged",
            "the model answered without changing any file, and the prompt asks for a change: the task is not done (for a question, `--task answer` takes the answer as the result)",
        ),
    ] {
        let env = TestEnv::new();
        env.write("a.txt", "x\n");
        let server = FakeOllama::start(replies);
        let out = env
            .oc(&server)
            .args(["run", "--yes", "--output-format", "json"])
            .args(&extra)
            .arg("look at a.txt")
            .assert()
            .code(code);
        let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(
            (
                result["exit_reason"].as_str(),
                result["exit_detail"].as_str()
            ),
            (Some(reason), Some(detail))
        );
        let session = env.session();
        assert_eq!(session["exit_reason"], reason);
        assert_eq!(session["exit_detail"], detail);
        assert_eq!(env.finetune()[0]["exit_reason"], reason);
    }
}

/// Files a command changed, made or removed are in `files_changed` with
/// the file tools' own: the list is what the run did to the workspace.
#[test]
fn files_changed_lists_what_commands_changed_too() {
    let env = TestEnv::new();
    env.write("old.txt", "old\n");
    env.write("kept.txt", "kept\n");
    env.commit_all();
    let bash = |command: &str| ("bash", json!({ "command": command }));
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("write_file", json!({"path": "a.txt", "content": "a\n"})),
            bash("printf x > made.txt && rm old.txt"),
        ]),
        Reply::answer("Done."),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--output-format", "json", "make files"])
        .assert()
        .code(0);
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        result["files_changed"],
        json!(["a.txt", "made.txt", "old.txt"]),
        "{result}"
    );
}

/// Regression: a change run whose model only looked (`ls`, `git status`)
/// and then said it was done ended exit 0, `success: true`. Commands that
/// only look are not the change; one that may change something still
/// counts, as the run cannot tell what it did, and so does a file changed
/// by a command that then failed.
#[test]
fn commands_that_only_look_are_not_the_change() {
    for (command, code, reason) in [
        ("ls && git status && cat a.txt | head -3", 4, "unchanged"),
        ("git tag v1", 0, "answered"),
        // A command that failed after writing: the checkpoint finds it.
        ("printf y > a.txt; false", 0, "answered"),
    ] {
        let env = TestEnv::new();
        env.write("a.txt", "x\n");
        env.commit_all();
        let server = FakeOllama::start(vec![
            Reply::tool_calls(&[("bash", json!({ "command": command }))]),
            Reply::answer("Done."),
        ]);
        let out = env
            .oc(&server)
            .args(["run", "--yes", "--output-format", "json", "fix a.txt"])
            .assert()
            .code(code);
        let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(result["exit_reason"], reason, "{command}");
        assert_eq!(env.finetune()[0]["success"], code == 0, "{command}");
    }
}

/// Regression: `tool_calls` counted the reads oc made for the model
/// before its first turn (the files the prompt names); it counts the
/// model's calls.
#[test]
fn tool_calls_counts_the_models_calls_only() {
    let env = TestEnv::new();
    env.write("a.py", "x = 1\n");
    env.commit_all();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "a.py"}))]),
        Reply::answer("It sets x."),
    ]);
    let out = env
        .oc(&server)
        .env("OC_DISABLE", "")
        .args([
            "run",
            "--task",
            "answer",
            "--output-format",
            "json",
            "what does a.py do?",
        ])
        .assert()
        .success();
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let first = server.chat_requests()[0].to_string();
    assert!(
        first.contains("x = 1"),
        "oc read a.py for the model: {first}"
    );
    assert_eq!(result["tool_calls"], 1);
}

/// Regression: with `OC_HOME` inside the workspace, the run's own session
/// file was among `files_changed` (and so counted as a change the model
/// made, and undo would remove it).
#[test]
fn oc_home_in_the_workspace_is_not_a_change() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    env.commit_all();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("write_file", json!({"path": "b.txt", "content": "y\n"}))]),
        Reply::answer("Done."),
    ]);
    let out = env
        .oc(&server)
        .env("OC_HOME", env.work().join("oc-home"))
        .args(["run", "--yes", "--output-format", "json", "write b.txt"])
        .assert()
        .success();
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(result["files_changed"], json!(["b.txt"]));
}

/// Regression: the answer `-o FILE` wrote inside the workspace was among
/// `files_changed` ("1 file changed" for a question), and `oc undo`
/// removed it. What the run writes for the user is not its change.
#[test]
fn the_answer_file_is_not_a_change() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    env.commit_all();
    let server = FakeOllama::start(vec![Reply::answer("It holds x.")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "-o", "notes/answer.md"])
        .args(["--output-format", "json", "what is in a.txt?"])
        .assert()
        .success();
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(result["files_changed"], json!([]));
    let undone = env.oc(&server).args(["undo"]).assert().success();
    let said = String::from_utf8_lossy(&undone.get_output().stderr).to_string();
    assert!(said.contains("nothing to undo"), "{said}");
    let answer = std::fs::read_to_string(env.work().join("notes/answer.md")).unwrap();
    assert_eq!(answer, "It holds x.\n");
}
