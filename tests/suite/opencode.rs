//! `--runtime opencode` against a fake opencode server that replays real
//! captures of opencode 1.18.33 driving a real model
//! (`fixtures/opencode/`): streamed output, permissions decided by oc
//! (both reply endpoints), abort on signals and `--timeout`, a dropped
//! event stream, errors, and the session and record kept by oc.

use std::process::Stdio;

use serde_json::{Value, json};

use super::signals::{send, wait};
use crate::common::TestEnv;
use crate::common::fake_opencode::{FakeOpencode, Scenario};

const MODEL: &str = "ollama/qwen2.5-coder-brackettags:1.5b";

/// `oc run --runtime opencode --opencode-url URL --model MODEL ARGS…`.
fn oc(env: &TestEnv, fake: &FakeOpencode) -> assert_cmd::Command {
    let mut cmd = env.oc_at(&fake.url);
    cmd.args([
        "run",
        "--runtime",
        "opencode",
        "--opencode-url",
        &fake.url,
        "--model",
        MODEL,
    ]);
    cmd
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn a_read_is_streamed_and_recorded() {
    let env = TestEnv::new();
    let fake = FakeOpencode::start(Scenario::new("11-read-event.sse", "11-read-messages.json"));
    let answer = env.work().join("answer.txt");
    let out = oc(&env, &fake)
        .args(["--task", "answer", "--output-format", "stream-json", "-o"])
        .arg(&answer)
        .arg("Read notes.txt and tell me its first line.")
        .assert()
        .success();
    // opencode runs its own loop: oc's routing does not reach it.
    let stderr = stderr_of(out.get_output());
    assert!(stderr.contains("--task ignored"), "{stderr}");
    let events = events(&stdout_of(out.get_output()));
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"session.started"));
    assert_eq!(kinds.last(), Some(&"session.completed"));
    let call = events
        .iter()
        .find(|e| e["type"] == "tool.call")
        .expect("a tool.call");
    assert_eq!(call["name"], "read");
    assert_eq!(
        call["arguments"]["filePath"],
        "/home/user/project/notes.txt"
    );
    let result = events
        .iter()
        .find(|e| e["type"] == "tool.result")
        .expect("a tool.result");
    assert_eq!(result["ok"], true);
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("alpha: first line")
    );
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "content.delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(!text.is_empty());
    let summary = events.last().unwrap();
    assert_eq!(summary["exit_code"], 0);
    let written = std::fs::read_to_string(&answer).unwrap();
    assert_eq!(
        written.trim_end(),
        summary["final_text"].as_str().unwrap().trim_end()
    );
    assert!(!written.trim().is_empty());
    assert_eq!(summary["turns"], 2);
    assert_eq!(summary["tool_calls"], 1);
    assert!(summary["usage"]["prompt_tokens"].as_u64().unwrap() > 0);

    let session = env.session();
    assert_eq!(session["runtime"], "opencode");
    assert_eq!(session["status"], "finished");
    let roles: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    let record = &env.finetune()[0];
    assert_eq!(record["runtime"], "opencode");
    assert_eq!(record["success"], true);
    assert_eq!(
        record["messages"][1]["tool_calls"][0]["function"]["arguments"]["filePath"],
        "/home/user/project/notes.txt",
        "arguments are objects"
    );
}

