//! The permission decision table (docs/permissions.md): every order of rules, modes
//! and hard rules, pinned.

use super::*;
use crate::permissions::verdict::allow_flags;
use crate::tools::Workspace;
use serde_json::{Value, json};

pub(super) fn parse_rules(rules: &[(Action, &str)]) -> Vec<Rule> {
    rules
        .iter()
        .map(|(action, text)| Rule::parse(*action, text).unwrap())
        .collect()
}

pub(super) fn verdict(
    mode: PermissionMode,
    rules: &[(Action, &str)],
    tool: ToolName,
    args: Value,
) -> Verdict {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let input = ToolInput::parse(tool, &args).unwrap();
    let paths: Vec<ResolvedPath> = input
        .paths()
        .iter()
        .filter_map(|p| ws.resolve(p).ok())
        .collect();
    let request = Request {
        input: &input,
        paths: &paths,
        root: ws.root(),
    };
    check(mode, &parse_rules(rules), &request)
}

pub(super) fn short(v: &Verdict) -> String {
    match v {
        Verdict::Allow { source, .. } => format!("allow:{source:?}"),
        Verdict::Deny { source, .. } => format!("deny:{source:?}"),
        Verdict::Ask { .. } => "ask".to_string(),
    }
}

/// Asserts that no row failed: each row of a table is judged on its own,
/// and every failing row is listed, so one does not hide the rest.
pub(super) fn all_rows_hold(failed: &[String]) {
    assert!(
        failed.is_empty(),
        "{} row(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// Asserts that every bash `command` gets a verdict whose short form
/// ([`short`]) starts with `want` (`deny` takes a rule's or a hard rule's);
/// every failing command is listed.
pub(super) fn expect_bash(
    mode: PermissionMode,
    rules: &[(Action, &str)],
    commands: &[&str],
    want: &str,
) {
    let failed: Vec<String> = (commands.iter())
        .map(|command| {
            let got = verdict(mode, rules, ToolName::Bash, json!({ "command": command }));
            (command, got)
        })
        .filter(|(_, got)| !short(got).starts_with(want))
        .map(|(command, got)| format!("{command:?}: want {want}, got {got:?}"))
        .collect();
    all_rows_hold(&failed);
}

/// One row: mode, rules, call, expected verdict.
type Case<'a> = (
    PermissionMode,
    &'a [(Action, &'a str)],
    &'a (ToolName, Value),
    &'a str,
);

