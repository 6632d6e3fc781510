//! Small models in real repositories: the failing check seen first, the
//! repository map, looking around without tools, big files changed one
//! definition at a time, echoes that are not edits, and a run that stops
//! when the editing is done.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::fake_ollama::{content_chunk, done_chunk};
use crate::common::{FakeOllama, Reply, TestEnv};

/// A reply streamed as content chunks of 7 characters.
pub(super) fn streamed(text: &str) -> Reply {
    let chars: Vec<char> = text.chars().collect();
    let mut lines: Vec<String> = chars
        .chunks(7)
        .map(|c| content_chunk(&c.iter().collect::<String>()))
        .collect();
    lines.push(done_chunk("stop"));
    Reply::lines(lines)
}

pub(super) fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).to_string()
}

pub(super) fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

pub(super) fn read(env: &TestEnv, path: &str) -> String {
    std::fs::read_to_string(env.work().join(path)).unwrap()
}

/// The first user message of the first request.
pub(super) fn opening(server: &FakeOllama) -> String {
    server.chat_requests()[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The last message of request `n`.
pub(super) fn last_message(server: &FakeOllama, n: usize) -> String {
    server.chat_requests()[n]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `count` filler functions, 4 lines each.
pub(super) fn filler(prefix: &str, count: usize) -> String {
    (0..count)
        .map(|i| {
            format!("def {prefix}_{i}(x):\n    \"\"\"Filler {i}.\"\"\"\n    return x + {i}\n\n\n")
        })
        .collect()
}

/// A package of ten modules whose `ratio` divides by zero, in a module
/// too big to show whole, and a unittest that calls it.
fn package_with_a_crash() -> TestEnv {
    let env = TestEnv::new();
    env.write("pkg/__init__.py", "");
    let maths = format!(
        "{}def ratio(a, b):\n    \"\"\"a divided by b.\"\"\"\n    return a / (b - b)\n\n\n{}",
        filler("before", 30),
        filler("after", 20)
    );
    env.write("pkg/maths.py", &maths);
    for name in [
        "io", "text", "dates", "units", "config", "cli", "report", "store",
    ] {
        env.write(
            &format!("pkg/{name}.py"),
            &format!("def {name}_helper():\n    return '{name}'\n"),
        );
    }
    env.write(
        "tests/test_maths.py",
        "import unittest\n\nfrom pkg.maths import ratio\n\n\nclass RatioTest(unittest.TestCase):\n    def test_ratio(self):\n        self.assertEqual(ratio(6, 3), 2)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n",
    );
    env
}

const CHECK: &str = "python3 -m unittest discover -s tests";

/// The check runs before the first request: its failure is in the first
/// message, the traceback's source file is shown (around the line it names,
/// as the file is big) as the file to change, and the test for reference.
/// One definition back fixes it; every other line stays.
#[test]
fn the_failing_check_is_seen_first_with_the_files_it_names() {
    let env = package_with_a_crash();
    let before = read(&env, "pkg/maths.py");
    let fix = "pkg/maths.py\n```python\ndef ratio(a, b):\n    \"\"\"a divided by b.\"\"\"\n    return a / b\n```";
    let server = FakeOllama::start(vec![streamed(fix)]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "--output-format", "json", "--check", CHECK])
        .arg("Make the tests pass.")
        .assert()
        .success();
    let first = opening(&server);
    assert!(
        first.contains(&format!("The check `{CHECK}` fails now (exit code 1).")),
        "{first}"
    );
    assert!(first.contains("ZeroDivisionError"), "{first}");
    assert!(
        first.contains("pkg/maths.py: 255 lines, too long to show whole"),
        "{first}"
    );
    assert!(
        first.contains("pkg/maths.py lines 151-153 (ratio)\n```python\ndef ratio(a, b):"),
        "{first}"
    );
    assert!(
        !first.contains("def before_0"),
        "only the part the traceback names: {first}"
    );
    assert!(
        first.contains("tests/test_maths.py (for reference, do not change)"),
        "{first}"
    );
    assert!(first.contains("You may change: pkg/maths.py."), "{first}");
    assert!(
        !first.contains("Repository map"),
        "the traceback found the file: {first}"
    );
    assert!(first.len() < 4000, "{} bytes", first.len());
    assert_eq!(
        read(&env, "pkg/maths.py"),
        before.replace("return a / (b - b)", "return a / b")
    );
    let result: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(result["precheck"]["passed"], false);
    assert_eq!(result["precheck"]["exit_code"], 1);
    assert_eq!(result["precheck"]["attempts"], 0);
    assert_eq!(result["check"]["passed"], true);
    let session = env.session();
    assert_eq!(session["precheck"], result["precheck"]);
    let call = &session["messages"][2]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "edit_file");
}

/// A check that passes already is said, and the run goes on; with
/// `--no-precheck` it runs only after the model.
#[test]
fn a_passing_check_is_said_and_no_precheck_skips_it() {
    for (flag, runs) in [(None, 2), (Some("--no-precheck"), 1)] {
        let env = TestEnv::new();
        env.write("notes.txt", "hello\n");
        let server = FakeOllama::start(vec![Reply::answer("Nothing to do.")]);
        let mut cmd = env.oc(&server);
        cmd.env("OC_EDIT_FORMAT", "whole")
            .args(["run", "--yes", "--check", "echo x >> .runs"]);
        if let Some(flag) = flag {
            cmd.arg(flag);
        }
        let out = cmd.arg("Is anything to do?").assert().success();
        assert_eq!(read(&env, ".runs").lines().count(), runs, "{flag:?}");
        let first = opening(&server);
        match flag {
            None => {
                assert!(
                    stderr_of(&out)
                        .contains("the check `echo x >> .runs` passes already; the run goes on")
                );
                assert!(
                    first.contains("The check `echo x >> .runs` passes now."),
                    "{first}"
                );
                assert_eq!(env.session()["precheck"]["passed"], true);
            }
            Some(_) => {
                assert!(!first.contains("The check"), "{first}");
                assert!(env.session().get("precheck").is_none());
            }
        }
    }
}

/// `--check auto` takes the command from the prompt, else from the
/// project, and says which; with neither it is a usage error.
#[test]
fn check_auto_finds_the_test_command() {
    let env = package_with_a_crash();
    let server = FakeOllama::start(vec![Reply::answer("ok"), Reply::answer("ok")]);
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--no-precheck",
            "--check-attempts",
            "1",
            "--check",
            "auto",
        ])
        .arg("Fix it. Run them with: python3 -m unittest tests.test_maths")
        .assert()
        .code(6);
    assert!(
        stderr_of(&out).contains(
            "--check auto: using `python3 -m unittest tests.test_maths` (from the prompt)"
        ),
        "{}",
        stderr_of(&out)
    );
    let out = env
        .oc(&server)
        .args([
            "run",
            "--yes",
            "--no-precheck",
            "--check-attempts",
            "1",
            "--check",
            "auto",
            "Fix it.",
        ])
        .assert()
        .code(6);
    assert!(stderr_of(&out).contains(&format!(
        "--check auto: using `{CHECK}` (from the project's Python tests)"
    )));
    assert_eq!(env.sessions()[1]["check"]["command"], CHECK);
    let empty = TestEnv::new();
    let out = empty
        .oc(&server)
        .args(["run", "--check", "auto", "Fix it."])
        .assert()
        .code(2);
    assert!(
        stderr_of(&out).contains("`--check auto` found no test command"),
        "{}",
        stderr_of(&out)
    );
}

