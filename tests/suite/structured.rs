//! `--output-schema FILE`: the answer is one JSON value the schema
//! accepts. The schema goes with the request (Ollama `format`, OpenAI
//! `response_format`), a mismatch is sent back once, and a second one is
//! exit 7 with nothing printed as the answer.

use serde_json::{Value, json};

use crate::common::{FakeOllama, Reply, TestEnv, openai_mode};

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The schema of the recorded review (`structured-review-1_5b`).
fn review_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "risk": {"type": "string", "enum": ["low", "medium", "high"]},
            "files": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["summary", "risk", "files"]
    })
}

/// A workspace with the changed `stats.py` and the schema in
/// `review.schema.json` beside the workspace.
fn review_env() -> TestEnv {
    let env = TestEnv::new();
    env.write(
        "stats.py",
        "def mean(xs):\n    if not xs:\n        return 0.0\n    return sum(xs) / len(xs)\n",
    );
    std::fs::write(
        outside(&env, "review.schema.json"),
        review_schema().to_string(),
    )
    .unwrap();
    env
}

/// A path beside the workspace (in the test's own home), as a string.
fn outside(env: &TestEnv, name: &str) -> String {
    env.home.path().join(name).display().to_string()
}

const DIFF: &str = "diff --git a/stats.py b/stats.py\n--- a/stats.py\n+++ b/stats.py\n@@ -1,2 +1,4 @@\n def mean(xs):\n+    if not xs:\n+        return 0.0\n     return sum(xs) / len(xs)\n";

/// The real 1.5B model's answer under `format`: stdout is exactly the JSON
/// value, `-o` the same, the request held the schema and offered no tool,
/// and nothing changed.
#[test]
fn the_answer_is_exactly_the_json_value() {
    let env = review_env();
    let server = FakeOllama::start(vec![Reply::fixture(
        "real-model/oc/structured-review-1_5b.ndjson",
    )]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .args([
            "run",
            "--output-schema",
            &outside(&env, "review.schema.json"),
            "-o",
            &outside(&env, "answer.json"),
        ])
        .arg("review this change")
        .write_stdin(DIFF)
        .assert()
        .success();
    let out = out.get_output();
    let value: Value = serde_json::from_str(&stdout_of(out)).unwrap();
    assert_eq!(value["risk"], "medium", "{}", stdout_of(out));
    assert_eq!(stdout_of(out).lines().count(), 1, "{}", stdout_of(out));
    let written = std::fs::read_to_string(outside(&env, "answer.json")).unwrap();
    assert_eq!(written, stdout_of(out));
    let request = &server.chat_requests()[0];
    assert_eq!(request["format"], review_schema());
    assert!(request.get("tools").is_none(), "{request}");
    let prompt = request["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains("matches this JSON Schema"), "{prompt}");
    if openai_mode() {
        let raw = &server.raw_chat_requests()[0];
        assert_eq!(raw["response_format"]["type"], "json_schema", "{raw}");
        assert_eq!(
            raw["response_format"]["json_schema"]["schema"],
            review_schema()
        );
    }
    let stats = std::fs::read_to_string(env.work().join("stats.py")).unwrap();
    assert!(stats.contains("if not xs"), "unchanged: {stats}");
}

/// A reply that does not match (prose around the JSON, a wrong enum) is
/// sent back once with what is wrong; the second, valid, is the answer.
#[test]
fn a_mismatch_is_sent_back_once() {
    let env = review_env();
    let server = FakeOllama::start(vec![
        Reply::answer("{\"summary\": \"guards empty lists\", \"risk\": \"none\", \"files\": []}"),
        Reply::answer(
            "{\"summary\": \"guards empty lists\", \"risk\": \"low\", \"files\": [\"stats.py\"]}",
        ),
    ]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--output-schema",
            &outside(&env, "review.schema.json"),
            "--output-format",
            "json",
        ])
        .arg("review this change")
        .write_stdin(DIFF)
        .assert()
        .success();
    let summary: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert_eq!(summary["structured_output"]["risk"], "low", "{summary}");
    assert_eq!(summary["exit_code"], 0);
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 2);
    let retry = requests[1]["messages"].as_array().unwrap().last().unwrap();
    let retry = retry["content"].as_str().unwrap();
    assert!(
        retry.contains("does not match the JSON Schema: /risk"),
        "{retry}"
    );
    assert!(stderr_of(out.get_output()).contains("asking once more"));
}

