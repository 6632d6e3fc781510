//! The scriptable surface: JSON output, `-o`, `--quiet`, `--timeout`,
//! `--no-save`, resuming, and the other subcommands.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::fake_ollama::{End, content_chunk, done_chunk, tool_call_chunk};
use crate::common::{FakeOllama, MODEL, Reply, TestEnv, tool_messages};
use crate::common::{kill_named, wait_for_processes};

fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).to_string()
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).to_string()
}

fn write_then_answer() -> Vec<Reply> {
    vec![
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "hello.txt", "content": "hello\n"}),
        )]),
        Reply::answer("Done."),
    ]
}

/// Every stream-json line is one JSON object with `type` and
/// `schema_version`; the last is `session.completed`. The whole sequence is
/// pinned by a snapshot (ids, paths and times redacted).
#[test]
fn stream_json_events() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(write_then_answer());
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--output-format",
            "stream-json",
            "create hello.txt",
        ])
        .assert()
        .success();
    let stdout = stdout_of(out.get_output());
    let events: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for event in &events {
        assert!(event["type"].is_string(), "{event}");
        assert_eq!(event["schema_version"], 1, "{event}");
    }
    assert_eq!(events.last().unwrap()["type"], "session.completed");
    assert!(
        !stderr_of(out.get_output()).contains('{'),
        "no JSON on stderr"
    );
    insta::assert_json_snapshot!("stream_json_events", events, {
        "[].session_id" => "[session]",
        "[].cwd" => "[cwd]",
        "[].duration_ms" => "[ms]",
    });
}

#[test]
fn json_output_is_one_object() {
    let env = TestEnv::new();
    let server = FakeOllama::start(write_then_answer());
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--output-format",
            "json",
            "create hello.txt",
        ])
        .assert()
        .success();
    let stdout = stdout_of(out.get_output());
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["session_id"], env.session()["id"]);
    insta::assert_json_snapshot!("json_output", summary, {
        ".session_id" => "[session]",
        ".duration_ms" => "[ms]",
    });
}

/// A run that cannot start still answers in JSON, with its exit code.
#[test]
fn json_output_reports_errors_before_the_run() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--model", "nope:1b", "--output-format", "json", "x"])
        .assert()
        .code(3);
    let error: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert_eq!(error["type"], "error");
    assert_eq!(error["exit_code"], 3);
    assert!(error["message"].as_str().unwrap().contains("nope:1b"));
}

#[test]
fn last_message_file_and_quiet() {
    let env = TestEnv::new();
    let server = FakeOllama::start(write_then_answer());
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--quiet",
            "-o",
            "answer.md",
            "create hello.txt",
        ])
        .assert()
        .success();
    assert_eq!(stdout_of(out.get_output()), "Done.\n");
    assert_eq!(
        stderr_of(out.get_output()),
        "",
        "--quiet leaves only the answer"
    );
    assert_eq!(
        std::fs::read_to_string(env.work().join("answer.md")).unwrap(),
        "Done.\n"
    );
    // `oc plan --out FILE` writes the plan.
    let server = FakeOllama::start(vec![Reply::answer("1. Do it.")]);
    env.oc(&server)
        .args(["plan", "--out", "plan.md", "plan"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(env.work().join("plan.md")).unwrap(),
        "1. Do it.\n"
    );
    // A run stopped by `--max-turns` has no answer: nothing is written,
    // even when its last reply had text beside a call.
    let server = FakeOllama::start(vec![Reply::lines(vec![
        content_chunk("Let me look first."),
        tool_call_chunk(&[("list_files", json!({"pattern": "*"}))]),
        done_chunk("stop"),
    ])]);
    env.oc(&server)
        .args(["plan", "--max-turns", "1", "--out", "stopped.md", "plan"])
        .assert()
        .code(4);
    assert!(!env.work().join("stopped.md").exists());
}

