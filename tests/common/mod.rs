//! Test support: the fake Ollama server and a temp environment (an `OC_HOME`,
//! a workspace that is a real git repository, no terminal).

pub(crate) mod fake_ollama;
pub(crate) mod fake_opencode;
pub(crate) mod http;
pub(crate) mod openai_dialect;
pub(crate) mod tool_results;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

pub(crate) use fake_ollama::{FakeOllama, MODEL, Reply};
pub(crate) use openai_dialect::openai_mode;

/// What most tests run with: the tool-call loop on its own, with no files
/// read before the first turn, whatever the model. Tests of grounding and
/// of the edit formats override these.
pub(crate) const LOOP_DEFAULTS: [(&str, &str); 2] =
    [("OC_EDIT_FORMAT", "tools"), ("OC_DISABLE", "ground")];

/// With `OC_TEST_PROVIDER=openai`: `oc` talks to the fake server's
/// OpenAI-compatible side (`OC_PROVIDER=openai`, `OPENAI_BASE_URL=URL/v1`).
pub(crate) fn provider_env(url: &str) -> Vec<(&'static str, String)> {
    if openai_mode() {
        vec![
            ("OC_PROVIDER", "openai".to_string()),
            ("OPENAI_BASE_URL", format!("{url}/v1")),
        ]
    } else {
        Vec::new()
    }
}

/// True (after saying why on stderr) when the suite runs against the
/// OpenAI-compatible side: the calling test is about Ollama's own wire
/// format (`num_ctx`, `/api/show` capabilities, Ollama's messages) and
/// proves nothing there. `tests/suite/openai.rs` covers that side's wire.
pub(crate) fn ollama_wire_only() -> bool {
    if openai_mode() {
        eprintln!("skipped with OC_TEST_PROVIDER=openai: a test of Ollama's wire format");
    }
    openai_mode()
}

/// A temp `OC_HOME` and a temp workspace with `git init` done.
pub(crate) struct TestEnv {
    pub home: tempfile::TempDir,
    pub work: tempfile::TempDir,
}

impl TestEnv {
    pub(crate) fn new() -> TestEnv {
        let env = TestEnv {
            home: tempfile::tempdir().unwrap(),
            work: tempfile::tempdir().unwrap(),
        };
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(env.work.path())
            .status()
            .unwrap();
        assert!(status.success());
        env
    }

    /// Runs `git ARGS` in the workspace; its stdout. Panics when git fails.
    pub(crate) fn git(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(self.work())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// Commits everything in the workspace.
    pub(crate) fn commit_all(&self) {
        self.git(&["add", "-A"]);
        let who = ["-c", "user.name=t", "-c", "user.email=t@t"];
        self.git(&[&who[..], &["commit", "-qm", "start"]].concat());
    }

    /// The workspace path.
    pub(crate) fn work(&self) -> &Path {
        self.work.path()
    }

    /// Writes a file in the workspace.
    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.work().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The real `oc` binary in the workspace, pointed at `server`, with this
    /// `OC_HOME`, no colour and the default test model.
    pub(crate) fn oc(&self, server: &FakeOllama) -> Command {
        self.oc_at(&server.url)
    }

    /// Like [`TestEnv::oc`] for any server URL.
    pub(crate) fn oc_at(&self, url: &str) -> Command {
        let mut cmd = Command::cargo_bin("oc").unwrap();
        cmd.current_dir(self.work())
            .env_remove("OC_MODEL")
            .env_remove("OLLAMA_HOST")
            .env("OC_HOME", self.home.path())
            .env("HOME", self.home.path())
            .env("OLLAMA_HOST", url)
            .env("OC_MODEL", MODEL)
            .env("NO_COLOR", "1")
            .envs(LOOP_DEFAULTS)
            .envs(provider_env(url))
            .timeout(std::time::Duration::from_secs(60));
        cmd
    }

    /// The `oc` binary as a plain `std::process::Command`, for tests that
    /// need control over stdin and the child's lifetime.
    pub(crate) fn oc_process(&self, server: &FakeOllama) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("oc"));
        cmd.current_dir(self.work())
            .env("OC_HOME", self.home.path())
            .env("HOME", self.home.path())
            .env("OLLAMA_HOST", &server.url)
            .env("OC_MODEL", MODEL)
            .env("NO_COLOR", "1")
            .envs(LOOP_DEFAULTS)
            .envs(provider_env(&server.url));
        cmd
    }

    /// `oc ARGS` started in the background, with no stdin and its output
    /// thrown away (stderr kept when `keep_stderr`).
    pub(crate) fn spawn_oc(
        &self,
        server: &FakeOllama,
        args: &[&str],
        keep_stderr: bool,
    ) -> std::process::Child {
        use std::process::Stdio;
        self.oc_process(server)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(if keep_stderr {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .spawn()
            .unwrap()
    }

    /// Every saved session, oldest first.
    pub(crate) fn sessions(&self) -> Vec<Value> {
        let dir = self.home.path().join("sessions");
        let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
            Err(_) => return Vec::new(),
        };
        paths.sort();
        paths
            .iter()
            .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
            .collect()
    }

    /// The only saved session.
    pub(crate) fn session(&self) -> Value {
        let mut sessions = self.sessions();
        assert_eq!(sessions.len(), 1, "expected one session");
        sessions.remove(0)
    }

    /// The lines of `finetune.jsonl`, parsed.
    pub(crate) fn finetune(&self) -> Vec<Value> {
        match std::fs::read_to_string(self.home.path().join("finetune.jsonl")) {
            Ok(text) => text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// Command lines of the processes whose command line contains `marker`.
pub(crate) fn processes_named(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) {
            found.push(cmdline);
        }
    }
    found
}

/// Waits (20 s at most) until `count` processes with `marker` run.
pub(crate) fn wait_for_processes(marker: &str, count: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while processes_named(marker).len() < count {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Kills the processes whose command line contains `marker`.
pub(crate) fn kill_named(marker: &str) {
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
    }
}

/// The tool messages of a chat request body.
pub(crate) fn tool_messages(request: &Value) -> Vec<Value> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

/// The text of each tool message of a chat request body.
pub(crate) fn tool_results(request: &Value) -> Vec<String> {
    tool_messages(request)
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

/// A fake server that asks for `commands` as bash calls in one reply, then
/// answers "done".
pub(crate) fn bash_calls(commands: &[&str]) -> FakeOllama {
    let calls: Vec<(&str, Value)> = commands
        .iter()
        .map(|c| ("bash", serde_json::json!({ "command": c })))
        .collect();
    FakeOllama::start(vec![Reply::tool_calls(&calls), Reply::answer("done")])
}
