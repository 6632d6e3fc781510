//! Prompts that ask for an answer, not a change (a commit message, an
//! explanation, a review, a question): routed before the first request,
//! answered with the files for reference, and the answer kept whole.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::{FakeOllama, Reply, TestEnv};

const STATS: &str = "def mean(xs):\n    if not xs:\n        raise ValueError(\"mean of empty list\")\n    return sum(xs) / len(xs)\n";
const DIFF: &str = "diff --git a/stats.py b/stats.py\nindex 1b2c3d4..5e6f7a8 100644\n--- a/stats.py\n+++ b/stats.py\n@@ -1,2 +1,4 @@\n def mean(xs):\n+    if not xs:\n+        raise ValueError(\"mean of empty list\")\n     return sum(xs) / len(xs)\n";

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

fn stats_repo() -> TestEnv {
    let env = TestEnv::new();
    env.write("stats.py", STATS);
    env
}

/// The system prompt and the first user message of a request.
fn opening(request: &Value) -> (String, String) {
    let text = |n: usize| {
        request["messages"][n]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    (text(0), text(1))
}

/// The README's headline, `git diff | oc run "write a commit message"`,
/// with a small model (whole-file format by default): the diff is the
/// context, its `a/` and `b/` paths are not files to create, nothing is
/// offered to change, and the message is the answer on stdout, in `-o` and
/// in the json result. Before: the task was framed as an edit, the prose
/// drew "make it yourself", and `b/stats.py` was offered for creation.
#[test]
fn a_commit_message_for_a_piped_diff_is_an_answer() {
    let env = stats_repo();
    let message = "Raise ValueError for the mean of an empty list";
    let server = FakeOllama::start(vec![Reply::answer(message)]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "-o", "msg.txt", "write a commit message"])
        .write_stdin(DIFF)
        .assert()
        .success();
    assert_eq!(stdout_of(&out), format!("{message}\n"));
    assert!(stderr_of(&out).contains("asks for an answer"));
    assert_eq!(
        std::fs::read_to_string(env.work().join("msg.txt")).unwrap(),
        format!("{message}\n")
    );
    assert!(!env.work().join("b").exists() && !env.work().join("a").exists());
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 1);
    let (system, user) = opening(&requests[0]);
    assert!(system.contains("Change no file"), "{system}");
    assert!(!system.contains("complete new content"), "{system}");
    assert!(user.contains("+++ b/stats.py"), "{user}");
    assert!(
        !user.contains("Create:") && !user.contains("You may change"),
        "{user}"
    );
    assert!(
        !user.contains("stats.py\n```"),
        "the diff is enough: {user}"
    );
    assert_eq!(env.session()["exit_code"], 0);
}

/// A question's reply keeps every fenced block that is not a file: the
/// command and its sample output are part of the answer on stdout, in the
/// session and in the fine-tuning record. Before: both were cut out and
/// stdout read "…with the following output:" and then nothing.
#[test]
fn fenced_blocks_that_are_no_file_stay_in_the_answer() {
    let env = stats_repo();
    let answer = "Run the tests with:\n\n```bash\npython3 -m unittest\n```\n\nThey should pass with the following output:\n\n```\nOK\n```";
    let server = FakeOllama::start(vec![Reply::answer(answer)]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .args(["run", "How do I run the tests of stats.py?"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), format!("{answer}\n"));
    let session = env.session();
    let last = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], answer);
    let record = &env.finetune()[0];
    let assistant = record["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(assistant["content"], answer);
    assert_eq!(
        std::fs::read_to_string(env.work().join("stats.py")).unwrap(),
        STATS
    );
}

/// In a change, a command block beside the file block stays in the answer:
/// the file is written, the command is shown.
#[test]
fn a_command_beside_a_change_stays_in_the_answer() {
    let env = stats_repo();
    let fixed = STATS.replace("mean of empty list", "empty list");
    let reply =
        format!("stats.py\n```python\n{fixed}```\n\nThen run:\n```bash\npython3 -m unittest\n```");
    let server = FakeOllama::start(vec![Reply::answer(&reply)]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "Shorten the error message in stats.py"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(env.work().join("stats.py")).unwrap(),
        fixed
    );
    let stdout = stdout_of(&out);
    assert!(
        stdout.contains("```bash\npython3 -m unittest\n```"),
        "{stdout}"
    );
    assert!(!stdout.contains("def mean"), "{stdout}");
}

