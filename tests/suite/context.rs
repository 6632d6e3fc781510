//! Context that fits and lasts: the token count, a prompt the server cut,
//! compaction, and a prefix that stays byte-stable between turns.

use serde_json::{Value, json};

use crate::common::fake_ollama::{content_chunk, done_chunk, tool_call_chunk};
use crate::common::{FakeOllama, Reply, TestEnv};

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

/// A final chunk with the server's own counts.
fn done_with(prompt_eval_count: u64) -> String {
    let mut done: Value = serde_json::from_str(&done_chunk("stop")).unwrap();
    done["prompt_eval_count"] = json!(prompt_eval_count);
    done.to_string()
}

/// The issue's case: a 4,096-token context, about 8,500 tokens sent, 2,051
/// evaluated. Ollama cut the prompt silently; `oc` says so, records it, and
/// the run is not a success.
#[test]
fn a_prompt_the_server_cut_is_reported() {
    let env = TestEnv::new();
    let long: String = (0..4_000)
        .map(|i| format!("line {i} of the log\n"))
        .collect();
    env.write("log.txt", &long);
    let server = FakeOllama::start(vec![Reply::lines(vec![
        content_chunk("The log is long."),
        done_with(2_051),
    ])])
    .with_model("small:1b", &["completion", "tools"], 4_096);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--no-compact",
            "--model",
            "small:1b",
            "summarise this",
            "-",
        ])
        .write_stdin(long)
        .assert()
        .success();
    let stderr = stderr_of(&out);
    assert!(stderr.contains("the server cut the prompt"), "{stderr}");
    assert!(
        stderr.contains("it evaluated 2051 (num_ctx 4096)"),
        "{stderr}"
    );
    assert_eq!(env.session()["truncated_turns"], json!([1]));
    let id = env.session()["id"].as_str().unwrap().to_string();
    let shown = env
        .oc(&server)
        .args(["sessions", "show", &id])
        .assert()
        .success();
    let shown = String::from_utf8_lossy(&shown.get_output().stdout).to_string();
    assert!(
        shown.contains("the server cut the prompt at turn 1"),
        "{shown}"
    );
    let record = &env.finetune()[0];
    assert_eq!(record["success"], false);
    assert_eq!(record["truncated_turns"], json!([1]));
}

/// A server or proxy that ignores `num_ctx`: about 12,000 tokens sent with
/// num_ctx 32,768, and 2,051 evaluated. The prompt fit, yet most of it was
/// dropped; `oc` says so, records it, and the run is not a success.
#[test]
fn a_server_that_ignores_num_ctx_is_reported() {
    let env = TestEnv::new();
    let long: String = (0..2_400)
        .map(|i| format!("line {i} of the log\n"))
        .collect();
    let server = FakeOllama::start(vec![Reply::lines(vec![
        content_chunk("The log is long."),
        done_with(2_051),
    ])]);
    let out = env
        .oc(&server)
        .env("OC_DISABLE", "ground")
        .args([
            "run",
            "--num-ctx",
            "32768",
            "--output-format",
            "json",
            "summarise this",
            "-",
        ])
        .write_stdin(long)
        .assert()
        .success();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("it evaluated 2051, although num_ctx is 32768"),
        "{stderr}"
    );
    assert!(stderr.contains("ignores num_ctx"), "{stderr}");
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(result["truncated_turns"], json!([1]), "{result}");
    assert_eq!(env.session()["truncated_turns"], json!([1]));
    assert_eq!(env.finetune()[0]["success"], false);
}