#[test]
fn permissions_are_decided_by_oc() {
    // --yes: both writes allowed, answered on the current endpoint.
    let env = TestEnv::new();
    let fake = FakeOpencode::start(Scenario::new(
        "21-prompt-event.sse",
        "21-prompt-messages.json",
    ));
    let out = oc(&env, &fake)
        .args(["--yes", "--output-format", "json", "write hello.txt"])
        .assert()
        .success();
    let replies = fake.replies();
    assert_eq!(replies.len(), 2, "{replies:?}");
    for (path, body) in &replies {
        assert!(
            path.starts_with("/permission/") && path.ends_with("/reply"),
            "{path}"
        );
        assert_eq!(body, &json!({"reply": "once"}));
    }
    let summary: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert_eq!(summary["files_changed"], json!(["hello.txt"]));
    let permissions = &env.session()["permissions"];
    assert_eq!(permissions[0]["tool"], "edit");
    assert_eq!(permissions[0]["detail"], "hello.txt");
    assert_eq!(permissions[0]["source"], "yes");

    // A deny rule beats --yes.
    let env = TestEnv::new();
    let fake = FakeOpencode::start(Scenario::new(
        "21-prompt-event.sse",
        "21-prompt-messages.json",
    ));
    oc(&env, &fake)
        .args(["--yes", "--deny", "write(hello.txt)", "write hello.txt"])
        .assert()
        .success();
    assert!(
        fake.replies()
            .iter()
            .all(|(_, b)| b == &json!({"reply": "reject"}))
    );
    assert_eq!(env.session()["permissions"][0]["source"], "rule");
}

#[test]
fn without_a_terminal_an_ask_is_a_rejection_and_exit_5() {
    let env = TestEnv::new();
    let fake = FakeOpencode::start(Scenario::new(
        "24-prompt-event.sse",
        "24-prompt-messages.json",
    ));
    let out = oc(&env, &fake)
        .args(["Call the bash tool with command: ls -la"])
        .assert()
        .code(5);
    assert_eq!(fake.replies()[0].1, json!({"reply": "reject"}));
    let stderr = stderr_of(out.get_output());
    assert!(
        stderr.contains("ls -la") && stderr.contains("--allow 'bash(ls -la)'"),
        "{stderr}"
    );
    assert_eq!(env.session()["permissions"][0]["source"], "no_approver");
}

#[test]
fn the_older_reply_endpoint_is_used_where_the_newer_is_missing() {
    let env = TestEnv::new();
    let mut scenario = Scenario::new("22-prompt-event.sse", "22-prompt-messages.json");
    scenario.legacy_only = true;
    let fake = FakeOpencode::start(scenario);
    oc(&env, &fake).args(["--yes", "run wc"]).assert().success();
    let legacy: Vec<_> = fake
        .replies()
        .into_iter()
        .filter(|(path, _)| path.contains("/permissions/"))
        .collect();
    assert_eq!(legacy.len(), 3, "{:?}", fake.replies());
    assert!(
        legacy
            .iter()
            .all(|(_, body)| body == &json!({"response": "once"}))
    );
}

