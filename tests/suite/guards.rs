//! Write guards that judge from where the run began, and that lose nothing:
//! each test is a case seen when attacking `oc` with scripted replies.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FakeOllama, Reply, TestEnv, tool_results};

fn read(env: &TestEnv, path: &str) -> String {
    std::fs::read_to_string(env.work().join(path)).unwrap()
}

/// The tool results the last request carried, as text.
fn results(server: &FakeOllama) -> Vec<String> {
    tool_results(server.chat_requests().last().unwrap())
}

/// `count` numbered lines of prose.
fn numbered(count: usize) -> String {
    (1..=count)
        .map(|i| format!("Line {i} of the notes, with some words.\n"))
        .collect()
}

const STATS: &str = "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef median(xs):\n    s = sorted(xs)\n    n = len(s)\n    return s[n // 2]\n";
const TEST_STATS: &str = "import unittest\n\nfrom stats import mean, median\n\n\nclass T(unittest.TestCase):\n    def test_mean(self):\n        self.assertEqual(mean([1, 2, 3]), 2)\n\n    def test_median_even(self):\n        self.assertEqual(median([1, 2, 3, 4]), 2.5)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const FIXED: &str = "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef median(xs):\n    s = sorted(xs)\n    n = len(s)\n    if n % 2 == 0:\n        return (s[n // 2 - 1] + s[n // 2]) / 2\n    return s[n // 2]\n";

/// Regression, replayed from the 1.5B model: its first reply put the
/// read-only test file inside `stats.py` (the check then fails), and every
/// later reply that
/// restored the file was refused as dropping `import unittest`. The guard
/// now judges from the file as the run found it.
#[test]
fn a_file_can_be_restored_after_a_bad_first_reply() {
    let env = TestEnv::new();
    env.write("stats.py", STATS);
    env.write("test_stats.py", TEST_STATS);
    let polluted = format!("stats.py\n```python\n{STATS}\n{TEST_STATS}```\n");
    let right = format!("stats.py\n```python\n{FIXED}```\n");
    let server = FakeOllama::start(vec![Reply::answer(&polluted), Reply::answer(&right)]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "")
        .args([
            "run",
            "--yes",
            "--check",
            "python3 -m unittest -q test_stats",
            "--no-precheck",
            "Fix median in stats.py so the tests in test_stats.py pass.",
        ])
        .assert()
        .code(0);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(read(&env, "stats.py"), FIXED, "{stderr}");
    assert!(!stderr.contains("drops `import unittest`"), "{stderr}");
}

/// Regression: `read_file` of lines 1-3 of a 300-line file, then
/// `write_file` with those 3 lines, lost 297 lines with exit 0.
#[test]
fn a_whole_write_over_a_file_seen_in_part_is_refused() {
    let env = TestEnv::new();
    let text = numbered(300);
    env.write("notes.md", &text);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "read_file",
            json!({"path": "notes.md", "offset": 1, "limit": 3}),
        )]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "notes.md", "content": "Line 1\nLine 2\nLine 3\n"}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "tidy the first lines of notes.md"])
        .assert()
        .code(4);
    assert_eq!(read(&env, "notes.md"), text);
    let result = &results(&server)[1];
    assert!(
        result.contains("you have seen 3 of the 300 lines of notes.md"),
        "{result}"
    );
    assert!(result.contains("edit_file"), "{result}");
}

/// Regression: content of blank lines only erased a 10-line file (only
/// `""` was refused). Stating the intent lets it through.
#[test]
fn blank_content_is_refused_unless_the_call_says_so() {
    let env = TestEnv::new();
    env.write("a.txt", &numbered(10));
    env.write("b.txt", &numbered(10));
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "a.txt"}))]),
        Reply::tool_calls(&[("write_file", json!({"path": "a.txt", "content": "\n\n"}))]),
        Reply::tool_calls(&[("read_file", json!({"path": "b.txt"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "b.txt", "content": "\n", "allow_shrink": true}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "empty b.txt"])
        .assert()
        .success();
    assert_eq!(read(&env, "a.txt"), numbered(10));
    assert_eq!(read(&env, "b.txt"), "\n");
    let results = results(&server);
    assert!(results[1].contains("only blank lines"), "{}", results[1]);
    assert!(
        results[1].contains("\"allow_shrink\": true"),
        "{}",
        results[1]
    );
    assert!(results[3].starts_with("updated b.txt"), "{}", results[3]);
}

/// Regression: `allow_empty`, the documented other name of `allow_shrink`,
/// was ignored (its serde alias repeated `allow_shrink`), so emptying a
/// file on purpose with it was refused.
#[test]
fn allow_empty_empties_a_file_as_allow_shrink_does() {
    let env = TestEnv::new();
    env.write("old.log", &numbered(10));
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "old.log"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "old.log", "content": "", "allow_empty": true}),
        )]),
        Reply::answer("Emptied old.log."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "empty old.log"])
        .assert()
        .success();
    let results = results(&server);
    assert!(results[1].starts_with("updated old.log"), "{}", results[1]);
    assert_eq!(read(&env, "old.log"), "");
}

