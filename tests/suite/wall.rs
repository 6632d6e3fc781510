//! The wall (docs/permissions.md, "The wall and the guard"): what `oc`
//! itself runs in a workspace (git for the checkpoint behind `oc undo`,
//! the probe behind `--check auto`) runs in a way no file of the workspace
//! can turn into a command. Each test plants such a file, as a model could,
//! and shows that what it names never runs.

use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv, bash_calls};

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
    env.git(&["config", "core.hooksPath", "hooks"]);
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
    env.commit_all();
    let planted = marker.path("fsmonitor");
    let setting = format!("touch '{}'; true", planted.display());
    let server = bash_calls(&[&format!("git config core.fsmonitor \"{setting}\"")]);
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
    env.commit_all();
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

/// The files a folder outside the workspace holds, by path and content.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                use std::hash::{Hash, Hasher};
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                std::fs::read(entry.path()).unwrap().hash(&mut hasher);
                found.push(format!("{} {:x}", entry.path().display(), hasher.finish()));
            }
        }
    }
    found.sort();
    found
}

/// A run whose model redirects where the repository keeps its objects,
/// then a second run that writes a file: `oc` must not write the second
/// run's checkpoint outside the workspace, and undo must still work.
fn redirect_then_write(redirect: &str, outside: &std::path::Path) {
    let env = TestEnv::new();
    env.write("app.py", "x = 1\n");
    env.commit_all();
    let before = files_under(outside);
    let first = FakeOllama::start(vec![
        // A file the next checkpoint has not stored yet.
        Reply::tool_calls(&[(
            "bash",
            json!({ "command": format!("{redirect} && printf 'made in the first run\\n' > notes.txt") }),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&first)
        .args(["run", "--yes", "tidy the repository"])
        .assert()
        .success();
    let second = writing_run();
    env.oc(&second)
        .args(["run", "--yes", "write a file"])
        .assert()
        .success();
    assert_eq!(
        files_under(outside),
        before,
        "oc wrote outside the workspace"
    );
    env.oc(&second).args(["undo"]).assert().success();
    assert!(!env.work().join("new.txt").exists(), "undo still works");
}

/// Regression: with `.git/objects` made a link to a folder outside, the
/// next run's checkpoint (`git hash-object -w`, run by `oc` outside the
/// sandbox) wrote its blobs there.
#[test]
fn a_linked_object_store_gets_no_checkpoint_written_outside() {
    let outside = tempfile::tempdir().unwrap();
    let command = format!(
        "mv .git/objects .git/objects.real && ln -s '{}' .git/objects",
        outside.path().display()
    );
    redirect_then_write(&command, outside.path());
}

/// Regression: a fan-out folder of the object store made a link to a
/// folder outside took the blobs whose ids start with its name.
#[test]
fn linked_fan_out_folders_get_no_checkpoint_written_outside() {
    let outside = tempfile::tempdir().unwrap();
    let command = format!(
        "for a in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do for b in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do \
         [ -e .git/objects/$a$b ] || ln -s '{}' .git/objects/$a$b; done; done",
        outside.path().display()
    );
    redirect_then_write(&command, outside.path());
}

/// Regression: `.git` replaced by a `gitdir:` file naming a repository
/// outside made the next checkpoint write into that repository.
#[test]
fn a_git_file_naming_another_repository_gets_no_checkpoint_written_there() {
    let outside = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(outside.path())
        .status()
        .unwrap();
    assert!(status.success());
    let command = format!(
        "mv .git .git.old && printf 'gitdir: {}/.git\\n' > .git",
        outside.path().display()
    );
    redirect_then_write(&command, outside.path());
}

/// Regression: a model that rewrote the stored object of a file's old
/// content got `oc undo` to write the object's new bytes back as that
/// file. Undo now hashes what it reads and refuses a changed object.
#[test]
fn undo_refuses_a_checkpoint_object_the_run_rewrote() {
    let env = TestEnv::new();
    env.write("a.txt", "original\n");
    env.commit_all();
    let poison = "import os, subprocess, zlib; \
        i = subprocess.check_output(['git', 'hash-object', 'a.txt']).decode().strip(); \
        p = '.git/objects/' + i[:2] + '/' + i[2:]; os.chmod(p, 0o644); d = b'EVIL\\n'; \
        open(p, 'wb').write(zlib.compress(b'blob %d\\0' % len(d) + d))";
    let server = bash_calls(&[&format!("python3 -c \"{poison}\" && echo changed > a.txt")]);
    env.oc(&server)
        .args(["run", "--yes", "change a.txt"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(env.work().join("a.txt")).unwrap(),
        "changed\n"
    );
    let out = env.oc(&server).args(["undo"]).assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("was changed after the checkpoint"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(env.work().join("a.txt")).unwrap(),
        "changed\n",
        "undo wrote the rewritten object back"
    );
}

const CANARY: &str = "envcanaryQ7x9Z2kLm4";

/// Everything a run leaves where a secret could leak to: what the model
/// was sent, the sessions and the fine-tuning records.
fn kept(env: &TestEnv, server: &FakeOllama) -> String {
    let mut all = String::new();
    for request in server.chat_requests() {
        all.push_str(&request.to_string());
    }
    for session in env.sessions() {
        all.push_str(&session.to_string());
    }
    all.push_str(
        &std::fs::read_to_string(env.home.path().join("finetune.jsonl")).unwrap_or_default(),
    );
    all
}

/// Regression: a `.env` value a command had copied into `AGENTS.md` went
/// to the model in the next run's system prompt, unscrubbed.
#[test]
fn a_secret_copied_into_agents_md_is_scrubbed_from_the_system_prompt() {
    let env = TestEnv::new();
    env.write(".env", &format!("API_KEY={CANARY}\n"));
    env.write(
        "AGENTS.md",
        &format!("Notes from the last run:\nAPI_KEY={CANARY}\n"),
    );
    let server = FakeOllama::start(vec![Reply::answer("Nothing to change.")]);
    env.oc(&server)
        .args(["run", "--yes", "--task", "change", "tidy up"])
        .assert()
        .code(4);
    let system = server.chat_requests()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("Notes from the last run"), "{system}");
    assert!(!kept(&env, &server).contains(CANARY));
}

/// Regression: a `.env` value a command had made into a function name went
/// to the model in the next run's repository map, unscrubbed.
#[test]
fn a_secret_made_into_a_definition_is_scrubbed_from_the_repository_map() {
    let env = TestEnv::new();
    env.write(".env", &format!("API_KEY={CANARY}\n"));
    env.write(
        "src/keys.py",
        &format!("def api_{CANARY}():\n    return 1\n\n\ndef other():\n    return 2\n"),
    );
    // Too many files to show whole: the first request shows a map.
    for n in 0..12 {
        env.write(
            &format!("src/part{n}.py"),
            &format!("def part{n}():\n    return {n}\n"),
        );
    }
    let server = FakeOllama::start(vec![Reply::answer("Nothing to change.")]);
    env.oc(&server)
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "--task", "change", "make the api faster"])
        .assert()
        .code(4);
    let first = server.chat_requests()[0].to_string();
    assert!(first.contains("keys.py"), "the map shows the file: {first}");
    assert!(!kept(&env, &server).contains(CANARY));
}

/// A run that stages a rename and then makes `.git` a link to another
/// repository: neither the end of the run (which keeps the old index) nor
/// `oc undo` (which puts it back) writes into that repository.
#[test]
fn the_index_is_never_kept_or_put_back_through_a_linked_git_folder() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.commit_all();
    let outside = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(outside.path())
        .status()
        .unwrap();
    assert!(status.success());
    let before = files_under(outside.path());
    let command = format!(
        "git mv a.txt b.txt && mv .git .git.old && ln -s '{}/.git' .git",
        outside.path().display()
    );
    let server = bash_calls(&[&command]);
    env.oc(&server)
        .args(["run", "--yes", "rename a.txt"])
        .assert()
        .success();
    // Undo cannot find the old contents through the link, and says so.
    env.oc(&server).args(["undo", "--force"]).assert().failure();
    assert_eq!(
        files_under(outside.path()),
        before,
        "oc wrote outside the workspace"
    );
}

/// Regression: a hook and a config setting a run's command planted in
/// `.git` survived `oc undo`, and ran outside any sandbox at the user's
/// next `git commit`. The checkpoint covers `.git`'s config, hooks and
/// `info/`; the run's end says they changed, and undo puts them back.
#[test]
fn hooks_and_settings_a_run_plants_are_named_and_undone() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.commit_all();
    let config_before = std::fs::read_to_string(env.work().join(".git/config")).unwrap();
    let command = "printf '#!/bin/sh\\ntouch hooked\\n' > .git/hooks/pre-commit \
        && chmod +x .git/hooks/pre-commit \
        && git config alias.st '!touch aliased' \
        && echo 'hidden.txt' >> .git/info/exclude \
        && echo b > a.txt";
    let server = bash_calls(&[command]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "change a.txt"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("the run changed the repository's own settings")
            && stderr.contains(".git/hooks/pre-commit")
            && stderr.contains(".git/config"),
        "{stderr}"
    );
    env.oc(&server).args(["undo"]).assert().success();
    assert!(!env.work().join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(env.work().join(".git/config")).unwrap(),
        config_before
    );
    let exclude = std::fs::read_to_string(env.work().join(".git/info/exclude")).unwrap();
    assert!(!exclude.contains("hidden.txt"), "{exclude}");
    assert_eq!(
        std::fs::read_to_string(env.work().join("a.txt")).unwrap(),
        "a\n"
    );
}