/// A library whose tests import it by package name: a prompt that names
/// only a test finds the test, not the code. The first message carries the
/// repository map, within its budget, with the file that defines what the
/// test calls first, and that file may change.
#[test]
fn a_prompt_naming_only_a_test_gets_the_map() {
    let env = TestEnv::new();
    env.write(
        "mytools/__init__.py",
        "from .folding import reduceby\nfrom .dicts import merge\n",
    );
    env.write(
        "mytools/folding.py",
        "def reduceby(key, binop, seq, init=None):\n    \"\"\"Group and reduce.\"\"\"\n    out = {}\n    for item in seq:\n        k = key(item)\n        out[k] = binop(out.get(k, init), item)\n    return out\n",
    );
    for name in [
        "dicts",
        "funcs",
        "recipes",
        "sandbox",
        "utils",
        "compat",
        "curried",
        "itertools_x",
        "text",
        "numbers",
        "paths",
        "timing",
    ] {
        env.write(
            &format!("mytools/{name}.py"),
            &format!(
                "def {name}_merge(a, b):\n    return a\n\n\ndef {name}_other():\n    return 1\n"
            ),
        );
    }
    env.write(
        "tests/test_mytools.py",
        "import unittest\n\nfrom mytools import reduceby\n\n\nclass T(unittest.TestCase):\n    def test_reduce_by_init(self):\n        self.assertEqual(reduceby(len, lambda a, b: a + 1, ['a'], 0), {1: 1})\n",
    );
    let server = FakeOllama::start(vec![Reply::answer("I need to look first.")]);
    env.oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes", "--max-turns", "1"])
        .arg("test_reduce_by_init fails. Fix the code, not the tests.")
        .assert()
        .code(4);
    let first = opening(&server);
    let map_start = first.find("Repository map").expect(&first);
    let map: String = first[map_start..].split("\n\n").next().unwrap().to_string();
    assert!(map.len() <= 256 * 4, "{} bytes", map.len());
    assert_eq!(
        map.lines().nth(1),
        Some("- mytools/folding.py: def reduceby(key, binop, seq, init=None)"),
        "{map}"
    );
    assert!(
        first.contains("mytools/folding.py\n```python\ndef reduceby"),
        "{first}"
    );
    assert!(
        first.contains("You may change: mytools/folding.py."),
        "{first}"
    );
    assert!(
        first.contains("tests/test_mytools.py (for reference, do not change)"),
        "{first}"
    );
}

