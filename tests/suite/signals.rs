//! SIGINT, SIGTERM and SIGHUP: the run stops its stream and tools, saves the
//! session as interrupted and exits 130, 143 or 129.

use std::io::Read;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::fake_ollama::{End, content_chunk};
use crate::common::{FakeOllama, Reply, TestEnv};
use crate::common::{kill_named, processes_named, wait_for_processes};

pub(super) fn send(child: &Child, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

pub(super) fn wait(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("oc did not stop after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stalled_answer() -> Reply {
    Reply::Stream {
        lines: vec![content_chunk("Hello "), content_chunk("wor")],
        split: None,
        end: End::Stall,
    }
}

/// Stops a run mid-answer: the events on stdout say when the first
/// tokens are in (a piped text stdout gets a reply only once it is read).
fn interrupt_mid_answer(signal: &str, times: usize, code: i32) {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![stalled_answer()]);
    let mut child = env
        .oc_process(&server)
        .args(["run", "--output-format", "stream-json", "greet"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 64];
    while !String::from_utf8_lossy(&seen).contains("\"wor\"") {
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "stdout closed early");
        seen.extend_from_slice(&buf[..n]);
    }
    for _ in 0..times {
        send(&child, signal);
    }
    let status = wait(&mut child);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(code), "{stderr}");
    assert!(
        stderr.contains(&format!("stopped by SIG{signal}")),
        "{stderr}"
    );
    let session = env.session();
    assert_eq!(session["status"], "interrupted");
    assert_eq!(
        session["aborted_reply"],
        json!({"aborted": true, "content": "Hello wor"})
    );
    assert_eq!(
        session["messages"].as_array().unwrap().len(),
        2,
        "no partial message in the history"
    );
    let record = &env.finetune()[0];
    assert_eq!(record["success"], false);
}

#[test]
fn sigint_after_the_first_tokens_saves_the_partial_answer_and_exits_130() {
    interrupt_mid_answer("INT", 1, 130);
}

#[test]
fn sigterm_exits_143() {
    interrupt_mid_answer("TERM", 1, 143);
}

/// The terminal closed: the run saves as for SIGTERM, also when the hangup
/// comes twice (the terminal and the shell, or `timeout` to its child and
/// then its group).
#[test]
fn sighup_exits_129_and_saves_even_when_it_comes_twice() {
    interrupt_mid_answer("HUP", 2, 129);
}

#[test]
fn sigint_during_bash_stops_the_command_and_its_children() {
    let env = TestEnv::new();
    let marker = format!("oc-sigint-{}", std::process::id());
    let command = format!("bash -c 'exec -a {marker} sleep 300' & exec -a {marker} sleep 300");
    let server = FakeOllama::start(vec![Reply::tool_calls(&[(
        "bash",
        json!({"command": command}),
    )])]);
    let mut child = env.spawn_oc(&server, &["run", "--yes", "sleep"], true);
    wait_for_processes(&marker, 2);
    send(&child, "INT");
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(130));
    let left = processes_named(&marker);
    assert!(left.is_empty(), "left behind: {left:?}");
    let session = env.session();
    assert_eq!(session["status"], "interrupted");
    let last = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["content"], "interrupted: result unknown");
    assert_eq!(
        last["tool_call_id"],
        session["messages"][2]["tool_calls"][0]["id"]
    );
}

/// A second SIGINT ends the process at once, even while the first one's
/// cleanup waits for a command that ignores SIGTERM.
#[test]
fn a_second_sigint_exits_at_once() {
    let env = TestEnv::new();
    let marker = format!("oc-double-sigint-{}", std::process::id());
    let command = format!("trap '' TERM; bash -c 'trap \"\" TERM; exec -a {marker} sleep 30'");
    let server = FakeOllama::start(vec![Reply::tool_calls(&[(
        "bash",
        json!({"command": command}),
    )])]);
    let mut child = env.spawn_oc(&server, &["run", "--yes", "sleep"], false);
    wait_for_processes(&marker, 1);
    send(&child, "INT");
    std::thread::sleep(Duration::from_millis(100));
    let second = Instant::now();
    send(&child, "INT");
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(130));
    assert!(
        second.elapsed() < Duration::from_millis(1500),
        "took {:?}",
        second.elapsed()
    );
    kill_named(&marker);
}
