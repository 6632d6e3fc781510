//! The edit protocols and the first turn's grounding, as a real 1.5B model
//! meets them (captures in `fixtures/ollama/real-model/oc/`, recorded through
//! `scripts/record-ollama.py`).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::fake_ollama::{content_chunk, done_chunk, fixture};
use crate::common::{FakeOllama, Reply, TestEnv, tool_messages};

const UTILS: &str = "def last_n(items, n):\n    \"\"\"Return the last n items of the list, in order.\"\"\"\n    if n <= 0:\n        return []\n    return items[-n - 1:]\n\n\ndef first_n(items, n):\n    \"\"\"Return the first n items of the list.\"\"\"\n    return items[:n]\n";
const TEST_UTILS: &str = "from utils import first_n, last_n\n\n\ndef test_last_n():\n    assert last_n([1, 2, 3, 4], 2) == [3, 4]\n    assert last_n([1, 2, 3], 0) == []\n\n\ndef test_first_n():\n    assert first_n([1, 2, 3], 2) == [1, 2]\n\n\nif __name__ == \"__main__\":\n    test_last_n()\n    test_first_n()\n    print(\"ok\")\n";
const PROMPT: &str = "Fix the bug in utils.py so the tests in test_utils.py pass.";

/// The off-by-one task of `bench/tasks/py-off-by-one`.
fn off_by_one() -> TestEnv {
    let env = TestEnv::new();
    env.write("utils.py", UTILS);
    env.write("test_utils.py", TEST_UTILS);
    env
}

fn tool_results(session: &Value) -> Vec<Value> {
    session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

fn read(env: &TestEnv, path: &str) -> String {
    std::fs::read_to_string(env.work().join(path)).unwrap()
}

/// A reply streamed as content chunks of `size` characters.
fn streamed(text: &str, size: usize) -> Reply {
    let chars: Vec<char> = text.chars().collect();
    let mut lines: Vec<String> = chars
        .chunks(size)
        .map(|c| content_chunk(&c.iter().collect::<String>()))
        .collect();
    lines.push(done_chunk("stop"));
    Reply::lines(lines)
}

/// The real 1.5B reply to the whole-file opening: utils.py fixed, and
/// test_utils.py echoed although it was marked for reference. The fix is
/// applied, the echo changes nothing and draws no error, and the run is
/// done in one turn.
#[test]
fn the_real_whole_file_reply_is_applied_in_one_turn() {
    let env = off_by_one();
    let server = FakeOllama::start(vec![Reply::fixture(
        "real-model/oc/whole-off-by-one-1_5b-turn01.ndjson",
    )]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "--output-format", "json", PROMPT])
        .assert()
        .success();
    assert!(read(&env, "utils.py").contains("    return items[-n:]\n"));
    assert_eq!(read(&env, "test_utils.py"), TEST_UTILS);
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0].get("tools").is_none(),
        "no tool schemas in this format"
    );
    // The opening is byte for byte the one the model answered.
    let captured: Value = serde_json::from_str(&fixture(
        "real-model/oc/whole-off-by-one-1_5b-turn01.request.json",
    ))
    .unwrap();
    assert_eq!(requests[0]["messages"][1], captured["messages"][1]);
    let result: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(result["final_text"], "Changed utils.py.");
    assert_eq!(result["files_changed"], json!(["utils.py"]));
    let session = env.session();
    let calls = &session["messages"][2]["tool_calls"];
    assert_eq!(calls[0]["function"]["name"], "write_file");
    assert_eq!(calls[0]["function"]["arguments"]["path"], "utils.py");
    assert_eq!(calls.as_array().unwrap().len(), 1, "the echo is no call");
    assert_eq!(tool_results(&session).len(), 1);
    // The reply is kept as the model wrote it, echo included.
    let written = session["messages"][2]["written"].as_str().unwrap();
    assert!(
        written.contains("test_utils.py\n```python\nfrom utils import"),
        "{written}"
    );
    // The record is what the model saw and wrote: the files shown, its
    // reply as written (no call it did not make), the results as the user
    // message that carried them, and the reply's step.
    let record = &env.finetune()[0];
    assert_eq!(record["tools"], json!([]));
    assert_eq!(record["messages"][1]["content"], json!(written));
    assert!(record["messages"][1].get("tool_calls").is_none());
    let results = record["messages"][2]["content"].as_str().unwrap();
    assert!(results.starts_with("Results:\n"), "{results}");
    assert_eq!(record["messages"].as_array().unwrap().len(), 3);
    assert_eq!(record["steps"][0]["ok"], true);
    assert!(record["steps"][0]["usage"]["completion_tokens"].as_u64() > Some(0));
    for format in ["openai", "hf", "sharegpt", "atif"] {
        let out = env
            .oc(&server)
            .args(["export-ft", "--strict", "--format", format])
            .assert()
            .success();
        assert_eq!(stdout_of(&out).lines().count(), 1, "{format}");
    }
}

