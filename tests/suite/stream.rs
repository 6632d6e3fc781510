//! Stream handling: framing across chunk boundaries, early ends, errors in
//! a 200 stream, tool-call arguments in odd shapes.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::fake_ollama::{End, content_chunk, done_chunk, tool_call_chunk};
use crate::common::{FakeOllama, Reply, TestEnv, tool_messages};

/// NDJSON split at arbitrary byte boundaries (inside lines and inside
/// multi-byte characters) still yields the same answer.
#[test]
fn lines_split_anywhere_are_reassembled() {
    let env = TestEnv::new();
    let lines = vec![
        content_chunk("héllo "),
        content_chunk("wörld ✓"),
        done_chunk("stop"),
    ];
    for split in [1, 3, 7, 64] {
        let server = FakeOllama::start(vec![Reply::Stream {
            lines: lines.clone(),
            split: Some(split),
            end: End::Clean,
        }]);
        let out = env
            .oc(&server)
            .args(["run", "--task", "answer", "hi"])
            .assert()
            .success();
        assert_eq!(
            String::from_utf8_lossy(&out.get_output().stdout),
            "héllo wörld ✓\n",
            "split {split}"
        );
    }
}

/// Several chunks with empty content, then the tool call, then `done`: the
/// turn is not ended early.
#[test]
fn empty_chunks_before_a_tool_call_do_not_end_the_turn() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::lines(vec![
            content_chunk(""),
            content_chunk(""),
            content_chunk(""),
            tool_call_chunk(&[("write_file", json!({"path": "late.txt", "content": "x"}))]),
            done_chunk("stop"),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server).args(["run", "-y", "go"]).assert().success();
    assert!(env.work().join("late.txt").exists());
    assert_eq!(server.chat_requests().len(), 2);
}

/// Arguments sent as a JSON string are parsed; on the wire back they are an
/// object.
#[test]
fn string_arguments_are_parsed_and_sent_back_as_objects() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "write_file",
            json!("{\"path\": \"s.txt\", \"content\": \"from a string\"}"),
        )]),
        Reply::answer("ok"),
    ]);
    env.oc(&server).args(["run", "-y", "go"]).assert().success();
    assert_eq!(
        std::fs::read_to_string(env.work().join("s.txt")).unwrap(),
        "from a string"
    );
    let second = &server.chat_requests()[1];
    assert_eq!(
        second["messages"][2]["tool_calls"][0]["function"]["arguments"],
        json!({"path": "s.txt", "content": "from a string"})
    );
}

/// Arguments that are a string but not JSON: the model gets an error result,
/// nothing crashes, and the wire carries an object.
#[test]
fn invalid_string_arguments_become_an_error_result() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("write_file", json!("{\"path\": \"s.txt\", "))]),
        Reply::answer("sorry"),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "-y", "go"])
        .assert()
        .success();
    assert!(!env.work().join("s.txt").exists());
    let second = &server.chat_requests()[1];
    assert_eq!(
        second["messages"][2]["tool_calls"][0]["function"]["arguments"],
        json!({})
    );
    let content = tool_messages(second)[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(content.contains("not valid JSON"), "{content}");
    assert!(
        content.contains(r#""path": string, "content": string"#),
        "{content}"
    );
}

/// The stream closes before any chunk with `done: true`: the run fails with
/// exit 1 and no tool call from that turn runs.
#[test]
fn stream_without_done_fails_and_runs_nothing() {
    for end in [End::Clean, End::Abrupt] {
        let env = TestEnv::new();
        let server = FakeOllama::start(vec![Reply::Stream {
            lines: vec![tool_call_chunk(&[(
                "write_file",
                json!({"path": "never.txt", "content": "x"}),
            )])],
            split: None,
            end: end.clone(),
        }]);
        let out = env.oc(&server).args(["run", "-y", "go"]).assert().code(1);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(
            stderr.contains("ended before its final") || stderr.contains("broke off"),
            "{end:?}: {stderr}"
        );
        assert!(!env.work().join("never.txt").exists(), "{end:?}");
        let session = env.session();
        assert_eq!(session["status"], "failed");
        assert_eq!(env.finetune()[0]["success"], false);
    }
}

/// A line `{"error": "…"}` in the middle of a 200 stream: the error text is
/// shown and the run fails; the piped stdout holds no half answer.
#[test]
fn error_line_inside_a_200_stream_fails_the_run() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::lines(vec![
        content_chunk("Sta"),
        json!({"error": "llama runner process has terminated: signal: killed"}).to_string(),
    ])]);
    let out = env.oc(&server).args(["run", "go"]).assert().code(1);
    let output = out.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("llama runner process has terminated"),
        "{stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
}

#[test]
fn malformed_line_fails_the_run_with_its_line_number() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::lines(vec![
        content_chunk("a"),
        "{\"model\": tru".to_string(),
        done_chunk("stop"),
    ])]);
    let out = env.oc(&server).args(["run", "go"]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("line 2 of the /api/chat stream"),
        "{stderr}"
    );
}

/// A reply cut off at the length limit never runs its tool calls.
#[test]
fn calls_in_a_reply_cut_off_by_length_do_not_run() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::lines(vec![
            tool_call_chunk(&[("write_file", json!({"path": "cut.txt", "content": "x"}))]),
            done_chunk("length"),
        ]),
        Reply::answer("ok"),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "-y", "go"])
        .assert()
        .success();
    assert!(!env.work().join("cut.txt").exists());
    let content = tool_messages(&server.chat_requests()[1])[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(content.contains("cut off at the length limit"), "{content}");
}

/// Regression: a reply cut at the cap that held one call many times (a
/// real 0.5B reply: 38 identical `write_file` calls) ended the run as
/// `repeated_call`, though none of them was going to run. The cut reply's
/// calls are answered as cut, and the run goes on.
#[test]
fn one_call_many_times_in_a_cut_reply_is_no_repeat() {
    let env = TestEnv::new();
    let call = ("write_file", json!({"path": "cut.txt", "content": "x"}));
    let server = FakeOllama::start(vec![
        Reply::lines(vec![tool_call_chunk(&vec![call; 8]), done_chunk("length")]),
        Reply::answer("ok"),
    ]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "-y",
            "--output-format",
            "json",
            "go",
        ])
        .assert()
        .success();
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(result["exit_reason"], "answered");
    assert_eq!(server.chat_requests().len(), 2);
    assert!(!env.work().join("cut.txt").exists());
}

/// A 400 with Ollama's error body (capture 14) is reported with its text.
#[test]
fn http_errors_show_the_server_text() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::Status {
        status: 400,
        body: crate::common::fake_ollama::fixture("14-chat-think-on-non-thinking-model.json"),
    }]);
    let out = env.oc(&server).args(["run", "go"]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains("400 Bad Request"), "{stderr}");
    assert!(stderr.contains("does not support thinking"), "{stderr}");
}
