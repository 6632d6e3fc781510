//! Checkpoints and `oc undo`: a run's changes (tool writes, bash, created
//! files) put back, in a git repository and in a plain folder; files
//! changed after the run left alone unless forced; `--on-fail revert`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{FakeOllama, Reply, TestEnv};

fn read(env: &TestEnv, path: &str) -> String {
    std::fs::read_to_string(env.work().join(path)).unwrap()
}

fn git(env: &TestEnv, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(env.work())
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn stdout(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

const APP: &str = "def greet():\n    return 'hello'\n";
const NOTES: &str = "first\nsecond\n";

/// A workspace with two files, and a model that edits one with a tool,
/// changes the other with bash, and creates two files (one by each).
fn changing_run(env: &TestEnv) -> FakeOllama {
    env.write("app.py", APP);
    env.write("notes.txt", NOTES);
    FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "app.py"}))]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "app.py", "old_string": "'hello'", "new_string": "'bye'"}),
        )]),
        Reply::tool_calls(&[(
            "bash",
            json!({"command": "sed -i s/second/2nd/ notes.txt && mkdir -p out && echo made > out/made.txt"}),
        )]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "new.py", "content": "x = 1\n"}),
        )]),
        Reply::answer("Changed app.py and notes.txt, added new.py."),
    ])
}

fn assert_changed(env: &TestEnv) {
    assert_eq!(read(env, "app.py"), "def greet():\n    return 'bye'\n");
    assert_eq!(read(env, "notes.txt"), "first\n2nd\n");
    assert_eq!(read(env, "out/made.txt"), "made\n");
    assert_eq!(read(env, "new.py"), "x = 1\n");
}

fn assert_as_before(env: &TestEnv) {
    assert_eq!(read(env, "app.py"), APP);
    assert_eq!(read(env, "notes.txt"), NOTES);
    assert!(!env.work().join("out").exists());
    assert!(!env.work().join("new.py").exists());
}

fn run_and_undo(env: &TestEnv) -> String {
    let server = changing_run(env);
    env.oc(&server)
        .args(["run", "--yes", "change the files"])
        .assert()
        .success();
    assert_changed(env);
    let session = env.session();
    let changed: Vec<&str> = session["checkpoint"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(changed, ["app.py", "new.py", "notes.txt", "out/made.txt"]);
    let out = env.oc(&server).args(["undo"]).assert().success();
    assert_as_before(env);
    let text = stdout(&out);
    assert_eq!(
        text,
        "restored app.py\nremoved new.py\nrestored notes.txt\nremoved out/made.txt\n"
    );
    assert!(
        stderr(&out).contains("put back 4 files of session"),
        "{}",
        stderr(&out)
    );
    session["checkpoint"]["store"].as_str().unwrap().to_string()
}

#[test]
fn undo_puts_back_a_run_in_a_git_repository() {
    let env = TestEnv::new();
    env.write("README", "tracked\n");
    git(&env, &["add", "-A"]);
    git(
        &env,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "start",
        ],
    );
    let head = git(&env, &["rev-parse", "HEAD"]);
    assert_eq!(run_and_undo(&env), "git");
    // The checkpoint went through a throwaway index: the user's index
    // still has the workspace's files untracked, and nothing was committed.
    assert_eq!(
        git(&env, &["status", "--porcelain"]),
        "?? app.py\n?? notes.txt\n"
    );
    assert_eq!(git(&env, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&env, &["stash", "list"]), "");
    let show = env
        .oc_at("http://127.0.0.1:9")
        .args([
            "sessions",
            "show",
            &env.session()["id"].as_str().unwrap()[..8],
        ])
        .assert()
        .success();
    assert!(stdout(&show).contains("undo: done"), "{}", stdout(&show));
}

#[test]
fn undo_puts_back_a_run_in_a_plain_folder() {
    let env = TestEnv::new();
    std::fs::remove_dir_all(env.work().join(".git")).unwrap();
    assert_eq!(run_and_undo(&env), "files");
}

