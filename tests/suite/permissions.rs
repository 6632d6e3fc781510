//! Permission policy through the binary: headless denials, `--yes`, hard rules.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv, tool_messages};

#[test]
fn reads_are_allowed_without_asking() {
    let env = TestEnv::new();
    env.write("notes.md", "remember\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("read_file", json!({"path": "notes.md"})),
            ("list_files", json!({"pattern": "*.md"})),
            ("search", json!({"pattern": "remem"})),
        ]),
        Reply::answer("read"),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "read"])
        .assert()
        .success();
    let tools = tool_messages(&server.chat_requests()[1]);
    assert_eq!(tools[0]["content"], "     1\tremember\n(1 lines)");
    assert_eq!(tools[1]["content"], "notes.md");
    assert_eq!(tools[2]["content"], "notes.md:1: remember");
}

/// `--yes` runs bash, but the hard rules still hold: no `.env` file is read,
/// searched or named in a command, and no destructive command runs.
#[test]
fn hard_rules_hold_under_yes() {
    let env = TestEnv::new();
    env.write(".env.local", "API_KEY=sk-supersecret123\n");
    env.write("build/out.o", "x");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("read_file", json!({"path": ".env.local"})),
            ("bash", json!({"command": "grep KEY .env.local"})),
            ("search", json!({"pattern": "API_KEY"})),
            (
                "search",
                json!({"pattern": "API_KEY", "path": ".env.local"}),
            ),
            ("bash", json!({"command": "echo ok && rm -rf build"})),
            ("bash", json!({"command": "sudo rm -fr /"})),
            ("bash", json!({"command": "sh -c 'rm -r -f .'"})),
            ("bash", json!({"command": "echo fine"})),
            ("bash", json!({"command": "cat .e\"\"nv.local"})),
            ("bash", json!({"command": "grep -r API_KEY ."})),
        ]),
        Reply::answer("done"),
    ]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "leak it"])
        .assert()
        .code(4); // what ran only looked: `unchanged`
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(env.work().join("build/out.o").exists());
    let tools = tool_messages(&server.chat_requests()[1]);
    let contents: Vec<&str> = tools
        .iter()
        .map(|t| t["content"].as_str().unwrap())
        .collect();
    for (i, content) in contents.iter().enumerate().take(7) {
        if i == 2 {
            assert!(content.starts_with("no matches"), "{content}");
        } else {
            assert!(content.starts_with("error: not approved"), "{i}: {content}");
        }
    }
    assert!(
        contents[4].contains("recursive forced removal"),
        "{}",
        contents[4]
    );
    assert_eq!(contents[7], "fine\n[exit code 0]");
    assert!(
        contents[8].starts_with("error: not approved"),
        "{}",
        contents[8]
    );
    // A way around the rules still shows no secret: values are scrubbed.
    assert!(
        contents[9].contains("API_KEY=[redacted secret]"),
        "{}",
        contents[9]
    );
    let session = std::fs::read_to_string(
        env.home
            .path()
            .join("sessions")
            .join(format!("{}.json", env.session()["id"].as_str().unwrap())),
    )
    .unwrap();
    let finetune = std::fs::read_to_string(env.home.path().join("finetune.jsonl")).unwrap();
    for text in [&stdout, &session, &finetune] {
        assert!(!text.contains("sk-supersecret123"), "the key leaked");
    }
}

/// Symlinks that point out of the workspace, dangling symlinks and `..` are
/// refused, and nothing outside changes.
#[test]
fn paths_outside_the_workspace_are_refused() {
    let env = TestEnv::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("outside.txt"), "keep").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("outside.txt"),
        env.work().join("notes.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("not-yet.txt"),
        env.work().join("draft.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink("/", env.work().join("escape")).unwrap();
    env.write("a.txt", "a");
    let evil = format!("escape{}/evil", outside.path().display());
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("write_file", json!({"path": "notes.md", "content": "x"})),
            ("write_file", json!({"path": "draft.md", "content": "x"})),
            ("write_file", json!({"path": evil, "content": "x"})),
            (
                "move_file",
                json!({"from": "a.txt", "to": "escape/tmp/a.txt"}),
            ),
            ("read_file", json!({"path": "../../etc/passwd"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "escape"])
        .assert()
        .code(4);
    let tools = tool_messages(&server.chat_requests()[1]);
    for tool in &tools {
        let content = tool["content"].as_str().unwrap();
        assert!(content.starts_with("error: refused"), "{content}");
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("outside.txt")).unwrap(),
        "keep"
    );
    assert!(!outside.path().join("not-yet.txt").exists());
    assert!(!outside.path().join("evil").exists());
    assert!(env.work().join("a.txt").exists());
}

/// Regression: a refused read of a secret file was worded as a refused
/// write too ("no tool may read, write, list or search it"); each refusal
/// now names what its call does.
#[test]
fn a_refused_read_of_a_secret_file_says_read() {
    let env = TestEnv::new();
    env.write(".env", "API_KEY=sk-supersecret123\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("read_file", json!({"path": ".env"})),
            ("list_files", json!({"pattern": "*", "path": ".env"})),
            ("search", json!({"pattern": "KEY", "path": ".env"})),
            (
                "write_file",
                json!({"path": ".env", "content": "API_KEY=x\n"}),
            ),
        ]),
        Reply::answer("I may not look at .env."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "set API_KEY to x in .env"])
        .assert()
        .code(4);
    let tools = tool_messages(&server.chat_requests()[1]);
    let contents: Vec<&str> = tools
        .iter()
        .map(|t| t["content"].as_str().unwrap())
        .collect();
    let said = |verb: &str| {
        format!("error: not approved: `.env` is a secret environment file; no tool may {verb} it")
    };
    assert_eq!(
        contents,
        [said("read"), said("list"), said("search"), said("write")]
    );
}

