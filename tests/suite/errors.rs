//! Failures before the run: no server, no model, bad flags.

use crate::common::fake_ollama::closed_port_url;
use crate::common::{FakeOllama, TestEnv};

#[test]
fn server_not_running_exits_3_naming_the_host() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let url = closed_port_url();
    let out = env.oc_at(&url).args(["run", "hi"]).assert().code(3);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains(&format!("cannot reach the Ollama server at {url}")),
        "{stderr}"
    );
    assert!(stderr.contains("ollama serve"), "{stderr}");
    assert!(env.sessions().is_empty(), "nothing ran, nothing saved");
}

#[test]
fn missing_model_exits_3_naming_the_model_and_pull() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--model", "no-such-model:latest", "hi"])
        .assert()
        .code(3);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("model `no-such-model:latest` is not on the Ollama server"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ollama pull no-such-model:latest"),
        "{stderr}"
    );
    // The server's own list (capture 03) is offered.
    assert!(stderr.contains("qwen2.5-coder:1.5b"), "{stderr}");
    assert!(server.chat_requests().is_empty());
    let asked: Vec<(String, String)> = server
        .requests()
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        asked,
        [
            ("POST".to_string(), "/api/show".to_string()),
            ("GET".to_string(), "/api/tags".to_string())
        ]
    );
}

/// A server on 127.0.0.1 that gives every request the answer `answer`
/// makes of its first line: `(status line, content type, body)`.
fn serve(answer: fn(&str) -> (&'static str, &'static str, &'static str)) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut request = [0u8; 4096];
            let n = std::io::Read::read(&mut stream, &mut request).unwrap_or(0);
            let text = String::from_utf8_lossy(&request[..n]);
            let (status, kind, body) = answer(text.lines().next().unwrap_or_default());
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = std::io::Write::write_all(&mut stream, reply.as_bytes());
        }
    });
    url
}

/// A host that is some other web server. Regression: a plain HTTP server
/// (`python3 -m http.server`: an HTML page, 501 to a POST, 404 to a GET)
/// ended exit 1 with the page itself as the message, and a 404 page was
/// taken for a missing model; a server answering 200 with JSON of its own
/// was taken for an Ollama without models.
#[test]
fn a_server_that_is_not_ollama_exits_3_saying_so() {
    if crate::common::ollama_wire_only() {
        return;
    }
    const PAGE: &str = "<!DOCTYPE HTML><html><body><h1>Error response</h1></body></html>";
    let html = serve(|line| match line.starts_with("POST") {
        true => ("501 Not Implemented", "text/html", PAGE),
        false => ("404 Not Found", "text/html", PAGE),
    });
    let json = serve(|_| ("200 OK", "application/json", r#"{"status": "ok"}"#));
    let env = TestEnv::new();
    for (url, args, said) in [
        (&html, vec!["run", "hi"], "501 Not Implemented to /api/show"),
        (&html, vec!["models"], "404 Not Found to /api/tags"),
        (
            &html,
            vec!["run", "--dry-run", "hi"],
            "501 Not Implemented to /api/show",
        ),
        (&json, vec!["run", "hi"], "200 OK to /api/show"),
        (&json, vec!["models"], "200 OK to /api/tags"),
    ] {
        let out = env.oc_at(url).args(&args).assert().code(3);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        let expected = format!("the server at {url} does not answer as Ollama does: {said}");
        assert!(stderr.contains(&expected), "{stderr}");
        assert!(
            !stderr.contains("<html>") && !stderr.contains("ollama pull"),
            "{stderr}"
        );
    }
}

/// A 404 page from `/api/chat` of a server whose `/api/show` answered is
/// not a missing model (Regression: "model … is not on the server (it has:
/// …the same model)").
#[test]
fn a_404_page_mid_run_is_not_a_missing_model() {
    if crate::common::ollama_wire_only() {
        return;
    }
    let url = serve(|line| match line.split(' ').nth(1) {
        Some("/api/show") => (
            "200 OK",
            "application/json",
            r#"{"details": {}, "capabilities": ["completion"]}"#,
        ),
        _ => ("404 Not Found", "text/html", "<html>no</html>"),
    });
    let env = TestEnv::new();
    let out = env.oc_at(&url).args(["run", "hi"]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains("404 Not Found to /api/chat"), "{stderr}");
    assert!(!stderr.contains("ollama pull"), "{stderr}");
}

#[test]
fn bad_flags_exit_2() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    env.oc(&server)
        .args(["run", "--max-turns", "0", "hi"])
        .assert()
        .code(2);
    env.oc(&server)
        .args(["run", "--think=max", "hi"])
        .assert()
        .code(2);
    for bad in [["--temperature", "NaN"], ["--top-p", "1.5"]] {
        env.oc(&server)
            .arg("run")
            .args(bad)
            .arg("hi")
            .assert()
            .code(2);
    }
    env.oc(&server)
        .args(["run", "--no-such-flag", "hi"])
        .assert()
        .code(2);
    env.oc(&server)
        .args(["run", "-C", "/no/such/dir", "hi"])
        .assert()
        .code(2);
    let out = env
        .oc(&server)
        .args(["run", "--host", "ftp://x", "hi"])
        .assert()
        .code(2);
    // With the OpenAI provider `--host` itself is the mistake.
    let expected = if crate::common::openai_mode() {
        "--base-url"
    } else {
        "scheme `ftp`"
    };
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains(expected));
    assert!(server.requests().is_empty());
}

#[test]
fn help_and_version() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env.oc(&server).arg("--help").assert().success();
    let help = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(help.contains("run") && help.contains("plan"), "{help}");
    let out = env.oc(&server).arg("--version").assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).starts_with("oc "));
}