#[test]
fn timeout_ends_the_run_with_124() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::Stream {
        lines: vec![content_chunk("Thinking about it")],
        split: None,
        end: End::Stall,
    }]);
    let started = Instant::now();
    let out = env
        .oc(&server)
        .args(["run", "--timeout", "1s", "x"])
        .assert()
        .code(124);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(stderr_of(out.get_output()).contains("timed out after 1s"));
    let session = env.session();
    assert_eq!(session["status"], "timed_out");
    assert_eq!(session["aborted_reply"]["content"], "Thinking about it");
    env.oc(&server)
        .args(["run", "--timeout", "soon", "x"])
        .assert()
        .code(2);
}

#[test]
fn idle_stream_is_given_up_after_the_configured_time() {
    let env = TestEnv::new();
    env.write(".ollama-code.json", r#"{"idle_timeout_secs": 1}"#);
    let server = FakeOllama::start(vec![Reply::Stream {
        lines: vec![content_chunk("Hel")],
        split: None,
        end: End::Stall,
    }]);
    let out = env.oc(&server).args(["run", "x"]).assert().code(1);
    let stderr = stderr_of(out.get_output());
    assert!(stderr.contains("sent nothing for 1s"), "{stderr}");
    assert!(stderr.contains("idle_timeout_secs"), "{stderr}");
}

#[test]
fn no_save_writes_nothing() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("hi")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "--no-save", "hi"])
        .assert()
        .success();
    assert!(env.sessions().is_empty());
    assert!(env.finetune().is_empty());
}

/// `oc run --yes` killed with SIGKILL while `bash "sleep 60"` runs; then
/// `--resume ID "continue"` sends a valid request: the unanswered call gets
/// a synthetic result.
#[test]
fn resume_after_sigkill_repairs_the_history() {
    let env = TestEnv::new();
    let marker = format!("oc-resume-{}", std::process::id());
    let command = format!("exec -a {marker} sleep 60");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("bash", json!({"command": command}))]),
        Reply::answer("Continuing."),
    ]);
    let mut child = env.spawn_oc(&server, &["run", "--yes", "wait"], false);
    wait_for_processes(&marker, 1);
    child.kill().unwrap();
    child.wait().unwrap();
    // SIGKILL cannot be caught: the command outlives oc. Clean it up.
    kill_named(&marker);
    let id = env.session()["id"].as_str().unwrap().to_string();
    assert_eq!(env.session()["status"], "running");

    let out = env
        .oc(&server)
        .args(["run", "--resume", &id[..10], "continue"])
        .assert()
        .code(4);
    assert_eq!(stdout_of(out.get_output()), "Continuing.\n");
    let request = &server.chat_requests()[1];
    let roles: Vec<&str> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
    let repaired = &tool_messages(request)[0];
    assert_eq!(repaired["content"], "interrupted: result unknown");
    assert_eq!(
        repaired["tool_call_id"],
        request["messages"][2]["tool_calls"][0]["id"]
    );
    assert_eq!(request["messages"][4]["content"], "continue");
    let first = &server.chat_requests()[0];
    assert_eq!(
        first["messages"][0], request["messages"][0],
        "the system prompt is byte-stable"
    );
    let session = env.session();
    assert_eq!(session["id"], id.as_str());
    // The resumed run answered and changed nothing.
    assert_eq!(session["status"], "stuck");
    assert_eq!(session["turns"], 2);
}

#[test]
fn continue_picks_the_newest_session_of_this_directory() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("first"), Reply::answer("second")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "one"])
        .assert()
        .success();
    env.oc(&server)
        .args(["run", "--task", "answer", "--continue", "two"])
        .assert()
        .success();
    assert_eq!(env.sessions().len(), 1);
    let messages = server.chat_requests()[1]["messages"].clone();
    assert_eq!(messages[1]["content"], "one");
    assert_eq!(messages[2]["content"], "first");
    assert_eq!(messages[3]["content"], "two");
    let other = TestEnv::new();
    let out = other
        .oc(&server)
        .args(["run", "--task", "answer", "--continue", "x"])
        .assert()
        .code(2);
    assert!(stderr_of(out.get_output()).contains("no saved session was started in"));
}