/// A reply made only of file blocks: stdout, `-o` and the json
/// `final_text` all say the same short summary. Before: stdout was empty.
#[test]
fn a_reply_of_only_file_blocks_is_summarised_everywhere() {
    let env = stats_repo();
    let fixed = STATS.replace("mean of empty list", "empty list");
    let reply = format!("stats.py\n```python\n{fixed}```");
    for format in ["text", "json"] {
        env.write("stats.py", STATS);
        let server = FakeOllama::start(vec![Reply::answer(&reply)]);
        let out = env
            .oc(&server)
            .env_remove("OC_EDIT_FORMAT")
            .env("OC_DISABLE", "")
            .args(["run", "--yes", "--output-format", format, "-o", "last.txt"])
            .arg("Shorten the error message in stats.py")
            .assert()
            .success();
        let last = std::fs::read_to_string(env.work().join("last.txt")).unwrap();
        assert_eq!(last, "Changed stats.py.\n");
        let stdout = stdout_of(&out);
        if format == "text" {
            assert_eq!(stdout, last);
        } else {
            let result: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
            assert_eq!(result["final_text"], "Changed stats.py.");
        }
    }
}

/// `--task change` keeps an explanation-shaped prompt an edit; `--task
/// answer` makes a fix-shaped prompt an answer (and config `task` too).
#[test]
fn the_task_flag_overrides_the_words() {
    let env = stats_repo();
    let server = FakeOllama::start(vec![Reply::answer("ok"), Reply::answer("ok")]);
    env.oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .args(["run", "--task", "change", "explain stats.py"])
        .assert()
        .code(4);
    env.write(".ollama-code.json", "{\"task\": \"answer\"}");
    env.oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args(["run", "fix stats.py"])
        .assert()
        .success();
    let requests = server.chat_requests();
    let (change, _) = opening(&requests[0]);
    assert!(change.contains("complete new content"), "{change}");
    let (answer, user) = opening(&requests[1]);
    assert!(answer.contains("Change no file"), "{answer}");
    assert!(user.contains("(for reference, do not change)"), "{user}");
    let err = env
        .oc(&server)
        .args(["run", "--task", "maybe", "x"])
        .assert()
        .code(2);
    assert!(stderr_of(&err).contains("change"));
}

/// A model with tool calling, asked a question, gets the tools that read:
/// none that writes, and no `bash` (a command writes what its sandbox
/// allows; a helper's attack changed files through it).
#[test]
fn an_answer_offers_no_tool_that_writes() {
    let env = stats_repo();
    let server = FakeOllama::start(vec![Reply::answer("It averages.")]);
    env.oc(&server)
        .args(["run", "--yes", "What does mean in stats.py do?"])
        .assert()
        .success();
    let request = &server.chat_requests()[0];
    let mut tools: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    tools.sort_unstable();
    assert_eq!(tools, ["list_files", "read_file", "search"]);
}

/// A patch on stdin in a change: its `a/` and `b/` paths point at the
/// existing file, which may change, and nothing is offered for creation.
#[test]
fn a_piped_diff_points_at_existing_files_only() {
    let env = stats_repo();
    let server = FakeOllama::start(vec![Reply::answer("Done.")]);
    env.oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "apply this patch"])
        .write_stdin(DIFF)
        .assert()
        .code(4);
    let (_, user) = opening(&server.chat_requests()[0]);
    assert!(user.contains("You may change: stats.py."), "{user}");
    assert!(!user.contains("Create:"), "{user}");
    assert!(!user.contains("a/stats.py\n```"), "{user}");
}

