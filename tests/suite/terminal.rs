//! The approval prompt on a real terminal: `oc` runs under `script`, which
//! gives it a pseudo-terminal, and the test types the answers.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::fake_ollama::{content_chunk, done_chunk};
use crate::common::{FakeOllama, MODEL, Reply, TestEnv, tool_messages};

const ENTER: &str = "\r";

/// `oc run ARGS` on a pseudo-terminal, with its screen output collected.
struct Terminal {
    child: Child,
    screen: Arc<Mutex<String>>,
}

impl Terminal {
    fn start(env: &TestEnv, server: &FakeOllama, args: &[&str]) -> Terminal {
        Terminal::start_with(env, server, args, &[])
    }

    /// Like [`Terminal::start`], with `extra` variables set last.
    fn start_with(
        env: &TestEnv,
        server: &FakeOllama,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> Terminal {
        let oc = assert_cmd::cargo::cargo_bin("oc");
        let mut line = shlex::try_quote(&oc.to_string_lossy()).unwrap().to_string();
        for arg in args {
            line.push(' ');
            line.push_str(&shlex::try_quote(arg).unwrap());
        }
        let mut child = Command::new("script")
            .args(["-q", "-e", "-c", &line, "/dev/null"])
            .current_dir(env.work())
            .env("OC_HOME", env.home.path())
            .env("HOME", env.home.path())
            .env("OLLAMA_HOST", &server.url)
            .env("OC_MODEL", MODEL)
            .env("TERM", "xterm")
            .env("NO_COLOR", "1")
            .envs(crate::common::LOOP_DEFAULTS)
            .envs(extra.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("`script` (util-linux) runs the terminal tests");
        let screen = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&screen);
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Terminal { child, screen }
    }

    fn wait_for(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.screen.lock().unwrap().contains(text) {
            assert!(
                Instant::now() < deadline,
                "{text:?} never appeared on the terminal:\n{}",
                self.screen.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn type_keys(&mut self, keys: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(keys.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn finish(mut self) -> (i32, String) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "oc did not finish");
            std::thread::sleep(Duration::from_millis(20));
        };
        std::thread::sleep(Duration::from_millis(100));
        let screen = self.screen.lock().unwrap().clone();
        (status.code().unwrap_or(-1), screen)
    }
}

fn write_call(path: &str) -> Reply {
    Reply::tool_calls(&[("write_file", json!({"path": path, "content": "hello\n"}))])
}

#[test]
fn yes_on_the_terminal_applies_the_change_after_showing_the_diff() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![write_call("a.txt"), Reply::answer("written")]);
    let mut term = Terminal::start(&env, &server, &["run", "write a"]);
    term.wait_for("Allow write_file?");
    term.type_keys(&format!("y{ENTER}"));
    let (code, screen) = term.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("+hello"), "the diff is shown: {screen}");
    assert_eq!(
        std::fs::read_to_string(env.work().join("a.txt")).unwrap(),
        "hello\n"
    );
    assert_eq!(env.session()["permissions"][0]["source"], "user");
    assert_eq!(env.session()["permissions"][0]["allowed"], true);
}

/// `n`, and Enter alone, decline: the change is not made.
#[test]
fn n_or_enter_alone_declines() {
    for keys in [format!("n{ENTER}"), ENTER.to_string()] {
        let env = TestEnv::new();
        let server = FakeOllama::start(vec![write_call("a.txt"), Reply::answer("ok")]);
        let mut term = Terminal::start(&env, &server, &["run", "write a"]);
        term.wait_for("Allow write_file?");
        term.type_keys(&keys);
        let (code, screen) = term.finish();
        assert_eq!(code, 4, "{keys:?} declines: {screen}");
        assert!(!env.work().join("a.txt").exists(), "{keys:?}");
    }
}

#[test]
fn no_with_a_reason_reaches_the_model() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![write_call("a.txt"), Reply::answer("ok")]);
    let mut term = Terminal::start(&env, &server, &["run", "write a"]);
    term.wait_for("Allow write_file?");
    term.type_keys(&format!("r{ENTER}"));
    term.wait_for("Reason");
    term.type_keys(&format!("use b.txt instead{ENTER}"));
    let (code, screen) = term.finish();
    assert_eq!(code, 4, "declined, the change is not made: {screen}");
    assert!(!env.work().join("a.txt").exists());
    let result = &tool_messages(&server.chat_requests()[1])[0]["content"];
    assert_eq!(
        result,
        "error: not approved: the user declined this call: use b.txt instead"
    );
}

#[test]
fn always_saves_the_rule_and_stops_asking() {
    let env = TestEnv::new();
    env.write(".ollama-code.json", "{\"model\": \"kept\"}\n");
    let server = FakeOllama::start(vec![
        write_call("a.txt"),
        Reply::tool_calls(&[("read_file", json!({"path": "a.txt"}))]),
        write_call("a.txt"),
        Reply::answer("done"),
    ]);
    let mut term = Terminal::start(&env, &server, &["run", "--model", MODEL, "write a twice"]);
    term.wait_for("Allow write_file?");
    term.type_keys(&format!("a{ENTER}"));
    let (code, screen) = term.finish();
    assert_eq!(code, 0, "{screen}");
    let config: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.work().join(".ollama-code.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(config["model"], "kept");
    assert_eq!(
        config["permissions"]["rules"],
        json!([{"action": "allow", "rule": "write(a.txt)"}])
    );
    let decisions = &env.session()["permissions"];
    assert_eq!(decisions[0]["source"], "user");
    assert_eq!(decisions[0]["rule"], "write(a.txt)");
    // The second write was allowed by the saved rule, without asking.
    assert_eq!(decisions[2]["source"], "rule");
    assert_eq!(decisions[2]["rule"], "write(a.txt)");
}

/// On a terminal a whole-format reply streams: its prose shows while the
/// reply is still coming, its file block as a progress line (the path, the
/// lines so far); the change is shown as a diff once the reply is read.
#[test]
fn a_whole_format_reply_streams_on_the_terminal() {
    let env = TestEnv::new();
    env.write("utils.py", "def last(items):\n    return items[-2]\n");
    let gate = env.home.path().join("gate");
    let mut lines: Vec<String> = ["The index ", "is one ", "too far.\n\n"]
        .iter()
        .map(|t| content_chunk(t))
        .collect();
    for line in ["utils.py\n", "```python\n", "def last(items):\n"] {
        lines.push(content_chunk(line));
    }
    lines.push(format!("#wait {}", gate.display()));
    for line in ["    return items[-1]\n", "```\n", "Done."] {
        lines.push(content_chunk(line));
    }
    lines.push(done_chunk("stop"));
    let server = FakeOllama::start(vec![Reply::lines(lines)]);
    let term = Terminal::start_with(
        &env,
        &server,
        &[
            "run",
            "--yes",
            "--edit-format",
            "whole",
            "fix last in utils.py",
        ],
        &[("OC_DISABLE", "")],
    );
    term.wait_for("The index is one too far.");
    term.wait_for("receiving utils.py: 1 line");
    assert_eq!(
        std::fs::read_to_string(env.work().join("utils.py")).unwrap(),
        "def last(items):\n    return items[-2]\n",
        "nothing applied while the reply streams"
    );
    std::fs::write(&gate, "").unwrap();
    let (code, screen) = term.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains("[utils.py in the reply: 2 lines]"),
        "{screen}"
    );
    assert!(
        screen.contains("+    return items[-1]"),
        "the diff: {screen}"
    );
    assert!(screen.contains("Done."), "{screen}");
    assert!(
        !screen.contains("```"),
        "the block is not shown as text: {screen}"
    );
}
