//! Permission rules through the binary: `--allow`, `--deny`, config rules,
//! and the messages that say how to allow what was denied.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv, bash_calls, tool_messages};

fn contents(server: &FakeOllama, request: usize) -> Vec<String> {
    tool_messages(&server.chat_requests()[request])
        .iter()
        .map(|t| t["content"].as_str().unwrap().to_string())
        .collect()
}

/// `echo "fix the tests" | oc run` without a terminal and without `--yes`:
/// nothing waits, the edit and the command are denied with the exact rule
/// that would allow them, the denials are listed, and the exit code is 5.
#[test]
fn piped_prompt_without_yes_denies_and_says_how_to_allow() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "pub fn f() -> i32 { 1 }\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            (
                "edit_file",
                json!({"path": "src/lib.rs", "old_string": "1", "new_string": "2"}),
            ),
            ("bash", json!({"command": "cargo test"})),
        ]),
        Reply::answer("Both need approval."),
    ]);
    let out = env
        .oc(&server)
        .arg("run")
        .write_stdin("fix the tests\n")
        .assert()
        .code(5);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("- edit_file src/lib.rs    (--allow 'edit(src/lib.rs)')"),
        "{stderr}"
    );
    assert!(
        stderr.contains("- bash cargo test    (--allow 'bash(cargo test)')"),
        "{stderr}"
    );
    let results = contents(&server, 1);
    assert!(
        results[0].contains("`--yes` or `--allow 'edit(src/lib.rs)'`"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("`--allow 'bash(cargo test)'`"),
        "{}",
        results[1]
    );
    assert_eq!(
        server.chat_requests()[0]["messages"][1]["content"],
        "fix the tests\n"
    );
    assert!(stderr.contains("2 actions needed approval"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(env.work().join("src/lib.rs")).unwrap(),
        "pub fn f() -> i32 { 1 }\n"
    );
    for result in &results {
        assert!(result.contains("not approved"), "{result}");
    }
    let decisions = &env.session()["permissions"];
    assert_eq!(decisions[0]["allowed"], false);
    assert_eq!(decisions[0]["source"], "no_approver");
    assert_eq!(decisions[1]["tool"], "bash");
}

/// `--allow 'bash(cargo test*)'`: `cargo test --lib` runs, `cargo publish`
/// is denied (no terminal).
#[test]
fn allow_rule_lets_matching_commands_run_and_only_those() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("bash", json!({"command": "cargo test --lib"})),
            ("bash", json!({"command": "cargo publish"})),
            ("bash", json!({"command": "cargo test && cargo publish"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--allow", "bash(cargo test*)", "test it"])
        .assert()
        .code(5);
    let results = contents(&server, 1);
    // It ran: cargo itself answers (there is no Cargo.toml here).
    assert!(results[0].contains("[exit code"), "{}", results[0]);
    assert!(!results[0].contains("not approved"), "{}", results[0]);
    assert!(
        results[1].starts_with("error: not approved"),
        "{}",
        results[1]
    );
    assert!(
        results[2].starts_with("error: not approved"),
        "every part must be allowed: {}",
        results[2]
    );
    let decisions = &env.session()["permissions"];
    assert_eq!(decisions[0]["source"], "rule");
    assert_eq!(decisions[0]["rule"], "bash(cargo test*)");
    assert_eq!(decisions[1]["source"], "no_approver");
}

/// `--deny 'write(src/**)'` beats `--yes`, and says which rule.
#[test]
fn deny_rule_beats_yes() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("write_file", json!({"path": "src/new.rs", "content": "x"})),
            ("write_file", json!({"path": "docs/new.md", "content": "x"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "--deny", "write(src/**)", "write"])
        .assert()
        .success();
    assert!(!env.work().join("src/new.rs").exists());
    assert!(env.work().join("docs/new.md").exists());
    let results = contents(&server, 1);
    assert_eq!(
        results[0],
        "error: not approved: the rule `deny write(src/**)` forbids it"
    );
    assert_eq!(env.session()["permissions"][0]["source"], "rule");
}

/// Rules from the project config, with `ask` beating `--yes`.
#[test]
fn config_rules_apply_and_ask_beats_yes() {
    let env = TestEnv::new();
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [
            {"action": "allow", "rule": "bash(echo *)"},
            {"action": "ask", "rule": "bash(git push*)"}
        ]}}"#,
    );
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("bash", json!({"command": "echo allowed"})),
            ("bash", json!({"command": "git push origin main"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "go"])
        .assert()
        .code(5);
    let results = contents(&server, 1);
    assert_eq!(results[0], "allowed\n[exit code 0]");
    assert!(
        results[1].contains("the rule `ask bash(git push*)` requires approval"),
        "{}",
        results[1]
    );
}

#[test]
fn invalid_rules_are_usage_errors_that_show_the_syntax() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--allow", "shell(ls)", "x"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("--allow: invalid rule `shell(ls)`: `shell` is not a tool"),
        "{stderr}"
    );
    assert!(stderr.contains("TOOL(PATTERN)"), "{stderr}");
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [{"action": "allow", "rule": "bash("}]}}"#,
    );
    let out = env.oc(&server).args(["run", "x"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("invalid rule `bash(`"), "{stderr}");
    assert!(server.requests().is_empty());
}