/// The whole decision table: hard rules → plan mode → deny → ask →
/// allow → yolo → defaults.
#[test]
fn decision_table() {
    use Action::{Allow, Ask, Deny};
    use PermissionMode::{Normal, Plan, Yolo};
    let read = (ToolName::ReadFile, json!({"path": "a.txt"}));
    let write_src = (
        ToolName::WriteFile,
        json!({"path": "src/a.rs", "content": ""}),
    );
    let write_doc = (
        ToolName::WriteFile,
        json!({"path": "doc.md", "content": ""}),
    );
    let test = (ToolName::Bash, json!({"command": "cargo test --lib"}));
    let publish = (ToolName::Bash, json!({"command": "cargo publish"}));
    let both = (
        ToolName::Bash,
        json!({"command": "cargo test && cargo publish"}),
    );
    let env_read = (ToolName::ReadFile, json!({"path": ".env.local"}));
    let rm = (
        ToolName::Bash,
        json!({"command": "echo ok && rm -rf build"}),
    );
    let config = (
        ToolName::WriteFile,
        json!({"path": ".ollama-code.json", "content": "{}"}),
    );
    let config_read = (ToolName::ReadFile, json!({"path": ".ollama-code.json"}));
    let allow_test: &[(Action, &str)] = &[(Allow, "bash(cargo test*)")];
    let deny_src: &[(Action, &str)] = &[(Deny, "write(src/**)")];
    let everything: &[(Action, &str)] = &[(Allow, "*"), (Allow, "bash")];
    let none: &[(Action, &str)] = &[];
    let cases: Vec<Case<'_>> = vec![
        // defaults
        (Normal, none, &read, "allow:Default"),
        (Normal, none, &write_src, "ask"),
        (Normal, none, &test, "ask"),
        (Plan, none, &read, "allow:Default"),
        (Plan, none, &write_src, "deny:Mode"),
        (Plan, none, &test, "deny:Mode"),
        (Yolo, none, &write_src, "allow:Yes"),
        (Yolo, none, &test, "allow:Yes"),
        // hard rules beat everything
        (Yolo, everything, &env_read, "deny:HardRule"),
        (Normal, everything, &rm, "deny:HardRule"),
        (Yolo, everything, &config, "deny:HardRule"),
        (Normal, none, &config_read, "allow:Default"),
        // plan mode beats allow rules
        (Plan, everything, &write_src, "deny:Mode"),
        // allow rules
        (Normal, allow_test, &test, "allow:Rule"),
        (Normal, allow_test, &publish, "ask"),
        (Normal, allow_test, &both, "ask"),
        (
            Normal,
            &[(Allow, "bash(cargo test*)"), (Allow, "bash(cargo publish)")],
            &both,
            "allow:Rule",
        ),
        (
            Normal,
            &[(Allow, "write(src/**)")],
            &write_src,
            "allow:Rule",
        ),
        (Normal, &[(Allow, "write(src/**)")], &write_doc, "ask"),
        (Normal, &[(Allow, "write")], &write_doc, "allow:Rule"),
        (Normal, &[(Allow, "edit")], &write_doc, "ask"),
        // deny rules beat --yes and allow rules
        (Yolo, deny_src, &write_src, "deny:Rule"),
        (Yolo, deny_src, &write_doc, "allow:Yes"),
        (
            Normal,
            &[(Allow, "write"), (Deny, "write(src/**)")],
            &write_src,
            "deny:Rule",
        ),
        (Yolo, &[(Deny, "bash(cargo publish*)")], &both, "deny:Rule"),
        (Normal, &[(Deny, "read(secrets/)")], &read, "allow:Default"),
        // ask rules beat allow rules and --yes
        (Yolo, &[(Ask, "bash(cargo publish*)")], &publish, "ask"),
        (
            Normal,
            &[(Allow, "bash"), (Ask, "bash(cargo publish*)")],
            &publish,
            "ask",
        ),
        (Normal, &[(Ask, "read")], &read, "ask"),
    ];
    let failed: Vec<String> = (cases.into_iter())
        .filter_map(|(mode, rules, (tool, args), want)| {
            let got = short(&verdict(mode, rules, *tool, args.clone()));
            (got != want)
                .then(|| format!("{mode:?} {rules:?} {tool:?} {args}: want {want}, got {got}"))
        })
        .collect();
    all_rows_hold(&failed);
    // A write rule covers every way of changing a file; an allowed
    // command that writes needs the write allowed too; hidden
    // substitutions, assignments and computed commands are not covered.
    let check_one =
        |mode: PermissionMode, rules: &[(Action, &str)], call: (ToolName, Value), want: &str| {
            let got = short(&verdict(mode, rules, call.0, call.1.clone()));
            assert_eq!(got, want, "{mode:?} {rules:?} {:?} {}", call.0, call.1);
        };
    check_one(
        Yolo,
        deny_src,
        (
            ToolName::EditFile,
            json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"}),
        ),
        "deny:Rule",
    );
    check_one(
        Yolo,
        deny_src,
        (
            ToolName::MoveFile,
            json!({"from": "doc.md", "to": "src/doc.md"}),
        ),
        "deny:Rule",
    );
    check_one(
        Yolo,
        deny_src,
        (
            ToolName::Bash,
            json!({"command": "git status > src/main.rs"}),
        ),
        "deny:Rule",
    );
    check_one(
        Normal,
        &[(Allow, "bash(git status*)")],
        (ToolName::Bash, json!({"command": "git status > out.txt"})),
        "ask",
    );
    check_one(
        Normal,
        &[(Allow, "bash(git status*)"), (Allow, "write(out.txt)")],
        (ToolName::Bash, json!({"command": "git status > out.txt"})),
        "allow:Rule",
    );
    check_one(
        Normal,
        &[(Allow, "bash(git status*)")],
        (ToolName::Bash, json!({"command": "git status 2>/dev/null"})),
        "allow:Rule",
    );
    check_one(
        Normal,
        &[(Allow, "bash(git status*)")],
        (ToolName::Bash, json!({"command": "git status <(touch p5)"})),
        "ask",
    );
    check_one(
        Normal,
        &[(Allow, "bash(git status*)")],
        (
            ToolName::Bash,
            json!({"command": "git status ${x:-$(touch p6)}"}),
        ),
        "ask",
    );
    check_one(
        Normal,
        &[(Allow, "bash(git status*)")],
        (
            ToolName::Bash,
            json!({"command": "GIT_CONFIG_COUNT=1 git status"}),
        ),
        "ask",
    );
    check_one(
        Normal,
        &[(Allow, "bash(git status*)")],
        (
            ToolName::Bash,
            json!({"command": "env -S'touch p9' git status"}),
        ),
        "ask",
    );
    check_one(
        Normal,
        &[(Allow, "bash")],
        (ToolName::Bash, json!({"command": "$CMD"})),
        "deny:HardRule",
    );
    check_one(
        Yolo,
        &[(Deny, "bash(git push*)")],
        (ToolName::Bash, json!({"command": "time -p git push"})),
        "deny:Rule",
    );
    check_one(
        Yolo,
        &[(Deny, "bash(git push*)")],
        (ToolName::Bash, json!({"command": "{git,push}"})),
        "deny:Rule",
    );
    check_one(
        Yolo,
        &[(Deny, "bash(git push*)")],
        (ToolName::Bash, json!({"command": "env -S'git push'"})),
        "deny:Rule",
    );
}

