//! `--attempts` and `--fallback-model` (docs/attempts.md): fresh tries from
//! the tree the run found, the first whose check passes kept; the closest
//! kept when none does; the user's uncommitted changes kept through every
//! try; one `--timeout` and `--max-turns` for the run; a record per try;
//! `oc undo` back to where the run began.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::repositories::stderr_of;
use crate::common::fake_ollama::{End, content_chunk};
use crate::common::{FakeOllama, Reply, TestEnv};

/// The check: one failing test for each `BAD` line in app.py, and one
/// more when no line says `GOOD`, printed as pytest prints its summary.
const CHECK: &str = "n=$(grep -c BAD app.py); grep -q GOOD app.py || n=$((n+1)); echo \"== $n failed, 1 passed in 0.01s ==\"; [ \"$n\" = 0 ]";

const START: &str = "x\n";

fn read(env: &TestEnv, path: &str) -> String {
    std::fs::read_to_string(env.work().join(path)).unwrap()
}

/// A committed app.py the check fails on.
fn workspace() -> TestEnv {
    let env = TestEnv::new();
    env.write("app.py", START);
    env.commit_all();
    env
}

/// One try: the model reads app.py, writes it (and with `extra`, one more
/// file), then says it is done: three turns.
fn a_try(app: &str, extra: Option<&str>) -> Vec<Reply> {
    let mut calls = vec![("write_file", json!({"path": "app.py", "content": app}))];
    if let Some(path) = extra {
        calls.push(("write_file", json!({"path": path, "content": "made\n"})));
    }
    vec![
        Reply::tool_calls(&[("read_file", json!({"path": "app.py"}))]),
        Reply::tool_calls(&calls),
        Reply::answer("Done."),
    ]
}

fn oc_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--yes",
        "--no-precheck",
        "--check-rounds",
        "1",
        "--check",
        CHECK,
        "--output-format",
        "json",
    ];
    args.extend_from_slice(extra);
    args.push("make app.py good");
    args
}

fn result_of(out: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn a_failed_first_try_is_set_aside_and_the_second_that_passes_is_the_result() {
    let env = workspace();
    let replies = [a_try("BAD\n", Some("junk.py")), a_try("GOOD\n", None)].concat();
    let server = FakeOllama::start(replies);
    let out = env
        .oc(&server)
        .args(oc_args(&["--attempts", "3"]))
        .assert()
        .code(0);
    assert_eq!(read(&env, "app.py"), "GOOD\n");
    assert!(
        !env.work().join("junk.py").exists(),
        "the first try's file went with it"
    );
    let result = result_of(&out);
    assert_eq!(result["exit_code"], 0);
    let attempts = result["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{result:#}");
    assert_eq!(
        (
            attempts[0]["check_passed"].clone(),
            attempts[0]["failing"].clone(),
            attempts[0]["kept"].clone()
        ),
        (json!(false), json!(2), json!(false))
    );
    assert_eq!(
        (
            attempts[1]["check_passed"].clone(),
            attempts[1]["failing"].clone(),
            attempts[1]["kept"].clone()
        ),
        (json!(true), json!(0), json!(true))
    );
    assert_eq!(attempts[0]["exit_code"], 6);
    assert_eq!(result["turns"], 6, "the run's turns, both tries");
    assert_eq!(result["session_id"], attempts[1]["session_id"]);

    // The second try starts a new conversation: the system prompt and the
    // task, nothing of the first.
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 6);
    assert_eq!(requests[3]["messages"], requests[0]["messages"]);

    let sessions = env.sessions();
    assert_eq!(sessions.len(), 2);
    let run_id = sessions[0]["id"].clone();
    assert_eq!(
        sessions[0]["attempt"],
        json!({"run_id": run_id, "number": 1, "of": 3, "set_aside": true})
    );
    assert_eq!(
        sessions[1]["attempt"],
        json!({"run_id": run_id, "number": 2, "of": 3})
    );
    assert!(sessions[0]["checkpoint"]["undone_at"].is_string());

    let records = env.finetune();
    let marks: Vec<(Value, Value)> = (records.iter())
        .map(|r| (r["attempt"]["number"].clone(), r["success"].clone()))
        .collect();
    assert_eq!(
        marks,
        vec![(json!(1), json!(false)), (json!(2), json!(true))]
    );
    assert_eq!(records[1]["attempt"]["run_id"], run_id);

    // Only the verified try is exported as a success.
    let exported = env
        .oc(&server)
        .args(["export-ft", "--success-only"])
        .assert()
        .success();
    let lines = String::from_utf8_lossy(&exported.get_output().stdout)
        .lines()
        .count();
    assert_eq!(lines, 1);

    // `oc undo` puts back the tree the run found.
    env.oc(&server).args(["undo"]).assert().success();
    assert_eq!(read(&env, "app.py"), START);
}

