//! Big files changed one definition at a time: only what the model was
//! shown (or wrote itself) is replaced, from a block with or without its
//! path, and a block that leaves code out is refused.

use pretty_assertions::assert_eq;

use super::repositories::{filler, last_message, opening, read, stderr_of, streamed};
use crate::common::{FakeOllama, TestEnv};
use assert_cmd::Command;

/// `oc` in whole-file mode with every tool on, against `server`.
fn whole_run(env: &TestEnv, server: &FakeOllama) -> Command {
    let mut oc = env.oc(server);
    oc.env("OC_EDIT_FORMAT", "whole").env("OC_DISABLE", "");
    oc
}

/// A 1,500-line file is never asked for whole: the opening shows the
/// definition the prompt names, and one definition back changes only its
/// lines; every other byte (CRLF line ends too) stays.
#[test]
fn a_big_file_changes_through_one_definition() {
    let env = TestEnv::new();
    let mut text = String::from("import math\r\n\r\n\r\n");
    text.push_str(&filler("step", 150).replace('\n', "\r\n"));
    text.push_str("def area(r):\r\n    return math.pi * r\r\n\r\n\r\n");
    text.push_str(&filler("more", 230).replace('\n', "\r\n"));
    assert!(text.lines().count() > 1500);
    env.write("geometry.py", &text);
    let fix = "geometry.py\n```python\ndef area(r):\n    return math.pi * r * r\n```";
    let server = FakeOllama::start(vec![streamed(fix)]);
    whole_run(&env, &server)
        .args([
            "run",
            "--yes",
            "Fix `area` in geometry.py: it must return the area of the circle.",
        ])
        .assert()
        .success();
    let first = opening(&server);
    let total = text.lines().count();
    assert!(
        first.contains(&format!(
            "geometry.py: {total} lines, too long to show whole"
        )),
        "{first}"
    );
    assert!(
        first.contains("geometry.py lines 754-755 (area)"),
        "{first}"
    );
    assert!(first.contains("too long to send whole"), "{first}");
    assert!(
        first.len() < 3000,
        "never the whole file: {} bytes",
        first.len()
    );
    let after = std::fs::read(env.work().join("geometry.py")).unwrap();
    let want = text.replace("return math.pi * r\r\n", "return math.pi * r * r\r\n");
    assert_eq!(String::from_utf8(after).unwrap(), want);
}

/// A big file's definitions the model was not shown are not rewritten
/// from a guess: the block's shown definitions go in, the others stay and
/// are shown with the refusal as the file has them, so the next reply may
/// change them; a block without a path that holds a shown definition goes
/// to its file.
#[test]
fn only_shown_definitions_change() {
    let env = TestEnv::new();
    let text = format!(
        "{}def area(r):\n    return 3 * r\n\n\n{}",
        filler("step", 40),
        filler("more", 40)
    );
    env.write("geometry.py", &text);
    let guess =
        "```python\ndef step_3(x):\n    return 0\n\n\ndef area(r):\n    return 3.14 * r * r\n```";
    let now_seen =
        "geometry.py\n```python\ndef step_3(x):\n    \"\"\"Filler 3.\"\"\"\n    return x + 30\n```";
    let server = FakeOllama::start(vec![streamed(guess), streamed(now_seen)]);
    whole_run(&env, &server)
        .args(["run", "--yes", "Fix `area` in geometry.py: r squared."])
        .assert()
        .success();
    let refused = last_message(&server, 1);
    assert!(
        refused.contains("`step_3` (lines 16-18 of geometry.py) was not shown to you"),
        "{refused}"
    );
    assert!(
        refused.contains("the block's other definitions were put in"),
        "{refused}"
    );
    assert!(
        refused.contains("geometry.py lines 16-18 (step_3)\n```python\ndef step_3(x):\n    \"\"\"Filler 3.\"\"\"\n    return x + 3\n```"),
        "{refused}"
    );
    assert_eq!(
        read(&env, "geometry.py"),
        text.replace("return 3 * r\n", "return 3.14 * r * r\n")
            .replacen("return x + 3\n", "return x + 30\n", 1)
    );
}

