//! Scenario folders (`fixtures/scenarios/<name>/`): `input/` is copied into a
//! fresh workspace, the fake model makes the calls in `calls.json` turn by
//! turn, then the workspace must equal `expected/` byte for byte and each
//! tool result must contain its `result_contains` strings. `task` (optional,
//! `change` by default) is the run's `--task`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::{FakeOllama, Reply, TestEnv, tool_messages};

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios")
}

/// Every file under `root` (`.git` aside) with its bytes, by relative path.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn run_scenario(dir: &Path) {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let calls: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("calls.json")).unwrap()).unwrap();
    let env = TestEnv::new();
    for (rel, bytes) in tree(&dir.join("input")) {
        let path = env.work().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let turns = calls["turns"].as_array().unwrap();
    let mut replies: Vec<Reply> = turns
        .iter()
        .map(|turn| {
            let calls: Vec<(&str, Value)> = turn
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["name"].as_str().unwrap(), c["arguments"].clone()))
                .collect();
            Reply::tool_calls(&calls)
        })
        .collect();
    replies.push(Reply::answer(calls["answer"].as_str().unwrap()));
    let server = FakeOllama::start(replies);
    // A scenario that only reads is a question (`"task": "answer"`): a
    // change run that changes nothing has not done its task.
    let task = calls["task"].as_str().unwrap_or("change");
    env.oc(&server)
        .args(["run", "--yes", "--task", task, &format!("scenario {name}")])
        .assert()
        .success();

    let requests = server.chat_requests();
    for (i, turn) in turns.iter().enumerate() {
        let results = tool_messages(&requests[i + 1]);
        let turn = turn.as_array().unwrap();
        let this_turn = &results[results.len() - turn.len()..];
        for (call, result) in turn.iter().zip(this_turn) {
            let content = result["content"].as_str().unwrap();
            for want in call["result_contains"].as_array().unwrap() {
                let want = want.as_str().unwrap();
                assert!(
                    content.contains(want),
                    "{name}, turn {}: result of {} lacks {want:?}:\n{content}",
                    i + 1,
                    call["name"]
                );
            }
        }
    }
    let got = tree(env.work());
    let want = tree(&dir.join("expected"));
    let show = |t: &BTreeMap<String, Vec<u8>>| -> BTreeMap<String, String> {
        t.iter()
            .map(|(k, v)| (k.clone(), String::from_utf8_lossy(v).into_owned()))
            .collect()
    };
    assert_eq!(
        show(&got),
        show(&want),
        "{name}: workspace differs from expected/"
    );
    assert_eq!(got, want, "{name}: bytes differ from expected/");
}

#[test]
fn every_scenario_folder() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "scenario folders are missing");
    for dir in dirs {
        run_scenario(&dir);
    }
}