/// Regression: a FIFO a command made where `oc` reads (`mkfifo
/// AGENTS.md`) stalled the next run before it started, beyond the reach
/// of `--timeout`; `read_file` on one stalled the run too. `oc` reads
/// workspace files without waiting, and a FIFO is not a file to read.
#[test]
fn a_fifo_where_oc_reads_stalls_nothing() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    for name in ["AGENTS.md", "pipe"] {
        let status = std::process::Command::new("mkfifo")
            .arg(env.work().join(name))
            .status()
            .unwrap();
        assert!(status.success());
    }
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "pipe"}))]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .timeout(std::time::Duration::from_secs(20))
        .args(["run", "--task", "answer", "--yes", "read the pipe"])
        .assert()
        .success();
    let results = crate::common::tool_results(&server.chat_requests()[1]);
    assert!(results[0].contains("not a regular file"), "{results:?}");
}

/// Regression: the values of direnv's `.envrc` (`export DATABASE_URL=…`
/// with a password in it) reached the model through a search that never
/// named the file. `.envrc` is a secret environment file now.
#[test]
fn values_in_envrc_are_scrubbed_like_env_files() {
    let env = TestEnv::new();
    env.write(
        ".envrc",
        "export DATABASE_URL=postgres://app:envrcCANARYpw77@db/app\n",
    );
    let server = bash_calls(&["grep -rh DATABASE_URL --exclude-dir=.git ."]);
    env.oc(&server)
        .args(["run", "--yes", "--task", "change", "find the database url"])
        .assert()
        .code(4); // it only looked: `unchanged`
    let results = crate::common::tool_results(&server.chat_requests()[1]);
    assert!(results[0].contains("DATABASE_URL"), "{results:?}");
    assert!(!kept(&env, &server).contains("envrcCANARYpw77"));
}

