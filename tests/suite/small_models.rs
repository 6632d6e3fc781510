//! What real small models send (captures in `fixtures/ollama/real-model/`):
//! calls written as text, schema echoes, empty and repeated replies.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::fake_ollama::{content_chunk, done_chunk};
use crate::common::{FakeOllama, Reply, TestEnv, tool_messages};

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

/// The captured ```json fenced `list_files` call of both models is run,
/// and the visible answer holds no JSON.
#[test]
fn captured_fenced_calls_are_run() {
    for capture in [
        "real-model/chat-stream-qwen2_5-coder-1_5b-list.ndjson",
        "real-model/chat-stream-qwen2_5-coder-0_5b-list.ndjson",
        "10-chat-stream-tools-official-template-fenced-json.ndjson",
    ] {
        let env = TestEnv::new();
        env.write("app.py", "print('hi')\n");
        let server = FakeOllama::start(vec![Reply::fixture(capture), Reply::answer("Listed.")]);
        let out = env
            .oc(&server)
            .args(["run", "--yes", "List the Python files."])
            .assert()
            .success();
        assert_eq!(stdout_of(&out), "Listed.\n", "{capture}");
        let session = env.session();
        let assistant = &session["messages"][2];
        assert_eq!(assistant["content"], "", "{capture}");
        assert_eq!(assistant["tool_calls"][0]["recovered"], true, "{capture}");
        let results = tool_messages(&server.chat_requests()[1]);
        assert_eq!(results.len(), 1, "{capture}");
        assert!(
            results[0]["tool_name"] == "list_files" || results[0]["tool_name"] == "bash",
            "{capture}"
        );
        // The request carries the call as a real tool call.
        assert!(server.chat_requests()[1]["messages"][2]["tool_calls"].is_array());
        assert_eq!(
            env.finetune()[0]["messages"][1]["tool_calls"][0]["recovered"],
            true
        );
    }
}

/// The captured `{"type": "string", "value": "README.md"}` argument is
/// repaired and the repair recorded.
#[test]
fn captured_schema_echo_is_repaired() {
    let env = TestEnv::new();
    env.write("README.md", "# Demo\n");
    let captured = "```json\n{\n  \"name\": \"read_file\",\n  \"arguments\": {\n    \"path\": {\n      \"type\": \"string\",\n      \"value\": \"README.md\"\n    }\n  }\n}\n```";
    let server = FakeOllama::start(vec![
        Reply::answer(captured),
        Reply::answer("It is a demo."),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "Read the file README.md"])
        .assert()
        .success();
    let result = &tool_messages(&server.chat_requests()[1])[0];
    assert_eq!(result["content"], "     1\t# Demo\n(1 lines)");
    let session = env.session();
    assert_eq!(
        session["messages"][2]["tool_calls"][0]["function"]["arguments"],
        json!({"path": "README.md"})
    );
    let notes = &session["repairs"][0]["notes"];
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("`path` was {\"type\", \"value\"}"),
        "{notes}"
    );
}

/// `<tool_call>` split across many chunks: one call, nothing printed raw.
#[test]
fn tool_call_tags_across_chunks() {
    let env = TestEnv::new();
    env.write("a.py", "x = 1\n");
    let text =
        "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}</tool_call>";
    let server = FakeOllama::start(vec![Reply::answer(text), Reply::answer("Read it.")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "read a.py"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "Read it.\n");
    assert!(!stderr_of(&out).contains("tool_call>"));
    let results = tool_messages(&server.chat_requests()[1]);
    assert_eq!(results.len(), 1);
    assert!(results[0]["content"].as_str().unwrap().contains("x = 1"));
}

#[test]
fn function_blocks_are_run() {
    let env = TestEnv::new();
    let text = "<function=write_file><parameter=path>t.txt</parameter><parameter=content>hi</parameter></function>";
    let server = FakeOllama::start(vec![Reply::answer(text), Reply::answer("Wrote it.")]);
    env.oc(&server)
        .args(["run", "--yes", "write t.txt"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(env.work().join("t.txt")).unwrap(),
        "hi"
    );
}

#[test]
fn prose_mentioning_json_stays_prose() {
    let env = TestEnv::new();
    let text = "Send {\"name\": \"x\"} to the endpoint.";
    let server = FakeOllama::start(vec![Reply::answer(text)]);
    let out = env.oc(&server).args(["run", "how?"]).assert().success();
    assert_eq!(stdout_of(&out), format!("{text}\n"));
}

/// `--text-tools off` leaves a call written as text as text, and the run
/// says that it did not do its job: exit 1, a record with `success: false`
/// that `export-ft` leaves out.
#[test]
fn text_tools_off_leaves_the_text() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::fixture(
        "real-model/chat-stream-qwen2_5-coder-0_5b-list.ndjson",
    )]);
    let out = env
        .oc(&server)
        .args(["run", "--text-tools", "off", "list"])
        .assert()
        .code(1);
    assert!(stdout_of(&out).starts_with("```json\n{\n  \"name\": \"list_files\""));
    assert!(stderr_of(&out).contains("left unrun (`--text-tools off` leaves it as text"));
    assert_eq!(server.chat_requests().len(), 1);
    let record = &env.finetune()[0];
    assert_eq!(record["success"], false);
    assert_eq!(record["unexecuted_call"], true);
    let exported = env.oc(&server).args(["export-ft"]).assert().success();
    assert!(exported.get_output().stdout.is_empty());
    assert!(stderr_of(&exported).contains("ended on a tool call that was not run"));
}

