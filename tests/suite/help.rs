//! What a user reads, pinned by snapshots (`tests/suite/snapshots/`): the
//! `--help` of every command, and the stderr of one human-readable run.
//! A change to either shows up as a snapshot diff to review
//! (`cargo insta review`, or `INSTA_UPDATE=always` and `git diff`).

use serde_json::json;

use crate::common::fake_ollama::closed_port_url;
use crate::common::{FakeOllama, Reply, TestEnv};

/// `oc ARGS --help`: its stdout, after checking that it succeeded and said
/// nothing on stderr. Help is wrapped to `COLUMNS` when no stream is a
/// terminal (clap's `wrap_help`), so the width is set here, whatever the
/// environment running the tests has.
fn help(args: &[&str]) -> String {
    let env = TestEnv::new();
    let out = env
        .oc_at(&closed_port_url())
        .env("COLUMNS", "100")
        .args(args)
        .arg("--help")
        .assert()
        .success();
    let output = out.get_output();
    assert!(
        output.stderr.is_empty(),
        "oc {args:?} --help wrote on stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// One snapshot per command line, named after it (`oc_sessions_list`).
fn assert_help(args: &[&str]) {
    let name = std::iter::once("oc")
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join("_")
        .replace('-', "_");
    let text = help(args);
    insta::with_settings!({
        description => format!("oc {} --help", args.join(" ")).replace("  ", " "),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn help_oc() {
    assert_help(&[]);
}

#[test]
fn help_run() {
    assert_help(&["run"]);
}

#[test]
fn help_plan() {
    assert_help(&["plan"]);
}

#[test]
fn help_chat() {
    assert_help(&["chat"]);
}

#[test]
fn help_sessions() {
    assert_help(&["sessions"]);
    assert_help(&["sessions", "list"]);
    assert_help(&["sessions", "show"]);
    assert_help(&["sessions", "rm"]);
}

#[test]
fn help_undo() {
    assert_help(&["undo"]);
}

#[test]
fn help_models() {
    assert_help(&["models"]);
    assert_help(&["models", "list"]);
    assert_help(&["models", "show"]);
}

#[test]
fn help_export_ft() {
    assert_help(&["export-ft"]);
}

#[test]
fn help_completions() {
    assert_help(&["completions"]);
}

const UTILS: &str = "def last_n(items, n):\n    \"\"\"Return the last n items of the list, in order.\"\"\"\n    if n <= 0:\n        return []\n    return items[-n - 1:]\n";

/// The off-by-one task of `bench/tasks/py-off-by-one` (as in
/// `edit_formats.rs`), the model reading utils.py, fixing it and answering.
#[test]
fn run_stderr_in_text() {
    let env = TestEnv::new();
    env.write("utils.py", UTILS);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "utils.py"}))]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "utils.py", "old_string": "items[-n - 1:]", "new_string": "items[-n:]"}),
        )]),
        Reply::answer("Fixed the slice in last_n."),
    ]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--output-format",
            "text",
            "Fix the bug in utils.py.",
        ])
        .assert()
        .success();
    let output = out.get_output();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Fixed the slice in last_n.\n"
    );
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    // What differs between machines and runs: the temp folders, the
    // session id (a ULID), the run's duration and any token speed.
    let mut filters: Vec<(String, &str)> = Vec::new();
    for (dir, name) in [(env.work(), "[work]"), (env.home.path(), "[home]")] {
        filters.push((regex::escape(&dir.display().to_string()), name));
        let real = dir.canonicalize().unwrap();
        filters.push((regex::escape(&real.display().to_string()), name));
    }
    filters.extend([
        (r"\b[0-9A-HJKMNP-TV-Z]{26}\b".to_string(), "[session]"),
        (r"\b\d+(\.\d+)?m?s\b".to_string(), "[duration]"),
        (r"\b\d+(\.\d+)?\s*(tok(ens)?)?/s\b".to_string(), "[speed]"),
    ]);
    let filters: Vec<(&str, &str)> = filters.iter().map(|(f, r)| (f.as_str(), *r)).collect();
    // The OpenAI-compatible side adds a line (the server, not `num_ctx`,
    // decides the context size): one snapshot per provider.
    let provider = if crate::common::openai_mode() {
        "openai"
    } else {
        "ollama"
    };
    insta::with_settings!({
        filters => filters,
        snapshot_suffix => provider,
        description => format!("oc run --yes --output-format text (provider {provider}): read, edit, answer"),
        omit_expression => true,
    }, {
        insta::assert_snapshot!("run_stderr_text", stderr);
    });
}