/// Regression: a run that moved `.git` aside and pointed a link (or a
/// `gitdir:` file) at it made git list the old folder's files as new
/// ones, and `--on-fail revert` or `oc undo` removed them all: the
/// repository's history was gone. Such a run is not recorded for undo.
#[test]
fn a_moved_git_directory_is_never_undone_away() {
    for moved in [
        "mv .git .gitold && ln -s .gitold .git",
        "mv .git .gitold && printf 'gitdir: .gitold\\n' > .git",
    ] {
        let env = TestEnv::new();
        env.write("a.txt", "a\n");
        env.commit_all();
        let command = format!("{moved} && echo b > a.txt");
        let server = bash_calls(&[&command]);
        let out = env
            .oc(&server)
            .args([
                "run",
                "--yes",
                "--check",
                "false",
                "--on-fail",
                "revert",
                "edit a.txt",
            ])
            .assert()
            .failure();
        let old = env.work().join(".gitold");
        assert!(
            old.join("HEAD").is_file(),
            "{moved}: revert removed the old git directory"
        );
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains("moved or replaced the repository's git directory"),
            "{moved}: {stderr}"
        );
        // Nothing was recorded, so there is nothing for undo to take away.
        let undo = env.oc(&server).args(["undo", "--force"]).output().unwrap();
        assert!(
            !undo.status.success(),
            "{moved}: undo found something to undo"
        );
        assert!(
            old.join("HEAD").is_file(),
            "{moved}: undo removed the old git directory"
        );
        assert!(old.join("objects").is_dir(), "{moved}");
    }
}