/// Regression: a file the run created could not be cut down: the guard
/// refused it as keeping under half of the 50 lines it "had when this run
/// began", though it did not exist then. It is the model's own.
#[test]
fn a_file_the_run_created_can_be_cut_down() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "draft.md", "content": numbered(50)}),
        )]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "draft.md", "content": numbered(5)}),
        )]),
        Reply::answer("Wrote a five-line draft.md."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "write a short draft.md of five lines"])
        .assert()
        .success();
    let results = results(&server);
    assert!(results[1].starts_with("updated draft.md"), "{}", results[1]);
    assert_eq!(read(&env, "draft.md"), numbered(5));
}

/// Regression: shown a 200-line `notes.md` and asked to add a title, a
/// model wrote `# Title` as the whole file; it was accepted.
#[test]
fn a_lazy_whole_write_is_refused() {
    let env = TestEnv::new();
    let text = numbered(200);
    env.write("notes.md", &text);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "notes.md"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "notes.md", "content": "# Title\n"}),
        )]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "notes.md", "content": "# Title\n\n...\n"}),
        )]),
        Reply::answer("Added the title."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "add a title to notes.md"])
        .assert()
        .code(4);
    assert_eq!(read(&env, "notes.md"), text);
    let results = results(&server);
    assert!(
        results[1].contains("keeps under half of the 200 lines"),
        "{}",
        results[1]
    );
    assert!(
        results[2].contains("leaves code of notes.md out"),
        "{}",
        results[2]
    );
}

/// Regression: after the user changed a line the model had read, a fuzzy
/// `edit_file` put the old line back, and `replace_all` rewrote a line the
/// model never saw. Both are refused now; an exact edit still applies.
#[test]
fn edits_over_an_outside_change_apply_only_exactly() {
    let env = TestEnv::new();
    env.write(
        "conf.py",
        "name = 'demo'\nlevel = 1\ncolor = 'red'\nsize = 10\n",
    );
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "conf.py"}))]),
        // The user's change, made while the model works.
        Reply::tool_calls(&[(
            "bash",
            json!({"command": "sed -i \"s/level = 1/level = 2/; s/size = 10/size = 10\\ncolor = 'red'/\" conf.py"}),
        )]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "conf.py", "old_string": "level = 1\ncolor = 'red'", "new_string": "level = 1\ncolor = 'blue'"}),
        )]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "conf.py", "old_string": "color = 'red'", "new_string": "color = 'blue'", "replace_all": true}),
        )]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "conf.py", "old_string": "name = 'demo'", "new_string": "name = 'app'"}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "make the color blue"])
        .assert()
        .success();
    assert_eq!(
        read(&env, "conf.py"),
        "name = 'app'\nlevel = 2\ncolor = 'red'\nsize = 10\ncolor = 'red'\n"
    );
    let results = results(&server);
    assert!(
        results[2].contains("is not in it exactly; it now reads:"),
        "{}",
        results[2]
    );
    assert!(results[2].contains("     2\tlevel = 2"), "{}", results[2]);
    assert!(
        results[3].contains("replace_all could change text you have not seen"),
        "{}",
        results[3]
    );
    assert!(results[4].starts_with("updated conf.py"), "{}", results[4]);
    assert!(
        results[4].contains("had changed on disk since you last read it"),
        "{}",
        results[4]
    );
}

