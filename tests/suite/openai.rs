//! The OpenAI-compatible provider's own wire: server-sent events as
//! llama.cpp's `llama-server` sends them (captures in
//! `fixtures/llama-server/`), the request body, refusals, the key. The loop
//! itself is covered by the whole suite run with `OC_TEST_PROVIDER=openai`.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::fake_ollama::{End, content_chunk, done_chunk};
use crate::common::{FakeOllama, MODEL, Reply, TestEnv};

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

/// `oc` pointed at the fake server's OpenAI-compatible side.
fn openai(env: &TestEnv, server: &FakeOllama) -> assert_cmd::Command {
    let mut cmd = env.oc(server);
    cmd.env("OC_PROVIDER", "openai")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url))
        .env_remove("OPENAI_API_KEY");
    cmd
}

const MAIN_RS: &str = "fn main() {\n    println!(\"Hello\");\n}\n";

/// The real llama-server stream: `id` and name once, the arguments in
/// fragments (`{`, `"`, `path`, …), then `finish_reason: "tool_calls"` and
/// `[DONE]`; also when the bytes arrive split mid-event and with keep-alive
/// comments between events.
#[test]
fn llama_server_fragments_make_one_call_whatever_the_reads() {
    for split in [None, Some(7)] {
        let env = TestEnv::new();
        env.write("src/main.rs", MAIN_RS);
        let Reply::Sse { mut events, .. } =
            Reply::sse_fixture("llama-server/ls-06-chat-stream-tool-call.sse", None)
        else {
            unreachable!()
        };
        events.insert(2, ": keep-alive\n\n".to_string());
        let server = FakeOllama::start(vec![
            Reply::Sse {
                events,
                split,
                end: End::Clean,
            },
            Reply::answer("It prints Hello."),
        ]);
        let out = openai(&env, &server)
            .args(["run", "what does src/main.rs print?"])
            .assert()
            .success();
        assert!(stdout_of(&out).contains("It prints Hello."));
        let raw = server.raw_chat_requests();
        assert_eq!(raw.len(), 2, "{split:?}");
        let assistant = &raw[1]["messages"][2];
        assert_eq!(assistant["role"], "assistant");
        let call = &assistant["tool_calls"][0];
        assert_eq!(call["id"], "XczvrLnIbdAgAIa9Va6vxfNjUXbDTbHB");
        assert_eq!(call["type"], "function");
        // Arguments go back as a JSON string, the OpenAI form.
        let arguments: serde_json::Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, json!({"path": "src/main.rs"}));
        let result = &raw[1]["messages"][3];
        assert_eq!(result["role"], "tool");
        assert_eq!(result["tool_call_id"], "XczvrLnIbdAgAIa9Va6vxfNjUXbDTbHB");
        assert!(result["content"].as_str().unwrap().contains("Hello"));
        // llama.cpp's timings stand in for the usage it did not send.
        let session = env.session();
        assert_eq!(
            session["usage"]["prompt_tokens"].as_u64().unwrap() >= 285,
            true
        );
    }
}

/// The request is a chat-completions body: streamed with usage, the cap as
/// `max_tokens`, sampling as top-level fields, no `num_ctx` and no `think`;
/// the server's context size is told once.
#[test]
fn request_body_is_openai_and_the_context_is_the_servers() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("hi")]).with_model(
        "small:1b",
        &["completion", "tools"],
        4_096,
    );
    let out = openai(&env, &server)
        .args([
            "chat",
            "--model",
            "small:1b",
            "--temperature",
            "0",
            "--seed",
            "7",
            "hi",
        ])
        .assert()
        .success();
    let body = &server.raw_chat_requests()[0];
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["seed"], 7);
    for absent in ["options", "think", "num_ctx", "top_k"] {
        assert!(body.get(absent).is_none(), "{absent} in {body}");
    }
    assert!(
        stderr_of(&out).contains("the server decides the context size, not `num_ctx`: it runs `small:1b` with 4096 tokens"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(env.session()["num_ctx"], 4096);
}

/// A reply with `reasoning_content` shows it as thinking, not as the answer;
/// `finish_reason: "length"` is a reply cut at the cap.
#[test]
fn reasoning_is_thinking_and_length_is_a_cut() {
    let env = TestEnv::new();
    let delta = |d: serde_json::Value, reason: Option<&str>| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": d, "finish_reason": reason}], "object": "chat.completion.chunk"})
        )
    };
    let server = FakeOllama::start(vec![Reply::Sse {
        events: vec![
            delta(json!({"reasoning_content": "Let me think."}), None),
            delta(json!({"content": "The answer is"}), None),
            delta(json!({}), Some("length")),
            "data: [DONE]\n\n".to_string(),
        ],
        split: None,
        end: End::Clean,
    }]);
    let out = openai(&env, &server)
        .args(["chat", "--output-format", "json", "why?"])
        .assert();
    let result: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(result["final_text"], "The answer is");
    let session = env.session();
    let messages = session["messages"].as_array().unwrap();
    let reply = messages.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(reply["thinking"], "Let me think.");
    assert_eq!(reply["content"], "The answer is");
    assert_eq!(session["cut_replies"][0]["reason"], "length");
}

