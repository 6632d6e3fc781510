//! The fake server's own rule (`tests/common/tool_results.rs`): a chat
//! request whose tool results do not answer the calls before them gets a
//! 400 and fails the test, on either wire.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use crate::common::tool_results::{Wire, check};
use crate::common::{FakeOllama, MODEL, Reply};

fn capture(path: &str) -> Value {
    let path = format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn body(messages: Value) -> Value {
    json!({"model": MODEL, "messages": messages})
}

fn ollama_call(id: &str, name: &str) -> Value {
    json!({"id": id, "function": {"index": 0, "name": name, "arguments": {"path": "a"}}})
}

fn openai_call(id: &str, name: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{\"path\": \"a\"}"}})
}

fn problem(body: &Value, wire: Wire) -> String {
    check(body, wire).expect_err("the check let it through")
}

/// The real requests pass; each way of breaking the rule is caught.
#[test]
fn the_rule_on_each_wire() {
    check(
        &capture("ollama/raw/08-chat-stream-after-tool-result.request.json"),
        Wire::Ollama,
    )
    .unwrap();
    check(
        &capture("llama-server/raw/ls-07-chat-stream-after-tool-result.request.json"),
        Wire::OpenAi,
    )
    .unwrap();

    let user = json!({"role": "user", "content": "go"});
    // A result with no call before it.
    let stray = body(json!([user, {"role": "tool", "tool_name": "read_file", "content": "x"}]));
    assert!(problem(&stray, Wire::Ollama).contains("answers no call"));
    // Ollama: matched by id, by name, or in order when it has neither.
    let calls = json!({"role": "assistant", "content": "",
        "tool_calls": [ollama_call("call_1", "read_file"), ollama_call("call_2", "search")]});
    let answered = body(json!([user, calls,
        {"role": "tool", "tool_name": "search", "content": "s"},
        {"role": "tool", "content": "r"}]));
    check(&answered, Wire::Ollama).unwrap();
    let wrong_id = body(json!([user, calls,
        {"role": "tool", "tool_name": "read_file", "tool_call_id": "call_9", "content": "r"},
        {"role": "tool", "tool_name": "search", "tool_call_id": "call_2", "content": "s"}]));
    assert!(problem(&wrong_id, Wire::Ollama).contains("no call has the id `call_9`"));
    let wrong_name = body(json!([user, calls,
        {"role": "tool", "tool_name": "search", "tool_call_id": "call_1", "content": "r"}]));
    assert!(
        problem(&wrong_name, Wire::Ollama)
            .contains("it is named `search`, the call `call_1` is not")
    );
    let twice = body(json!([user, calls,
        {"role": "tool", "tool_name": "read_file", "tool_call_id": "call_1", "content": "r"},
        {"role": "tool", "tool_name": "read_file", "tool_call_id": "call_1", "content": "r"}]));
    assert!(problem(&twice, Wire::Ollama).contains("one is answered twice"));
    // A call left unanswered before the conversation goes on.
    let left = body(json!([user, calls,
        {"role": "tool", "tool_name": "read_file", "tool_call_id": "call_1", "content": "r"},
        {"role": "user", "content": "and?"}]));
    let why = problem(&left, Wire::Ollama);
    assert!(
        why.contains("`call_2` search") && why.contains("before message 3 (user)"),
        "{why}"
    );
    // A result after a user message answers nothing, even with a known id.
    let late = body(json!([user, calls,
        {"role": "tool", "tool_call_id": "call_1", "content": "r"},
        {"role": "tool", "tool_call_id": "call_2", "content": "s"},
        user,
        {"role": "tool", "tool_call_id": "call_1", "content": "r"}]));
    assert!(problem(&late, Wire::Ollama).contains("message 5 (tool) answers no call"));

    // OpenAI: by `tool_call_id` only, every call answered.
    let calls = json!({"role": "assistant", "content": null,
        "tool_calls": [openai_call("a1", "read_file"), openai_call("a2", "search")]});
    let answered = body(json!([user, calls,
        {"role": "tool", "tool_call_id": "a2", "content": "s"},
        {"role": "tool", "tool_call_id": "a1", "content": "r"}]));
    check(&answered, Wire::OpenAi).unwrap();
    let no_id = body(json!([user, calls, {"role": "tool", "content": "r"}]));
    assert!(problem(&no_id, Wire::OpenAi).contains("it has no tool_call_id"));
    let left = body(json!([user, calls, {"role": "tool", "tool_call_id": "a1", "content": "r"}]));
    assert!(problem(&left, Wire::OpenAi).contains("before the end of the request"));
    let blank = body(json!([user,
        {"role": "assistant", "tool_calls": [openai_call("", "read_file")]},
        {"role": "tool", "tool_call_id": "", "content": "r"}]));
    assert!(problem(&blank, Wire::OpenAi).contains("call 0 has no id"));
}

/// `POST path` with a JSON body; the status line and body of the answer.
fn post(url: &str, path: &str, body: &Value) -> (String, String) {
    let address = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(address).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

/// Either side answers a broken request with a 400 that says why, and the
/// server's handle panics on drop while the violation is kept.
#[test]
fn a_broken_request_gets_a_400_and_fails_the_test() {
    let server = FakeOllama::start(vec![Reply::answer("unused")]);
    let stray = json!([{"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "call_1", "content": "r"}]);
    let (status, text) = post(&server.url, "/api/chat", &body(stray.clone()));
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    assert!(text.contains("message 1 (tool) answers no call"), "{text}");
    let (status, text) = post(&server.url, "/v1/chat/completions", &body(stray));
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("answers no call"),
        "{text}"
    );
    let violations = server.take_violations();
    assert_eq!(violations.len(), 2, "{violations:?}");
    assert!(violations[0].starts_with("request 1 (POST /api/chat)"));
    assert!(violations[1].starts_with("request 2 (POST /v1/chat/completions)"));
    // The scripted reply is still there for a request that keeps the rule.
    let (status, _) = post(
        &server.url,
        "/api/chat",
        &body(json!([{"role": "user", "content": "go"}])),
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    drop(server);

    let server = FakeOllama::start(vec![]);
    let stray = body(json!([{"role": "tool", "content": "r"}]));
    post(&server.url, "/api/chat", &stray);
    let dropped = std::panic::catch_unwind(move || drop(server));
    let report = dropped.expect_err("dropping the handle did not fail the test");
    let report = report.downcast_ref::<String>().unwrap();
    assert!(
        report.contains("1 chat request(s) whose tool results do not answer"),
        "{report}"
    );
}