#[test]
fn when_no_try_passes_the_closest_is_kept_and_undo_goes_back_to_the_start() {
    let env = workspace();
    let replies = [a_try("BAD\n", None), a_try("BAD\nBAD\n", Some("junk.py"))].concat();
    let server = FakeOllama::start(replies);
    let out = env
        .oc(&server)
        .args(oc_args(&["--attempts", "2"]))
        .assert()
        .code(6);
    assert_eq!(
        read(&env, "app.py"),
        "BAD\n",
        "try 1 had 2 failing, try 2 had 3"
    );
    assert!(!env.work().join("junk.py").exists());
    assert!(
        stderr_of(&out).contains(
            "no try passed the check; the workspace keeps try 1 of 2, which came closest"
        ),
        "{}",
        stderr_of(&out)
    );
    let result = result_of(&out);
    let kept: Vec<Value> = (result["attempts"].as_array().unwrap().iter())
        .map(|a| a["kept"].clone())
        .collect();
    assert_eq!(kept, vec![json!(true), json!(false)]);
    assert_eq!(result["exit_code"], 6);
    let sessions = env.sessions();
    assert_eq!(sessions[0]["attempt"]["set_aside"], Value::Null);
    assert_eq!(sessions[1]["attempt"]["set_aside"], true);
    // The last try is told once the run has chosen: set aside.
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("attempt 2 of 2 (qwen2.5-coder:1.5b): the check failed (3 failing)"),
        "{stderr}"
    );
    assert!(!stderr.contains("· kept (session "), "{stderr}");
    assert_eq!(
        result["reverted"],
        Value::Null,
        "nothing is reverted in the end"
    );
    // Records say which try they are, not what the run later chose.
    for record in env.finetune() {
        assert_eq!(record["attempt"]["set_aside"], Value::Null, "{record:#}");
        assert_eq!(record["success"], false);
    }

    // `oc undo` finds the kept try, not the newest session.
    let undone = env.oc(&server).args(["undo"]).assert().success();
    assert!(
        stderr_of(&undone).contains(sessions[0]["id"].as_str().unwrap()),
        "{}",
        stderr_of(&undone)
    );
    assert_eq!(read(&env, "app.py"), START);
}

#[test]
fn with_on_fail_revert_a_run_whose_tries_all_fail_leaves_the_start() {
    let env = workspace();
    let replies = [a_try("BAD\n", None), a_try("BAD\nBAD\n", Some("junk.py"))].concat();
    let server = FakeOllama::start(replies);
    env.oc(&server)
        .args(oc_args(&["--attempts", "2", "--on-fail", "revert"]))
        .assert()
        .code(6);
    assert_eq!(read(&env, "app.py"), START);
    assert!(!env.work().join("junk.py").exists());
}