/// What the model added in this run it may change again, though it was
/// never shown (seen: a 1.5B model's new `from_bytes`, refused as "not
/// shown" in its second reply); the header of a shown part, echoed inside
/// the fence, names the file and is not written into it.
#[test]
fn the_models_own_definitions_are_its_to_change() {
    let env = TestEnv::new();
    let text = format!(
        "{}def area(r):\n    return 3.14 * r * r\n",
        filler("step", 40)
    );
    env.write("geometry.py", &text);
    let add = "```python\n# geometry.py lines 201-202 (area)\ndef perimeter(r):\n    return 3.14 * r\n```";
    let fix = "geometry.py\n```python\ndef perimeter(r):\n    return 2 * 3.14 * r\n```";
    let server = FakeOllama::start(vec![streamed(add), streamed(fix)]);
    let out = whole_run(&env, &server)
        .args([
            "run",
            "--yes",
            "--check",
            "grep -q '2 [*] 3.14' geometry.py",
            "Add perimeter(r) next to area(r) in geometry.py.",
        ])
        .assert()
        .success();
    assert!(
        !stderr_of(&out).contains("not shown"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(server.chat_requests().len(), 2);
    assert_eq!(
        read(&env, "geometry.py"),
        format!("{text}\n\ndef perimeter(r):\n    return 2 * 3.14 * r\n")
    );
}

/// A block without a path holding a new function goes to the one file that
/// may change, shown in parts (seen: a 1.5B model's new method, without a
/// path, was dropped and the reply called empty, exit 1).
#[test]
fn a_new_definition_without_a_path_goes_to_the_one_file() {
    let env = TestEnv::new();
    let text = format!(
        "{}def area(r):\n    return 3.14 * r * r\n",
        filler("step", 40)
    );
    env.write("geometry.py", &text);
    let new = "```python\ndef perimeter(r):\n    return 2 * 3.14 * r\n```";
    let server = FakeOllama::start(vec![streamed(new), streamed("Done.")]);
    whole_run(&env, &server)
        .args([
            "run",
            "--yes",
            "Add perimeter(r) next to area(r) in geometry.py.",
        ])
        .assert()
        .success();
    assert_eq!(
        read(&env, "geometry.py"),
        format!("{text}\n\ndef perimeter(r):\n    return 2 * 3.14 * r\n")
    );
}

/// Blocks without a path when several files may change: nothing is
/// written, and the model is told to name the files, not that its reply
/// was empty.
#[test]
fn blocks_without_a_path_are_asked_for_their_paths() {
    let env = TestEnv::new();
    env.write("geometry.py", "def area(r):\n    return 3 * r\n");
    env.write("main.py", "from geometry import area\n\nprint(area(2))\n");
    let bare = "```python\ndef area(r):\n    return 3.14 * r * r\n```";
    let named = "geometry.py\n```python\ndef area(r):\n    return 3.14 * r * r\n```";
    let server = FakeOllama::start(vec![streamed(bare), streamed(named), streamed("Done.")]);
    let out = whole_run(&env, &server)
        .args([
            "run",
            "--yes",
            "Fix area in geometry.py (r squared) and print area(3) in main.py too.",
        ])
        .assert()
        .success();
    let asked = last_message(&server, 1);
    assert!(asked.contains("your code blocks name no file"), "{asked}");
    assert!(!asked.contains("empty"), "{asked}");
    assert!(
        stderr_of(&out).contains("name no file"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(
        read(&env, "geometry.py"),
        "def area(r):\n    return 3.14 * r * r\n"
    );
}

/// A class sent with `# ...` for the methods left as they are (seen on the
/// 1.5B model, three times in a row, each refused as leaving code out):
/// its methods go in, the placeholders are not written.
#[test]
fn placeholders_for_the_other_methods_are_no_loss() {
    let env = TestEnv::new();
    let methods: String = (0..40)
        .map(|i| format!("    def step_{i}(self, x):\n        \"\"\"Step {i}.\"\"\"\n        return x + {i}\n\n"))
        .collect();
    let text = format!(
        "class Bits:\n    \"\"\"Bits.\"\"\"\n\n{methods}    def as_hex(self):\n        return '%X' % self.val\n"
    );
    env.write("bits.py", &text);
    let reply = "```python\n# bits.py\nclass Bits:\n    # ...\n    def as_bytes(self):\n        return bytes.fromhex(self.as_hex())\n\n    # ...\n```";
    let server = FakeOllama::start(vec![streamed(reply)]);
    whole_run(&env, &server)
        .args(["run", "--yes", "Add as_bytes() to Bits, next to as_hex()."])
        .assert()
        .success();
    assert_eq!(
        read(&env, "bits.py"),
        format!("{text}\n    def as_bytes(self):\n        return bytes.fromhex(self.as_hex())\n")
    );
}

/// A definition block that leaves code out (`# ... rest unchanged`) is
/// refused, not spliced in over the code it stands for.
#[test]
fn a_definition_with_an_elision_is_refused() {
    let env = TestEnv::new();
    let text = format!(
        "{}def discount(total, percent):\n    if percent < 0:\n        raise ValueError(percent)\n    cut = total * percent / 100\n    return total - cut\n",
        filler("step", 40)
    );
    env.write("orders.py", &text);
    let lazy = "orders.py\n```python\ndef discount(total, percent):\n    # ... rest unchanged\n    return total - cut\n```";
    let server = FakeOllama::start(vec![streamed(lazy), streamed(lazy)]);
    let out = whole_run(&env, &server)
        .args(["run", "--yes", "Fix discount in orders.py: round the cut."])
        .assert()
        .code(4);
    // The refused call is named on screen by its path.
    assert!(
        stderr_of(&out).contains("● write_file orders.py"),
        "{}",
        stderr_of(&out)
    );
    let refused = last_message(&server, 1);
    assert!(
        refused.contains("leaves code out (`# ... rest unchanged`)"),
        "{refused}"
    );
    assert_eq!(read(&env, "orders.py"), text);
}

/// What a small model leaves out of a definition of a big file, or copies
/// into it, does not reach the file: the decorator it dropped stays, the
/// part's header it echoed is not written, and a changed main block (only
/// definitions are placed) is said rather than dropped, so the next reply
/// sends it as SEARCH/REPLACE.
#[test]
fn what_the_model_drops_or_echoes_stays_out_of_the_file() {
    let env = TestEnv::new();
    let text = format!(
        "import functools\n\n\n{}@functools.cache\ndef area(r):\n    return 3 * r\n\n\nif __name__ == \"__main__\":\n    print(area(2))\n",
        filler("step", 40)
    );
    env.write("geometry.py", &text);
    let reply = "geometry.py\n```python\n# geometry.py lines 201-203 (area)\ndef area(r):\n    return 3.14 * r * r\n\n\nif __name__ == \"__main__\":\n    print(area(3))\n```";
    let main = "geometry.py\n```python\n<<<<<<< SEARCH\n    print(area(2))\n=======\n    print(area(3))\n>>>>>>> REPLACE\n```";
    let server = FakeOllama::start(vec![streamed(reply), streamed(main), streamed("Done.")]);
    whole_run(&env, &server)
        .args(["run", "--yes", "Fix `area` in geometry.py: r squared."])
        .assert()
        .success();
    let said = last_message(&server, 1);
    assert!(
        said.contains("`print(area(3))` of the block for geometry.py lie outside any function or class and were not put in; the block's definitions were put in"),
        "{said}"
    );
    assert_eq!(
        read(&env, "geometry.py"),
        text.replace("return 3 * r\n", "return 3.14 * r * r\n")
            .replace("print(area(2))", "print(area(3))")
    );
}

/// A prompt that names only a short test: the definitions the test calls
/// are the parts shown of the big file it imports.
#[test]
fn the_definitions_a_short_test_calls_are_shown() {
    let env = TestEnv::new();
    let text = format!(
        "{}def area(r):\n    return 3 * r\n\n\n{}",
        filler("step", 40),
        filler("more", 40)
    );
    env.write("geometry.py", &text);
    env.write(
        "test_geometry.py",
        "from geometry import area\n\n\ndef test_area():\n    assert area(2) == 12\n",
    );
    let server = FakeOllama::start(vec![streamed("I cannot tell.")]);
    whole_run(&env, &server)
        .args([
            "run",
            "--yes",
            "test_geometry.py fails; fix the code, not the test.",
        ])
        .assert()
        .code(4);
    let first = opening(&server);
    assert!(
        first.contains("geometry.py lines 201-202 (area)"),
        "{first}"
    );
}
