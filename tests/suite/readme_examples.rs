//! Every example of the README and the `docs/` pages that talks to a
//! model runs here, as pasted, against
//! the fake server: the real `/api/show` of `qwen2.5-coder:1.5b` (a small
//! model, so the defaults pick whole files) and the replies the real model
//! sent for the same command (`fixtures/ollama/real-model/oc/`, the replay
//! demo's own captures). An example that breaks fails CI; one that cannot
//! run here is listed with why.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{FakeOllama, MODEL, Reply, TestEnv, ollama_wire_only};

/// README.md and every page of `docs/`, one after the other (each file's
/// code blocks are closed within it).
fn readme() -> String {
    let mut files = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/README.md"
    ))];
    files.extend(super::docs::docs_pages());
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The shell lines of the README and the pages that run `oc run`, `oc plan`
/// or `oc chat`.
fn model_lines(readme: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_block = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let talks = ["oc run ", "oc plan ", "oc chat "]
            .iter()
            .any(|c| line.contains(c));
        if in_block && talks {
            lines.push(line.trim().to_string());
        }
    }
    lines
}

/// The line of the README and the pages that contains `part` (exactly one).
fn line_with(readme: &str, part: &str) -> String {
    let found: Vec<&str> = readme.lines().filter(|l| l.contains(part)).collect();
    assert_eq!(found.len(), 1, "lines with `{part}`: {found:?}");
    found[0].trim().to_string()
}

/// Runs `script` with `sh` in `dir`, `oc` on `PATH` pointed at `server` as
/// a user's environment would (model configured, no test defaults).
fn sh(env: &TestEnv, server: &FakeOllama, dir: &Path, script: &str) -> Output {
    let oc = assert_cmd::cargo::cargo_bin("oc");
    let path = format!(
        "{}:{}",
        oc.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("OC_HOME", env.home.path())
        .env("HOME", env.home.path())
        .env("OLLAMA_HOST", &server.url)
        .env("OC_MODEL", MODEL)
        .env("NO_COLOR", "1")
        .env_remove("OC_EDIT_FORMAT")
        .env_remove("OC_DISABLE")
        .env_remove("OC_PROVIDER")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// The examples this file runs, by a part of their line; the others and
/// why they cannot run here.
const RUN_HERE: [&str; 7] = [
    "git diff | oc run \"write a commit message\"",
    "oc plan \"how would you split",
    "OLLAMA_HOST=127.0.0.1:11500 oc run",
    "oc run --output-schema review.schema.json",
    "--on-fail revert \"fix the failing test\"",
    "--attempts 3 \"fix the failing test\"",
    "--attempts 4 \"mean of no numbers is 0.0\"",
];
const NOT_HERE: [(&str, &str); 9] = [
    (
        "oc run \"fix the failing tests\"",
        "asks a person at a terminal before each change",
    ),
    ("\"bump deps\"", "needs a project with dependencies to bump"),
    (
        "--model qwen2.5-coder:7b",
        "a change in the reader's own project with a 7B model",
    ),
    (
        "--base-url http://127.0.0.1:8080/v1",
        "needs llama-server from scripts/local-model.sh",
    ),
    ("--runtime opencode --model", "needs an opencode server"),
    (
        "--fallback-model qwen2.5-coder:7b",
        "a Rust project and a 7B model; escalation runs in tests/suite/attempts.rs",
    ),
    (
        "--runtime opencode --opencode-url",
        "needs an opencode server",
    ),
    (
        "--attempts 3 --timeout 30m \"fix the failing tests\"",
        "a GitLab CI job with an Ollama service; the action's run script runs in tests/suite/action.rs",
    ),
    (
        "--timeout 20m \"fix the failing tests\" < /dev/null",
        "a CI job in a Rust project; the same flags run in tests/suite/action.rs",
    ),
];

/// No example that talks to a model goes untested unawares.
#[test]
fn every_model_example_is_run_here_or_says_why_not() {
    for line in model_lines(&readme()) {
        let known = RUN_HERE.iter().any(|p| line.contains(p))
            || NOT_HERE.iter().any(|(p, _)| line.contains(p));
        assert!(known, "example without a test: {line}");
    }
}

/// The headline: a commit message for a piped diff, with the real model's
/// reply: exit 0, the message on stdout, no file changed.
#[test]
fn the_commit_message_example() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    git(env.work(), &["config", "user.email", "t@example.com"]);
    git(env.work(), &["config", "user.name", "t"]);
    env.write("stats.py", "def mean(xs):\n    return sum(xs) / len(xs)\n");
    git(env.work(), &["add", "-A"]);
    git(env.work(), &["commit", "-qm", "init"]);
    let changed =
        "def mean(xs):\n    if not xs:\n        return 0.0\n    return sum(xs) / len(xs)\n";
    env.write("stats.py", changed);
    let server = FakeOllama::start(vec![Reply::fixture(
        "real-model/oc/commit-message-1_5b.ndjson",
    )]);
    let line = line_with(&readme(), RUN_HERE[0]);
    let example = line.split(" #").next().unwrap();
    let out = sh(&env, &server, env.work(), example);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("fix: add missing zero check in mean function"),
        "{}",
        text(&out.stdout)
    );
    let now = std::fs::read_to_string(env.work().join("stats.py")).unwrap();
    assert_eq!(now, changed, "no file changed");
    let request = &server.chat_requests()[0];
    assert!(request.get("tools").is_none(), "an answer offers no tool");
}