/// The user's uncommitted changes are where every try starts, and stay.
#[test]
fn the_users_uncommitted_changes_are_where_each_try_starts() {
    let env = workspace();
    env.write("app.py", "x\nmine\n");
    env.write("notes.txt", "my notes\n");
    let edit = |new: &str| {
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "app.py", "old_string": "x\n", "new_string": new}),
        )])
    };
    let read_app = || Reply::tool_calls(&[("read_file", json!({"path": "app.py"}))]);
    let server = FakeOllama::start(vec![
        read_app(),
        edit("BAD\n"),
        Reply::tool_calls(&[("bash", json!({"command": "rm notes.txt"}))]),
        Reply::answer("Done."),
        read_app(),
        edit("GOOD\n"),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(oc_args(&["--attempts", "2"]))
        .assert()
        .code(0);
    assert_eq!(read(&env, "app.py"), "GOOD\nmine\n");
    assert_eq!(read(&env, "notes.txt"), "my notes\n");
}

#[test]
fn a_failed_try_moves_to_the_fallback_model() {
    let env = workspace();
    let replies = [a_try("BAD\n", None), a_try("GOOD\n", None)].concat();
    let server =
        FakeOllama::start(replies).with_model("bigger:7b", &["completion", "tools"], 32768);
    let out = env
        .oc(&server)
        .args(oc_args(&["--fallback-model", "bigger:7b"]))
        .assert()
        .code(0);
    let models: Vec<Value> = (server.chat_requests().iter())
        .map(|r| r["model"].clone())
        .collect();
    assert_eq!(models[0], models[2]);
    assert_ne!(models[2], "bigger:7b");
    assert_eq!(models[3], "bigger:7b");
    assert_eq!(models[5], "bigger:7b");
    let result = result_of(&out);
    assert_eq!(result["attempts"][1]["model"], "bigger:7b");
    assert_eq!(env.sessions()[1]["model"], "bigger:7b");

    // A fallback model the server lacks is found before any work.
    let server = FakeOllama::start(a_try("GOOD\n", None));
    env.oc(&server)
        .args(oc_args(&["--fallback-model", "missing:1b"]))
        .assert()
        .code(3);
    assert_eq!(server.chat_requests().len(), 0);
}

#[test]
fn one_timeout_bounds_every_try() {
    let env = workspace();
    let mut replies = a_try("BAD\n", None);
    replies.push(Reply::Stream {
        lines: vec![content_chunk("Let me think")],
        split: None,
        end: End::Stall,
    });
    let server = FakeOllama::start(replies);
    let started = Instant::now();
    let out = env
        .oc(&server)
        .args(oc_args(&["--attempts", "3", "--timeout", "3s"]))
        .assert()
        .code(124);
    assert!(started.elapsed() < Duration::from_secs(30));
    let result = result_of(&out);
    assert_eq!(result["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(result["status"], "timed_out");
    assert_eq!(server.chat_requests().len(), 4);
}

#[test]
fn max_turns_bounds_the_whole_run() {
    let env = workspace();
    let replies = [
        a_try("BAD\n", None),
        a_try("BAD\n", None),
        a_try("GOOD\n", None),
    ]
    .concat();
    let server = FakeOllama::start(replies);
    let out = env
        .oc(&server)
        .args(oc_args(&["--attempts", "5", "--max-turns", "7"]))
        .assert()
        .code(4);
    // Three turns each for two tries, and the one turn left for a third.
    assert_eq!(server.chat_requests().len(), 7);
    let result = result_of(&out);
    let turns: Vec<Value> = (result["attempts"].as_array().unwrap().iter())
        .map(|a| a["turns"].clone())
        .collect();
    assert_eq!(turns, vec![json!(3), json!(3), json!(1)]);
    assert_eq!(result["turns"], 7);
}

#[test]
fn stream_json_tells_each_try_as_it_ends() {
    let env = workspace();
    let replies = [a_try("BAD\n", None), a_try("GOOD\n", None)].concat();
    let server = FakeOllama::start(replies);
    let mut args = oc_args(&["--attempts", "2"]);
    let format = args.iter().position(|a| *a == "json").unwrap();
    args[format] = "stream-json";
    let out = env.oc(&server).args(args).assert().code(0);
    let events: Vec<Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = (events.iter())
        .filter_map(|e| e["type"].as_str())
        .filter(|t| t.starts_with("session.") || t.starts_with("attempt."))
        .collect();
    assert_eq!(
        types,
        vec![
            "session.started",
            "attempt.completed",
            "session.started",
            "attempt.completed",
            "session.completed"
        ]
    );
    let first = events
        .iter()
        .find(|e| e["type"] == "attempt.completed")
        .unwrap();
    assert_eq!(
        (first["number"].clone(), first["of"].clone()),
        (json!(1), json!(2))
    );
}

#[test]
fn text_output_says_each_try_on_stderr() {
    let env = workspace();
    let replies = [a_try("BAD\n", None), a_try("GOOD\n", None)].concat();
    let server = FakeOllama::start(replies);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--no-precheck",
            "--check-attempts",
            "1",
            "--attempts",
            "2",
            "--check",
            CHECK,
            "make app.py good",
        ])
        .assert()
        .code(0);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(
            "attempt 1 of 2 (qwen2.5-coder:1.5b): the check failed (2 failing) · 3 turns"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("· set aside (session "), "{stderr}");
    assert!(
        stderr.contains("attempt 2 of 2 (qwen2.5-coder:1.5b): the check passed · 3 turns"),
        "{stderr}"
    );
}

#[test]
fn attempts_without_a_check_or_outside_a_code_run_are_usage_errors() {
    let env = workspace();
    let server = FakeOllama::start(vec![]);
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "--attempts", "2", "x"],
            "`--attempts` needs `--check`",
        ),
        (
            &["run", "--fallback-model", "m", "x"],
            "`--fallback-model` needs `--check`",
        ),
        (
            &["plan", "--attempts", "2", "--check", "true", "x"],
            "`--attempts` is for `oc run`",
        ),
        (
            &[
                "run",
                "--continue",
                "--attempts",
                "2",
                "--check",
                "true",
                "x",
            ],
            "cannot go on from a session",
        ),
        (
            &["run", "--attempts", "0", "--check", "true", "x"],
            "--attempts",
        ),
        (
            &["run", "--fallback-model", " ", "--check", "true", "x"],
            "`--fallback-model` was given an empty name",
        ),
        (
            &[
                "run",
                "--attempts",
                "1",
                "--fallback-model",
                "m",
                "--check",
                "true",
                "x",
            ],
            "`--attempts 1` allows one",
        ),
    ];
    for (args, words) in cases {
        let out = env.oc(&server).args(*args).assert().code(2);
        assert!(
            stderr_of(&out).contains(words),
            "{args:?}: {}",
            stderr_of(&out)
        );
    }
    assert_eq!(server.chat_requests().len(), 0);
}

