//! The route of prompts: the rules, and the routing set held to its rates.

use super::*;

fn task(prompt: &str) -> Task {
    decide(Task::Auto, Mode::Code, prompt, true)
}

#[test]
fn text_products_and_questions_are_answers() {
    for prompt in [
        "write a commit message",
        "Write a commit message for this change",
        "write a short commit message for these changes\n\n<stdin>\ndiff --git a/x.py b/x.py\n</stdin>",
        "Read the file src/main.rs and tell me what it does",
        "explain utils.py",
        "What does last_n do?",
        "Review this diff for bugs",
        "Summarize the changes",
        "Does median handle empty lists?",
        "List the functions in utils.py as JSON",
        "how is the config loaded",
        "Give me a one-line summary of stats.py",
        "Draft release notes for this diff",
        "please explain why test_x fails",
        "Which file defines the function `parse_date`? Answer with the file's path.",
        "What does `fetch` in net.py return when every attempt fails? Answer in one sentence.",
        "Output the public functions of utils.py as JSON.",
        "Can you explain what foo does?",
        "Rate this code from 1 to 10",
        "Check whether foo is correct",
        "Audit foo.py for security issues",
        "Suggest improvements to foo.py",
    ] {
        assert_eq!(task(prompt), Task::Answer, "{prompt}");
    }
}

#[test]
fn changes_stay_changes() {
    for prompt in [
        "fix the tests",
        "Fix the bug in utils.py",
        "The test test_apnumber fails. Fix the code, not the tests.",
        "add a --verbose flag",
        "Why does test_x fail? Fix it.",
        "Write a function that reverses a string in rev.py",
        "Rename get_usr to get_user everywhere",
        "write a commit message to COMMIT.txt",
        "Summarize the changes into CHANGELOG.md",
        "new tokens are signed with the wrong key",
        "test_x fails",
        "Explain the bug, then fix it",
        "Create hello.py that prints hello",
        "I'd like expire() to tell me what it removed: make it return a list",
        "In config.json, change the port to 8080 and add a key \"debug\"",
        "Create a file validators.py with a function `is_email(text)`",
        "If the list is empty, return 0 instead of raising",
        "Read config.json and set the port to 8080",
        "Can you fix the typo in README?",
        "Could you add a docstring to foo?",
        "Would you please rename foo to double_all?",
        "Please can you fix mean?",
        "Add a CHANGELOG entry for 1.2",
        "Add a summary to the README",
    ] {
        assert_eq!(task(prompt), Task::Change, "{prompt}");
    }
}

/// A clause that keeps the files as they are ("do not change any file")
/// is no guess at a change.
#[test]
fn keeping_the_files_is_no_either_way_lead() {
    let prompt = "do not change any file; explain the greeting";
    assert_eq!(task(prompt), Task::Answer);
    assert_eq!(either_way_lead(prompt), None);
    assert_eq!(
        either_way_lead("show the name in uppercase").as_deref(),
        Some("show")
    );
}

#[test]
fn stdin_is_not_instruction() {
    // "fix" in the piped log does not make the question a change.
    let prompt = "what went wrong here?\n\n<stdin>\nerror: fix the config\n</stdin>";
    assert_eq!(task(prompt), Task::Answer);
}

#[test]
fn the_flag_and_the_mode_decide_first() {
    let decide = |asked, mode, prompt| decide(asked, mode, prompt, true);
    assert_eq!(decide(Task::Change, Mode::Code, "explain x"), Task::Change);
    assert_eq!(decide(Task::Answer, Mode::Code, "fix x"), Task::Answer);
    assert_eq!(decide(Task::Auto, Mode::Chat, "fix x"), Task::Answer);
    assert_eq!(decide(Task::Auto, Mode::Plan, "fix x"), Task::Answer);
    // A `task` from a config file does not make a plan a change.
    assert_eq!(decide(Task::Change, Mode::Plan, "fix x"), Task::Answer);
    let unrouted = super::decide(Task::Auto, Mode::Code, "explain x", false);
    assert_eq!(unrouted, Task::Change, "route off: a change");
}

/// The routing set (tests/routing/prompts.tsv): at most 3 % misrouted
/// each way (5 of 222 changes and 2 of 180 answers when this was
/// written; see docs/small-models.md, "Answers and changes").
#[test]
fn the_routing_set_is_routed_within_its_limits() {
    let set = include_str!("../../tests/routing/prompts.tsv");
    let mut wrong: Vec<(Task, &str)> = Vec::new();
    let (mut changes, mut answers) = (0, 0);
    for line in set
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (label, prompt) = line.split_once('\t').expect("label TAB prompt");
        let want = match label {
            "change" => Task::Change,
            "answer" => Task::Answer,
            other => panic!("unknown label `{other}`"),
        };
        match want {
            Task::Change => changes += 1,
            _ => answers += 1,
        }
        if task(prompt) != want {
            wrong.push((want, prompt));
        }
    }
    assert!(
        changes >= 75 && answers >= 75,
        "{changes} changes, {answers} answers"
    );
    let missed = |t: Task| wrong.iter().filter(|(w, _)| *w == t).count();
    assert!(
        missed(Task::Change) * 100 <= changes * 3 && missed(Task::Answer) * 100 <= answers * 3,
        "{} of {changes} changes and {} of {answers} answers misrouted: {wrong:#?}",
        missed(Task::Change),
        missed(Task::Answer)
    );
}