/// The model may read the project config but never change it: it holds the
/// rules of later runs. A command that changes it anyway is undone.
#[test]
fn the_agent_cannot_rewrite_the_project_config() {
    let env = TestEnv::new();
    env.write(".ollama-code.json", "{}\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("read_file", json!({"path": ".ollama-code.json"})),
            (
                "write_file",
                json!({"path": ".ollama-code.json", "content": "{\"permissions\": {\"rules\": [{\"action\": \"allow\", \"rule\": \"bash\"}]}}"}),
            ),
            ("bash", json!({"command": "cat .ollama-code.json"})),
            (
                "bash",
                json!({"command": "echo '{\"permissions\": {\"rules\": [{\"action\": \"allow\", \"rule\": \"bash\"}]}}' > .ollama-code.js*"}),
            ),
            ("bash", json!({"command": "f=.ollama-code; rm $f.json"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "escalate"])
        .assert()
        .success();
    let results = contents(&server, 1);
    assert!(results[0].contains("1\t{}"), "{}", results[0]);
    assert!(results[1].contains("oc's project config"), "{}", results[1]);
    assert_eq!(results[2], "{}\n[exit code 0]", "reading it is fine");
    assert!(
        results[3].contains("the change was undone"),
        "{}",
        results[3]
    );
    assert!(
        results[4].contains("the change was undone"),
        "{}",
        results[4]
    );
    assert_eq!(
        std::fs::read_to_string(env.work().join(".ollama-code.json")).unwrap(),
        "{}\n"
    );
}

/// A file a deny rule keeps from being read does not show up in listings or
/// searches either.
#[test]
fn denied_paths_are_hidden_from_list_and_search() {
    let env = TestEnv::new();
    env.write("secrets/db.txt", "password=hunter2-secret-db\n");
    env.write("app.txt", "password is asked at start\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("search", json!({"pattern": "password"})),
            ("list_files", json!({"pattern": "**"})),
            ("read_file", json!({"path": "secrets/db.txt"})),
        ]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "--deny", "*(secrets/)", "look"])
        .assert()
        .success();
    let results = contents(&server, 1);
    assert!(!results[0].contains("hunter2"), "{}", results[0]);
    assert!(results[0].contains("app.txt:1:"), "{}", results[0]);
    assert!(
        results[0].contains("hidden by deny rules"),
        "{}",
        results[0]
    );
    assert!(!results[1].contains("secrets/db.txt"), "{}", results[1]);
    assert!(results[2].contains("forbids it"), "{}", results[2]);
}

/// Runs `rows` as bash calls in one reply under `oc run ARGS`, and returns
/// each row whose tool result does not contain `expect`, with that result:
/// every row is reported, so one that fails does not hide the others.
fn rows_without(env: &TestEnv, args: &[&str], rows: &[&str], expect: &str) -> Vec<String> {
    let server = bash_calls(rows);
    let _ = env.oc(&server).args(args).arg("try").assert();
    let results = contents(&server, 1);
    assert_eq!(results.len(), rows.len(), "every row was answered");
    rows.iter()
        .zip(&results)
        .filter(|(_, result)| !result.contains(expect))
        .map(|(row, result)| format!("`{row}` → {result}"))
        .collect()
}

