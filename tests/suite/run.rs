//! The main path: the model works with tools, then answers.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FakeOllama, MODEL, Reply, TestEnv, tool_messages};

/// The scenario of issue 2: the model writes a file, then answers.
#[test]
fn model_writes_a_file_then_answers() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "hello.txt", "content": "hello\n"}),
        )]),
        Reply::answer("I created hello.txt."),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "create hello.txt"])
        .assert()
        .success();
    let output = out.get_output();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "I created hello.txt.\n"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("● write_file hello.txt"), "{stderr}");
    assert!(stderr.contains("created hello.txt (+1 -0)"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(env.work().join("hello.txt")).unwrap(),
        "hello\n"
    );

    let session = env.session();
    assert_eq!(session["status"], "finished");
    assert_eq!(session["exit_reason"], "answered");
    assert_eq!(session["turns"], 2);
    assert_eq!(session["model"], MODEL);
    assert_eq!(session["mode"], "code");
    let roles: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    assert_eq!(session["messages"][3]["tool_name"], "write_file");
    assert_eq!(session["permissions"][0]["allowed"], true);
    assert_eq!(session["permissions"][0]["source"], "yes");
    assert_eq!(
        session["usage"],
        json!({"prompt_tokens": 506, "completion_tokens": 54})
    );

    let records = env.finetune();
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record["session_id"], session["id"]);
    assert_eq!(record["success"], true);
    assert_eq!(record["mode"], "code");
    assert_eq!(record["model"], MODEL);
    assert!(
        record["system_prompt"]
            .as_str()
            .unwrap()
            .contains("coding agent")
    );
    assert_eq!(record["tools"].as_array().unwrap().len(), 7);
    assert_eq!(
        record["messages"][1]["tool_calls"][0]["function"]["name"],
        "write_file"
    );
    assert_eq!(
        record["messages"][1]["tool_calls"][0]["function"]["arguments"],
        json!({"path": "hello.txt", "content": "hello\n"})
    );
}

/// What `oc` sends: num_ctx always and no sampling option the user did not
/// set (the model's own Modelfile parameters decide), no `think` for a model
/// without the thinking capability, tool results with `tool_name`.
#[test]
fn requests_carry_options_tools_and_tool_names() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {}\n");
    let server = FakeOllama::start(vec![
        Reply::fixture("07-chat-stream-tool-call.ndjson"),
        Reply::fixture("08-chat-stream-after-tool-result.ndjson"),
    ]);
    env.oc(&server)
        .args(["run", "Read the file src/main.rs and tell me what it does."])
        .assert()
        .success();
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first["model"], MODEL);
    assert_eq!(first["stream"], true);
    assert_eq!(
        first["options"],
        json!({"num_ctx": 32768, "num_predict": 4096})
    );
    assert!(
        first.get("think").is_none(),
        "think sent to a model without thinking"
    );
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    // The prompt asks for an answer: no tool that writes is offered.
    assert_eq!(names, ["read_file", "list_files", "search"]);
    let second = &requests[1];
    assert_eq!(
        second["messages"][2]["tool_calls"][0]["id"],
        "call_usotw8c9"
    );
    let tools = tool_messages(second);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["tool_name"], "read_file");
    assert_eq!(tools[0]["tool_call_id"], "call_usotw8c9");
    assert!(
        tools[0]["content"]
            .as_str()
            .unwrap()
            .contains("1\tfn main() {}")
    );
}