/// A model without the `tools` capability: no `tools` field, the call format
/// in the system prompt, a fenced call run, its result sent back as a user
/// message.
#[test]
fn fenced_protocol_for_models_without_tools() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.md", "remember\n");
    let call = "```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.md\"}}\n```";
    let server = FakeOllama::start(vec![
        Reply::answer(call),
        Reply::answer("It says remember."),
    ])
    .with_model("plain:1b", &["completion"], 8192);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--model",
            "plain:1b",
            "read notes.md",
        ])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "It says remember.\n");
    let requests = server.chat_requests();
    assert!(requests[0].get("tools").is_none());
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("```tool") && system.contains("- read_file {\"path\": string"),
        "{system}"
    );
    let messages = requests[1]["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "assistant");
    assert!(
        messages[2]["content"]
            .as_str()
            .unwrap()
            .starts_with("```tool\n{\"name\":\"read_file\"")
    );
    assert!(messages[2].get("tool_calls").is_none());
    assert_eq!(messages[3]["role"], "user");
    assert!(
        messages[3]["content"]
            .as_str()
            .unwrap()
            .contains("remember")
    );
    // The session and the record keep the call as a proper tool call.
    assert_eq!(env.session()["messages"][3]["role"], "tool");
}

/// The same call every turn: blocked on the 3rd, the run ends with exit 4
/// after the 5th.
#[test]
fn repeated_calls_are_blocked_then_stop_the_run() {
    let env = TestEnv::new();
    let same = || Reply::tool_calls(&[("list_files", json!({"pattern": "*"}))]);
    let server = FakeOllama::start((0..6).map(|_| same()).collect());
    let out = env.oc(&server).args(["run", "loop"]).assert().code(4);
    assert!(stderr_of(&out).contains("same call 5 times in a row"));
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 5);
    let results = tool_messages(&requests[4]);
    assert!(!results[1]["content"].as_str().unwrap().contains("not run"));
    assert!(
        results[2]["content"]
            .as_str()
            .unwrap()
            .contains("not run: this is the same call")
    );
    assert!(
        results[3]["content"]
            .as_str()
            .unwrap()
            .contains("4 times in a row")
    );
    assert_eq!(env.session()["status"], "stuck");
}

#[test]
fn an_empty_reply_gets_one_nudge() {
    let env = TestEnv::new();
    let empty = || Reply::lines(vec![content_chunk(""), done_chunk("stop")]);
    let server = FakeOllama::start(vec![empty(), Reply::answer("Here.")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "go"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "Here.\n");
    let nudge = &server.chat_requests()[1]["messages"][3];
    assert_eq!(nudge["role"], "user");
    assert!(nudge["content"].as_str().unwrap().contains("empty"));
    let server = FakeOllama::start(vec![empty(), empty()]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "go"])
        .assert()
        .code(1);
    assert!(stderr_of(&out).contains("two empty replies in a row"));
}

/// The nudge after an empty reply speaks of what the protocol offers:
/// tools when tools are offered, file blocks in the whole-file format, and
/// only the answer when the reply is an answer (before: "call a tool"
/// where none was offered).
#[test]
fn the_empty_reply_nudge_fits_the_protocol() {
    let empty = || Reply::lines(vec![content_chunk(""), done_chunk("stop")]);
    for (command, format, prompt, says, not) in [
        (
            "run",
            "tools",
            "make hello.txt",
            "call a tool",
            "file blocks",
        ),
        (
            "run",
            "whole",
            "make hello.txt",
            "the file blocks of your change",
            "tool",
        ),
        ("run", "whole", "what is 2+2?", "Give your answer.", "tool"),
        ("chat", "tools", "what is 2+2?", "Give your answer.", "tool"),
    ] {
        let env = TestEnv::new();
        let server = FakeOllama::start(vec![empty(), Reply::answer("Here.")]);
        // A change request answered in words did nothing: exit 4.
        let code = if prompt.starts_with("make") { 4 } else { 0 };
        env.oc(&server)
            .env("OC_EDIT_FORMAT", format)
            .args([command, prompt])
            .assert()
            .code(code);
        let messages = server.chat_requests()[1]["messages"].clone();
        let nudge = messages.as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(nudge.contains(says), "{format} {prompt}: {nudge}");
        assert!(!nudge.contains(not), "{format} {prompt}: {nudge}");
    }
}