/// A rule that names a command matches it however it is invoked: by a
/// path, behind wrappers, inside `bash -c`; options that run commands or
/// write files count as commands and writes; inline code and what cannot
/// be parsed fail closed for deny and ask rules.
#[test]
fn rules_hold_however_a_command_is_invoked() {
    use Action::{Allow, Ask, Deny};
    use PermissionMode::{Normal, Yolo};
    let bash = |command: &str| json!({ "command": command });
    let deny_curl: &[(Action, &str)] = &[(Deny, "bash(curl*)")];
    for command in [
        "/usr/bin/curl -s http://x",
        "./curl http://x",
        "env curl http://x",
        "env -i PATH=/usr/bin curl http://x",
        "command curl http://x",
        "exec curl http://x",
        "nice -n 5 curl http://x",
        "timeout 5 /usr/bin/curl http://x",
        "sudo -u root curl http://x",
        "xargs curl < urls.txt",
        "bash -c 'curl http://x'",
        "sh -c \"/usr/bin/curl http://x\"",
        "python3 -c \"import subprocess; subprocess.run(['curl', 'http://x'])\"",
        "perl -e 'system(\"curl\")'",
        "node -e \"require('child_process').execSync('curl x')\"",
        "git -c core.pager='curl http://x' log",
        "git -c alias.x='!curl http://x' x",
        "GIT_SSH_COMMAND='curl x' git fetch",
        "python3 - <<'EOF'\nimport os\nEOF",
        "curl 'http://x",
    ] {
        let got = verdict(Yolo, deny_curl, ToolName::Bash, bash(command));
        assert!(matches!(got, Verdict::Deny { .. }), "{command}: {got:?}");
    }
    let ask_git_log: &[(Action, &str)] = &[(Ask, "bash(git log*)")];
    assert_eq!(
        short(&verdict(
            Yolo,
            ask_git_log,
            ToolName::Bash,
            bash("/usr/local/bin/git log -3")
        )),
        "ask"
    );
    // Allow rules match the command as written: a path to another program
    // of the same name is not the allowed one.
    let allow_curl: &[(Action, &str)] = &[(Allow, "bash(curl *)")];
    assert_eq!(
        short(&verdict(Normal, allow_curl, ToolName::Bash, bash("curl x"))),
        "allow:Rule"
    );
    assert_eq!(
        short(&verdict(
            Normal,
            allow_curl,
            ToolName::Bash,
            bash("./curl x")
        )),
        "ask"
    );
    // Options that write or run.
    let diff: &[(Action, &str)] = &[(Allow, "bash(git diff *)")];
    assert_eq!(
        short(&verdict(
            Normal,
            diff,
            ToolName::Bash,
            bash("git diff --output=out.txt HEAD")
        )),
        "ask"
    );
    assert_eq!(
        short(&verdict(
            Normal,
            &[(Allow, "bash(git diff *)"), (Allow, "write(out.txt)")],
            ToolName::Bash,
            bash("git diff --output=out.txt HEAD")
        )),
        "allow:Rule"
    );
    let git: &[(Action, &str)] = &[(Allow, "bash(git *)")];
    for command in [
        "git -c alias.x='!touch pwned' x",
        "git -c core.pager='touch pwned' log",
        "git fetch --upload-pack='touch pwned' origin",
        "git -c include.path=/tmp/evil.cfg log",
    ] {
        assert_eq!(
            short(&verdict(Normal, git, ToolName::Bash, bash(command))),
            "ask",
            "{command}"
        );
    }
    assert_eq!(
        short(&verdict(Normal, git, ToolName::Bash, bash("git log -3"))),
        "allow:Rule"
    );
    // Deny rules for other commands leave plain commands alone.
    assert_eq!(
        short(&verdict(
            Yolo,
            deny_curl,
            ToolName::Bash,
            bash("python3 script.py")
        )),
        "allow:Yes"
    );
    assert_eq!(
        short(&verdict(
            Yolo,
            deny_curl,
            ToolName::Bash,
            bash("cat curl.txt")
        )),
        "allow:Yes"
    );
    let why = verdict(
        Yolo,
        deny_curl,
        ToolName::Bash,
        bash("python3 -c 'print(1)'"),
    );
    let Verdict::Deny { reason, .. } = why else {
        panic!("{why:?}")
    };
    assert!(
        reason.contains("fail closed: `python3 -c` runs code"),
        "{reason}"
    );
}

