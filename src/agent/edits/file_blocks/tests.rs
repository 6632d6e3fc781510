//! The whole-file and diff formats: openings, replies read into calls, the
//! wire form, and the switches of their recovery paths.

use super::*;
use pretty_assertions::assert_eq;

fn shown(path: &str, role: FileRole, text: Option<&str>) -> ShownFile {
    ShownFile::whole(path, role, text.map(str::to_string))
}

#[test]
fn the_opening_shows_files_task_and_scope() {
    let dir = tempfile::tempdir().unwrap();
    let mut blocks = FileBlocks::new(false, dir.path());
    let text = blocks.opening(
        "Fix last_n.",
        &[
            shown("utils.py", FileRole::Editable, Some("x = 1\n")),
            shown("test_utils.py", FileRole::ReadOnly, Some("import utils")),
            shown("new.py", FileRole::New, None),
        ],
        "",
    );
    assert_eq!(
        text,
        "utils.py\n```python\nx = 1\n```\n\ntest_utils.py (for reference, do not change)\n```python\nimport utils\n```\n\nTask: Fix last_n.\n\nYou may change: utils.py, new.py. Create: new.py. Reply with the complete new content of each file you change."
    );
    assert_eq!(blocks.scope.read_only, ["test_utils.py"]);
}

/// Looking around switched off (`OC_DISABLE=look-around`): a `READ` line
/// is prose, not a request.
#[test]
fn switched_off_look_around_reads_no_request() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n";
    std::fs::create_dir(dir.path().join(".docs")).unwrap();
    std::fs::write(dir.path().join(".docs/a.py"), text).unwrap();
    let reply_to = |off: Heuristic, written: &str| {
        let heuristics = Heuristics::ALL_ON.without(off);
        let mut blocks = FileBlocks::new(false, dir.path()).with_heuristics(heuristics);
        let shown = shown(".docs/a.py", FileRole::Editable, Some(text));
        blocks.opening("t", &[shown], "");
        let mut reply = Message::text(Role::Assistant, written);
        let verdicts = blocks.read_reply(&mut reply, 1);
        (reply, verdicts)
    };
    let (reply, verdicts) = reply_to(Heuristic::Route, "READ .docs/a.py");
    assert_eq!(verdicts.len(), 1, "on: a request");
    assert_eq!(reply.tool_calls[0].function.name, "read_file");
    let (reply, verdicts) = reply_to(Heuristic::LookAround, "READ .docs/a.py");
    assert!(verdicts.is_empty() && reply.tool_calls.is_empty());
}

#[test]
fn replies_become_calls_and_go_back_as_blocks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("utils.py"), "x = 1\n").unwrap();
    let mut blocks = FileBlocks::new(false, dir.path());
    blocks.opening(
        "t",
        &[shown("utils.py", FileRole::Editable, Some("x = 1\n"))],
        "",
    );
    let written = "Fixed.\n\nutils.py\n```python\nx = 2\n```";
    let mut reply = Message::text(Role::Assistant, written);
    let parsed = blocks.read_reply(&mut reply, 2);
    assert_eq!(parsed.len(), 1);
    assert_eq!(reply.content, "Fixed.");
    assert_eq!(reply.tool_calls[0].id.as_deref(), Some("call_2_0"));
    let conversation = vec![
        Message::text(Role::User, "task"),
        reply,
        Message::tool_result(
            "write_file",
            "call_2_0",
            "updated utils.py (+1 -1)\n@@ -1 +1 @@",
        ),
        Message::text(Role::User, "The check failed."),
    ];
    let wire = blocks.wire(&conversation);
    assert_eq!(wire.len(), 3);
    assert_eq!(wire[1].content, written);
    assert!(wire[1].tool_calls.is_empty());
    assert_eq!(
        wire[2].content,
        "Results:\n- updated utils.py (+1 -1)\n\nThe check failed."
    );
}

/// In an answer, a read of a file shown whole is refused while the
/// file is as shown (by any spelling of its path), and run once it
/// changed or for a file shown in no way.
#[test]
fn an_answer_reads_no_file_it_was_shown_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    std::fs::write(dir.path().join("b.py"), "y = 1\n").unwrap();
    let mut blocks = FileBlocks::new(false, dir.path()).answering();
    blocks.opening(
        "what is x?",
        &[shown("a.py", FileRole::ReadOnly, Some("x = 1\n"))],
        "",
    );
    let absolute = dir.path().join("a.py");
    // A sibling folder whose name starts with the root's is outside.
    let sibling = format!("{}x/a.py", dir.path().display());
    let reply = format!(
        "READ ./a.py\nREAD {}\nREAD b.py\nREAD {sibling}",
        absolute.display()
    );
    let mut message = Message::text(Role::Assistant, &reply);
    let verdicts: Vec<_> = blocks.read_reply(&mut message, 2);
    let refused = |n: usize| verdicts[n].0.as_ref().err().cloned().unwrap_or_default();
    assert!(refused(0).contains("a.py is shown above, whole and unchanged"));
    assert!(refused(1).contains("a.py is shown above"));
    assert!(verdicts[2].0.is_ok());
    assert!(!refused(3).contains("shown above"), "{}", refused(3));
    std::fs::write(dir.path().join("a.py"), "x = 2\n").unwrap();
    let mut message = Message::text(Role::Assistant, "READ a.py");
    assert!(blocks.read_reply(&mut message, 3)[0].0.is_ok());
}