/// In the answer format a small model can still ask to see a file: the
/// request is answered and the answer comes after.
#[test]
fn an_answer_can_read_first() {
    let env = stats_repo();
    env.write("notes.md", "# Notes\nmean raises on empty input.\n");
    let server = FakeOllama::start(vec![
        Reply::answer("READ notes.md"),
        Reply::answer("The notes say mean raises on empty input."),
    ]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .args(["run", "what do the notes say?"])
        .assert()
        .success();
    assert_eq!(
        stdout_of(&out),
        "The notes say mean raises on empty input.\n"
    );
    let second = serde_json::to_string(&server.chat_requests()[1]).unwrap();
    assert!(second.contains("mean raises on empty input"), "{second}");
    assert!(second.contains("for reference"), "{second}");
}

/// A small model shown a file asks for it again instead of answering
/// (qwen2.5-coder 0.5B: `READ stats.py` on 20 of 20 replies while its
/// system prompt told it how to ask; exit 4 after the turn cap). The
/// answer system prompt names no request, and a request for a file shown
/// whole and unchanged is not read again: the model is told to answer
/// from it.
#[test]
fn an_answer_asking_for_the_file_it_was_shown_is_told_to_answer() {
    let env = stats_repo();
    let server = FakeOllama::start(vec![
        Reply::answer("READ /stats.py"),
        Reply::answer("Yes: it raises ValueError."),
    ]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args(["run", "Does mean handle empty lists?"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "Yes: it raises ValueError.\n");
    let requests = server.chat_requests();
    let (system, user) = opening(&requests[0]);
    assert!(!system.contains("READ"), "{system}");
    assert!(user.contains("stats.py (for reference"), "{user}");
    let second = serde_json::to_string(&requests[1]).unwrap();
    assert!(
        second.contains("not run: stats.py is shown above, whole and unchanged; answer from it"),
        "{second}"
    );
    assert_eq!(second.matches("raise ValueError").count(), 1, "{second}");
}

/// In the whole-file format an answer streams as it comes, chunk by chunk,
/// each `content.delta` before the turn's `turn.completed`. Before: held
/// until the reply was read, one delta.
#[test]
fn an_answer_in_the_whole_format_streams_before_its_turn_completes() {
    let env = stats_repo();
    let server = FakeOllama::start(vec![Reply::answer("It raises ValueError.")]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .args([
            "run",
            "--output-format",
            "stream-json",
            "what does mean do on an empty list?",
        ])
        .assert()
        .success();
    let events: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let completed = events
        .iter()
        .position(|e| e["type"] == "turn.completed")
        .unwrap();
    let deltas: Vec<&str> = events[..completed]
        .iter()
        .filter(|e| e["type"] == "content.delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(deltas.concat(), "It raises ValueError.", "{events:?}");
    assert_eq!(deltas.len(), 6, "one delta a chunk of 4 characters");
    assert!(
        events[completed..]
            .iter()
            .all(|e| e["type"] != "content.delta")
    );
}

/// The exported records of `--success-only`, in the openai format.
fn successful_records(env: &TestEnv, server: &FakeOllama) -> usize {
    let out = env
        .oc(server)
        .args(["export-ft", "--success-only"])
        .assert()
        .success();
    stdout_of(&out).lines().count()
}

/// In the whole-file format no tool is offered: a reply that is a tool
/// call written as text (in a ```json or ```python fence, bare, or a bare
/// object between two sentences) is not run, and the run says so: exit 1,
/// not a success, left out of `export-ft --success-only`. Before: exit 0
/// and `success: true`.
#[test]
fn a_call_written_as_text_in_whole_mode_is_reported_unrun() {
    let call = r#"{"name": "bash", "arguments": {"command": "python3 -m unittest"}}"#;
    for reply in [
        format!("```json\n{call}\n```"),
        format!("```python\n{call}\n```"),
        call.to_string(),
        format!("I will run the tests.\n{call}\nThen I will answer."),
        r#"```json
{"name": "write_file", "arguments": {"path": "stats.py", "content": "x = 1\n"}}
```"#
            .to_string(),
    ] {
        for prompt in [
            "Do the tests of stats.py pass?",
            "Make mean return 0 for an empty list.",
        ] {
            let env = stats_repo();
            let server = FakeOllama::start(vec![Reply::answer(&reply)]);
            let out = env
                .oc(&server)
                .env_remove("OC_EDIT_FORMAT")
                .args(["run", "--yes", prompt])
                .assert()
                .code(1);
            assert!(stderr_of(&out).contains("left unrun"), "{prompt}: {reply}");
            let session = env.session();
            assert_eq!(session["unexecuted_call"], true, "{reply}");
            assert_eq!(session["status"], "failed", "{reply}");
            assert_eq!(successful_records(&env, &server), 0, "{reply}");
            assert_eq!(
                std::fs::read_to_string(env.work().join("stats.py")).unwrap(),
                STATS
            );
        }
    }
}

/// JSON that names no tool is an answer, not a call ("print the config
/// as JSON").
#[test]
fn json_that_names_no_tool_is_an_answer() {
    let env = stats_repo();
    let answer = r#"{"name": "myapp", "arguments": {"port": 8080}}"#;
    let server = FakeOllama::start(vec![Reply::answer(answer)]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .args(["run", "print the config as JSON"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), format!("{answer}\n"));
}

/// A native call in the whole-file format (a server that parses calls out
/// of the text although no tool was offered) is answered: a read is run
/// and shown, a write refused with what to send instead; no call is left
/// without a result, so the record is kept.
#[test]
fn native_calls_in_whole_mode_are_answered() {
    let env = stats_repo();
    env.write("notes.md", "mean raises on empty input.\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[
            ("read_file", serde_json::json!({"path": "notes.md"})),
            (
                "write_file",
                serde_json::json!({"path": "x.py", "content": "x = 1\n"}),
            ),
        ]),
        Reply::answer("The notes say mean raises on empty input."),
    ]);
    env.oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .args(["run", "--yes", "what do the notes say?"])
        .assert()
        .success();
    assert!(!env.work().join("x.py").exists());
    let session = env.session();
    let results: Vec<&Value> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(results.len(), 2);
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("mean raises")
    );
    let refusal = results[1]["content"].as_str().unwrap();
    assert!(refusal.contains("no tool is offered here"), "{refusal}");
    let second = serde_json::to_string(&server.chat_requests()[1]).unwrap();
    assert!(second.contains("mean raises on empty input"), "{second}");
    assert_eq!(env.finetune().len(), 1);
}

/// A code run says what it was for (`task` in the json result, the session
/// and the record), and a prompt whose verb asks for either ("show the
/// version in …") that was taken as an answer is warned about, so a change
/// request never ends as an answer unsaid.
#[test]
fn the_route_is_said_and_a_guess_is_warned_about() {
    let env = stats_repo();
    let server = FakeOllama::start(vec![Reply::answer("mean, median"), Reply::answer("done")]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--output-format", "json"])
        .arg("show the functions of stats.py")
        .assert()
        .success();
    let summary: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(summary["task"], "answer");
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("\"show …\" can ask for an answer or a change")
            && stderr.contains("run again with `--task change`"),
        "{stderr}"
    );
    let warning = summary["task_warning"].as_str().unwrap_or_default();
    assert!(warning.contains("\"show …\" can ask for"), "{summary}");
    assert_eq!(env.session()["task"], "answer");
    assert_eq!(env.session()["task_warning"], warning);
    // Asked plainly, no warning; a change says so too.
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--output-format", "json"])
        .arg("print a warning when the list is empty")
        .assert()
        .code(4);
    let summary: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(summary["task"], "change");
    assert!(
        !stderr_of(&out).contains("can ask for"),
        "{}",
        stderr_of(&out)
    );
    assert!(summary.get("task_warning").is_none(), "{summary}");
    let records = std::fs::read_to_string(env.home.path().join("finetune.jsonl")).unwrap();
    assert!(records.contains("\"task\":\"answer\""), "{records}");
    assert!(records.contains("\"task\":\"change\""), "{records}");
    assert_eq!(records.matches("\"task_warning\"").count(), 1, "{records}");
}

/// A run taken as an answer whose reply rewrites a file (the model made
/// the change the prompt asked for) writes nothing, and says so: on
/// stderr, as `task_warning` in the json result, the session and the
/// record. Asked for an answer plainly (`--task answer`), the same reply
/// draws no warning.
#[test]
fn an_answer_whose_reply_changes_a_file_says_nothing_was_written() {
    let env = stats_repo();
    let fixed = STATS.replace("raise ValueError(\"mean of empty list\")", "return 0.0");
    let reply = format!("stats.py\n```python\n{fixed}```\n");
    let server = FakeOllama::start(vec![Reply::answer(&reply), Reply::answer(&reply)]);
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "--output-format", "json"])
        .arg("Does mean raise on an empty list?")
        .assert()
        .success();
    let summary: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(summary["task"], "answer", "{summary}");
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("taken as an answer, but the model's reply changes stats.py")
            && stderr.contains("nothing was written"),
        "{stderr}"
    );
    let warning = summary["task_warning"].as_str().unwrap_or_default();
    assert!(warning.contains("reply changes stats.py"), "{summary}");
    let now = std::fs::read_to_string(env.work().join("stats.py")).unwrap();
    assert_eq!(now, STATS, "an answer writes nothing");
    assert_eq!(env.session()["task_warning"], warning);
    let records = std::fs::read_to_string(env.home.path().join("finetune.jsonl")).unwrap();
    assert!(records.contains("reply changes stats.py"), "{records}");
    // Asked for an answer on purpose: no doubt to report.
    let out = env
        .oc(&server)
        .env_remove("OC_EDIT_FORMAT")
        .env("OC_DISABLE", "")
        .args([
            "run",
            "--yes",
            "--task",
            "answer",
            "--output-format",
            "json",
        ])
        .arg("Does mean raise on an empty list?")
        .assert()
        .success();
    let summary: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert!(summary.get("task_warning").is_none(), "{summary}");
    assert!(!stderr_of(&out).contains("nothing was written"));
}
