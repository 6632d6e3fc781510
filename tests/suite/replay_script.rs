//! `scripts/replay-ollama.py`, the stand-in server the README offers for
//! trying `oc` without Ollama, really serves a run.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::TestEnv;

#[test]
fn replay_script_serves_the_readme_example() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let server = Command::new("python3")
        .arg(format!("{root}/scripts/replay-ollama.py"))
        .args(["--port", &port.to_string()])
        .arg(format!(
            "{root}/fixtures/ollama/07-chat-stream-tool-call.ndjson"
        ))
        .arg(format!(
            "{root}/fixtures/ollama/08-chat-stream-after-tool-result.ndjson"
        ))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _server = Stops(server);
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the replay server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() { println!(\"hi\"); }\n");
    // Run after run, as a reader trying the demo twice would; and with the
    // files read before the first request (grounding on), whose request
    // already holds oc's own assistant message.
    for grounding in ["ground", "ground", ""] {
        let out = env
            .oc_at(&format!("127.0.0.1:{port}"))
            .env("OC_DISABLE", grounding)
            .args(["run", "Read src/main.rs and tell me what it does."])
            .assert()
            .success();
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
        assert!(
            stdout.starts_with("I understand the file `src/main.rs`"),
            "{stdout}"
        );
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.contains("● read_file src/main.rs"), "{stderr}");
    }
    // It lists the one model it serves, and only that one.
    let out = env
        .oc_at(&format!("127.0.0.1:{port}"))
        .args(["models", "list"])
        .assert()
        .success();
    let listed = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(listed.contains("qwen2.5-coder:1.5b"), "{listed}");
    assert_eq!(listed.lines().skip(1).count(), 1, "{listed}");
}

/// A child process stopped when the test ends, passed or not.
struct Stops(std::process::Child);

impl Drop for Stops {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port already taken or a reply file that is not there is said in one
/// line, not a traceback.
#[test]
fn replay_script_says_what_is_wrong_in_one_line() {
    let root = env!("CARGO_MANIFEST_DIR");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let fixture = format!("{root}/fixtures/ollama/07-chat-stream-tool-call.ndjson");
    for (args, words) in [
        (
            vec!["--port", port.as_str(), fixture.as_str()],
            "cannot listen on 127.0.0.1:",
        ),
        (
            vec!["--port", "1", "no-such-file.ndjson"],
            "cannot read a reply file",
        ),
    ] {
        let out = Command::new("python3")
            .arg(format!("{root}/scripts/replay-ollama.py"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains(words), "{stderr}");
        assert!(!stderr.contains("Traceback"), "{stderr}");
    }
}