#[test]
fn sessions_list_show_and_rm() {
    let env = TestEnv::new();
    let server = FakeOllama::start(write_then_answer());
    env.oc(&server)
        .args(["run", "--yes", "create hello.txt"])
        .assert()
        .success();
    let id = env.session()["id"].as_str().unwrap().to_string();

    let out = env
        .oc(&server)
        .args(["sessions", "list"])
        .assert()
        .success();
    let listing = stdout_of(out.get_output());
    assert!(listing.starts_with("ID"), "{listing}");
    assert!(
        listing.contains(&id)
            && listing.contains("finished")
            && listing.contains("create hello.txt")
    );
    let out = env
        .oc(&server)
        .args(["sessions", "list", "--json"])
        .assert()
        .success();
    let rows: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert_eq!(rows[0]["id"], id.as_str());
    assert_eq!(rows[0]["status"], "finished");

    let out = env
        .oc(&server)
        .args(["sessions", "show", &id])
        .assert()
        .success();
    let transcript = stdout_of(out.get_output());
    assert!(
        transcript.contains("user: create hello.txt"),
        "{transcript}"
    );
    assert!(transcript.contains("→ write_file"), "{transcript}");
    assert!(transcript.contains("tool write_file:"), "{transcript}");
    assert!(transcript.contains("assistant: Done."), "{transcript}");
    let out = env
        .oc(&server)
        .args(["sessions", "show", "--json", &id])
        .assert()
        .success();
    let raw: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert_eq!(raw["id"], id.as_str());
    env.oc(&server)
        .args(["sessions", "show", "nope"])
        .assert()
        .code(2);

    // Without a terminal, rm needs --yes and removes nothing otherwise.
    let out = env
        .oc(&server)
        .args(["sessions", "rm", &id])
        .write_stdin("")
        .assert()
        .code(2);
    assert!(stderr_of(out.get_output()).contains("--yes"));
    assert_eq!(env.sessions().len(), 1);
    env.oc(&server)
        .args(["sessions", "rm", "--yes", &id])
        .assert()
        .success();
    assert!(env.sessions().is_empty());
}

#[test]
fn chat_sends_no_tools() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("Paris.")]);
    let out = env
        .oc(&server)
        .args(["chat", "capital of France?"])
        .assert()
        .success();
    assert_eq!(stdout_of(out.get_output()), "Paris.\n");
    let request = &server.chat_requests()[0];
    assert!(request.get("tools").is_none(), "{request}");
    assert_eq!(env.session()["mode"], "chat");
}

#[test]
fn models_list_and_show() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env.oc(&server).args(["models"]).assert().success();
    let table = stdout_of(out.get_output());
    assert!(table.starts_with("NAME"), "{table}");
    assert!(
        table.contains("qwen2.5-coder:1.5b") && table.contains("Q4_K_M") && table.contains("32768")
    );
    let out = env
        .oc(&server)
        .args(["models", "list", "--json"])
        .assert()
        .success();
    let rows: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 4);
    let modified: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["modified_at"].as_str().unwrap())
        .collect();
    let mut sorted = modified.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(modified, sorted, "recent first");
    assert_eq!(
        rows[0]["capabilities"],
        json!(["completion", "tools", "insert"])
    );
    let out = env
        .oc(&server)
        .args(["models", "show", MODEL])
        .assert()
        .success();
    let details = stdout_of(out.get_output());
    assert!(details.contains("context length 32768"), "{details}");
    assert!(details.contains("completion, tools, insert"), "{details}");
    env.oc(&server)
        .args(["models", "show", "nope:1b"])
        .assert()
        .code(3);
}

#[test]
fn completions_for_known_shells() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["completions", "bash"])
        .assert()
        .success();
    assert!(stdout_of(out.get_output()).contains("_oc()"));
    env.oc(&server)
        .args(["completions", "tcsh"])
        .assert()
        .code(2);
}