/// Two mismatches: exit 7, nothing on stdout, no `-o` file, the json
/// result without `structured_output`, and the session says why.
#[test]
fn a_second_mismatch_is_exit_7_and_prints_nothing() {
    let env = review_env();
    let prose = "The change looks fine: it guards empty lists.";
    let server = FakeOllama::start(vec![Reply::answer(prose), Reply::answer(prose)]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--output-schema",
            &outside(&env, "review.schema.json"),
            "-o",
            &outside(&env, "answer.json"),
        ])
        .arg("review this change")
        .write_stdin(DIFF)
        .assert()
        .code(7);
    assert_eq!(stdout_of(out.get_output()), "");
    let stderr = stderr_of(out.get_output());
    assert!(
        stderr.contains("does not match `--output-schema` after one retry"),
        "{stderr}"
    );
    assert!(!std::path::Path::new(&outside(&env, "answer.json")).exists());
    let session = env.session();
    assert_eq!(session["status"], "failed");
    assert_eq!(session["exit_code"], 7);

    let server = FakeOllama::start(vec![Reply::answer(prose), Reply::answer(prose)]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--output-schema",
            &outside(&env, "review.schema.json"),
            "--output-format",
            "json",
        ])
        .arg("review this change")
        .assert()
        .code(7);
    let summary: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    assert!(summary.get("structured_output").is_none(), "{summary}");
    assert_eq!(summary["exit_code"], 7);
}

/// The same invalid reply twice is the second mismatch (exit 7), not a
/// reply repeated; a JSON answer shaped like a tool call is an answer, not
/// a call; and `oc plan` with a schema shows the model the named file.
#[test]
fn schema_answers_are_judged_as_answers() {
    let env = review_env();
    let schema = outside(&env, "review.schema.json");
    let prose = "{\"summary\": \"a\"}\nHope this helps!";
    let server = FakeOllama::start(vec![Reply::answer(prose), Reply::answer(prose)]);
    env.oc(&server)
        .args(["run", "--output-schema", &schema, "review this change"])
        .write_stdin(DIFF)
        .assert()
        .code(7);

    std::fs::write(
        outside(&env, "call.schema.json"),
        r#"{"type": "object", "required": ["name", "arguments"]}"#,
    )
    .unwrap();
    let call = r#"{"name": "read_file", "arguments": {"path": "stats.py"}}"#;
    let server = FakeOllama::start(vec![Reply::answer(call)]);
    let out = env
        .oc(&server)
        .args(["run", "--output-schema", &outside(&env, "call.schema.json")])
        .arg("which call would read stats.py? answer as a call")
        .assert()
        .success();
    let value: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(value["name"], "read_file");
    assert_eq!(server.chat_requests().len(), 1, "nothing was run");

    let server = FakeOllama::start(vec![Reply::fixture(
        "real-model/oc/structured-review-1_5b.ndjson",
    )]);
    env.oc(&server)
        .env("OC_DISABLE", "")
        .args(["plan", "--output-schema", &schema, "review stats.py"])
        .assert()
        .success();
    let request = &server.chat_requests()[0];
    let prompt = request["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains("if not xs:"), "stats.py is shown: {prompt}");
}

/// A schema file that cannot be used, or `--task change` with it, is a
/// usage error before any request.
#[test]
fn an_unusable_schema_is_a_usage_error() {
    let env = TestEnv::new();
    for (name, text) in [
        ("not-json.json", "{type: object}"),
        ("bad.json", "{\"type\": 5}"),
        ("list.json", "[1, 2]"),
        ("ok.json", "{\"type\": \"object\"}"),
        ("true.json", "true"),
    ] {
        std::fs::write(outside(&env, name), text).unwrap();
    }
    let at = |name: &str| outside(&env, name);
    let server = FakeOllama::start(vec![]);
    let cases: [(Vec<String>, &str); 7] = [
        (
            vec!["--output-schema".into(), at("missing.json")],
            "cannot read the output schema",
        ),
        (
            vec!["--output-schema".into(), at("not-json.json")],
            "is not JSON",
        ),
        (
            vec!["--output-schema".into(), at("bad.json")],
            "is not a valid JSON Schema",
        ),
        (
            vec!["--output-schema".into(), at("list.json")],
            "is not a valid JSON Schema",
        ),
        (
            vec![
                "--output-schema".into(),
                at("ok.json"),
                "--task".into(),
                "change".into(),
            ],
            "drop `--task change`",
        ),
        (
            vec!["--output-schema".into(), at("true.json")],
            "a schema is an object",
        ),
        (
            vec![
                "--output-schema".into(),
                at("ok.json"),
                "--check".into(),
                "true".into(),
            ],
            "`--check` has nothing to judge",
        ),
    ];
    for (args, says) in cases {
        let out = env
            .oc(&server)
            .arg("run")
            .args(&args)
            .arg("summarize the repo")
            .assert()
            .code(2);
        let stderr = stderr_of(out.get_output());
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert!(server.chat_requests().is_empty());
}

/// `--dry-run` shows the schema in the request and at the prompt's end.
#[test]
fn a_dry_run_shows_the_schema() {
    let env = review_env();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--dry-run",
            "--output-schema",
            &outside(&env, "review.schema.json"),
        ])
        .arg("review stats.py")
        .assert()
        .success();
    let body: Value = serde_json::from_str(&stdout_of(out.get_output())).unwrap();
    let schema = match body.get("response_format") {
        Some(format) => format["json_schema"]["schema"].clone(),
        None => body["format"].clone(),
    };
    assert_eq!(schema, review_schema(), "{body}");
    assert!(body.get("tools").is_none(), "{body}");
}