/// Runs `git ARGS` in `dir`, for setting up a test.
fn git(dir: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// Issue 41, item 4: `--deny 'bash(git push*)'` was passed by git's own
/// options before the subcommand (8 of 12 spellings pushed), by an alias
/// given with `-c`, and by git's dashed form (`…/git-core/git-push`). Each
/// spelling pushes its own branch to a remote in the workspace if it gets
/// through: none may, and an option git's table does not hold fails closed.
#[test]
fn a_git_deny_rule_holds_through_gits_own_options() {
    let env = TestEnv::new();
    git(env.work(), &["init", "-q", "--bare", "remote.git"]);
    git(env.work(), &["commit", "-q", "--allow-empty", "-m", "one"]);
    git(env.work(), &["remote", "add", "origin", "remote.git"]);
    let spellings = [
        "git --no-pager push",
        "git -P push",
        "git -p push",
        "git --paginate push",
        "git -c user.name=x push",
        "git -C . push",
        "git --git-dir=.git push",
        "git --git-dir .git push",
        "git --work-tree . push",
        "git --work-tree=. push",
        "git --literal-pathspecs push",
        "git -c a=b -c c=d push",
        "git --no-optional-locks push",
        "git --no-replace-objects push",
        "git --no-advice push",
        "git --icase-pathspecs push",
        "git --glob-pathspecs push",
        "git --attr-source HEAD push",
        "git --namespace=x push",
        "git -c user.name=x -C . --no-pager push",
        "/usr/bin/git -P push",
        "env GIT_TRACE=0 git --no-pager push",
        "sudo -n git -P push",
        "git --frobnicate push",
        "git -c alias.p=push p",
        "git -c alias.pu=p -c alias.p=push pu",
        "git -c alias.p='-c user.name=x push' p",
    ];
    let exec_path = std::process::Command::new("git")
        .arg("--exec-path")
        .output()
        .unwrap()
        .stdout;
    let dashed = format!("{}/git-push", String::from_utf8_lossy(&exec_path).trim());
    let spellings: Vec<&str> = spellings.into_iter().chain([dashed.as_str()]).collect();
    let rows: Vec<String> = (spellings.iter().enumerate())
        .map(|(n, s)| format!("{s} origin HEAD:refs/heads/r{n}"))
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let args = ["run", "--yes", "--deny", "bash(git push*)"];
    let passed = rows_without(
        &env,
        &args,
        &rows,
        "the rule `deny bash(git push*)` forbids it",
    );
    assert!(passed.is_empty(), "not denied:\n{}", passed.join("\n"));
    let refs = std::process::Command::new("git")
        .args(["--git-dir", "remote.git", "for-each-ref"])
        .current_dir(env.work())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&refs.stdout), "", "pushed");
    let unknown = ["git --frobnicate push origin HEAD:refs/heads/r99"];
    let why = "fail closed: `git --frobnicate` is an option oc does not know";
    let passed = rows_without(&env, &args, &unknown, why);
    assert!(passed.is_empty(), "{}", passed.join("\n"));
    let still = rows_without(&env, &args, &["git --no-pager log -1 --format=%s"], "one\n");
    assert!(still.is_empty(), "{}", still.join("\n"));
}

/// The same for the other programs whose own options come before their
/// subcommand: `cargo +toolchain`, cargo's, npm's and pnpm's options; the
/// commands that do not match still run.
#[test]
fn deny_rules_hold_through_cargo_and_npm_options() {
    let env = TestEnv::new();
    let rows = [
        "cargo +nightly publish",
        "cargo -q --locked publish --dry-run",
        "cargo --config net.offline=true publish",
        "cargo -Zunstable-options publish",
        "npm --prefix x publish",
        "npm -g --registry=https://example.invalid publish",
        "npm --workspace pkg publish",
        "pnpm -r --filter app publish",
    ];
    let args = [
        "run",
        "--yes",
        "--deny",
        "bash(cargo publish*)",
        "--deny",
        "bash(npm publish*)",
        "--deny",
        "bash(pnpm publish*)",
    ];
    let passed = rows_without(&env, &args, &rows, "forbids it");
    assert!(passed.is_empty(), "not denied:\n{}", passed.join("\n"));
    // Options the table holds leave other commands readable: they run
    // (pnpm need not be installed), rather than failing closed.
    let other = ["pnpm -r --filter app build", "cargo -q --locked --version"];
    let stopped = rows_without(&env, &args, &other, "[exit code");
    assert!(stopped.is_empty(), "did not run:\n{}", stopped.join("\n"));
}