/// Sixty reads of large files in an 8,192-token context: old results are
/// dropped as the conversation passes 75 %, the run completes, `--max-turns`
/// counts every turn, and the session keeps what was replaced.
#[test]
fn a_long_run_of_large_reads_is_compacted() {
    let env = TestEnv::new();
    let mut replies = Vec::new();
    for n in 0..60 {
        let body: String = (0..150)
            .map(|i| format!("file {n} row {i:03} data\n"))
            .collect();
        env.write(&format!("data/f{n:02}.txt"), &body);
        replies.push(Reply::tool_calls(&[(
            "read_file",
            json!({"path": format!("data/f{n:02}.txt")}),
        )]));
    }
    replies.push(Reply::answer("Read all sixty."));
    let server = FakeOllama::start(replies)
        .with_model("small:1b", &["completion", "tools"], 8_192)
        .counting()
        .summarising("Goal: read every file in data/. Read f00 to f40.");
    let out = env
        .oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--model",
            "small:1b",
            "--max-turns",
            "61",
            "--output-format",
            "stream-json",
            "read every file in data/",
        ])
        .assert()
        .success();
    let events: Vec<Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.iter().filter(|e| e["type"] == "compaction").count() >= 5);
    let last = events.last().unwrap();
    assert_eq!(last["turns"], 61, "{last}");
    assert_eq!(last["status"], "finished");
    // No request came near the context.
    for request in server.chat_requests() {
        let bytes = request["messages"].to_string().len() + request["tools"].to_string().len();
        assert!(
            bytes / 4 < 8_192 * 9 / 10,
            "a request of about {} tokens",
            bytes / 4
        );
    }
    let session = env.session();
    let markers = session["compactions"].as_array().unwrap();
    assert_eq!(markers[0]["kind"], "stubbed", "old results go first");
    assert!(
        markers[0]["replaced"][0]["content"]
            .as_str()
            .unwrap()
            .contains("row 149")
    );
    assert_eq!(env.finetune()[0]["success"], true);
}

/// When dropping old results is not enough, the older part is summarised
/// by one request (not a turn), and the run goes on from the summary.
#[test]
fn long_replies_are_summarised() {
    let env = TestEnv::new();
    let mut replies = Vec::new();
    for n in 0..4 {
        let text: String = (0..120)
            .map(|i| format!("thought {n}.{i} about the design\n"))
            .collect();
        replies.push(Reply::lines(vec![
            content_chunk(&text),
            tool_call_chunk(&[("list_files", json!({"pattern": "*"}))]),
            done_chunk("stop"),
        ]));
    }
    replies.push(Reply::answer("Done."));
    let server = FakeOllama::start(replies)
        .with_model("small:1b", &["completion", "tools"], 4_096)
        .counting()
        .summarising("Goal: design. Listed files four times.");
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--model",
            "small:1b",
            "think it through",
        ])
        .assert()
        .success();
    let requests = server.chat_requests();
    let at = requests
        .iter()
        .position(|r| {
            r["messages"][0]["content"]
                .as_str()
                .unwrap()
                .starts_with("You summarise")
        })
        .expect("a summary request");
    let summary_request = &requests[at];
    assert!(summary_request.get("tools").is_none());
    let after = &requests[at + 1]["messages"];
    assert_eq!(
        after[1]["content"], "think it through",
        "the prompt is kept"
    );
    assert!(
        after[2]["content"]
            .as_str()
            .unwrap()
            .ends_with("Listed files four times.")
    );
    let session = env.session();
    assert_eq!(session["turns"], 5, "the summary request is not a turn");
    assert!(
        session["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["kind"] == "summarized")
    );
}