/// An `error` object inside a 200 stream fails the run with its message;
/// a stream that ends with no finish reason is incomplete.
#[test]
fn errors_inside_the_stream_and_early_ends_fail_the_run() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::Sse {
        events: vec![
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n".into(),
            "data: {\"error\":{\"message\":\"the slot was cancelled\",\"type\":\"server_error\"}}\n\n"
                .into(),
        ],
        split: None,
        end: End::Clean,
    }]);
    let out = openai(&env, &server).args(["chat", "hi"]).assert().code(1);
    assert!(
        stderr_of(&out).contains("reported an error mid-stream: the slot was cancelled"),
        "{}",
        stderr_of(&out)
    );
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::Sse {
        events: vec![
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n".into(),
        ],
        split: None,
        end: End::Clean,
    }]);
    let out = openai(&env, &server).args(["chat", "hi"]).assert().code(1);
    assert!(
        stderr_of(&out).contains("ended before its final"),
        "{}",
        stderr_of(&out)
    );
}

/// llama-server without `--jinja` refuses `tools` (400 "tools param
/// requires --jinja flag"): the run goes on with the tools described in the
/// system prompt, and a fenced call works.
#[test]
fn a_server_that_refuses_tools_gets_the_fenced_protocol() {
    let env = TestEnv::new();
    env.write("notes.txt", "alpha\n");
    let server = FakeOllama::start(vec![
        Reply::Status {
            status: 400,
            body: json!({"error": "tools param requires --jinja flag"}).to_string(),
        },
        Reply::answer(
            "```tool\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n```",
        ),
        Reply::answer("It says alpha."),
    ]);
    let out = openai(&env, &server)
        .args(["run", "what is in notes.txt?"])
        .assert()
        .success();
    assert!(
        stderr_of(&out).contains("refused the tool schemas"),
        "{}",
        stderr_of(&out)
    );
    assert!(stdout_of(&out).contains("It says alpha."));
    let raw = server.raw_chat_requests();
    assert!(raw[0].get("tools").is_some());
    assert!(raw[1].get("tools").is_none(), "{}", raw[1]);
    let system = raw[1]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("```tool"), "{system}");
    // The result went back as a user message, the fenced form.
    let last = raw[2]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    assert!(last["content"].as_str().unwrap().contains("alpha"));
}

/// A sampling option the server does not take is named, with what to drop.
#[test]
fn a_refused_option_is_named() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::Status {
        status: 400,
        body: json!({"error": "Unrecognized request argument supplied: top_k"}).to_string(),
    }]);
    let out = openai(&env, &server)
        .args(["chat", "--top-k", "20", "hi"])
        .assert()
        .code(1);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("does not take `top_k`"), "{stderr}");
    assert!(stderr.contains("--top-k"), "{stderr}");
    assert_eq!(server.raw_chat_requests()[0]["top_k"], 20);
}