/// Issue 41, item 4: a rule written with a program's path
/// (`bash(/usr/bin/touch*)`) did not stop `touch`. Deny and ask rules now
/// match a program by its base name either way; no marker file is made.
#[test]
fn rules_match_a_program_by_its_path_or_its_name() {
    let env = TestEnv::new();
    let rows = [
        "touch m0",
        "/usr/bin/touch m1",
        "/bin/touch m2",
        "env touch m3",
        "command touch m4",
        "bash -c 'touch m5'",
        "nice /usr/bin/touch m6",
    ];
    for rule in [
        "bash(/usr/bin/touch*)",
        "bash(touch*)",
        "bash(/bin/touch m*)",
    ] {
        let args = ["run", "--yes", "--deny", rule];
        let passed = rows_without(
            &env,
            &args,
            &rows,
            &format!("the rule `deny {rule}` forbids it"),
        );
        assert!(
            passed.is_empty(),
            "not denied by {rule}:\n{}",
            passed.join("\n")
        );
    }
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [{"action": "ask", "rule": "bash(/usr/bin/touch*)"}]}}"#,
    );
    let asked = rows_without(&env, &["run", "--yes"], &rows, "requires approval");
    assert!(asked.is_empty(), "not asked:\n{}", asked.join("\n"));
    for n in 0..rows.len() {
        assert!(!env.work().join(format!("m{n}")).exists(), "m{n} was made");
    }
}

/// Issue 41, item 4: a path rule written with an absolute path was
/// accepted and never matched (the file was written). One inside the
/// workspace is now read relative to it, from `--deny` and from a config
/// file, for every way of changing a file.
#[test]
fn absolute_path_rules_inside_the_workspace_hold() {
    let env = TestEnv::new();
    env.write("src/a.rs", "a\n");
    env.write("keep/k.txt", "k\n");
    env.write("loose.txt", "l\n");
    let root = env.work().canonicalize().unwrap();
    env.write(
        ".ollama-code.json",
        &json!({"permissions": {"rules": [
            {"action": "deny", "rule": format!("write({}/keep/)", root.display())}
        ]}})
        .to_string(),
    );
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("write_file", json!({"path": "src/new.rs", "content": "x"})),
            (
                "edit_file",
                json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"}),
            ),
            (
                "move_file",
                json!({"from": "loose.txt", "to": "src/loose.txt"}),
            ),
            ("bash", json!({"command": "echo x > src/b.rs"})),
            ("write_file", json!({"path": "keep/k.txt", "content": "x"})),
            ("write_file", json!({"path": "docs/new.md", "content": "x"})),
        ]),
        Reply::answer("done"),
    ]);
    let rule = format!("write({}/src/**)", root.display());
    env.oc(&server)
        .args(["run", "--yes", "--deny", &rule, "write"])
        .assert()
        .success();
    let results = contents(&server, 1);
    for result in &results[..4] {
        assert!(
            result.contains(&format!("the rule `deny {rule}` forbids it")),
            "{result}"
        );
    }
    assert!(results[4].contains("/keep/)` forbids it"), "{}", results[4]);
    assert!(!results[5].contains("not approved"), "{}", results[5]);
    assert!(!env.work().join("src/new.rs").exists());
    assert!(!env.work().join("src/b.rs").exists());
    assert!(env.work().join("loose.txt").exists());
    assert_eq!(
        std::fs::read_to_string(env.work().join("src/a.rs")).unwrap(),
        "a\n"
    );
    assert_eq!(
        std::fs::read_to_string(env.work().join("keep/k.txt")).unwrap(),
        "k\n"
    );
    assert!(env.work().join("docs/new.md").exists());
}