/// The second real turn: the conversation goes back with the model's blocks
/// as it wrote them and the results as one user message.
#[test]
fn the_wire_gives_back_the_blocks_and_the_results() {
    let env = off_by_one();
    let lossy = "utils.py\n```python\ndef last_n(items, n):\n    return items[-n:]\n```";
    let server = FakeOllama::start(vec![
        streamed(lossy, 7),
        Reply::fixture("real-model/oc/whole-off-by-one-1_5b-turn02.ndjson"),
    ]);
    env.oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", PROMPT])
        .assert()
        .success();
    let requests = server.chat_requests();
    assert_eq!(requests.len(), 2, "the lossy block was refused, then fixed");
    let wire = requests[1]["messages"].as_array().unwrap();
    assert_eq!(wire[2]["role"], "assistant");
    assert_eq!(wire[2]["content"], lossy);
    assert!(wire[2].get("tool_calls").is_none());
    let results = wire[3]["content"].as_str().unwrap();
    assert!(
        results.starts_with(
            "Results:\n- error: the block for utils.py drops `def first_n(items, n):`"
        ),
        "{results}"
    );
    assert!(read(&env, "utils.py").contains("def first_n"));
    assert!(read(&env, "utils.py").contains("    return items[-n:]\n"));
}

/// `diff`: SEARCH/REPLACE blocks become `edit_file` calls.
#[test]
fn diff_format_edits_by_search_and_replace() {
    let env = off_by_one();
    let reply = "utils.py\n```python\n<<<<<<< SEARCH\n    return items[-n - 1:]\n=======\n    return items[-n:]\n>>>>>>> REPLACE\n```\nFixed the slice.";
    let server = FakeOllama::start(vec![streamed(reply, 5)]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "diff")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", PROMPT])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "Fixed the slice.\n");
    assert_eq!(read(&env, "utils.py"), UTILS.replace("[-n - 1:]", "[-n:]"));
    let system = server.chat_requests()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("<<<<<<< SEARCH"), "{system}");
    let call = &env.session()["messages"][2]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "edit_file");
    assert_eq!(call["arguments"]["new_string"], "    return items[-n:]\n");
}

/// A question gets the files to read and no file to change.
#[test]
fn a_question_is_answered_in_words() {
    let env = off_by_one();
    let server = FakeOllama::start(vec![Reply::answer("It drops one item too many.")]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "What is wrong with last_n in utils.py?"])
        .assert()
        .success();
    assert_eq!(stdout_of(&out), "It drops one item too many.\n");
    let opening = server.chat_requests()[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        opening.contains("utils.py (for reference, do not change)"),
        "{opening}"
    );
    assert!(
        opening.ends_with("Reply with the answer only; change no file."),
        "{opening}"
    );
}