#[test]
fn a_file_changed_after_the_run_is_left_alone_unless_forced() {
    let env = TestEnv::new();
    let server = changing_run(&env);
    env.oc(&server)
        .args(["run", "--yes", "change the files"])
        .assert()
        .success();
    let id = env.session()["id"].as_str().unwrap().to_string();
    let show = env
        .oc(&server)
        .args(["sessions", "show", &id])
        .assert()
        .success();
    assert!(
        stdout(&show).contains(&format!("undo: `oc undo {id}` puts back 4 files")),
        "{}",
        stdout(&show)
    );
    env.write("app.py", "def greet():\n    return 'mine'\n");
    let dry = env.oc(&server).args(["undo", "--dry-run"]).assert().code(1);
    assert_eq!(
        stdout(&dry),
        "would remove new.py\nwould restore notes.txt\nwould remove out/made.txt\n"
    );
    assert_eq!(
        read(&env, "notes.txt"),
        "first\n2nd\n",
        "a dry run changes nothing"
    );
    let out = env.oc(&server).args(["undo", &id]).assert().code(1);
    assert!(
        stderr(&out).contains("left alone, changed since the run ended: app.py"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(read(&env, "app.py"), "def greet():\n    return 'mine'\n");
    assert_eq!(read(&env, "notes.txt"), NOTES);
    let forced = env
        .oc(&server)
        .args(["undo", &id, "--force"])
        .assert()
        .success();
    assert_eq!(stdout(&forced), "restored app.py\n");
    assert_as_before(&env);
}

/// A plan run after a code run does not hide the code run from `oc undo`.
#[test]
fn undo_skips_sessions_that_change_nothing() {
    let env = TestEnv::new();
    let server = changing_run(&env);
    env.oc(&server)
        .args(["run", "--yes", "change the files"])
        .assert()
        .success();
    let planner = FakeOllama::start(vec![Reply::answer("A plan.")]);
    env.oc(&planner)
        .args(["plan", "what next?"])
        .assert()
        .success();
    env.oc(&server).args(["undo"]).assert().success();
    assert_as_before(&env);
}

#[test]
fn on_fail_revert_puts_back_a_run_whose_check_failed() {
    let env = TestEnv::new();
    let server = changing_run(&env);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--check",
            "false",
            "--check-attempts",
            "1",
            "--no-precheck",
            "--on-fail",
            "revert",
            "--output-format",
            "json",
            "change the files",
        ])
        .assert()
        .code(6);
    assert_as_before(&env);
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(
        result["reverted"],
        json!(["app.py", "new.py", "notes.txt", "out/made.txt"])
    );
    assert!(
        stderr(&out).contains("--on-fail revert: the run failed (exit 6)"),
        "{}",
        stderr(&out)
    );
    assert!(env.session()["checkpoint"]["undone_at"].is_string());
}

#[test]
fn undo_says_what_it_cannot_do() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("A plan.")]);
    let out = env.oc(&server).args(["undo"]).assert().code(2);
    assert!(
        stderr(&out).contains("no saved `oc run` session was started in"),
        "{}",
        stderr(&out)
    );
    env.oc(&server)
        .args(["plan", "say something"])
        .assert()
        .success();
    let out = env.oc(&server).args(["undo"]).assert().code(2);
    assert!(
        stderr(&out).contains("no saved `oc run` session was started in"),
        "{}",
        stderr(&out)
    );
    let plan_id = env.session()["id"].as_str().unwrap().to_string();
    let out = env.oc(&server).args(["undo", &plan_id]).assert().code(2);
    assert!(
        stderr(&out).contains("has no checkpoint"),
        "{}",
        stderr(&out)
    );
    let out = env
        .oc(&server)
        .args(["undo", "-C", "/nonexistent/dir"])
        .assert()
        .code(2);
    assert!(
        stderr(&out).contains("give an existing directory"),
        "{}",
        stderr(&out)
    );
    let out = env
        .oc(&server)
        .args(["plan", "--on-fail", "revert", "x"])
        .assert()
        .code(2);
    assert!(
        stderr(&out).contains("`--on-fail` is for `oc run`"),
        "{}",
        stderr(&out)
    );
    // `oc run --plan` is a plan run too.
    let out = env
        .oc(&server)
        .args(["run", "--plan", "--on-fail", "revert", "x"])
        .assert()
        .code(2);
    assert!(
        stderr(&out).contains("`--on-fail` is for `oc run`: a plan run"),
        "{}",
        stderr(&out)
    );
}
