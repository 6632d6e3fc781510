//! `oc undo` and `--on-fail revert` after renames (the `move_file` tool,
//! `mv`, `git mv`), after `git clean -fdx` took git-ignored files, with
//! names that hold a newline, and with what the run staged in the index.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{FakeOllama, Reply, TestEnv};

fn read(env: &TestEnv, path: &str) -> String {
    std::fs::read_to_string(env.work().join(path)).unwrap()
}

fn stdout(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

/// The flags that make a run fail its check and put itself back.
const REVERT: [&str; 7] = [
    "--check",
    "false",
    "--check-attempts",
    "1",
    "--no-precheck",
    "--on-fail",
    "revert",
];

const OLD: &str = "the file's text\n";

/// A committed `old.txt` (and a staged-but-uncommitted `staged.txt`, so
/// the index is not just HEAD's), and a model that renames `old.txt` to
/// `new.txt` the way `how` says.
fn renaming_run(env: &TestEnv, how: &str) -> FakeOllama {
    env.write("old.txt", OLD);
    env.write("keep.txt", "kept\n");
    env.commit_all();
    env.write("staged.txt", "staged\n");
    env.git(&["add", "staged.txt"]);
    let call = match how {
        "move_file" => ("move_file", json!({"from": "old.txt", "to": "new.txt"})),
        "mv" => ("bash", json!({"command": "mv old.txt new.txt"})),
        "git mv" => ("bash", json!({"command": "git mv old.txt new.txt"})),
        other => panic!("no way to rename called {other}"),
    };
    FakeOllama::start(vec![
        Reply::tool_calls(&[call]),
        Reply::answer("Renamed old.txt to new.txt."),
    ])
}

fn assert_renamed_back(env: &TestEnv, status_before: &str, how: &str) {
    assert_eq!(read(env, "old.txt"), OLD, "{how}");
    assert!(!env.work().join("new.txt").exists(), "{how}: new name left");
    assert_eq!(
        env.git(&["status", "--porcelain"]),
        status_before,
        "{how}: the index as the run found it"
    );
}

/// Regression: after a rename, undo put the old name back but left the new
/// one ("not covered by the checkpoint"), as a rename keeps the birth time
/// the checkpoint went by; after `git mv` the index kept the staged rename.
#[test]
fn undo_puts_back_a_rename_made_three_ways() {
    for how in ["move_file", "mv", "git mv"] {
        let env = TestEnv::new();
        let server = renaming_run(&env, how);
        let status_before = env.git(&["status", "--porcelain"]);
        env.oc(&server)
            .args(["run", "--yes", "rename old.txt"])
            .assert()
            .success();
        assert_eq!(read(&env, "new.txt"), OLD, "{how}");
        let out = env.oc(&server).args(["undo"]).assert().success();
        assert_eq!(
            stdout(&out),
            "removed new.txt\nrestored old.txt\n",
            "{how}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("not kept"), "{}", stderr(&out));
        assert_renamed_back(&env, &status_before, how);
    }
}

/// Regression: as above, for `--on-fail revert`.
#[test]
fn undo_on_fail_revert_puts_back_a_rename_made_three_ways() {
    for how in ["move_file", "mv", "git mv"] {
        let env = TestEnv::new();
        let server = renaming_run(&env, how);
        let status_before = env.git(&["status", "--porcelain"]);
        let out = env
            .oc(&server)
            .args(["run", "--yes", "--output-format", "json"])
            .args(REVERT)
            .arg("rename old.txt")
            .assert()
            .code(6);
        let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(result["reverted"], json!(["new.txt", "old.txt"]), "{how}");
        assert_renamed_back(&env, &status_before, how);
    }
}

/// Regression: after a `git mv` (a staged rename), undo put the files back
/// but left the index staging the rename: `git status` was not as before.
#[test]
fn undo_leaves_the_index_as_the_run_found_it() {
    let env = TestEnv::new();
    let server = renaming_run(&env, "git mv");
    let status_before = env.git(&["status", "--porcelain"]);
    let staged_before = env.git(&["ls-files", "--stage"]);
    env.oc(&server)
        .args(["run", "--yes", "rename old.txt"])
        .assert()
        .success();
    assert!(
        env.git(&["status", "--porcelain"])
            .contains("R  old.txt -> new.txt")
    );
    let out = env.oc(&server).args(["undo"]).assert().success();
    assert!(
        stderr(&out).contains("put back 2 files and the git index"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.git(&["status", "--porcelain"]), status_before);
    assert_eq!(env.git(&["ls-files", "--stage"]), staged_before);
}

/// Ignored files: small ones and a `.env` in a folder, a log at the top, and
/// one over the budget of kept ignored content.
fn ignored_files(env: &TestEnv) -> String {
    env.write(".gitignore", "*.log\n.env\ndata/\n");
    env.write("app.py", "print(1)\n");
    env.commit_all();
    env.write(".env", "TOKEN=secret\n");
    env.write("run.log", "started\n");
    env.write("data/a.csv", "1,2\n");
    env.write("data/deep/b.csv", "3,4\n");
    let big = "x".repeat(300 * 1024);
    env.write("big.log", &big);
    big
}

/// Regression: `git clean -fdx` under `--yes` took the ignored files for
/// good: undo said "nothing to undo" and named none of them.
#[test]
fn undo_puts_back_ignored_files_that_git_clean_removed() {
    let env = TestEnv::new();
    ignored_files(&env);
    let server = crate::common::bash_calls(&["git clean -fdx"]);
    env.oc(&server)
        .args(["run", "--yes", "clean up"])
        .assert()
        .success();
    assert!(!env.work().join(".env").exists());
    let not_covered = env.session()["checkpoint"]["not_covered"].clone();
    assert_eq!(not_covered, json!(["big.log"]));
    let out = env.oc(&server).args(["undo"]).assert().success();
    assert_eq!(
        stdout(&out),
        "restored .env\nrestored data/a.csv\nrestored data/deep/b.csv\nrestored run.log\n"
    );
    assert!(
        stderr(&out).contains("big.log was not kept by the checkpoint"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(&env, ".env"), "TOKEN=secret\n");
    assert_eq!(read(&env, "run.log"), "started\n");
    assert_eq!(read(&env, "data/a.csv"), "1,2\n");
    assert_eq!(read(&env, "data/deep/b.csv"), "3,4\n");
    assert!(!env.work().join("big.log").exists());
}

/// Regression: as above, for `--on-fail revert`; its warning names the
/// file it cannot put back.
#[test]
fn undo_on_fail_revert_puts_back_ignored_files() {
    let env = TestEnv::new();
    ignored_files(&env);
    let server = crate::common::bash_calls(&["git clean -fdx"]);
    let out = env
        .oc(&server)
        .args(["run", "--yes"])
        .args(REVERT)
        .arg("clean up")
        .assert()
        .code(6);
    assert_eq!(read(&env, ".env"), "TOKEN=secret\n");
    assert_eq!(read(&env, "data/deep/b.csv"), "3,4\n");
    assert!(
        stderr(&out).contains("--on-fail revert cannot put back what the checkpoint did not keep"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("big.log"), "{}", stderr(&out));
}

/// Regression: a name with a newline split undo's line in two, so a script
/// reading its output line by line saw two names that do not exist.
#[test]
fn undo_prints_a_name_with_a_newline_on_one_line() {
    let env = TestEnv::new();
    env.write("two\nlines.txt", "old\n");
    env.write("plain.txt", "plain\n");
    env.commit_all();
    let server = crate::common::bash_calls(&["rm two*lines.txt && echo new > 'new\nfile.txt'"]);
    env.oc(&server)
        .args(["run", "--yes", "tidy"])
        .assert()
        .success();
    assert!(env.work().join("new\nfile.txt").exists());
    let out = env.oc(&server).args(["undo"]).assert().success();
    assert_eq!(
        stdout(&out),
        "removed \"new\\nfile.txt\"\nrestored \"two\\nlines.txt\"\n"
    );
    assert_eq!(read(&env, "two\nlines.txt"), "old\n");
    assert!(!env.work().join("new\nfile.txt").exists());
}