/// Between turns every byte already sent is sent again unchanged, so the
/// server can reuse its cache: each request's messages begin with the
/// previous request's messages, and the system prompt and tools never change.
#[test]
fn every_request_extends_the_previous_one() {
    for format in ["tools", "whole"] {
        let env = TestEnv::new();
        env.write("a.py", "x = 1\n");
        let replies = match format {
            "tools" => vec![
                Reply::tool_calls(&[("read_file", json!({"path": "a.py"}))]),
                Reply::tool_calls(&[("list_files", json!({"pattern": "*"}))]),
                Reply::tool_calls(&[(
                    "edit_file",
                    json!({"path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}),
                )]),
                Reply::answer("Done."),
            ],
            _ => vec![
                Reply::answer("a.py\n```python\nx = 2\nx\n```"),
                Reply::answer("a.py\n```python\nx = 2\n```"),
            ],
        };
        let server = FakeOllama::start(replies);
        env.oc(&server)
            .env("OC_EDIT_FORMAT", format)
            .env("OC_DISABLE", "")
            .args([
                "run",
                "--yes",
                "--check",
                "test \"$(cat a.py)\" = 'x = 2'",
                "fix a.py",
            ])
            .assert()
            .success();
        let requests = server.chat_requests();
        assert!(requests.len() >= 2, "{format}");
        for pair in requests.windows(2) {
            let (earlier, later) = (&pair[0], &pair[1]);
            assert_eq!(earlier["tools"], later["tools"], "{format}");
            let before = earlier["messages"].as_array().unwrap();
            let after = later["messages"].as_array().unwrap();
            assert!(after.len() > before.len(), "{format}");
            assert_eq!(
                &after[..before.len()],
                &before[..],
                "{format}: the prefix changed"
            );
        }
    }
}

/// The user's prompt is never cut: one that cannot fit stops the run with
/// exit 4 before anything is sent, naming the context size.
#[test]
fn a_prompt_larger_than_the_context_stops_with_exit_4() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("never asked")]).with_model(
        "small:1b",
        &["completion", "tools"],
        4_096,
    );
    let big: String = (0..1_500)
        .map(|i| format!("entry {i:04} of the input\n"))
        .collect();
    let out = env
        .oc(&server)
        .args(["run", "--model", "small:1b", "summarise this", "-"])
        .write_stdin(big)
        .assert()
        .code(4);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("more than the context of 4096 tokens"),
        "{stderr}"
    );
    assert!(stderr.contains("Raise `--num-ctx`"), "{stderr}");
    assert!(server.chat_requests().is_empty(), "nothing was sent");
    assert_eq!(env.session()["status"], "stuck");
}

/// A single result too big for the context is cut to what fits, head and
/// tail, the omitted size named; the run goes on.
#[test]
fn a_result_too_big_for_the_context_is_cut() {
    let env = TestEnv::new();
    let body: String = (0..500)
        .map(|i| format!("row {i:03} of a long table\n"))
        .collect();
    env.write("table.txt", &body);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "table.txt"}))]),
        Reply::answer("It is a table."),
    ])
    .with_model("small:1b", &["completion", "tools"], 4_096)
    .counting();
    env.oc(&server)
        .args(["run", "--model", "small:1b", "what is in table.txt?"])
        .assert()
        .success();
    let requests = server.chat_requests();
    let result = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.contains("row 000"), "the head is kept: {result}");
    assert!(result.contains("row 499"), "the tail is kept");
    assert!(result.contains("bytes omitted"), "{result}");
    let session = env.session();
    let markers = session["compactions"].as_array().unwrap();
    assert!(markers.iter().any(|m| m["kind"] == "cut"), "{markers:?}");
}