/// The key goes as a bearer token and nowhere else: not in the session,
/// the record, the output, nor a tool result that prints it.
#[test]
fn the_api_key_is_sent_and_kept_secret() {
    let env = TestEnv::new();
    let key = "sk-local-7f3a9c2e51d8b046";
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("bash", json!({"command": "echo key=$LLM_AUTH"}))]),
        Reply::answer("Done."),
    ]);
    let config = env.home.path().join("config.json");
    std::fs::write(&config, r#"{"api_key_env": "LLM_AUTH"}"#).unwrap();
    let out = openai(&env, &server)
        .env("LLM_AUTH", key)
        .args([
            "run",
            "--yes",
            "--output-format",
            "stream-json",
            "run a command that shows the key",
        ])
        .assert()
        .code(4); // it only looked: `unchanged`
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {key}")))
    );
    // The model's commands do not get the key at all.
    let result = &server.chat_requests()[1]["messages"][3]["content"];
    assert!(result.as_str().unwrap().starts_with("key=\n"), "{result}");
    let everything = format!(
        "{}{}{}{}{}",
        stdout_of(&out),
        stderr_of(&out),
        env.session(),
        serde_json::Value::Array(env.finetune()),
        serde_json::Value::Array(server.raw_chat_requests())
    );
    assert!(!everything.contains(key));
}

/// A model the server does not list stops before the run (exit 3) with the
/// models it has; `oc models` lists them.
#[test]
fn models_are_listed_and_a_missing_one_exits_3() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = openai(&env, &server)
        .args(["run", "--model", "nope:1b", "hi"])
        .assert()
        .code(3);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("model `nope:1b` is not served"), "{stderr}");
    assert!(stderr.contains(MODEL), "{stderr}");
    let out = openai(&env, &server)
        .args(["models", "--json"])
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(rows[0]["name"], MODEL);
    assert_eq!(rows[0]["context_length"], 32768);
    let out = openai(&env, &server).args(["models"]).assert().success();
    assert!(stdout_of(&out).contains(MODEL));
    // A server's names reach the terminal without escape sequences.
    let server = FakeOllama::start(vec![]).with_model("\u{1b}[31mred", &["completion"], 4096);
    let out = openai(&env, &server).args(["models"]).assert().success();
    assert!(!stdout_of(&out).contains('\u{1b}'), "{}", stdout_of(&out));
    let out = openai(&env, &server)
        .args(["run", "--model", "nope", "hi"])
        .assert()
        .code(3);
    assert!(!stderr_of(&out).contains('\u{1b}'), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("[31mred"), "{}", stderr_of(&out));
}

/// `--host` is Ollama's; a `/v1` address given to it gets the provider's
/// command instead of "pull the model".
#[test]
fn an_openai_url_given_as_host_says_what_to_run() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let url = format!("{}/v1", server.url);
    let out = env
        .oc(&server)
        .env_remove("OC_PROVIDER")
        .env_remove("OPENAI_BASE_URL")
        .args(["run", "--host", &url, "hi"])
        .assert()
        .code(2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("OpenAI-compatible API root"), "{stderr}");
    assert!(stderr.contains("--provider openai --base-url"), "{stderr}");
    let out = openai(&env, &server)
        .args(["run", "--host", &server.url, "hi"])
        .assert()
        .code(2);
    assert!(
        stderr_of(&out).contains("--base-url"),
        "{}",
        stderr_of(&out)
    );
}

/// `--base-url` alone picks the OpenAI provider; an unreachable server
/// exits 3 naming it.
#[test]
fn base_url_alone_picks_openai_and_unreachable_exits_3() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::lines(vec![
        content_chunk("Hi there."),
        done_chunk("stop"),
    ])]);
    let url = format!("{}/v1", server.url);
    env.oc(&server)
        .env_remove("OC_PROVIDER")
        .env_remove("OPENAI_BASE_URL")
        .args(["chat", "--base-url", &url, "hi"])
        .assert()
        .success();
    assert_eq!(server.raw_chat_requests().len(), 1);
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.path == "/v1/chat/completions")
    );
    let closed = crate::common::fake_ollama::closed_port_url();
    let out = env
        .oc(&server)
        .args(["chat", "--base-url", &format!("{closed}/v1"), "hi"])
        .assert()
        .code(3);
    assert!(
        stderr_of(&out).contains("cannot reach the OpenAI-compatible server"),
        "{}",
        stderr_of(&out)
    );
}