/// Looking around without tools: a SEARCH line is answered with the hits,
/// a READ line with the file shown as the opening shows files (now one to
/// change); both are recorded as the calls they are, shown on stderr, and
/// sent back as the model wrote them; then the fix applies.
#[test]
fn search_and_read_requests_are_answered() {
    let env = TestEnv::new();
    for i in 0..10 {
        env.write(
            &format!("app/mod{i}.py"),
            &format!("def f{i}():\n    return {i}\n"),
        );
    }
    env.write("app/dates.py", "def parse_date(text):\n    year, month, day = text.split('-')\n    return int(year), int(day), int(month)\n");
    let fix = "app/dates.py\n```python\ndef parse_date(text):\n    year, month, day = text.split('-')\n    return int(year), int(month), int(day)\n```";
    let server = FakeOllama::start(vec![
        streamed("SEARCH def parse_date"),
        // In a fence, as the 1.5B model sometimes writes it.
        streamed("```\nREAD app/dates.py\n```"),
        streamed(fix),
    ]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args(["run", "--yes"])
        .arg("Dates come back with the month and the day swapped.")
        .assert()
        .success();
    let searched = last_message(&server, 1);
    assert!(
        searched.contains("app/dates.py:1: def parse_date(text):"),
        "{searched}"
    );
    let shown = last_message(&server, 2);
    assert!(
        shown.contains("app/dates.py\n```python\ndef parse_date(text):"),
        "{shown}"
    );
    assert!(shown.contains("You may change it."), "{shown}");
    let requests = server.chat_requests();
    let replies: Vec<&str> = requests[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        replies,
        ["SEARCH def parse_date", "```\nREAD app/dates.py\n```"]
    );
    assert!(read(&env, "app/dates.py").contains("int(month), int(day)"));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("search") && stderr.contains("read_file app/dates.py"),
        "{stderr}"
    );
    let session = env.session();
    let calls: Vec<(String, bool)> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| {
            (
                c["function"]["name"].as_str().unwrap().to_string(),
                c["recovered"] == true,
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("search".to_string(), true),
            ("read_file".to_string(), true),
            ("write_file".to_string(), false)
        ]
    );
}