/// `--no-compact` leaves the conversation whole; a resumed run goes on
/// from the compacted state, not from the full history.
#[test]
fn no_compact_keeps_everything_and_resume_keeps_the_compaction() {
    let reads = |env: &TestEnv, count: usize| {
        let mut replies = Vec::new();
        for n in 0..count {
            let body: String = (0..150)
                .map(|i| format!("file {n} row {i:03} data\n"))
                .collect();
            env.write(&format!("data/f{n:02}.txt"), &body);
            replies.push(Reply::tool_calls(&[(
                "read_file",
                json!({"path": format!("data/f{n:02}.txt")}),
            )]));
        }
        replies.push(Reply::answer("Read them."));
        replies
    };
    let env = TestEnv::new();
    let server = FakeOllama::start(reads(&env, 8))
        .with_model("small:1b", &["completion", "tools"], 32_768)
        .counting();
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--no-compact",
            "--model",
            "small:1b",
            "read data/",
        ])
        .assert()
        .success();
    assert!(env.session().get("compactions").is_none(), "none recorded");
    let last = server.chat_requests().pop().unwrap();
    let whole = last["messages"].as_array().unwrap();
    assert_eq!(whole.iter().filter(|m| m["role"] == "tool").count(), 8);
    assert!(
        whole
            .iter()
            .all(|m| !m["content"].as_str().unwrap().contains("was dropped"))
    );

    let env = TestEnv::new();
    let server = FakeOllama::start(reads(&env, 8))
        .with_model("small:1b", &["completion", "tools"], 8_192)
        .counting();
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--compact-at",
            "50",
            "--model",
            "small:1b",
            "read data/",
        ])
        .assert()
        .success();
    assert!(!env.session()["compactions"].as_array().unwrap().is_empty());
    let id = env.session()["id"].as_str().unwrap().to_string();
    let shown = env
        .oc(&server)
        .args(["sessions", "show", &id])
        .assert()
        .success();
    let shown = String::from_utf8_lossy(&shown.get_output().stdout).to_string();
    assert!(
        shown.contains("compactions (the full messages are in `--json`):"),
        "{shown}"
    );
    assert!(shown.contains(": stubbed at message "), "{shown}");
    let server = FakeOllama::start(vec![Reply::answer("Still read.")]).with_model(
        "small:1b",
        &["completion", "tools"],
        8_192,
    );
    env.oc(&server)
        .args([
            "run", "--task", "answer", "--resume", &id, "--model", "small:1b", "and now?",
        ])
        .assert()
        .success();
    let first = &server.chat_requests()[0]["messages"];
    let stubs = first
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["content"]
                .as_str()
                .unwrap()
                .contains("was dropped to save context")
        })
        .count();
    assert!(
        stubs >= 1,
        "the resumed run starts from the compacted state"
    );
}

/// When the recent turns alone pass the limit, compaction does not run on
/// every turn (each one breaks the server's cached prefix), a summary is
/// only made of a part worth it, and every compaction reports fewer tokens
/// after than before.
#[test]
fn compaction_does_not_repeat_every_turn() {
    let env = TestEnv::new();
    let mut replies = Vec::new();
    for n in 0..12 {
        let text: String = (0..60)
            .map(|i| format!("step {n}.{i}: weighing the options\n"))
            .collect();
        replies.push(Reply::lines(vec![
            content_chunk(&text),
            tool_call_chunk(&[("list_files", json!({"pattern": format!("*{n}")}))]),
            done_chunk("stop"),
        ]));
    }
    replies.push(Reply::answer("Done."));
    let server = FakeOllama::start(replies)
        .with_model("small:1b", &["completion", "tools"], 8_192)
        .counting()
        .summarising("Goal: weigh the options. Listed files twelve times.");
    let out = env
        .oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--model",
            "small:1b",
            "--compact-at",
            "30",
            "--output-format",
            "stream-json",
            "think it through",
        ])
        .assert()
        .success();
    let events: Vec<Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let compactions: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .collect();
    assert!(!compactions.is_empty());
    assert!(
        compactions.len() <= 6,
        "{} compactions in 13 turns",
        compactions.len()
    );
    for c in &compactions {
        assert!(c["after"].as_u64() < c["before"].as_u64(), "{c}");
    }
    // A summary replaces at least an eighth of the context, never a scrap.
    let session = env.session();
    for marker in session["compactions"].as_array().unwrap() {
        if marker["kind"] == "summarized" {
            let bytes: usize = (marker["replaced"].as_array().unwrap().iter())
                .map(|m| m["content"].as_str().unwrap().len())
                .sum();
            assert!(bytes >= 8_192 / 8 * 3, "a summary of {bytes} bytes");
        }
    }
}