/// With tool calls, the files the prompt is about are read before the first
/// turn as real `read_file` calls, through the permission rules.
#[test]
fn grounding_reads_the_named_files_as_calls() {
    let env = off_by_one();
    env.write(".env", "TOKEN=abc\n");
    let server = FakeOllama::start(vec![Reply::answer("Looked.")]);
    env.oc(&server)
        .env("OC_DISABLE", "")
        .args(["run", "--deny", "read(test_utils.py)", PROMPT])
        .assert()
        .code(4);
    let first = &server.chat_requests()[0];
    let messages = first["messages"].as_array().unwrap();
    assert_eq!(messages[1]["content"], PROMPT);
    let calls: Vec<&str> = messages[2]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["function"]["arguments"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["utils.py", "test_utils.py"]);
    let results = tool_messages(first);
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("5\t    return items[-n - 1:]")
    );
    let denied = results[1]["content"].as_str().unwrap();
    assert!(denied.starts_with("error: not approved"), "{denied}");
    let decisions = env.session()["permissions"].as_array().unwrap().clone();
    assert_eq!(decisions[0]["allowed"], true);
    assert_eq!(decisions[1]["allowed"], false);
    // The reads are `oc`'s, not the model's: the record says so, and no
    // export learns from them.
    let record = &env.finetune()[0];
    assert_eq!(record["steps"][0]["synthetic"], true);
    assert!(record["steps"][1].get("synthetic").is_none());
    let out = env.oc(&server).args(["export-ft"]).assert().success();
    let line: Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(line["messages"][2]["weight"], 0);
    assert_eq!(line["messages"][5]["weight"], 1);
}

/// Regression: the 1.5B model's first reply to "fix the failing test" is a
/// numbered plan and no call (capture `*-1_5b-fix-test`); the run ended as
/// answered, exit 0. A change run that changes nothing has not done its
/// task: exit 4, `unchanged`, and stderr says why.
#[test]
fn a_plan_instead_of_a_change_is_not_done() {
    let env = off_by_one();
    let server = FakeOllama::start(vec![Reply::fixture(
        "real-model/chat-stream-qwen2_5-coder-1_5b-fix-test.ndjson",
    )]);
    let out = env
        .oc(&server)
        .env("OC_DISABLE", "ground")
        .args(["run", "--yes", "--output-format", "json", PROMPT])
        .assert()
        .code(4);
    assert!(stderr_of(&out).contains("answered without changing any file"));
    let summary: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(summary["exit_reason"], "unchanged");
    assert_eq!(read(&env, "utils.py"), UTILS);
    assert_eq!(server.chat_requests().len(), 1);
    assert_eq!(env.finetune()[0]["success"], false);
}

