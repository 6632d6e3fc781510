//! Tool behaviour through the binary (the file tools also have scenario
//! folders, see `scenarios.rs`).

use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv, processes_named, tool_messages};

#[test]
fn bash_output_of_5_mb_reaches_the_model_capped() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "bash",
            json!({"command": "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo LAST-LINE"}),
        )]),
        Reply::answer("ok"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "run a command that prints a lot"])
        .assert()
        .success();
    let content = tool_messages(&server.chat_requests()[1])[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        content.len() < 40_000,
        "{} bytes reached the model",
        content.len()
    );
    assert!(
        content.contains("bytes omitted"),
        "the omitted size is stated"
    );
    assert!(content.starts_with("xxxx"));
    assert!(
        content.ends_with("LAST-LINE\n[exit code 0]"),
        "{}",
        &content[content.len() - 80..]
    );
}

#[test]
fn bash_timeout_leaves_no_process_behind() {
    let env = TestEnv::new();
    let marker = format!("oc-bash-timeout-{}", std::process::id());
    let command =
        format!("bash -c 'exec -a {marker} sleep 300' & bash -c 'exec -a {marker} sleep 300'");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("bash", json!({"command": command, "timeout_secs": 1}))]),
        Reply::answer("ok"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "sleep"])
        .assert()
        .code(4);
    let content = tool_messages(&server.chat_requests()[1])[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(content.contains("timed out after 1 s"), "{content}");
    let left = processes_named(&marker);
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn bash_reports_exit_codes_and_runs_in_the_workspace() {
    let env = TestEnv::new();
    env.write("marker.txt", "here");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            (
                "bash",
                json!({"command": "cat marker.txt; echo; echo oops >&2; exit 7"}),
            ),
            (
                "bash",
                json!({"command": "read line; echo \"stdin:[$line]\"; echo $PAGER"}),
            ),
        ]),
        Reply::answer("ok"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "run"])
        .assert()
        .success();
    let tools = tool_messages(&server.chat_requests()[1]);
    assert_eq!(tools[0]["content"], "here\noops\n[exit code 7]");
    assert_eq!(tools[1]["content"], "stdin:[]\ncat\n[exit code 0]");
}