/// A mistyped command is a usage error in JSON too, for scripts that read
/// only stdout.
#[test]
fn a_mistyped_command_is_a_json_error_when_json_is_asked() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["runn", "--output-format", "json", "hi"])
        .assert()
        .code(2);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["type"], "error");
    assert_eq!(lines[0]["exit_code"], 2);
    assert!(
        lines[0]["message"]
            .as_str()
            .unwrap()
            .contains("`runn` is not a command"),
        "{stdout}"
    );
}

/// A timeout past what the clock can hold is no deadline, not a crash.
#[test]
fn a_huge_timeout_is_no_deadline() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![crate::common::fake_ollama::Reply::answer("done")]);
    env.oc(&server)
        .args([
            "run",
            "--task",
            "answer",
            "--timeout",
            "18446744073709551615s",
            "say done",
        ])
        .assert()
        .success();
}

/// Words after `--` are the prompt's: `--output-format json` there asks for
/// nothing, so a bad flag before it is a text error only.
#[test]
fn output_format_after_the_separator_is_prompt_text() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--no-such-flag", "--", "--output-format", "json"])
        .assert()
        .code(2);
    assert!(out.get_output().stdout.is_empty(), "no JSON was asked for");
}

/// Every command that reads `OC_HOME` refuses one that is a file, as a run
/// does.
#[test]
fn an_oc_home_that_is_a_file_is_a_usage_error() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let file = env.work.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    for args in [&["sessions", "list"][..], &["export-ft"], &["undo"]] {
        let out = env
            .oc(&server)
            .env("OC_HOME", &file)
            .args(args)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(stderr.contains("is not a directory"), "{args:?}: {stderr}");
    }
}

/// A JSON file with a mistake gets the mistake in words, with where it
/// is: never serde_json's own terms ("expected ident").
#[test]
fn a_json_mistake_is_said_in_words_a_reader_knows() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    env.write("bad.json", "{\"model\": nope}\n");
    for args in [
        vec!["run", "--config", "bad.json", "hi"],
        vec!["run", "--output-schema", "bad.json", "hi"],
    ] {
        let out = env.oc(&server).args(&args).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.contains("line 1, column 12"), "{args:?}: {stderr}");
        assert!(
            stderr.contains("text needs double quotes"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("expected ident"), "{args:?}: {stderr}");
    }
}

/// An option before its command, or misspelt, gets a usage error that says
/// where it goes or what was meant, from the command's own options.
#[test]
fn a_misplaced_or_misspelt_option_says_where_it_goes_or_what_was_meant() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    for (args, words) in [
        (
            vec!["-m", "x", "run", "hi"],
            "`-m` is an option of `oc run` and goes after it",
        ),
        (vec!["run", "--yse", "hi"], "did you mean `--yes`?"),
        (
            vec!["plan", "--modle", "x", "hi"],
            "did you mean `--model`?",
        ),
        (vec!["--yes", "fix it"], "`oc run --yes …`"),
        (vec!["run", "-yes", "hi"], "did you mean `--yes`?"),
        (vec!["sessions", "lst"], "did you mean `oc sessions list`?"),
        (vec!["fix", "the", "test"], "use `oc run 'fix the test'`"),
    ] {
        let out = env.oc(&server).args(&args).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(stderr.starts_with("oc: error: "), "{args:?}: {stderr}");
    }
}

/// A bad value found while reading the command line is one clean message
/// in the JSON error object, as every other error is.
#[test]
fn a_command_line_error_in_json_is_the_message_alone() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--output-format", "json", "--attempts", "x", "hi"])
        .assert()
        .code(2);
    let error: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("invalid value 'x' for '--attempts <N>'"),
        "{message}"
    );
    assert!(
        !message.contains("error:") && !message.contains("--help"),
        "{message}"
    );
}

/// A variable that is not UTF-8 in the environment is no panic: any
/// variable is read (the scrubber reads them all for secrets), and such an
/// `OC_DISABLE` is a usage error that names it.
#[test]
fn a_variable_that_is_not_utf8_is_read_not_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff\xfe");
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![crate::common::Reply::answer("Hi.")]);
    env.oc(&server)
        .env("SOME_UNRELATED_NAME", bad)
        .args(["run", "--yes", "say hi"])
        .assert()
        .success();
    let out = env
        .oc(&server)
        .env("OC_DISABLE", bad)
        .args(["run", "--yes", "say hi"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("OC_DISABLE: `\u{fffd}\u{fffd}` is not a heuristic"),
        "{stderr}"
    );
}

/// `oc plan` and `oc chat` answer: `--task change` with them is a usage
/// error that says so (before, it only changed the label on record).
#[test]
fn task_change_with_plan_or_chat_is_a_usage_error() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    for command in ["plan", "chat"] {
        let out = env
            .oc(&server)
            .args([command, "--task", "change", "fix the greeting"])
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            stderr.contains("`--task change` is for `oc run`"),
            "{stderr}"
        );
    }
}

/// A check judges a change; an answer asked for with `--task answer`
/// (flag or config) gives it nothing to judge.
#[test]
fn a_check_with_task_answer_is_a_usage_error() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env
        .oc(&server)
        .args(["run", "--task", "answer", "--check", "true", "why?"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("`--check` has nothing to judge"),
        "{stderr}"
    );
    env.write(".ollama-code.json", "{\"task\": \"answer\"}");
    env.oc(&server)
        .args(["run", "--check", "true", "why?"])
        .assert()
        .code(2);
    assert!(server.chat_requests().is_empty());
}