/// Echoes are not edits: a reply that gives back the read-only test as
/// shown, beside the fix, draws no error; a block that repeats its path and
/// opens a second fence holds the file inside it; a path the model mangles
/// (`docs/notes.md` for `.docs/notes.md`) is a file it may not create, and
/// the model is told so.
#[test]
fn echoes_fences_in_fences_and_mangled_paths() {
    let env = TestEnv::new();
    env.write("mod.py", "def f():\n    return 1\n");
    let test = "from mod import f\n\nassert f() == 2\n";
    env.write("test_mod.py", test);
    let reply = format!(
        "mod.py\n```\nmod.py\n```python\ndef f():\n    return 2\n```\n```\n\ntest_mod.py\n```python\n{test}```"
    );
    let server = FakeOllama::start(vec![streamed(&reply)]);
    env.oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args([
            "run",
            "--yes",
            "Make f in mod.py return 2, as test_mod.py says.",
        ])
        .assert()
        .success();
    assert_eq!(read(&env, "mod.py"), "def f():\n    return 2\n");
    assert_eq!(read(&env, "test_mod.py"), test);
    let session = env.session();
    let results: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!results[0].starts_with("error"), "{results:?}");

    let env = TestEnv::new();
    env.write(".docs/notes.md", "# Notes\n\nold line\n");
    let reply = "docs/notes.md\n```markdown\n# Notes\n\nold line\nnew line\n```";
    let server = FakeOllama::start(vec![streamed(reply), streamed("I cannot.")]);
    env.oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args([
            "run",
            "--yes",
            "In .docs/notes.md, replace old line with new line.",
        ])
        .assert()
        .code(4);
    assert_eq!(read(&env, ".docs/notes.md"), "# Notes\n\nold line\n");
    assert!(!env.work().join("docs").exists());
    let refusal = serde_json::to_string(&server.chat_requests()[1]).unwrap();
    assert!(refusal.contains(".docs/notes.md"), "{refusal}");
}

/// Done is done: after a change, the same reply again (or the files sent
/// back as they now are) ends the editing and the check decides; the
/// model is not asked a third time.
#[test]
fn a_repeated_reply_ends_the_editing() {
    let wrong = "calc.py\n```python\ndef double(x):\n    return x + x + 1\n```";
    let as_now =
        "Here it is again:\n\ncalc.py\n```python\ndef double(x):\n    return x + x + 1\n```";
    for second in [wrong, as_now] {
        let env = TestEnv::new();
        env.write("calc.py", "def double(x):\n    return x * 3\n");
        let server = FakeOllama::start(vec![streamed(wrong), streamed(second), streamed(wrong)]);
        let out = env
            .oc(&server)
            .env("OC_EDIT_FORMAT", "whole")
            .env("OC_DISABLE", "")
            .args([
                "run",
                "--yes",
                "--check",
                "python3 -c 'import calc; assert calc.double(2) == 4'",
            ])
            .arg("Fix double in calc.py.")
            .assert()
            .code(6);
        assert_eq!(server.chat_requests().len(), 2, "{second}");
        let stderr = stderr_of(&out);
        assert!(stderr.contains("the editing is done"), "{stderr}");
        let session = env.session();
        assert_eq!(session["check"]["passed"], false);
        assert_eq!(
            session["check"]["attempts"], 2,
            "after the answer, and once more at the end"
        );
    }
}

/// A server still reading a long prompt sends nothing: the first wait
/// grows with the prompt (here 1 s configured, the reply after 3 s).
#[test]
fn the_first_wait_grows_with_the_prompt() {
    let env = TestEnv::new();
    std::fs::write(
        env.home.path().join("config.json"),
        r#"{"first_byte_timeout_secs": 1}"#,
    )
    .unwrap();
    let server = FakeOllama::start(vec![Reply::Delayed {
        millis: 3000,
        reply: Box::new(Reply::answer("hello")),
    }]);
    let out = env
        .oc(&server)
        .args(["chat", "Say hello."])
        .assert()
        .success();
    assert_eq!(stdout_of(&out).trim(), "hello");
}