/// Regression: the same insertion sent twice was applied twice.
#[test]
fn the_same_edit_twice_is_already_applied() {
    let env = TestEnv::new();
    env.write("main.py", "print('a')\n");
    let edit = json!({"path": "main.py", "old_string": "print('a')", "new_string": "print('a')\nprint('b')"});
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "main.py"}))]),
        Reply::tool_calls(&[("edit_file", edit.clone())]),
        Reply::tool_calls(&[("edit_file", edit)]),
        Reply::answer("Added the line."),
    ]);
    env.oc(&server)
        .args([
            "run",
            "--yes",
            "add a line to main.py that prints b after it prints a",
        ])
        .assert()
        .success();
    let results = results(&server);
    assert_eq!(
        read(&env, "main.py"),
        "print('a')\nprint('b')\n",
        "{results:?}"
    );
    assert!(results[2].contains("already applied"), "{}", results[2]);
}

/// Regression: legitimate one-line files holding `\n` inside a string (a
/// shell `printf`, a JSON string, a C string) were refused as escaped line
/// breaks. A flattened multi-line text still is.
#[test]
fn literal_backslash_n_inside_strings_is_written() {
    let env = TestEnv::new();
    let files = [
        ("greet.sh", r"printf 'hello\nworld\n'"),
        ("msg.json", r#"{"text": "one\ntwo\nthree"}"#),
        ("msg.c", r#"const char *msg = "a\nb\n";"#),
    ];
    let mut replies: Vec<Reply> = files
        .iter()
        .map(|(path, content)| {
            Reply::tool_calls(&[("write_file", json!({"path": path, "content": content}))])
        })
        .collect();
    replies.push(Reply::tool_calls(&[(
        "write_file",
        json!({"path": "flat.py", "content": r"def f():\n    return 'x'\n"}),
    )]));
    replies.push(Reply::answer("Written."));
    let server = FakeOllama::start(replies);
    env.oc(&server)
        .args(["run", "--yes", "write the files"])
        .assert()
        .success();
    for (path, content) in files {
        assert_eq!(read(&env, path), content);
    }
    assert!(!env.work().join("flat.py").exists());
    let results = results(&server);
    assert!(results[3].contains("no real line break"), "{}", results[3]);
}

/// Regression (found by attacking the guards): placeholders the elision
/// check missed lost the code they stood for; a bare `...` body is Python.
#[test]
fn placeholder_lines_are_refused_in_whole_content() {
    let env = TestEnv::new();
    let body: String = (1..=12)
        .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n\n"))
        .collect();
    env.write("lib.py", &body);
    let kept: String = (1..=10)
        .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n\n"))
        .collect();
    let placeholders = [
        "# …",
        "# [previous code here]",
        "# snip",
        "# <existing f11/f12>",
        "pass  # rest unchanged",
        "# rest of file unchanged",
        "# other functions stay the same",
        "x = 0 \t# rest unchanged",
    ];
    let mut replies = vec![Reply::tool_calls(&[(
        "read_file",
        json!({"path": "lib.py"}),
    )])];
    for placeholder in placeholders {
        let content = format!("{kept}{placeholder}\n");
        replies.push(Reply::tool_calls(&[(
            "write_file",
            json!({"path": "lib.py", "content": content}),
        )]));
    }
    let python_body = body.replace("    return x + 12\n", "    ...\n");
    replies.push(Reply::tool_calls(&[(
        "write_file",
        json!({"path": "lib.py", "content": python_body}),
    )]));
    replies.push(Reply::answer("Done."));
    let server = FakeOllama::start(replies);
    env.oc(&server)
        .args(["run", "--yes", "rewrite lib.py"])
        .assert()
        .success();
    let results = results(&server);
    for (n, placeholder) in placeholders.iter().enumerate() {
        assert!(
            results[n + 1].contains("leaves code of lib.py out"),
            "{placeholder}: {}",
            results[n + 1]
        );
    }
    let last = placeholders.len() + 1;
    assert!(
        results[last].starts_with("updated lib.py"),
        "{}",
        results[last]
    );
    assert_eq!(read(&env, "lib.py"), python_body);
}

/// Regression: a line cut at 2,000 characters by `read_file` counted as
/// seen, and a whole write lost it.
#[test]
fn a_line_cut_by_read_file_is_not_seen() {
    let env = TestEnv::new();
    let wide = format!("short\n{}\nend\n", "A".repeat(5000));
    env.write("wide.txt", &wide);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "wide.txt"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "wide.txt", "content": "SHORT\nAAAAAAAAAA\nend\n"}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "uppercase the first line of wide.txt"])
        .assert()
        .code(4);
    assert_eq!(read(&env, "wide.txt"), wide);
    let result = &results(&server)[1];
    assert!(
        result.contains("you have seen 1 of the 3 lines"),
        "{result}"
    );
}