#[test]
fn utf16_stdin_with_a_bom_is_read() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("ok")]);
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend("fix the tests".encode_utf16().flat_map(u16::to_le_bytes));
    env.oc(&server)
        .args(["run", "--task", "answer", "-"])
        .write_stdin(bytes)
        .assert()
        .success();
    assert_eq!(
        server.chat_requests()[0]["messages"][1]["content"],
        "fix the tests"
    );
}

#[test]
fn done_chunk_usage_reaches_turn_events() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::lines(vec![
        content_chunk("hi"),
        done_chunk("stop"),
    ])]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--output-format",
            "stream-json",
            "x",
        ])
        .assert()
        .success();
    let completed: Value = stdout_of(out.get_output())
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "turn.completed")
        .unwrap();
    assert_eq!(
        completed["usage"],
        json!({"prompt_tokens": 253, "completion_tokens": 27})
    );
}

/// `--timeout` covers the `--check` command too.
#[test]
fn timeout_stops_the_check() {
    let env = TestEnv::new();
    let marker = format!("oc-check-timeout-{}", std::process::id());
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    let started = Instant::now();
    let check = format!("exec -a {marker} sleep 30");
    env.oc(&server)
        .args([
            "run",
            "--timeout",
            "2s",
            "--no-precheck",
            "--check",
            &check,
            "x",
        ])
        .assert()
        .code(124);
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(crate::common::processes_named(&marker).is_empty());
    let record = &env.finetune()[0];
    assert_eq!(record["success"], false);
    assert_eq!(record["check"]["passed"], false);
    assert_eq!(env.session()["status"], "timed_out");
    // The check before the first request stops the same way, and nothing
    // is sent to the model.
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("done")]);
    let started = Instant::now();
    env.oc(&server)
        .args(["run", "--timeout", "2s", "--check", &check, "x"])
        .assert()
        .code(124);
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(crate::common::processes_named(&marker).is_empty());
    assert!(server.chat_requests().is_empty());
    let session = env.session();
    assert_eq!(session["status"], "timed_out");
    assert_eq!(session["precheck"]["passed"], false);
    assert_eq!(session["precheck"]["exit_code"], Value::Null);
}

/// Scripts asking for JSON get JSON errors, also for bad arguments and for
/// a timeout before the run began.
#[test]
fn json_errors_for_bad_arguments_and_early_timeouts() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    for args in [
        vec!["run", "--output-format", "json", "--timeout", "5x", "x"],
        vec![
            "run",
            "--output-format=stream-json",
            "--max-turns",
            "0",
            "x",
        ],
    ] {
        let out = env.oc(&server).args(&args).assert().code(2);
        let error: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
        assert_eq!(error["type"], "error", "{args:?}");
        assert_eq!(error["exit_code"], 2);
    }
    // A server that accepts connections and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let out = env
        .oc_at(&url)
        .args(["run", "--timeout", "1s", "--output-format", "json", "x"])
        .assert()
        .code(124);
    let error: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert_eq!(error["exit_code"], 124);
    drop(listener);
}

#[test]
fn resuming_in_another_mode_is_refused() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("a")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "one"])
        .assert()
        .success();
    let out = env
        .oc(&server)
        .args(["chat", "--continue", "two"])
        .assert()
        .code(2);
    assert!(stderr_of(out.get_output()).contains("is a code session"));
    env.oc(&server)
        .args(["run", "--task", "answer", "--continue", "--dry-run", "two"])
        .assert()
        .code(2);
}

