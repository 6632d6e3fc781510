//! Tests of session saves, titles and the success rule.

use super::*;
use crate::client::{Message, Role};
use crate::session::record::{WORKSPACE_PLACEHOLDER, succeeded};
use crate::vocab::Mode;
use file::title_of;
use std::path::Path;

#[test]
fn save_is_atomic_and_round_trips() {
    let home = tempfile::tempdir().unwrap();
    let store = Store::new(home.path());
    let mut session = Session::new(
        Mode::Code,
        "m",
        "http://h:1",
        home.path(),
        "fix it\nplease",
        4096,
    );
    session.messages.push(Message::text(Role::System, "sys"));
    session.messages.push(Message::text(Role::User, "fix it"));
    store.save(&mut session).unwrap();
    let text = std::fs::read_to_string(store.session_path(&session.id)).unwrap();
    let back: Session = serde_json::from_str(&text).unwrap();
    assert_eq!(back, session);
    assert_eq!(back.title, "fix it");
    let leftovers: Vec<_> = std::fs::read_dir(home.path().join("sessions"))
        .unwrap()
        .collect();
    assert_eq!(leftovers.len(), 1, "no temp files left behind");

    session.status = Status::Finished;
    session.exit_code = Some(0);
    session
        .messages
        .push(Message::text(Role::Assistant, "Fixed."));
    session.messages.push(Message::text(
        Role::User,
        format!("Results:\nchanged {}/a.py", home.path().display()),
    ));
    let trajectory = Trajectory {
        messages: session.messages.clone(),
        steps: vec![Step::default()],
    };
    let tools = [serde_json::json!({"type": "function"})];
    let record = FinetuneRecord::from_session(&session, &tools, trajectory);
    assert_eq!(record.system_prompt, "sys");
    assert_eq!(record.messages.len(), 3);
    assert_eq!(record.steps, [Step::default()]);
    // The machine's working directory is not in the record: not in text,
    // thinking, arguments or notes.
    assert_eq!(
        record.messages[2].content,
        "Results:\nchanged /workspace/a.py"
    );
    let cwd = home.path().display().to_string();
    let mut reply = Message::text(Role::Assistant, "");
    reply.thinking = Some(format!("look in {cwd}"));
    reply.tool_calls = vec![crate::client::ToolCall::new(
        "bash",
        serde_json::json!({"command": format!("ls {cwd}/x"), "list": [cwd.clone()]}),
    )];
    let trajectory = Trajectory {
        messages: vec![reply],
        steps: vec![Step {
            ok: false,
            notes: vec![format!("bash: ls: {cwd}/x: missing")],
            ..Step::default()
        }],
    }
    .with_path_as(&cwd, WORKSPACE_PLACEHOLDER);
    let text =
        serde_json::to_string(&trajectory.messages).unwrap() + &trajectory.steps[0].notes.join("");
    assert!(!text.contains(&cwd), "{text}");
    assert_eq!(text.matches("/workspace").count(), 4, "{text}");
    assert!(record.success);
    store.append_finetune(&record).unwrap();
    store.append_finetune(&record).unwrap();
    let lines = std::fs::read_to_string(store.finetune_path()).unwrap();
    assert_eq!(lines.lines().count(), 2);
    for line in lines.lines() {
        let parsed: FinetuneRecord = serde_json::from_str(line).unwrap();
        assert_eq!(parsed.session_id, session.id);
    }
}

#[test]
fn long_titles_are_shortened() {
    assert_eq!(title_of(&"x".repeat(100)).chars().count(), 81);
    assert_eq!(title_of("\n\n  hello  \nworld"), "hello");
}

/// A record is a success only when the run ended well and no failure
/// signal stands.
#[test]
fn success_needs_exit_zero_an_answer_and_a_passing_check() {
    let mut session = Session::new(Mode::Code, "m", "h", Path::new("/w"), "p", 8192);
    session.status = Status::Finished;
    session.exit_code = Some(0);
    session
        .messages
        .push(Message::text(Role::Assistant, "Done."));
    assert!(succeeded(&session));
    session.exit_code = Some(5);
    assert!(!succeeded(&session), "actions denied for want of approval");
    session.exit_code = Some(0);
    session
        .messages
        .push(Message::text(Role::Assistant, "```\n```"));
    assert!(!succeeded(&session), "a final answer that is only markup");
    session
        .messages
        .push(Message::text(Role::Assistant, "Done."));
    session.unexecuted_call = true;
    assert!(!succeeded(&session));
    session.unexecuted_call = false;
    session.check = Some(Check {
        command: "t".into(),
        exit_code: Some(1),
        passed: false,
        attempts: 1,
        failing: None,
        passed_tests: None,
    });
    assert!(!succeeded(&session));
}