#[test]
fn signals_and_the_timeout_abort_the_session() {
    for (signal, code) in [(Some("INT"), 130), (Some("TERM"), 143), (None, 124)] {
        let env = TestEnv::new();
        let mut scenario = Scenario::new("31-abort-event.sse", "31-abort-messages.json");
        scenario.hang_after = Some(12);
        let fake = FakeOpencode::start(scenario);
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("oc"));
        cmd.current_dir(env.work())
            .env("OC_HOME", env.home.path())
            .env("NO_COLOR", "1")
            .args([
                "run",
                "--runtime",
                "opencode",
                "--opencode-url",
                &fake.url,
                "--model",
                MODEL,
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if signal.is_none() {
            cmd.args(["--timeout", "2s"]);
        }
        let mut child = cmd.arg("a story").spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !fake
            .requests()
            .iter()
            .any(|r| r.path.ends_with("/prompt_async"))
        {
            assert!(std::time::Instant::now() < deadline, "no prompt");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        if let Some(signal) = signal {
            send(&child, signal);
        }
        assert_eq!(wait(&mut child).code(), Some(code));
        assert!(
            fake.requests()
                .iter()
                .any(|r| r.method == "POST" && r.path.ends_with("/abort")),
            "no abort after {signal:?}"
        );
        let session = env.session();
        let status = if code == 124 {
            "timed_out"
        } else {
            "interrupted"
        };
        assert_eq!(session["status"], status);
        assert!(!session["messages"].as_array().unwrap().is_empty());
    }
}

/// The read capture has 149 frames: dropped after 100, the second
/// connection finishes it; dropped every 60, the second drop is the end
/// (exit 3).
#[test]
fn a_dropped_event_stream_is_opened_again_once() {
    for (drop_after, code) in [(100, 0), (60, 3)] {
        let env = TestEnv::new();
        let mut scenario = Scenario::new("11-read-event.sse", "11-read-messages.json");
        scenario.drop_after = Some(drop_after);
        let fake = FakeOpencode::start(scenario);
        let out = oc(&env, &fake).arg("read").assert().code(code);
        let opened = fake
            .requests()
            .iter()
            .filter(|r| r.path == "/event")
            .count();
        assert_eq!(opened, 2, "dropped every {drop_after}");
        let stderr = stderr_of(out.get_output());
        assert!(stderr.contains("opening it again"), "{stderr}");
        if code == 3 {
            assert_eq!(env.session()["status"], "failed");
        }
    }
}

/// A real run where the model wrote its call as text: opencode ran
/// nothing, and the run must not look like a success. Before: its text
/// went to `-o` as an answer.
#[test]
fn a_call_written_as_text_is_not_a_success() {
    let env = TestEnv::new();
    let fake = FakeOpencode::start(Scenario::new(
        "60-text-call-event.sse",
        "60-text-call-messages.json",
    ));
    let answer = env.work().join("answer.txt");
    let out = (oc(&env, &fake).arg("-o").arg(&answer))
        .arg("Read notes.txt")
        .assert()
        .code(1);
    let stderr = stderr_of(out.get_output());
    assert!(stderr.contains("tool call written as text"), "{stderr}");
    // No answer, so no `-o` file: one rule in both runtimes.
    assert!(!answer.exists());
    let record = &env.finetune()[0];
    assert_eq!(record["success"], false);
    assert_eq!(record["unexecuted_call"], true);
}

#[test]
fn an_unknown_model_exits_3() {
    let env = TestEnv::new();
    let fake = FakeOpencode::start(Scenario::new(
        "40-errors-event.sse",
        "43-unknown-model-messages.json",
    ));
    let out = oc(&env, &fake).arg("hi").assert().code(3);
    let stderr = stderr_of(out.get_output());
    assert!(stderr.contains("Model not found"), "{stderr}");
}

#[test]
fn bad_setups_are_said_before_anything_runs() {
    let env = TestEnv::new();
    let fake = FakeOpencode::start(Scenario::new("11-read-event.sse", "11-read-messages.json"));
    // A model without its provider.
    let out = env
        .oc_at(&fake.url)
        .args([
            "run",
            "--runtime",
            "opencode",
            "--opencode-url",
            &fake.url,
            "--model",
            "qwen",
            "x",
        ])
        .assert()
        .code(2);
    assert!(stderr_of(out.get_output()).contains("PROVIDER/MODEL"));
    // What only oc's own loop does.
    for flag in [
        ["--check", "true"],
        ["--image", "x.png"],
        ["--output-schema", "x.json"],
    ] {
        oc(&env, &fake).args(flag).arg("x").assert().code(2);
    }
    for url in ["not-a-url", "127.0.0.1:4096", "ftp://127.0.0.1:1", ""] {
        let out = env
            .oc_at(&fake.url)
            .args([
                "run",
                "--runtime",
                "opencode",
                "--opencode-url",
                url,
                "--model",
                MODEL,
                "x",
            ])
            .assert()
            .code(2);
        assert!(
            stderr_of(out.get_output()).contains("give an http URL"),
            "{url}"
        );
    }
    assert!(fake.requests().is_empty(), "nothing was sent");
    // No server given and no opencode on PATH.
    let out = env
        .oc_at(&fake.url)
        .env("PATH", "/nonexistent")
        .args(["run", "--runtime", "opencode", "--model", MODEL, "x"])
        .assert()
        .code(3);
    let stderr = stderr_of(out.get_output());
    assert!(
        stderr.contains("opencode") && stderr.contains("npm install"),
        "{stderr}"
    );
}