/// A server's error text that echoes the key is scrubbed before it is
/// shown or saved; a refusal names the variable the key is read from.
#[test]
fn a_key_echoed_in_an_error_is_scrubbed_and_the_variable_named() {
    let env = TestEnv::new();
    let key = "sk-echoed-5b1e77c2a9";
    let server = FakeOllama::start(vec![Reply::Status {
        status: 401,
        body: json!({"error": format!("Incorrect API key provided: {key}")}).to_string(),
    }]);
    let out = openai(&env, &server)
        .env("OPENAI_API_KEY", key)
        .args(["chat", "--output-format", "json", "hi"])
        .assert()
        .code(1);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("`OPENAI_API_KEY` (set)"), "{stderr}");
    let everything = format!(
        "{}{stderr}{}{}",
        stdout_of(&out),
        env.session(),
        serde_json::Value::Array(env.finetune())
    );
    assert!(!everything.contains(key), "{everything}");
    assert!(everything.contains("[redacted secret]"));
}

/// Without the model list nothing can run: a server that refuses it, or
/// answers something else, stops the run before it starts (exit 3).
#[test]
fn a_model_list_that_cannot_be_read_exits_3() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .env("OC_PROVIDER", "openai")
        .env("OPENAI_BASE_URL", &server.url)
        .args(["run", "hi"])
        .assert()
        .code(3);
    assert!(
        stderr_of(&out).contains("ends in `/v1`"),
        "{}",
        stderr_of(&out)
    );
    assert!(env.sessions().is_empty());
}

/// Base URLs that are not http(s) URLs with a host, and `--base-url` with
/// the Ollama provider, are usage errors.
#[test]
fn bad_base_urls_and_crossed_flags_exit_2() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    for bad in ["", "http://", "127.0.0.1:8080", "ftp://h/v1"] {
        let out = openai(&env, &server)
            .args(["run", "--base-url", bad, "hi"])
            .assert()
            .code(2);
        assert!(
            stderr_of(&out).contains("API root"),
            "{bad}: {}",
            stderr_of(&out)
        );
    }
    let out = env
        .oc(&server)
        .args([
            "run",
            "--provider",
            "ollama",
            "--base-url",
            "http://127.0.0.1:1/v1",
            "hi",
        ])
        .assert()
        .code(2);
    assert!(
        stderr_of(&out).contains("--provider openai"),
        "{}",
        stderr_of(&out)
    );
    assert!(server.requests().is_empty());
}

/// Keep-alive comments are life: a pause longer than `idle_timeout_secs`
/// filled with them does not end the reply; and a reply whose finish
/// reason came is complete when the server then holds the connection open.
#[test]
fn keep_alives_count_and_a_finished_reply_needs_no_done() {
    let env = TestEnv::new();
    std::fs::write(
        env.home.path().join("config.json"),
        r#"{"idle_timeout_secs": 1}"#,
    )
    .unwrap();
    let data = |d: serde_json::Value, reason: Option<&str>| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": d, "finish_reason": reason}]})
        )
    };
    let mut events = vec![data(json!({"content": "Still "}), None)];
    for _ in 0..4 {
        events.push("#sleep 600".into());
        events.push(": keep-alive\n\n".into());
    }
    events.push(data(json!({"content": "here."}), None));
    events.push(data(json!({}), Some("stop")));
    let server = FakeOllama::start(vec![Reply::Sse {
        events,
        split: None,
        end: End::Stall,
    }]);
    let started = std::time::Instant::now();
    let out = openai(&env, &server)
        .args(["chat", "hi"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out).trim(), "Still here.");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

/// The session and the record name the provider; going on from a session
/// on another server says so and records the new one.
#[test]
fn the_provider_is_recorded_and_a_change_of_server_is_told() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("One."), Reply::answer("Two.")]);
    openai(&env, &server)
        .args(["run", "--task", "answer", "first"])
        .assert()
        .success();
    assert_eq!(env.session()["provider"], "openai");
    assert_eq!(env.finetune()[0]["host_kind"], "openai");
    let out = env
        .oc(&server)
        .env_remove("OC_PROVIDER")
        .env_remove("OPENAI_BASE_URL")
        .args(["run", "--task", "answer", "--continue", "second"])
        .assert()
        .success();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(&format!("the session ran on {}/v1 (openai)", server.url)),
        "{stderr}"
    );
    let session = env.session();
    assert_eq!(session["provider"], "ollama");
    assert_eq!(session["host"], server.url.as_str());
}