/// `--edit-format auto` (the default): whole files for a small model, tool
/// calls for a larger one with native tool calling.
#[test]
fn auto_gives_small_models_whole_files() {
    let env = off_by_one();
    let server = FakeOllama::start(vec![Reply::answer("ok"), Reply::answer("ok")])
        .with_model_size("coder:7b", "7.6B");
    for (model, whole) in [(crate::common::MODEL, true), ("coder:7b", false)] {
        env.oc(&server)
            .env_remove("OC_EDIT_FORMAT")
            .args(["run", "--model", model, "Fix last_n."])
            .assert()
            .code(4);
        let request = server.chat_requests().pop().unwrap();
        assert_eq!(request.get("tools").is_none(), whole, "{model}");
        let system = request["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(system.contains("complete new"), whole, "{model}: {system}");
    }
}

/// Regression: the 0.5B model sent `utils.py` back exactly as it was, and
/// the run ended as answered with nothing changed. Files sent back as they
/// are, before any change, end the run: stuck (exit 4), as nothing was
/// done.
#[test]
fn files_sent_back_unchanged_end_the_run() {
    let env = off_by_one();
    let echo = format!("utils.py\n```python\n{UTILS}```");
    let server = FakeOllama::start(vec![streamed(&echo, 9)]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", PROMPT])
        .assert()
        .code(4);
    assert!(stderr_of(&out).contains("sent the files back as they were"));
    assert_eq!(env.session()["status"], "stuck");
    assert_eq!(server.chat_requests().len(), 1);
}
/// Files sent back unchanged leave the verdict to what decides it: a
/// check (0 when it passes: the task was already done; 6 when it fails),
/// and a change denied for want of approval before them (5: the likely
/// reason nothing changed).
#[test]
fn after_files_sent_back_unchanged_a_check_or_a_denial_decides() {
    let echo = format!("utils.py\n```python\n{UTILS}```");
    let fixed = format!(
        "utils.py\n```python\n{}```",
        UTILS.replace("-n - 1:", "-n:")
    );
    let cases: [(&[&str], &str, i32, &str); 3] = [
        (&["--yes", "--check", "true"], &echo, 0, "answered"),
        (&["--yes", "--check", "false"], &echo, 6, "check_failed"),
        (&[], &fixed, 5, "denied"),
    ];
    for (flags, reply, code, reason) in cases {
        let env = off_by_one();
        let server = FakeOllama::start(vec![streamed(reply, 9), streamed(reply, 9)]);
        let out = env
            .oc(&server)
            .env("OC_EDIT_FORMAT", "whole")
            .env("OC_DISABLE", "")
            .args(["run", "--no-precheck", "--output-format", "json"])
            .args(flags)
            .arg(PROMPT)
            .assert()
            .code(code);
        let summary: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
        assert_eq!(summary["exit_reason"], reason, "{flags:?}");
        assert_eq!(read(&env, "utils.py"), UTILS, "{flags:?}");
        let stderr = stderr_of(&out);
        assert!(!stderr.contains("changed nothing"), "{flags:?}: {stderr}");
    }
}

/// A command that failed did not make the change: a change run whose
/// only command failed and whose model then claims the fix ends
/// `unchanged` (exit 4); one that succeeded may have made it, and the
/// answer stands.
#[test]
fn only_a_command_that_succeeded_counts_as_work() {
    for (command, code) in [("false", 4), ("mkdir -p build", 0)] {
        let env = off_by_one();
        let server = FakeOllama::start(vec![
            Reply::tool_calls(&[("bash", json!({ "command": command }))]),
            Reply::answer("Fixed."),
        ]);
        env.oc(&server)
            .env("OC_DISABLE", "ground")
            .args(["run", "--yes", "--sandbox", "off", PROMPT])
            .assert()
            .code(code);
    }
}

/// A rename across files: the code name in the prompt brings every file
/// that uses it, all of them may change, and one reply changes them all.
#[test]
fn a_rename_changes_several_files_in_one_reply() {
    let env = TestEnv::new();
    env.write("users.py", "def get_usr(i):\n    return i\n");
    env.write(
        "api.py",
        "from users import get_usr\n\n\ndef hello(i):\n    return get_usr(i)\n",
    );
    env.write("notes.md", "Nothing here.\n");
    let reply = "users.py\n```python\ndef get_user(i):\n    return i\n```\n\napi.py\n```python\nfrom users import get_user\n\n\ndef hello(i):\n    return get_user(i)\n```";
    let server = FakeOllama::start(vec![streamed(reply, 11)]);
    env.oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "Rename `get_usr` to get_user everywhere."])
        .assert()
        .success();
    let opening = server.chat_requests()[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        opening.contains("You may change: api.py, users.py."),
        "{opening}"
    );
    assert!(!opening.contains("notes.md"), "{opening}");
    assert!(read(&env, "api.py").contains("return get_user(i)"));
    assert!(read(&env, "users.py").starts_with("def get_user(i):"));
}