/// Regression: a `.env` value a command had put in a file's name went to
/// the model, the session and stream-json in the `read_file` call `oc`
/// wrote to show that file. Such a file is not shown.
#[test]
fn a_secret_in_a_file_name_is_scrubbed_from_the_calls_oc_writes() {
    let env = TestEnv::new();
    env.write(".env", &format!("API_KEY={CANARY}\n"));
    env.write(&format!("leak_{CANARY}.py"), "x = 1\n");
    env.write("app.py", "y = 2\n");
    let server = FakeOllama::start(vec![Reply::answer("Nothing to change.")]);
    let out = env
        .oc(&server)
        .env("OC_DISABLE", "")
        .args([
            "run",
            "--yes",
            "--task",
            "change",
            "--output-format",
            "stream-json",
            "tidy up the code",
        ])
        .assert()
        .code(4);
    let first = server.chat_requests()[0].to_string();
    assert!(
        first.contains("app.py"),
        "the other files are shown: {first}"
    );
    let mut all = kept(&env, &server);
    all.push_str(&String::from_utf8_lossy(&out.get_output().stdout));
    let at = all
        .find(CANARY)
        .map(|i| all[i.saturating_sub(300)..i + 40].to_string());
    assert_eq!(at, None);
}

/// Regression: with `shopt -s dotglob`, a plain `*` matches `.env`, and
/// `cat node_modules/p/*` printed a `.env` the scrubber does not read
/// (it skips `node_modules`). The hard rule reads globs as dotglob does.
#[test]
fn dotglob_cannot_glob_a_secret_file_past_the_hard_rule() {
    let env = TestEnv::new();
    env.write("node_modules/p/.env", "API_KEY=nodemodSECRETzz81\n");
    env.write("node_modules/p/index.js", "module.exports = 1;\n");
    let server = bash_calls(&["shopt -s dotglob; cat node_modules/p/*"]);
    env.oc(&server)
        .args(["run", "--yes", "--task", "change", "look at the package"])
        .assert()
        .code(4);
    let results = crate::common::tool_results(&server.chat_requests()[1]);
    assert!(
        results[0].contains(".env"),
        "refused, naming the file: {results:?}"
    );
    assert!(!kept(&env, &server).contains("nodemodSECRETzz81"));
}

/// Regression: a FIFO made where git reads (`.gitignore`) held the git
/// `oc` runs to settle the checkpoint, and the run with it, for good
/// (past `--timeout`). Git is stopped at its deadline; the run ends and
/// says why undo has no record.
#[test]
fn a_fifo_where_git_reads_does_not_hold_the_run() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.write(".env", "API_KEY=abcdef123456\n");
    env.commit_all();
    let server = bash_calls(&["echo b > a.txt; rm -f .gitignore; mkfifo .gitignore"]);
    let out = env
        .oc(&server)
        .timeout(std::time::Duration::from_secs(90))
        .args(["run", "--yes", "--timeout", "5s", "edit a.txt"])
        .assert();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("did not finish within 20 s"), "{stderr}");
    assert!(
        crate::common::processes_named(&env.work().display().to_string())
            .iter()
            .all(|p| !p.contains("ls-files")),
        "a git is left behind"
    );
}
