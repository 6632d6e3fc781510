//! The wall (docs/permissions.md, "The wall and the guard"): what `oc`
//! itself runs in a workspace (git for the checkpoint behind `oc undo`,
//! the probe behind `--check auto`) runs in a way no file of the workspace
//! can turn into a command. Each test plants such a file, as a model could,
//! and shows that what it names never runs.

use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv};

/// A folder outside the workspace where a planted command would leave its
/// mark, and the shell line that leaves it.
struct Marker {
    dir: tempfile::TempDir,
}

impl Marker {
    fn new() -> Marker {
        Marker {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }

    /// A script that touches `name` in the marker folder.
    fn script(&self, name: &str) -> String {
        format!("#!/bin/sh\ntouch '{}'\n", self.path(name).display())
    }

    fn left(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

fn git(env: &TestEnv, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(env.work())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn commit_all(env: &TestEnv) {
    git(env, &["add", "-A"]);
    git(
        env,
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
}

fn executable(env: &TestEnv, rel: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    env.write(rel, text);
    let path = env.work().join(rel);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Every hook git knows, in `.git/hooks` and in a folder `core.hooksPath`
/// names, each leaving a mark named after itself.
fn plant_hooks(env: &TestEnv, marker: &Marker) {
    const HOOKS: [&str; 12] = [
        "pre-commit",
        "post-commit",
        "post-checkout",
        "post-index-change",
        "reference-transaction",
        "pre-auto-gc",
        "post-rewrite",
        "pre-push",
        "fsmonitor-watchman",
        "post-merge",
        "prepare-commit-msg",
        "push-to-checkout",
    ];
    for hook in HOOKS {
        executable(env, &format!(".git/hooks/{hook}"), &marker.script(hook));
        executable(env, &format!("hooks/{hook}"), &marker.script(hook));
    }
    git(env, &["config", "core.hooksPath", "hooks"]);
}

/// A run that writes a file, so that the checkpoint has something to
/// settle at the end.
fn writing_run() -> FakeOllama {
    FakeOllama::start(vec![
        Reply::tool_calls(&[("write_file", json!({"path": "new.txt", "content": "x\n"}))]),
        Reply::answer("Wrote new.txt."),
    ])
}

/// Regression: `oc` ran `git ls-files` with the repository's own config
/// at the end of a run and the start of the next, so a `core.fsmonitor`
/// the model set was run by `oc`, outside the sandbox.
#[test]
fn a_planted_fsmonitor_never_runs_when_oc_takes_or_settles_a_checkpoint() {
    let env = TestEnv::new();
    let marker = Marker::new();
    env.write("app.py", "x = 1\n");
    commit_all(&env);
    let planted = marker.path("fsmonitor");
    let setting = format!("touch '{}'; true", planted.display());
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "bash",
            json!({"command": format!("git config core.fsmonitor \"{setting}\"")}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "set up the repository"])
        .assert()
        .success();
    let config = std::fs::read_to_string(env.work().join(".git/config")).unwrap();
    assert!(
        config.contains("fsmonitor"),
        "the model's setting is there: {config}"
    );
    let second = writing_run();
    env.oc(&second)
        .args(["run", "--yes", "write a file"])
        .assert()
        .success();
    env.oc(&second).args(["undo"]).assert().success();
    assert!(!env.work().join("new.txt").exists(), "undo still works");
    assert_eq!(marker.left(), Vec::<String>::new());
}

/// Hooks planted in `.git/hooks` and through `core.hooksPath` never run
/// when `oc` takes a checkpoint, settles it, or undoes a run.
#[test]
fn planted_hooks_never_run_through_oc() {
    let env = TestEnv::new();
    let marker = Marker::new();
    env.write("app.py", "x = 1\n");
    commit_all(&env);
    plant_hooks(&env, &marker);
    let server = writing_run();
    env.oc(&server)
        .args(["run", "--yes", "write a file"])
        .assert()
        .success();
    env.oc(&server).args(["undo"]).assert().success();
    assert!(!env.work().join("new.txt").exists());
    assert_eq!(marker.left(), Vec::<String>::new());
}

/// Regression: `--check auto` asked whether pytest is installed by running
/// `python3 -c "import pytest"` in the workspace, which imports a
/// `pytest.py` the model wrote there, outside the sandbox.
#[test]
fn check_auto_imports_nothing_from_the_workspace() {
    let env = TestEnv::new();
    let marker = Marker::new();
    env.write("conftest.py", "");
    env.write(
        "pytest.py",
        &format!(
            "import pathlib\npathlib.Path('{}').touch()\n",
            marker.path("pytest").display()
        ),
    );
    env.write("tests/test_app.py", "def test_one():\n    assert True\n");
    let server = FakeOllama::start(vec![Reply::answer("Nothing to do.")]);
    env.oc(&server)
        .args(["run", "--yes", "--check", "auto", "look"])
        .assert()
        .success();
    assert!(
        !marker.path("pytest").exists(),
        "the workspace's pytest.py ran when oc probed for pytest"
    );
}