#[test]
fn deny_reasons_name_the_rule_and_allow_names_the_rules_used() {
    let v = verdict(
        PermissionMode::Yolo,
        &[(Action::Deny, "write(src/**)")],
        ToolName::WriteFile,
        json!({"path": "src/a.rs", "content": ""}),
    );
    assert_eq!(
        v,
        Verdict::Deny {
            source: Source::Rule,
            reason: "the rule `deny write(src/**)` forbids it".into(),
            rule: Some("write(src/**)".into()),
        }
    );
    let v = verdict(
        PermissionMode::Normal,
        &[
            (Action::Allow, "bash(cargo *)"),
            (Action::Allow, "bash(git status)"),
        ],
        ToolName::Bash,
        json!({"command": "git status; cargo fmt"}),
    );
    assert_eq!(
        v,
        Verdict::Allow {
            source: Source::Rule,
            rule: Some("bash(git status), bash(cargo *)".into())
        }
    );
}

#[test]
fn exact_rules_for_messages() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let input = ToolInput::parse(
        ToolName::Bash,
        &json!({"command": "cargo fmt && cargo test"}),
    )
    .unwrap();
    let request = Request {
        input: &input,
        paths: &[],
        root: ws.root(),
    };
    let (_, rules) = decide(PermissionMode::Normal, &[], &request);
    assert_eq!(rules, ["bash(cargo fmt)", "bash(cargo test)"]);
    assert_eq!(
        allow_flags(&rules),
        "--allow 'bash(cargo fmt)' --allow 'bash(cargo test)'"
    );
    assert_eq!(
        allow_flags(&["bash(echo 'x')".into()]),
        "--allow 'bash(echo '\\''x'\\'')'"
    );
}

#[test]
fn symlink_to_env_is_caught_by_its_real_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), "KEY=1").unwrap();
    std::os::unix::fs::symlink(dir.path().join(".env"), dir.path().join("notes.txt")).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let input = ToolInput::parse(ToolName::ReadFile, &json!({"path": "notes.txt"})).unwrap();
    let paths = vec![ws.resolve("notes.txt").unwrap()];
    let request = Request {
        input: &input,
        paths: &paths,
        root: ws.root(),
    };
    assert!(matches!(
        check(PermissionMode::Yolo, &[], &request),
        Verdict::Deny {
            source: Source::HardRule,
            ..
        }
    ));
}

/// Git's own options before its subcommand are dropped for deny and ask
/// rules; one the table does not hold fails closed for them, while allow
/// rules still match the command as written.
#[test]
fn own_options_before_a_subcommand() {
    let deny = [(Action::Deny, "bash(git push*)")];
    let yolo = PermissionMode::Yolo;
    expect_bash(
        yolo,
        &deny,
        &["git --no-pager push", "git -c a.b=c -P push o"],
        "deny",
    );
    expect_bash(
        yolo,
        &deny,
        &["git --no-pager log", "git -c user.name=x status"],
        "allow",
    );
    let unknown = verdict(
        yolo,
        &deny,
        ToolName::Bash,
        json!({"command": "git --frob push"}),
    );
    let Verdict::Deny { reason, .. } = unknown else {
        panic!("{unknown:?}");
    };
    assert!(
        reason.contains("(fail closed: `git --frob` is an option oc does not know"),
        "{reason}"
    );
    let ask = [(Action::Ask, "bash(git push*)")];
    expect_bash(yolo, &ask, &["git --frob status"], "ask");
    let allow = [(Action::Allow, "bash(git *)")];
    let normal = PermissionMode::Normal;
    expect_bash(
        normal,
        &allow,
        &["git --frob status", "git --no-pager log"],
        "allow",
    );
    let narrow = [(Action::Allow, "bash(git log*)")];
    expect_bash(normal, &narrow, &["git --no-pager log"], "ask");
}

/// No file tool that changes things reaches into a `.git`, at any depth
/// or through a link; reading one is fine.
#[test]
fn file_tools_do_not_change_git() {
    let yolo = PermissionMode::Yolo;
    for (tool, args) in [
        (
            ToolName::WriteFile,
            json!({"path": ".git/config", "content": "x"}),
        ),
        (
            ToolName::WriteFile,
            json!({"path": "src/vendor/.git/hooks/x", "content": "x"}),
        ),
        (
            ToolName::EditFile,
            json!({"path": ".git/config", "old_string": "a", "new_string": "b"}),
        ),
        (ToolName::MoveFile, json!({"from": "a", "to": ".git"})),
        (ToolName::MoveFile, json!({"from": ".git/HEAD", "to": "b"})),
    ] {
        let got = verdict(yolo, &[], tool, args.clone());
        assert_eq!(short(&got), "deny:HardRule", "{tool:?} {args}");
    }
    let read = verdict(
        yolo,
        &[],
        ToolName::ReadFile,
        json!({"path": ".git/config"}),
    );
    assert_eq!(short(&read), "allow:Default");
}