#[test]
fn thinking_models_get_think_and_num_ctx_is_clamped() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::lines(vec![
        crate::common::fake_ollama::thinking_chunk("Let me think."),
        crate::common::fake_ollama::content_chunk("Hi!"),
        crate::common::fake_ollama::done_chunk("stop"),
    ])])
    .with_model("thinker:8b", &["completion", "tools", "thinking"], 8192);
    let out = env
        .oc(&server)
        .args(["run", "--model", "thinker:8b", "say hi"])
        .assert()
        .success();
    let output = out.get_output();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "Hi!\n");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Let me think."),
        "thinking goes to stderr: {stderr}"
    );
    let request = &server.chat_requests()[0];
    assert_eq!(request["think"], true);
    assert_eq!(request["options"]["num_ctx"], 8192);
    assert_eq!(env.session()["messages"][2]["thinking"], "Let me think.");

    // A bare `--think` before the prompt does not swallow it.
    let server = FakeOllama::start(vec![Reply::answer("ok"), Reply::answer("ok")]).with_model(
        "thinker:8b",
        &["completion", "tools", "thinking"],
        8192,
    );
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--model",
            "thinker:8b",
            "--think",
            "fix the tests",
        ])
        .assert()
        .success();
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--model",
            "thinker:8b",
            "--think=high",
            "fix the tests",
        ])
        .assert()
        .success();
    let requests = server.chat_requests();
    assert_eq!(requests[0]["think"], true);
    assert_eq!(requests[0]["messages"][1]["content"], "fix the tests");
    assert_eq!(requests[1]["think"], "high");

    // Plan mode defaults think to off, and says so explicitly.
    let server = FakeOllama::start(vec![Reply::answer("1. Do it.")]).with_model(
        "thinker:8b",
        &["completion", "tools", "thinking"],
        8192,
    );
    env.oc(&server)
        .args(["plan", "--model", "thinker:8b", "plan it"])
        .assert()
        .success();
    assert_eq!(server.chat_requests()[0]["think"], false);
}

/// Options belong to the command that uses them and come after it; help
/// shows each command its own options only.
#[test]
fn options_belong_to_their_command() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("a")]).with_model(
        "other:1b",
        &["completion", "tools"],
        4096,
    );
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--model",
            "other:1b",
            "--num-ctx",
            "2048",
            "x",
        ])
        .assert()
        .success();
    let request = &server.chat_requests()[0];
    assert_eq!(request["model"], "other:1b");
    assert_eq!(request["options"]["num_ctx"], 2048);
    env.oc(&server)
        .args(["--model", "other:1b", "run", "--task", "answer", "x"])
        .assert()
        .code(2);
    let help = |args: &[&str]| {
        let out = env.oc(&server).args(args).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).to_string()
    };
    for command in [
        &["sessions", "rm", "--help"][..],
        &["completions", "--help"],
    ] {
        let text = help(command);
        assert!(!text.contains("--model"), "{command:?}: {text}");
        assert!(!text.contains("--temperature"), "{command:?}: {text}");
    }
    let export = help(&["export-ft", "--help"]);
    assert!(export.contains("Only runs of this model"), "{export}");
    assert!(!export.contains("OC_MODEL"), "{export}");
    assert!(help(&["sessions", "list", "--help"]).contains("--home"));
}

/// Two tool calls in two different chunks of one turn: both run, in order,
/// each with its own result message.
#[test]
fn calls_from_separate_chunks_run_in_order() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::lines(vec![
            crate::common::fake_ollama::tool_call_chunk(&[(
                "write_file",
                json!({"path": "a.txt", "content": "first\n"}),
            )]),
            crate::common::fake_ollama::content_chunk(""),
            crate::common::fake_ollama::tool_call_chunk(&[(
                "edit_file",
                json!({"path": "a.txt", "old_string": "first", "new_string": "second"}),
            )]),
            crate::common::fake_ollama::done_chunk("stop"),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server).args(["run", "-y", "go"]).assert().success();
    assert_eq!(
        std::fs::read_to_string(env.work().join("a.txt")).unwrap(),
        "second\n"
    );
    let tools = tool_messages(&server.chat_requests()[1]);
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["tool_name"], "write_file");
    assert_eq!(tools[1]["tool_name"], "edit_file");
    assert!(
        tools[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("created a.txt")
    );
    assert!(
        tools[1]["content"]
            .as_str()
            .unwrap()
            .starts_with("updated a.txt")
    );
}