/// Issue 41, item 4: a path rule outside the workspace (absolute, `~`,
/// `..`) can never match: it is a usage error (exit 2) that says what was
/// wrong and how to write it, from a flag or a config file, before the
/// model is asked anything.
#[test]
fn path_rules_outside_the_workspace_are_usage_errors() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    for rule in [
        "write(/etc/**)",
        "read(~/.ssh/id_rsa)",
        "edit(../other/a.rs)",
    ] {
        let out = env
            .oc(&server)
            .args(["run", "--yes", "--deny", rule, "x"])
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            stderr.contains(&format!("--deny: invalid rule `{rule}`")),
            "{stderr}"
        );
        assert!(stderr.contains("outside `"), "{stderr}");
        assert!(
            stderr.contains("write paths relative to it (`write(src/**)`"),
            "{stderr}"
        );
    }
    env.write(
        ".ollama-code.json",
        r#"{"permissions": {"rules": [{"action": "deny", "rule": "write(/usr/**)"}]}}"#,
    );
    let out = env.oc(&server).args(["run", "x"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("invalid rule `write(/usr/**)`"), "{stderr}");
    assert!(stderr.contains("is an absolute path"), "{stderr}");
    assert!(server.requests().is_empty());
}

/// A security test found shells that run a start-up file the same command
/// had just written (`--rcfile`, `--init-file`, an interactive or login
/// shell, another `HOME` or `ZDOTDIR`, `script` without `-c`) passing
/// `--deny 'bash(touch*)'` and the destructive-command rule. Each is
/// refused now, as `BASH_ENV` was: no marker is made, `keep` stays, and a
/// plain `bash -c` still runs.
#[test]
fn shells_that_run_a_start_up_file_are_refused() {
    let env = TestEnv::new();
    env.write("keep/f", "keep me\n");
    let rows = [
        "printf 'touch m1\\n' > rc1; bash --rcfile rc1 -i",
        "printf 'touch m2\\n' > rc2; bash --init-file rc2 -i </dev/null",
        "printf 'touch m3\\n' > .bash_profile; HOME=$PWD bash -l -c true",
        "printf 'touch m4\\n' > .bashrc; HOME=$PWD bash -i -c true",
        "printf 'touch m5\\n' > .bash_profile; export HOME=. && bash --login -c true",
        "printf 'touch m6\\n' > .profile; HOME=$PWD sh -l -c true",
        "printf 'touch m7\\n' > .bash_profile; HOME=. env bash -lc true",
        "printf 'touch m8\\n' > .zshenv; ZDOTDIR=$PWD zsh -c true",
        "printf 'rm -rf keep\\n' > rc9; bash --rcfile rc9 -i",
        "echo 'touch m10; exit' | script -q /dev/null",
    ];
    let args = ["run", "--yes", "--deny", "bash(touch*)"];
    let passed = rows_without(&env, &args, &rows, "cannot be checked");
    assert!(passed.is_empty(), "not refused:\n{}", passed.join("\n"));
    for n in 1..rows.len() {
        assert!(!env.work().join(format!("m{n}")).exists(), "m{n} was made");
    }
    assert!(env.work().join("keep/f").exists(), "keep was removed");
    let still = rows_without(&env, &args, &["bash -c 'echo still-runs'"], "still-runs");
    assert!(still.is_empty(), "{}", still.join("\n"));
}