#[test]
fn think_tags_in_content_go_to_thinking() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer(
        "<think>Let me see.</think>The answer is 4.",
    )]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "2+2"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "The answer is 4.\n");
    assert!(stderr_of(&out).contains("Let me see."));
    let assistant = &env.session()["messages"][2];
    assert_eq!(assistant["content"], "The answer is 4.");
    assert_eq!(assistant["thinking"], "Let me see.");
}

/// Reasoning that ends with a lone `</think>` (the template opened the tag
/// in the prompt) never reaches a piped stdout, with tool calls offered as
/// with file blocks: each reply's text is written once it is read.
#[test]
fn a_lone_think_close_keeps_the_reasoning_out_of_stdout() {
    for format in ["tools", "whole"] {
        let env = TestEnv::new();
        let server = FakeOllama::start(vec![Reply::answer(
            "The user asks for a sum.\nTwo and two make four.\n</think>\n\nThe answer is 4.",
        )]);
        let out = env
            .oc(&server)
            .env("OC_EDIT_FORMAT", format)
            .args(["run", "what is 2+2?"])
            .assert()
            .success();
        assert_eq!(stdout_of(&out), "The answer is 4.\n", "{format}");
        let assistant = &env.session()["messages"][2];
        assert_eq!(assistant["content"], "The answer is 4.", "{format}");
        assert_eq!(
            assistant["thinking"].as_str().unwrap().trim(),
            "The user asks for a sum.\nTwo and two make four.",
            "{format}"
        );
    }
}

/// A run stuck on one call ends (exit 4), plan and code runs alike: the
/// same call a fifth time is not run.
#[test]
fn a_run_stuck_on_one_call_ends() {
    let call = || Reply::tool_calls(&[("read_file", json!({"path": "notes.txt"}))]);
    for args in [
        &["plan", "what is in notes.txt?"][..],
        &["run", "--yes", "--task", "change", "what is in notes.txt?"],
    ] {
        let env = TestEnv::new();
        env.write("notes.txt", "alpha\n");
        let server = FakeOllama::start((0..6).map(|_| call()).collect());
        let out = env
            .oc(&server)
            .env("OC_DISABLE", "ground")
            .args(args)
            .assert()
            .code(4);
        assert!(
            stderr_of(&out).contains("the same call 5 times"),
            "{args:?}"
        );
        assert_eq!(server.chat_requests().len(), 5, "{args:?}");
        assert_eq!(env.session()["status"], "stuck", "{args:?}");
    }
}

/// Regression: a call written as Python in a fence, in the tool-call
/// format, was taken for the answer: exit 0, `success: true`, and
/// `export-ft --success-only` kept it. It ends as an unexecuted call, left
/// out of `export-ft --success-only`; a longer program that calls a
/// function named like a tool is still an answer.
#[test]
fn a_python_call_in_a_fence_is_not_a_success() {
    let env = TestEnv::new();
    env.write("README.md", "# demo\n");
    let server = FakeOllama::start(vec![
        Reply::answer("```python\nread_file(path=\"README.md\")\n```"),
        Reply::answer(
            "```python\nimport json\n\nsearch(pattern=\"x\")\n```\nDefine `search` first.",
        ),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "What does README.md say?"])
        .assert()
        .code(1);
    assert!(
        stderr_of(&out).contains(
            "a tool call written as text, left unrun (written in a shape that does not run: Python"
        ),
        "{}",
        stderr_of(&out)
    );
    let record = &env.finetune()[0];
    assert_eq!(record["success"], false);
    assert_eq!(record["unexecuted_call"], true);
    let exported = env
        .oc(&server)
        .args(["export-ft", "--success-only"])
        .assert()
        .success();
    assert!(exported.get_output().stdout.is_empty());
    env.oc(&server)
        .args(["run", "How would I call search?"])
        .assert()
        .success();
}

/// Regression: a change made and checked whose last reply was only a call
/// written as Python ended exit 1, and `--on-fail revert` put the good
/// change back. A check that passed decides.
#[test]
fn a_passing_check_decides_over_a_last_reply_that_is_a_call() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "edit_file",
            serde_json::json!({"path": "a.txt", "old_string": "x", "new_string": "y"}),
        )]),
        Reply::answer("```python\nread_file(path=\"a.txt\")\n```"),
    ]);
    env.oc(&server)
        .args([
            "run",
            "--yes",
            "--check",
            "grep -q y a.txt",
            "--no-precheck",
        ])
        .args(["--on-fail", "revert", "change x to y in a.txt"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(env.work().join("a.txt")).unwrap(),
        "y\n"
    );
}
