//! `--dry-run`: the first request of a run as it would be sent, in the
//! provider's wire format, with the protocol the model would get and the
//! files the prompt names; nothing is sent and no session is saved.

use serde_json::Value;

use crate::common::fake_ollama::closed_port_url;
use crate::common::{FakeOllama, TestEnv, ollama_wire_only};

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// Runs `oc ARGS` against `server` (auto edit format, grounding on) and
/// returns the body printed on stdout and the notes on stderr.
fn dry_run(env: &TestEnv, cmd: &mut assert_cmd::Command, args: &[&str]) -> (Value, String) {
    let out = cmd
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args(args)
        .assert()
        .success();
    let out = out.get_output();
    let body = serde_json::from_str(&String::from_utf8_lossy(&out.stdout))
        .unwrap_or_else(|e| panic!("stdout is one JSON body ({e}): {out:?}"));
    assert!(env.sessions().is_empty(), "a dry run saves no session");
    (body, stderr_of(out))
}

const STATS: &str = "def mean(xs):\n    return sum(xs) / len(xs)\n";

#[test]
fn dry_run_prints_the_request_and_sends_nothing() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--dry-run", "fix the tests"])
        .assert()
        .success();
    let body: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(body["messages"][1]["content"], "fix the tests");
    assert_eq!(body["tools"].as_array().unwrap().len(), 7);
    assert_eq!(
        body["options"]["num_predict"], 4096,
        "the reply cap, as sent"
    );
    assert!(stderr_of(out.get_output()).contains("request body:"));
    assert!(server.chat_requests().is_empty());
    assert!(env.sessions().is_empty());
}

/// With the server's word that the model has 1.5B parameters, the request
/// is the whole-file one a run sends: no tool schemas, the file-block
/// instructions, and the file the prompt names shown in the message.
#[test]
fn a_small_model_gets_the_whole_file_request() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write("stats.py", STATS);
    let server = FakeOllama::start(vec![]);
    let (body, stderr) = dry_run(
        &env,
        &mut env.oc(&server),
        &["run", "--dry-run", "fix the division by zero in stats.py"],
    );
    assert!(body.get("tools").is_none(), "{body}");
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("complete new"), "{system}");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("return sum(xs) / len(xs)"), "{user}");
    assert!(
        stderr.contains(
            "protocol: a change, whole files (qwen2.5-coder:1.5b has 1.8B parameters, the server says)"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("native tool calling"), "{stderr}");
    assert!(server.chat_requests().is_empty());
}

/// A question to a small model gets the answer prompt, the named file for
/// reference, and no tool.
#[test]
fn an_answer_gets_the_answer_request() {
    let env = TestEnv::new();
    env.write("stats.py", STATS);
    let server = FakeOllama::start(vec![]);
    let (body, stderr) = dry_run(
        &env,
        &mut env.oc(&server),
        &["run", "--dry-run", "explain what stats.py does"],
    );
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Change no file."), "{system}");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("def mean(xs):"), "{user}");
    assert!(stderr.contains("protocol: an answer"), "{stderr}");
}

/// The OpenAI-compatible provider's request is a `/chat/completions` body:
/// `max_tokens`, `stream_options`, tools with `type: "function"`, no
/// Ollama `options` or `num_ctx`.
#[test]
fn an_openai_dry_run_is_a_chat_completions_body() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let mut cmd = env.oc(&server);
    cmd.env("OC_PROVIDER", "openai")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url))
        .env("OC_EDIT_FORMAT", "tools");
    let out = cmd
        .env("OC_DISABLE", "ground")
        .args(["run", "--dry-run", "fix the tests"])
        .assert()
        .success();
    let body: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(body["stream_options"]["include_usage"], true, "{body}");
    assert_eq!(body["max_tokens"], 4096, "{body}");
    assert!(body.get("options").is_none(), "{body}");
    assert_eq!(body["tools"][0]["type"], "function", "{body}");
    assert_eq!(body["messages"][1]["content"], "fix the tests");
    assert!(server.chat_requests().is_empty());
}

/// `oc chat` offers no tools, and its dry run says nothing of tool
/// calling.
#[test]
fn a_chat_dry_run_has_no_tools_and_no_tool_note() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let (body, stderr) = dry_run(
        &env,
        &mut env.oc(&server),
        &["chat", "--dry-run", "what is a monad?"],
    );
    assert!(body.get("tools").is_none(), "{body}");
    assert!(!stderr.contains("tool calling"), "{stderr}");
    assert!(stderr.contains("protocol: an answer, no tools"), "{stderr}");
}

/// A server that cannot be reached: the protocol is assumed from the
/// model's name, and the note says it is an assumption and why.
#[test]
fn an_unreachable_server_is_assumed_and_said() {
    let env = TestEnv::new();
    env.write("stats.py", STATS);
    let mut cmd = env.oc_at(&closed_port_url());
    cmd.env("OC_PROVIDER", "ollama");
    let (body, stderr) = dry_run(
        &env,
        &mut cmd,
        &["run", "--dry-run", "fix the division by zero in stats.py"],
    );
    assert!(body.get("tools").is_none(), "{body}");
    assert!(
        stderr.contains("whole files (assumed: native tool calling, 1.5B parameters, from its name; the server could not describe it: cannot reach"),
        "{stderr}"
    );
}