/// A security test found writes into a folder under `--deny
/// 'write(locked/**)'` once the line had moved there (`cd`, `pushd`) or
/// named the target at run time (`$D/n`). A target after a `cd` to a plain
/// path is read from there; one computed at run time, or after a move the
/// reader cannot follow, fails closed. Nothing lands in `locked/`, and
/// writes elsewhere still run.
#[test]
fn write_deny_rules_hold_after_cd_and_computed_targets() {
    let env = TestEnv::new();
    env.write("locked/f", "locked\n");
    env.write("other/f", "other\n");
    let rows = [
        "cd locked && echo x > n1",
        "pushd locked; echo x >> n2",
        "D=locked; echo x > $D/n3",
        "echo x > $(echo locked)/n4",
        "echo x > lock*/n5",
        "cd locked; cd ..; cd locked && echo x > n6",
        "cd $(echo locked) && echo x > n7",
        "cd locked && tee n8 < /dev/null",
        "cd locked && sort -o n9 /dev/null",
        "env -C locked sh -c 'echo x > n10'",
        "pushd locked && pushd .. && popd && echo x > n11",
        "cd locked/. && echo x > ./n12",
        "cd other/../locked && echo x 2> n13",
        "builtin cd locked && echo x > n14",
        "find locked -name f -execdir sh -c 'echo x > n15' ';'",
    ];
    let args = ["run", "--yes", "--deny", "write(locked/**)"];
    let denied = "the rule `deny write(locked/**)` forbids it";
    let passed = rows_without(&env, &args, &rows, denied);
    assert!(passed.is_empty(), "not denied:\n{}", passed.join("\n"));
    let mut inside: Vec<String> = std::fs::read_dir(env.work().join("locked"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    inside.sort();
    assert_eq!(inside, ["f"], "written into locked/");
    let computed = ["D=locked; echo x > $D/n20"];
    let why = "(fail closed: a file it writes is named at run time";
    let passed = rows_without(&env, &args, &computed, why);
    assert!(passed.is_empty(), "{}", passed.join("\n"));
    let lost = ["D=locked; cd \"$D\" && echo x > n21"];
    let why = "(fail closed: a `cd`, `pushd` or `popd` went to a folder the reader cannot follow";
    let passed = rows_without(&env, &args, &lost, why);
    assert!(passed.is_empty(), "{}", passed.join("\n"));
    let still = [
        "cd other && echo x > o1 && cat o1",
        "cd locked && echo x > ../o2 && cat ../o2",
        "cd locked && cat f",
    ];
    let stopped = rows_without(&env, &args, &still, "[exit code 0]");
    assert!(stopped.is_empty(), "did not run:\n{}", stopped.join("\n"));
}

/// A denied call the model sends again is one action to approve: listed
/// once, in the same words in every output format.
#[test]
fn a_repeated_denied_call_is_listed_once_in_the_same_words_in_text_and_json() {
    for format in ["text", "json"] {
        let env = TestEnv::new();
        env.write("a.txt", "old\n");
        let write = || Reply::tool_calls(&[("bash", json!({"command": "touch b.txt"}))]);
        let server = FakeOllama::start(vec![write(), write(), Reply::answer("Gave up.")]);
        let out = env
            .oc(&server)
            .args(["run", "--output-format", format, "make b.txt"])
            .assert()
            .code(5);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            stderr.contains("1 action needed approval and no one could give it (no terminal):"),
            "{format}: {stderr}"
        );
        assert_eq!(
            stderr.matches("- bash touch b.txt").count(),
            1,
            "{format}: {stderr}"
        );
        assert!(stderr.contains("Re-run with `--yes`"), "{format}: {stderr}");
        if format == "json" {
            let result: serde_json::Value =
                serde_json::from_slice(&out.get_output().stdout).unwrap();
            assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
        }
    }
}

/// A line that is not complete shell syntax, and one the shell parser
/// would hang or crash on, is refused with the reason under `--yes`; the
/// run answers every call and nothing of the line runs.
#[test]
fn lines_that_cannot_be_read_are_refused_and_the_run_goes_on() {
    let env = TestEnv::new();
    let rows = [
        "touch m1; echo 'unterminated",
        "touch m2; cat <<$(( )",
        "touch m3; cat <<\"\" ",
    ];
    let passed = rows_without(&env, &["run", "--yes"], &rows, "cannot be checked (");
    assert!(passed.is_empty(), "not refused:\n{}", passed.join("\n"));
    for n in 1..=rows.len() {
        assert!(!env.work().join(format!("m{n}")).exists(), "m{n} was made");
    }
    let still = rows_without(&env, &["run", "--yes"], &["echo still-runs"], "still-runs");
    assert!(still.is_empty(), "{}", still.join("\n"));
}