/// A reply whose last fence the model never closed holds the file to the
/// end of the reply; the same reply cut at the length limit writes nothing.
#[test]
fn a_last_fence_left_open_ends_with_the_reply() {
    let fixed = UTILS.replace("items[-n - 1:]", "items[-n:]");
    let reply = format!("utils.py\n```python\n{fixed}\n");
    let env = off_by_one();
    let server = FakeOllama::start(vec![streamed(&reply, 40)]);
    env.oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", PROMPT])
        .assert()
        .success();
    assert_eq!(read(&env, "utils.py"), fixed);

    let env = off_by_one();
    let cut = Reply::lines(vec![content_chunk(&reply), done_chunk("length")]);
    let server = FakeOllama::start(vec![cut, Reply::answer("I could not finish.")]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", PROMPT])
        .assert()
        .code(4);
    assert_eq!(read(&env, "utils.py"), UTILS);
    // The call not run is named by its path.
    assert!(
        stderr_of(&out).contains("● write_file utils.py\n"),
        "{}",
        stderr_of(&out)
    );
}

/// Seen on the 1.5B model: asked to add a method to one class of a small
/// file, it sent that class alone, twice, refused each time as dropping
/// the other class. The class it sent goes in; the rest stays.
#[test]
fn a_small_file_sent_in_part_changes_only_what_it_holds() {
    let env = TestEnv::new();
    let shapes = "class Rectangle:\n    def __init__(self, width, height):\n        self.width = width\n        self.height = height\n\n    def perimeter(self):\n        return 2 * (self.width + self.height)\n\n\nclass Square(Rectangle):\n    def __init__(self, side):\n        super().__init__(side, side)\n";
    env.write("shapes.py", shapes);
    let reply = "```python\nclass Rectangle:\n    def __init__(self, width, height):\n        self.width = width\n        self.height = height\n\n    def perimeter(self):\n        return 2 * (self.width + self.height)\n\n    def area(self):\n        return self.width * self.height\n```";
    let server = FakeOllama::start(vec![streamed(reply, 40)]);
    env.oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args([
            "run",
            "--yes",
            "Add a method `area(self)` to the Rectangle class in shapes.py that returns width times height.",
        ])
        .assert()
        .success();
    assert_eq!(
        read(&env, "shapes.py"),
        shapes.replace(
            "(self.width + self.height)\n",
            "(self.width + self.height)\n\n    def area(self):\n        return self.width * self.height\n"
        )
    );
}

/// A whole-format reply streams as it comes: its prose as `content.delta`,
/// chunk by chunk, and its file block as `file.block` progress (the path,
/// the lines so far), before the reply is over. The block's text is never a
/// delta, and the file changes only once the reply has been read. Before:
/// one delta, after the reply.
#[test]
fn a_whole_format_reply_streams_its_prose_and_its_block_as_progress() {
    use std::io::BufRead;
    let env = off_by_one();
    let gate = env.home.path().join("gate");
    let fixed = UTILS.replace("items[-n - 1:]", "items[-n:]");
    let prose = "The slice starts one item early.\n\n";
    let mut lines: Vec<String> = prose
        .chars()
        .collect::<Vec<_>>()
        .chunks(4)
        .map(|c| content_chunk(&c.iter().collect::<String>()))
        .collect();
    let block = format!("utils.py\n```python\n{fixed}```\n");
    let block_lines: Vec<String> = block.split_inclusive('\n').map(content_chunk).collect();
    lines.extend_from_slice(&block_lines[..4]);
    lines.push(format!("#wait {}", gate.display()));
    lines.extend_from_slice(&block_lines[4..]);
    lines.push(content_chunk("Done."));
    lines.push(done_chunk("stop"));
    let server = FakeOllama::start(vec![Reply::lines(lines)]);
    let mut child = env
        .oc_process(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "--output-format", "stream-json", PROMPT])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (events_tx, events) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let _ = events_tx.send(serde_json::from_str(&line.unwrap()).unwrap());
        }
    });
    // Before the gate opens: the prose so far, and the block growing.
    let mut before = Vec::new();
    while !before
        .iter()
        .any(|e: &Value| e["type"] == "file.block" && e["lines"] == 2)
    {
        let event = events
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no block progress while the reply streams: {before:?}"));
        before.push(event);
    }
    let deltas = |events: &[Value]| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["type"] == "content.delta")
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(deltas(&before).concat(), format!("{prose}utils.py\n"));
    assert!(deltas(&before).len() > 5, "chunk by chunk: {before:?}");
    let progress: Vec<&Value> = before
        .iter()
        .filter(|e| e["type"] == "file.block")
        .collect();
    assert_eq!(progress[0]["path"], "utils.py");
    assert_eq!(progress[0]["lines"], 1);
    assert_eq!(progress[0]["closed"], false);
    assert!(before.iter().all(|e| e["type"] != "turn.completed"));
    assert_eq!(read(&env, "utils.py"), UTILS, "nothing applied mid-reply");
    std::fs::write(&gate, "").unwrap();
    let status = child.wait().unwrap();
    let after: Vec<Value> = events.iter().collect();
    assert!(status.success(), "{after:?}");
    let closed = after
        .iter()
        .position(|e| e["type"] == "file.block" && e["closed"] == true)
        .unwrap();
    assert_eq!(after[closed]["path"], "utils.py");
    assert_eq!(after[closed]["lines"], fixed.lines().count());
    let call = after.iter().position(|e| e["type"] == "tool.call").unwrap();
    assert!(
        closed < call,
        "the block closes before its change is applied"
    );
    let all: Vec<Value> = before.into_iter().chain(after).collect();
    assert_eq!(deltas(&all).concat(), format!("{prose}utils.py\nDone."));
    assert_eq!(read(&env, "utils.py"), fixed);
}