/// A log of `oc`'s own stderr inside the workspace is not a change of any
/// try: setting a try aside leaves it, so it holds the whole run.
#[test]
fn a_log_of_ocs_own_output_in_the_workspace_is_never_put_back() {
    let env = workspace();
    let replies = [a_try("BAD\n", None), a_try("GOOD\n", None)].concat();
    let server = FakeOllama::start(replies);
    let log = std::fs::File::create(env.work().join("run.log")).unwrap();
    let out = env
        .oc_process(&server)
        .args(oc_args(&["--attempts", "2"]))
        .stderr(log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let log = read(&env, "run.log");
    assert!(log.contains("attempt 1 of 2"), "{log}");
    assert!(log.contains("still fails after 1 round"), "{log}");
    let sessions = env.sessions();
    let changed = |session: &Value| -> Vec<Value> {
        (session["checkpoint"]["changes"].as_array().unwrap().iter())
            .map(|c| c["path"].clone())
            .collect()
    };
    assert_eq!(changed(&sessions[0]), vec![json!("app.py")]);
    assert_eq!(changed(&sessions[1]), vec![json!("app.py")]);
}

/// `--dry-run` looks up the fallback models as a run would, and says how
/// many tries a run would make with which models.
#[test]
fn a_dry_run_looks_up_the_fallback_models() {
    let env = workspace();
    let server = FakeOllama::start(vec![]).with_model("bigger:7b", &["completion", "tools"], 32768);
    let dry = ["run", "--dry-run", "--check", "true", "--attempts", "3"];
    let out = env
        .oc(&server)
        .args(dry)
        .args(["--fallback-model", "bigger:7b", "make app.py good"])
        .assert()
        .code(0);
    assert!(
        stderr_of(&out).contains("a run would make up to 3 tries while the check fails (models: qwen2.5-coder:1.5b, bigger:7b)"),
        "{}",
        stderr_of(&out)
    );
    let out = env
        .oc(&server)
        .args(dry)
        .args(["--fallback-model", "missing:1b", "make app.py good"])
        .assert()
        .code(3);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("`missing:1b`"), "{stderr}");
    assert!(stderr.contains("change `--fallback-model`"), "{stderr}");
    assert_eq!(server.chat_requests().len(), 0);
}