/// A call to a tool that was not offered gets an error naming the tools
/// that exist, and the run goes on.
#[test]
fn unknown_tools_get_an_error_and_the_run_goes_on() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("run_shell", json!({"cmd": "ls"}))]),
        Reply::answer("ok"),
    ]);
    env.oc(&server)
        .args(["run", "-y", "tidy up"])
        .assert()
        .code(4);
    let result = &tool_messages(&server.chat_requests()[1])[0];
    assert_eq!(result["tool_name"], "run_shell");
    let content = result["content"].as_str().unwrap();
    assert!(
        content.contains("there is no tool `run_shell`"),
        "{content}"
    );
    assert!(
        content.contains("read_file, write_file, edit_file, move_file, list_files, search, bash")
    );
}

#[test]
fn plan_mode_offers_read_only_tools_and_refuses_writes() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("write_file", json!({"path": "x.txt", "content": "x"}))]),
        Reply::answer("1. Write x.txt."),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--plan", "--yes", "plan"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "1. Write x.txt.\n"
    );
    assert!(!env.work().join("x.txt").exists());
    let requests = server.chat_requests();
    let names: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_file", "list_files", "search"]);
    let content = tool_messages(&requests[1])[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(content.contains("not available in plan mode"), "{content}");
    assert_eq!(env.session()["mode"], "plan");
}

/// Real capture: the official template makes qwen2.5-coder answer in text;
/// without recovery (a later issue) the text is the answer.
#[test]
fn captured_plain_stream_is_streamed_to_stdout() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::fixture("05-chat-stream-plain.ndjson")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "add two i32"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "```rust\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n```\n"
    );
}

#[test]
fn max_turns_is_a_hard_cap_with_exit_4() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("list_files", json!({"pattern": "*"}))]),
        Reply::tool_calls(&[("list_files", json!({"pattern": "*"}))]),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "--max-turns", "2", "loop"])
        .assert()
        .code(4);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains("stopped after 2 turns"), "{stderr}");
    assert_eq!(server.chat_requests().len(), 2);
    let session = env.session();
    assert_eq!(session["status"], "max_turns");
    // Every call still has its result, so the history stays valid.
    assert_eq!(
        session["messages"].as_array().unwrap().last().unwrap()["role"],
        "tool"
    );
    assert_eq!(env.finetune()[0]["success"], false);

    // --max-turns 1 allows exactly one reply.
    let server = FakeOllama::start(vec![Reply::answer("hi")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "--max-turns", "1", "hi"])
        .assert()
        .success();
}

/// Sampling options go out only when set, from flags or a config file, and
/// `--seed` becomes `options.seed`.
#[test]
fn sampling_options_are_sent_only_when_set() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write(".ollama-code.json", r#"{"top_k": 30}"#);
    let server = FakeOllama::start(vec![Reply::fixture("05-chat-stream-plain.ndjson")]);
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--temperature",
            "0",
            "--seed",
            "-7",
            "say hi",
        ])
        .assert()
        .success();
    assert_eq!(
        server.chat_requests()[0]["options"],
        json!({"num_ctx": 32768, "num_predict": 4096, "temperature": 0.0, "top_k": 30, "seed": -7})
    );
    let out = env
        .oc(&server)
        .args(["run", "--temperature", "-1", "say hi"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("temperature -1 is out of range"),
        "{stderr}"
    );
}

/// Every reply is capped (`options.num_predict`): 4096 tokens, a quarter
/// of a smaller context, or `--max-output-tokens`.
#[test]
fn replies_are_capped() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::fixture("05-chat-stream-plain.ndjson"),
        Reply::fixture("05-chat-stream-plain.ndjson"),
    ]);
    env.oc(&server)
        .args(["run", "--num-ctx", "8192", "say hi"])
        .assert()
        .success();
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--max-output-tokens",
            "300",
            "say hi",
        ])
        .assert()
        .success();
    let requests = server.chat_requests();
    assert_eq!(requests[0]["options"]["num_predict"], 2048);
    assert_eq!(requests[1]["options"]["num_predict"], 300);
}