/// A server that answers but does not have the model: exit 3, as the run
/// would, not an assumption.
#[test]
fn a_model_the_server_lacks_is_exit_3() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--dry-run", "--model", "no-such-model:1b", "fix it"])
        .assert()
        .code(3);
    assert!(out.get_output().stdout.is_empty());
    assert!(server.chat_requests().is_empty());
}

/// `--check auto` in a dry run says which command a run would use, and a
/// project with no test command is exit 2 before any body is printed, as
/// the run would be.
#[test]
fn a_dry_run_names_the_check_auto_picks() {
    let env = TestEnv::new();
    env.write("stats.py", STATS);
    env.write("test_stats.py", "import unittest\n");
    let server = FakeOllama::start(vec![]);
    let (_, stderr) = dry_run(
        &env,
        &mut env.oc(&server),
        &[
            "run",
            "--dry-run",
            "--check",
            "auto",
            "fix mean. Run the tests with: python3 -m unittest",
        ],
    );
    assert!(
        stderr.contains("--check auto: using `python3 -m unittest` (from the prompt)"),
        "{stderr}"
    );
    let bare = TestEnv::new();
    bare.write("notes.txt", "nothing to test\n");
    let out = bare
        .oc(&server)
        .args(["run", "--dry-run", "--check", "auto", "fix it"])
        .assert()
        .code(2);
    assert!(out.get_output().stdout.is_empty());
    assert!(stderr_of(out.get_output()).contains("found no test command"));
    assert!(server.chat_requests().is_empty());
}

/// A task about tests may change the test it names; one that keeps the
/// tests shows it for reference only.
#[test]
fn a_task_about_a_test_offers_that_test_for_change() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write("calc.py", "def add(a, b):\n    return a + b\n");
    env.write(
        "tests/test_calc.py",
        "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 4\n",
    );
    let server = FakeOllama::start(vec![]);
    let first = |prompt: &str| {
        let (body, _) = dry_run(&env, &mut env.oc(&server), &["run", "--dry-run", prompt]);
        body["messages"][1]["content"].as_str().unwrap().to_string()
    };
    let user = first("Fix the test in tests/test_calc.py: 1 + 2 is 3.");
    assert!(
        user.contains("You may change: tests/test_calc.py"),
        "{user}"
    );
    let user = first("tests/test_calc.py fails. Fix the code, not the tests.");
    assert!(user.contains("You may change: calc.py."), "{user}");
    assert!(!user.contains("You may change: tests/"), "{user}");
}

/// A new function named beside an existing one is shown with the places
/// that list the existing one (`__all__`, a re-exporting module), unless
/// `OC_DISABLE=trails`.
#[test]
fn a_new_name_is_shown_where_its_neighbour_is_listed() {
    if ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let helpers: String = (0..12)
        .map(|n| format!("def helper_{n}(seq):\n    return list(seq)[{n}:]\n\n\n"))
        .collect();
    env.write(
        "pkg/iters.py",
        &format!("__all__ = ('first', 'peek')\n\n\n{helpers}def peek(seq):\n    return seq\n"),
    );
    env.write(
        "pkg/curried.py",
        "from pkg.iters import (\n    first,\n    peek,\n)\n",
    );
    for n in 0..8 {
        env.write(&format!("pkg/m{n}.py"), &format!("X{n} = {n}\n"));
    }
    let server = FakeOllama::start(vec![]);
    let prompt = "Add a peekn(n, seq) function next to `peek` and export it like the others.";
    let (body, stderr) = dry_run(&env, &mut env.oc(&server), &["run", "--dry-run", prompt]);
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        stderr.contains(
            "showing the model pkg/curried.py: it lists `peek`, beside which the new `peekn` goes"
        ),
        "{stderr}"
    );
    assert!(user.contains("__all__ = ('first', 'peek')"), "{user}");
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "trails")
        .args(["run", "--dry-run", prompt])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(!stderr.contains("pkg/curried.py"), "{stderr}");
}

/// Regression: a dry run with more input than the context holds printed
/// the request and said nothing; the run it stands for sends nothing and
/// ends exit 4. Counted as the run counts (the text, not its JSON: quotes
/// escaped in the body are no more tokens), and said as it would go with
/// `--no-compact` (sent, the server cuts it).
#[test]
fn a_request_that_does_not_fit_is_said() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    // More than the context, also the 32,768 tokens the fake OpenAI server
    // says it runs.
    let input = "word ".repeat(40_000);
    let dry = [
        "run",
        "--dry-run",
        "--num-ctx",
        "4096",
        "what does this say?",
    ];
    let (_, notes) = dry_run(&env, env.oc(&server).write_stdin(input.clone()), &dry);
    assert!(notes.contains("does not fit the context of"), "{notes}");
    assert!(notes.contains("end exit 4"), "{notes}");
    let no_compact = [&dry[..], &["--no-compact"]].concat();
    let (_, notes) = dry_run(
        &env,
        env.oc(&server).write_stdin(input.clone()),
        &no_compact,
    );
    assert!(notes.contains("the server would cut the prompt"), "{notes}");
    for small in ["", &"\"".repeat(10_000)] {
        let (_, notes) = dry_run(&env, env.oc(&server).write_stdin(small), &dry);
        assert!(!notes.contains("does not fit"), "{notes}");
    }
    env.oc(&server)
        .write_stdin(input)
        .args(["run", "--num-ctx", "4096", "what does this say?"])
        .assert()
        .code(4);
    assert!(server.chat_requests().is_empty());
}