/// Regressions: an edit that empties a file went through unread; after
/// one exact edit of a file changed on disk, fuzzy edits and
/// `replace_all` were let through without a read; one `\n` pair replacing
/// lines was written.
#[test]
fn edits_that_lose_lines_are_refused() {
    let env = TestEnv::new();
    let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    env.write("a.txt", &text);
    env.write("b.txt", "x = 1\ny = 2\nz = 3\n");
    env.write("c.txt", "a\nb\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "a.txt", "old_string": text, "new_string": ""}),
        )]),
        Reply::tool_calls(&[("read_file", json!({"path": "b.txt"}))]),
        Reply::tool_calls(&[("bash", json!({"command": "echo 'w = 0' >> b.txt"}))]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "b.txt", "old_string": "x = 1", "new_string": "x = 10"}),
        )]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "b.txt", "old_string": "y = 2", "new_string": "y = 20", "replace_all": true}),
        )]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "c.txt", "old_string": "a\nb", "new_string": "A\\nB"}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "change the files"])
        .assert()
        .success();
    let results = results(&server);
    assert_eq!(read(&env, "a.txt"), text);
    assert!(
        results[0].contains("would leave a.txt empty"),
        "{}",
        results[0]
    );
    assert!(results[3].starts_with("updated b.txt"), "{}", results[3]);
    assert!(
        results[4].contains("replace_all could change text you have not seen"),
        "{}",
        results[4]
    );
    assert_eq!(read(&env, "b.txt"), "x = 10\ny = 2\nz = 3\nw = 0\n");
    assert!(
        results[5].contains("old_string spans lines"),
        "{}",
        results[5]
    );
    assert_eq!(read(&env, "c.txt"), "a\nb\n");
}

/// Regressions (second attack): an edit could replace 36 lines by a
/// placeholder; a Markdown heading and YAML's document end were taken for
/// placeholders.
#[test]
fn placeholders_are_judged_by_the_file_kind() {
    let env = TestEnv::new();
    let code: String = (1..=12).map(|i| format!("x{i} = {i}\n")).collect();
    env.write("conf.py", &code);
    env.write("guide.md", "# Guide\n\nSome text.\n");
    env.write("ci.yml", "a: 1\n");
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "conf.py"}))]),
        Reply::tool_calls(&[(
            "edit_file",
            json!({"path": "conf.py", "old_string": code, "new_string": "# ... existing code ...\n"}),
        )]),
        Reply::tool_calls(&[("read_file", json!({"path": "guide.md"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "guide.md", "content": "# Guide\n\nSome text.\n\n## Migrating existing code\n\nRead on.\n"}),
        )]),
        Reply::tool_calls(&[("read_file", json!({"path": "ci.yml"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "ci.yml", "content": "a: 1\n...\n"}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "edit the files"])
        .assert()
        .success();
    let results = results(&server);
    assert!(
        results[1].contains("new_string leaves code out"),
        "{}",
        results[1]
    );
    assert_eq!(read(&env, "conf.py"), code);
    assert!(results[3].starts_with("updated guide.md"), "{}", results[3]);
    assert!(results[5].starts_with("updated ci.yml"), "{}", results[5]);
}

/// Regression (second attack): a small file moved over a big one the
/// model had read replaced it, past every write guard.
#[test]
fn moving_a_fragment_over_a_file_is_refused() {
    let env = TestEnv::new();
    let big = numbered(40);
    env.write("big.md", &big);
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("read_file", json!({"path": "big.md"}))]),
        Reply::tool_calls(&[(
            "write_file",
            json!({"path": "tmp.md", "content": "# Title\n"}),
        )]),
        Reply::tool_calls(&[(
            "move_file",
            json!({"from": "tmp.md", "to": "big.md", "overwrite": true}),
        )]),
        Reply::answer("Done."),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "add a title to big.md"])
        .assert()
        .success();
    assert_eq!(read(&env, "big.md"), big);
    let result = &results(&server)[2];
    assert!(
        result.contains("moving over big.md would replace it"),
        "{result}"
    );
}