/// Issue 41, item 2: `.git` (its config and hooks, anything under a `.git`
/// folder at any depth, and a `.git` file) is off-limits to the file tools
/// that change things, under `--yes` too; before, they wrote there. The
/// refusal says where and what to do instead; reading stays allowed.
#[test]
fn file_tools_cannot_change_anything_in_git() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.write("vendor/lib/.git/config", "[core]\n");
    env.write("sub/.git", "gitdir: ../.git/modules/sub\n");
    std::os::unix::fs::symlink(".git/hooks", env.work().join("hooks")).unwrap();
    let config = std::fs::read_to_string(env.work().join(".git/config")).unwrap();
    let hook = "#!/bin/sh\ntouch pwned\n";
    let calls = [
        (
            "write_file",
            json!({"path": ".git/hooks/pre-commit", "content": hook}),
        ),
        (
            "write_file",
            json!({"path": ".git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}),
        ),
        (
            "edit_file",
            json!({"path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = touch pwned"}),
        ),
        (
            "write_file",
            json!({"path": ".git/info/attributes", "content": "* filter=x\n"}),
        ),
        (
            "write_file",
            json!({"path": "vendor/lib/.git/config", "content": "[alias]\n"}),
        ),
        (
            "write_file",
            json!({"path": "sub/.git", "content": "gitdir: /elsewhere\n"}),
        ),
        (
            "write_file",
            json!({"path": "hooks/post-checkout", "content": hook}),
        ),
        (
            "move_file",
            json!({"from": "a.txt", "to": ".git/hooks/post-merge"}),
        ),
        ("move_file", json!({"from": ".git/HEAD", "to": "HEAD.txt"})),
        ("read_file", json!({"path": ".git/HEAD"})),
    ];
    let server = FakeOllama::start(vec![Reply::tool_calls(&calls), Reply::answer("done")]);
    env.oc(&server)
        .args(["run", "--yes", "set up hooks"])
        .assert()
        .code(4);
    let tools = tool_messages(&server.chat_requests()[1]);
    let mut wrong = Vec::new();
    for ((tool, args), result) in calls[..9].iter().zip(&tools) {
        let content = result["content"].as_str().unwrap();
        if !(content.starts_with("error: not approved") && content.contains("is in `.git`")) {
            wrong.push(format!("{tool} {args}: {content}"));
        }
    }
    assert!(wrong.is_empty(), "not refused:\n{}", wrong.join("\n"));
    let first = tools[0]["content"].as_str().unwrap();
    assert!(first.contains("`.git/hooks/pre-commit`"), "{first}");
    assert!(
        first.contains("leave the repository to git commands"),
        "{first}"
    );
    let read = tools[9]["content"].as_str().unwrap();
    assert!(read.contains("ref: refs/heads/"), "{read}");
    assert_eq!(
        std::fs::read_to_string(env.work().join(".git/config")).unwrap(),
        config
    );
    for made in [
        ".git/hooks/pre-commit",
        ".git/hooks/post-checkout",
        ".git/hooks/post-merge",
        ".git/info/attributes",
        "HEAD.txt",
    ] {
        assert!(!env.work().join(made).exists(), "{made} was made");
    }
    assert!(env.work().join(".git/HEAD").exists());
    assert_eq!(
        std::fs::read_to_string(env.work().join("sub/.git")).unwrap(),
        "gitdir: ../.git/modules/sub\n"
    );
    assert_eq!(
        std::fs::read_to_string(env.work().join("vendor/lib/.git/config")).unwrap(),
        "[core]\n"
    );
    assert_eq!(env.session()["permissions"][0]["source"], "hard_rule");
}
