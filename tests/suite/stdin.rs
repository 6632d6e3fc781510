//! Prompt sources: words, `-`, piped stdin; silent pipes never block.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{FakeOllama, Reply, TestEnv};

fn user_message(server: &FakeOllama) -> String {
    server.chat_requests()[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn piped_stdin_is_appended_to_the_prompt() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("msg")]);
    env.oc(&server)
        .args(["run", "write", "a", "commit", "message"])
        .write_stdin("diff --git a/x b/x\n")
        .assert()
        .success();
    assert_eq!(
        user_message(&server),
        "write a commit message\n\n<stdin>\ndiff --git a/x b/x\n</stdin>"
    );
}

#[test]
fn dash_or_no_words_read_the_prompt_from_stdin() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("a"), Reply::answer("b")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "-"])
        .write_stdin("\u{feff}fix the tests\n")
        .assert()
        .success();
    env.oc(&server)
        .args(["run"])
        .write_stdin("fix the tests\n")
        .assert()
        .code(4);
    let requests = server.chat_requests();
    assert_eq!(requests[0]["messages"][1]["content"], "fix the tests\n");
    assert_eq!(requests[1]["messages"][1]["content"], "fix the tests\n");
}

#[test]
fn empty_or_invalid_prompts_exit_2() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run"])
        .write_stdin("  \n")
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("the prompt is empty"));
    env.oc(&server).args(["run", ""]).assert().code(2);
    let out = env
        .oc(&server)
        .args(["run", "-"])
        .write_stdin(b"ok\xff".to_vec())
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("offset 2"));
    assert!(server.requests().is_empty());
}

/// Runs `oc` with a stdin pipe that stays open and silent (like
/// `sleep 60 | oc run "say hi"`); returns how long it took and its status.
fn run_with_silent_pipe(
    env: &TestEnv,
    server: &FakeOllama,
) -> (Duration, std::process::ExitStatus) {
    let started = Instant::now();
    let mut child = env
        .oc_process(server)
        .args(["run", "say hi"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Keep the write end open and silent until the run is over.
    let stdin = child.stdin.take().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("oc blocked on a silent stdin");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    (started.elapsed(), status)
}

/// Regression guard: a silent, open stdin never blocks a run that has a
/// prompt (`sleep 60 | oc run "say hi"`).
#[test]
fn silent_open_stdin_does_not_block() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("hi")]);
    let (_, status) = run_with_silent_pipe(&env, &server);
    assert!(status.success());
    assert_eq!(user_message(&server), "say hi");
}

#[test]
fn dev_null_stdin_adds_nothing() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("hi")]);
    let status = env
        .oc_process(&server)
        .args(["run", "say hi"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(user_message(&server), "say hi");
}

#[test]
fn stdout_closed_early_is_not_a_crash() {
    let env = TestEnv::new();
    // Long: written in many chunks.
    let long: String = (0..400).map(|i| format!("word{i} ")).collect();
    let server = FakeOllama::start(vec![Reply::answer(&long)]);
    let mut child = env
        .oc_process(&server)
        .args(["run", "--task", "answer", "talk"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let _ = std::io::stdout().flush();
}

/// Regression: a closed stderr (`oc run x 2>&1 | head`) made every status
/// line panic with "failed printing to stderr".
#[test]
fn stderr_closed_early_is_not_a_crash() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("list_files", serde_json::json!({"pattern": "*"}))]),
        Reply::answer("done"),
    ]);
    let mut child = env
        .oc_process(&server)
        .args(["run", "--task", "answer", "look"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(env.session()["status"], "finished");
}
