//! Config files through the binary: precedence and error reporting.

use crate::common::{FakeOllama, Reply, TestEnv};

#[test]
fn project_config_sets_options_and_flags_beat_it() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    env.write(
        ".ollama-code.json",
        r#"{"num_ctx": 4096, "temperature": 0.2, "top_k": 7}"#,
    );
    let server = FakeOllama::start(vec![Reply::answer("a"), Reply::answer("b")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "x"])
        .assert()
        .success();
    env.oc(&server)
        .args(["run", "--task", "answer", "--temperature", "0.5", "x"])
        .assert()
        .success();
    let requests = server.chat_requests();
    assert_eq!(requests[0]["options"]["num_ctx"], 4096);
    assert_eq!(requests[0]["options"]["temperature"], 0.2);
    assert_eq!(requests[0]["options"]["top_k"], 7);
    assert_eq!(requests[1]["options"]["temperature"], 0.5);
}

#[test]
fn user_config_in_oc_home_is_read_and_env_beats_it() {
    let env = TestEnv::new();
    std::fs::write(
        env.home.path().join("config.json"),
        r#"{"model": "from-user-config"}"#,
    )
    .unwrap();
    let server = FakeOllama::start(vec![Reply::answer("a")]).with_model(
        "from-user-config",
        &["completion", "tools"],
        4096,
    );
    env.oc(&server)
        .env_remove("OC_MODEL")
        .args(["run", "--task", "answer", "x"])
        .assert()
        .success();
    assert_eq!(server.chat_requests()[0]["model"], "from-user-config");
    // OC_MODEL (set by the test environment) beats the user config.
    let server = FakeOllama::start(vec![Reply::answer("a")]);
    env.oc(&server)
        .args(["run", "--task", "answer", "x"])
        .assert()
        .success();
    assert_eq!(server.chat_requests()[0]["model"], crate::common::MODEL);
}

#[test]
fn malformed_config_names_file_line_and_column() {
    let env = TestEnv::new();
    env.write(
        ".ollama-code.json",
        "{\n  \"model\": \"x\"\n  \"num_ctx\": 1\n}\n",
    );
    let server = FakeOllama::start(vec![]);
    let out = env.oc(&server).args(["run", "x"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains(".ollama-code.json` is invalid at line 3, column 3"),
        "{stderr}"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn unknown_keys_warn_and_missing_explicit_config_fails() {
    let env = TestEnv::new();
    env.write(".ollama-code.json", r#"{"modle": "typo"}"#);
    let server = FakeOllama::start(vec![Reply::answer("a")]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "x"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("unknown key `modle` is ignored"),
        "{stderr}"
    );
    env.oc(&server)
        .args(["run", "--task", "answer", "--config", "nope.json", "x"])
        .assert()
        .code(2);
}

/// A cloned repository's config must not send prompts and code elsewhere.
#[test]
fn project_config_host_must_be_this_machine() {
    let env = TestEnv::new();
    // `.invalid` never resolves: were the host used, the run would fail.
    env.write(
        ".ollama-code.json",
        r#"{"host": "http://remote.invalid:11434"}"#,
    );
    let server = FakeOllama::start(vec![Reply::answer("a")]);
    let user_config = serde_json::json!({ "host": server.url }).to_string();
    std::fs::write(env.home.path().join("config.json"), user_config).unwrap();
    let out = env
        .oc(&server)
        .env_remove("OLLAMA_HOST")
        .args(["run", "--task", "answer", "x"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("which is not this machine; it is ignored"),
        "{stderr}"
    );
    assert_eq!(
        server.chat_requests().len(),
        1,
        "the run used the user config's host"
    );
}