/// The undo example: a run whose check still fails puts the tree back,
/// and `oc undo` then finds nothing left to put back.
#[test]
fn the_on_fail_revert_example() {
    let env = TestEnv::new();
    let stats = "def mean(xs):\n    return sum(xs) / len(xs)\n";
    env.write("stats.py", stats);
    env.write(
        "test_stats.py",
        "import unittest\nfrom stats import mean\n\n\nclass T(unittest.TestCase):\n    def test_empty(self):\n        self.assertEqual(mean([]), 0.0)\n",
    );
    let wrong = |n: usize| {
        Reply::answer(&format!(
            "stats.py\n```python\ndef mean(xs):\n    return sum(xs) / max(len(xs), 1) + {n}\n```\n"
        ))
    };
    let server = FakeOllama::start((1..=4).map(wrong).collect());
    let line = line_with(&readme(), RUN_HERE[4]);
    let out = sh(&env, &server, env.work(), &line);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--on-fail revert: the run failed (exit 6); put back stats.py"),
        "{}",
        text(&out.stderr)
    );
    let now = std::fs::read_to_string(env.work().join("stats.py")).unwrap();
    assert_eq!(now, stats);
    for example in ["oc undo --dry-run", "oc undo"] {
        let out = sh(&env, &server, env.work(), example);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("already as the run found them"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// A project whose one test fails: `mean([])` must be 0.0.
fn failing_mean(env: &TestEnv) -> &'static str {
    let stats = "def mean(xs):\n    return sum(xs) / len(xs)\n";
    env.write("stats.py", stats);
    env.write(
        "test_stats.py",
        "import unittest\nfrom stats import mean\n\n\nclass T(unittest.TestCase):\n    def test_empty(self):\n        self.assertEqual(mean([]), 0.0)\n",
    );
    stats
}

/// Whole-file replies: `wrong` wrong ones (one for each check round of
/// a try), then the fix.
fn tries_then_the_fix(wrong: usize) -> Vec<Reply> {
    let whole = |body: &str| Reply::answer(&format!("stats.py\n```python\n{body}```\n"));
    let mut replies: Vec<Reply> = (1..=wrong)
        .map(|n| {
            whole(&format!(
                "def mean(xs):\n    return sum(xs) / max(len(xs), 1) + {n}\n"
            ))
        })
        .collect();
    replies.push(whole(
        "def mean(xs):\n    return sum(xs) / len(xs) if xs else 0.0\n",
    ));
    replies
}

/// The attempts example: a first try whose check fails in each of its
/// three rounds is set aside, the second passes.
#[test]
fn the_attempts_example() {
    let env = TestEnv::new();
    failing_mean(&env);
    let server = FakeOllama::start(tries_then_the_fix(3));
    let line = line_with(&readme(), RUN_HERE[5]);
    let out = sh(&env, &server, env.work(), &line);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("attempt 1 of 3 (qwen2.5-coder:1.5b): the check failed (1 failing)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("attempt 2 of 3 (qwen2.5-coder:1.5b): the check passed"),
        "{stderr}"
    );
    let now = std::fs::read_to_string(env.work().join("stats.py")).unwrap();
    assert!(now.contains("if xs else 0.0"), "{now}");
}

/// The verified-training-data example: of two tries only the passing one
/// is exported.
#[test]
fn the_verified_training_data_example() {
    let env = TestEnv::new();
    failing_mean(&env);
    let server = FakeOllama::start(tries_then_the_fix(3));
    let readme = readme();
    let first = line_with(&readme, RUN_HERE[6]);
    let script = format!("{first}\noc export-ft --success-only --out train.jsonl");
    let out = sh(&env, &server, env.work(), &script);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let train = std::fs::read_to_string(env.work().join("train.jsonl")).unwrap();
    assert_eq!(train.lines().count(), 1, "{train}");
    assert!(train.contains("if xs else 0.0"));
}

/// `oc plan` with the real model's three replies (calls written as bare
/// JSON, then an apology for its own regex): it reads, changes nothing and
/// ends with exit 0. The answer is poor; the plumbing holds. (The capture
/// was made on a Python `agent.py`; the README names `agent.rs`.)
#[test]
fn the_plan_example() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write(
        "agent.py",
        "class Agent:\n    def __init__(self, model):\n        self.model = model\n",
    );
    let server = FakeOllama::start(
        ["01", "02", "03"]
            .iter()
            .map(|t| Reply::fixture(&format!("real-model/oc/plan-split-1_5b-turn{t}.ndjson")))
            .collect(),
    );
    let line = line_with(&readme(), RUN_HERE[1]);
    let example = line
        .split(" #")
        .next()
        .unwrap()
        .replace("agent.rs", "agent.py");
    let out = sh(&env, &server, env.work(), &example);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("read_file agent.py"),
        "{}",
        text(&out.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(env.work()).unwrap().collect();
    assert_eq!(files.len(), 2, "agent.py and .git only");
}

/// The replay demo of the Quick start, as pasted: its `printf` line and its
/// `oc run` line, with the two captures it replays.
#[test]
fn the_replay_demo() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let readme = readme();
    let server = FakeOllama::start(vec![
        Reply::fixture("07-chat-stream-tool-call.ndjson"),
        Reply::fixture("08-chat-stream-after-tool-result.ndjson"),
    ]);
    let setup = line_with(&readme, "mkdir -p demo/src && cd demo");
    let printf = line_with(&readme, "printf 'fn main() {");
    let run = line_with(&readme, RUN_HERE[2]);
    let host = server.url.trim_start_matches("http://");
    let script = format!(
        "{setup}\n{printf}\n{}",
        run.replace("127.0.0.1:11500", host)
    );
    let out = sh(&env, &server, env.work(), &script);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer = text(&out.stdout);
    assert!(answer.contains("Hello, world!"), "{answer}");
    assert!(text(&out.stderr).contains("read_file src/main.rs"));
}

/// The structured answer of the Output section, as pasted (its schema
/// heredoc and its command), up to the `jq` that reads the value.
#[test]
fn the_output_schema_example() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write("stats.py", "def mean(xs):\n    return sum(xs) / len(xs)\n");
    let readme = readme();
    let start = readme.find("cat > review.schema.json <<'JSON'").unwrap();
    let end = start + readme[start..].find("\nJSON\n").unwrap() + "\nJSON\n".len();
    let heredoc = &readme[start..end];
    let run = line_with(&readme, RUN_HERE[3]);
    let run = run.split(" | jq").next().unwrap();
    let server = FakeOllama::start(vec![Reply::fixture(
        "real-model/oc/structured-review-1_5b.ndjson",
    )]);
    let out = sh(&env, &server, env.work(), &format!("{heredoc}{run}"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["risk"], "medium");
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}