/// A run that fails mid-stream says so in an `error` event before
/// `session.completed`.
#[test]
fn stream_json_reports_mid_run_errors() {
    let env = TestEnv::new();
    for reply in [
        Reply::lines(vec![content_chunk("a"), "{\"model\": tru".to_string()]),
        Reply::lines(vec![
            content_chunk("a"),
            json!({"error": "runner died"}).to_string(),
        ]),
        Reply::Stream {
            lines: vec![content_chunk("a")],
            split: None,
            end: End::Clean,
        },
    ] {
        let server = FakeOllama::start(vec![reply]);
        let out = env
            .oc(&server)
            .args(["run", "--output-format", "stream-json", "x"])
            .assert()
            .code(1);
        let events: Vec<Value> = stdout_of(out.get_output())
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            types[types.len() - 2..],
            ["error", "session.completed"],
            "{types:?}"
        );
    }
}

/// A last-message file that cannot be written fails the run: a script
/// waiting for it must not see success.
#[test]
fn unwritable_last_message_file_fails_the_run() {
    let env = TestEnv::new();
    std::fs::create_dir(env.work().join("answer.md")).unwrap();
    let server = FakeOllama::start(vec![Reply::answer("hi")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "-o", "answer.md", "x"])
        .assert()
        .code(1);
    assert!(stderr_of(out.get_output()).contains("cannot write the last message"));
}

/// Regression: a session whose `tool_calls[].function.arguments` are JSON
/// strings (older files, other tools, hand edits) was replayed as strings on
/// `--resume`, which a real Ollama rejects (HTTP 400). They are read as
/// objects, and the repair is recorded.
#[test]
fn resumed_string_arguments_are_sent_as_objects() {
    let env = TestEnv::new();
    env.write("a.txt", "hi\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "a.txt"}))]),
        Reply::answer("Read."),
        Reply::answer("Again."),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "read a.txt"])
        .assert()
        .success();
    let path = env
        .home
        .path()
        .join("sessions")
        .join(format!("{}.json", env.session()["id"].as_str().unwrap()));
    let mut saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    saved["messages"][2]["tool_calls"][0]["function"]["arguments"] = json!("{\"path\": \"a.txt\"}");
    let edited = serde_json::to_string_pretty(&saved).unwrap();
    std::fs::write(&path, &edited).unwrap();
    env.oc(&server)
        .args(["run", "--task", "answer", "--continue", "once more"])
        .assert()
        .success();
    let request = &server.chat_requests()[2];
    assert_eq!(
        request["messages"][2]["tool_calls"][0]["function"]["arguments"],
        json!({"path": "a.txt"})
    );
    let session = env.session();
    assert_eq!(
        session["repairs"][0]["notes"][0],
        "arguments saved as a JSON string were read as the object"
    );
    // Everything else goes out as it was saved.
    assert_eq!(request["messages"][0], saved["messages"][0]);
    assert_eq!(request["messages"][3], saved["messages"][3]);
}

/// Regression: after `--continue` the `json` result mixed session totals
/// (`turns`, `usage`) with this run's `tool_calls`. Each figure is this
/// run's; the session's have their own names.
#[test]
fn json_reports_this_run_and_the_session_apart() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("list_files", json!({"pattern": "*"}))]),
        Reply::answer("Listed."),
        Reply::answer("Again."),
    ]);
    env.oc(&server).args(["run", "list"]).assert().success();
    let out = env
        .oc(&server)
        .args(["run", "--continue", "--output-format", "json", "and now?"])
        .assert()
        .success();
    let result: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(result["turns"], 1);
    assert_eq!(result["tool_calls"], 0);
    assert_eq!(
        result["usage"],
        json!({"prompt_tokens": 253, "completion_tokens": 27})
    );
    assert_eq!(result["session_turns"], 3);
    assert_eq!(result["session_usage"]["prompt_tokens"], 253 * 3);
}

/// Regression: a byte that is not UTF-8 in an argument panicked (exit 101).
#[test]
fn a_non_utf8_argument_is_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    for args in [
        vec!["run", "--output-format", "json"],
        vec!["sessions", "show"],
    ] {
        let bad = std::ffi::OsStr::from_bytes(b"fix caf\xe9 bug");
        let out = env.oc(&server).args(&args).arg(bad).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            stderr.contains("is not valid UTF-8: byte 0xE9 at offset 7"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
