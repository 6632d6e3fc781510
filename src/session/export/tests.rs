//! Tests of the export formats, filters and checks.

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn record(messages: Value, failed: &[&str]) -> FinetuneRecord {
    serde_json::from_value(json!({
        "version": 1, "session_id": "s", "created_at": "2026-11-30T01:00:00Z",
        "model": "m", "mode": "code", "system_prompt": "sys",
        "tools": [{"type": "function", "function": {"name": "read_file"}}],
        "messages": messages, "success": true, "exit_reason": "answered",
        "turns": 2, "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        "failed_tool_calls": failed,
    }))
    .unwrap()
}

fn two_parallel_calls() -> FinetuneRecord {
    record(
        json!([
            {"role": "user", "content": "read both"},
            {"role": "assistant", "content": "", "thinking": "hmm", "tool_calls": [
                {"id": "call_1", "function": {"name": "read_file", "arguments": {"path": "a"}}},
                {"id": "call_2", "function": {"name": "read_file", "arguments": {"path": "b"}}}
            ]},
            {"role": "tool", "tool_name": "read_file", "tool_call_id": "call_1", "content": "A"},
            {"role": "tool", "tool_name": "read_file", "tool_call_id": "call_2", "content": "error: nope"},
            {"role": "assistant", "content": "done"}
        ]),
        &["call_2"],
    )
}

#[test]
fn openai_has_string_arguments_and_answered_ids() {
    let options = Options {
        mask_failed_steps: true,
        ..Options::default()
    };
    let line = convert(&two_parallel_calls(), Format::Openai, &options).unwrap();
    validate(&line, Format::Openai).unwrap();
    let assistant = &line["messages"][2];
    assert_eq!(assistant["content"], Value::Null);
    assert!(assistant.get("thinking").is_none());
    assert_eq!(assistant["tool_calls"][1]["id"], "call_2");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"a\"}"
    );
    assert_eq!(assistant["weight"], 0);
    assert_eq!(line["messages"][4]["tool_call_id"], "call_2");
    assert_eq!(line["messages"][5]["weight"], 1);
}

#[test]
fn hf_has_object_arguments_and_named_tool_messages() {
    let line = convert(&two_parallel_calls(), Format::Hf, &Options::default()).unwrap();
    validate(&line, Format::Hf).unwrap();
    assert_eq!(
        line["messages"][2]["tool_calls"][0]["function"]["arguments"],
        json!({"path": "a"})
    );
    assert_eq!(line["messages"][3]["name"], "read_file");
    let options = Options {
        arguments_as_string: true,
        ..Options::default()
    };
    let line = convert(&two_parallel_calls(), Format::Hf, &options).unwrap();
    assert_eq!(
        line["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"a\"}"
    );
}

#[test]
fn sharegpt_alternates() {
    let line = convert(&two_parallel_calls(), Format::Sharegpt, &Options::default()).unwrap();
    validate(&line, Format::Sharegpt).unwrap();
    let froms: Vec<&str> = line["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["from"].as_str().unwrap())
        .collect();
    assert_eq!(froms, ["human", "function_call", "observation", "gpt"]);
    assert_eq!(line["conversations"][2]["value"], "[\"A\",\"error: nope\"]");
    assert!(line["tools"].is_string());
}

#[test]
fn unanswered_calls_and_truncated_lines_are_skipped_with_line_numbers() {
    let good = serde_json::to_string(&two_parallel_calls()).unwrap();
    let unanswered = serde_json::to_string(&record(
        json!([
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_9", "function": {"name": "read_file", "arguments": {}}}
            ]}
        ]),
        &[],
    ))
    .unwrap();
    let input = format!("{good}\n{unanswered}\n{}", &good[..good.len() / 2]);
    // A line cut inside a multi-byte character is malformed, not fatal.
    let mut bytes = format!("{good}\n").into_bytes();
    bytes.extend_from_slice(b"{\"version\": 1, \"x\": \"\xe2\x82");
    let summary = export(
        bytes.as_slice(),
        Vec::new(),
        Format::Hf,
        &Options::default(),
    )
    .unwrap();
    assert_eq!((summary.read, summary.written), (2, 1));
    let mut out = Vec::new();
    let summary = export(
        input.as_bytes(),
        &mut out,
        Format::Openai,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(summary.read, 3);
    assert_eq!(summary.written, 1);
    let text = summary.describe();
    assert!(
        text.contains("malformed") && text.contains("line 3"),
        "{text}"
    );
    assert!(
        text.contains("invalid for this format") && text.contains("line 2"),
        "{text}"
    );
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    let err = export(input.as_bytes(), Vec::new(), Format::Openai, &strict).unwrap_err();
    assert!(err.starts_with("line 2"), "{err}");
}

#[test]
fn filters_and_dedupe() {
    let good = serde_json::to_string(&two_parallel_calls()).unwrap();
    let input = format!("{good}\n{good}\n");
    let options = Options {
        dedupe: true,
        ..Options::default()
    };
    let summary = export(input.as_bytes(), Vec::new(), Format::Hf, &options).unwrap();
    assert_eq!(summary.written, 1);
    for options in [
        Options {
            model: Some("other".into()),
            ..Options::default()
        },
        Options {
            mode: Some("plan".into()),
            ..Options::default()
        },
        Options {
            since: Some("2026-12-01".into()),
            ..Options::default()
        },
        Options {
            min_turns: Some(3),
            ..Options::default()
        },
    ] {
        let summary = export(input.as_bytes(), Vec::new(), Format::Hf, &options).unwrap();
        assert_eq!(summary.written, 0, "{options:?}");
    }
    let options = Options {
        since: Some("2026-11-30".into()),
        ..Options::default()
    };
    assert_eq!(
        export(input.as_bytes(), Vec::new(), Format::Hf, &options)
            .unwrap()
            .written,
        2
    );
    let options = Options {
        since: Some("yesterday".into()),
        ..Options::default()
    };
    assert!(export(input.as_bytes(), Vec::new(), Format::Hf, &options).is_err());
}

/// A record of the whole-file format: the replies as written, results as
/// user messages, a step per reply; the second reply's block was refused.
fn whole_file_run() -> FinetuneRecord {
    serde_json::from_value(json!({
        "version": 2, "session_id": "s2", "created_at": "2026-12-01T01:00:00Z",
        "model": "qwen2.5-coder:1.5b", "mode": "code", "system_prompt": "To change a file, write its path, then a fenced block.",
        "tools": [],
        "messages": [
            {"role": "user", "content": "Fix a.py"},
            {"role": "assistant", "content": "b.py\n```python\nx = 2\n```", "thinking": "b first"},
            {"role": "user", "content": "Results:\nb.py: error: b.py was not shown to you"},
            {"role": "assistant", "content": "a.py\n```python\nx = 1\n```"},
            {"role": "user", "content": "Results:\na.py: changed"}
        ],
        "steps": [
            {"ok": false, "notes": ["write_file: error: b.py was not shown to you"],
             "usage": {"prompt_tokens": 300, "completion_tokens": 20}},
            {"ok": true, "usage": {"prompt_tokens": 340, "completion_tokens": 18}}
        ],
        "success": true, "exit_reason": "answered", "exit_code": 0,
        "turns": 2, "usage": {"prompt_tokens": 640, "completion_tokens": 38},
        "check": {"command": "pytest -q", "exit_code": 0, "passed": true, "attempts": 1}
    }))
    .unwrap()
}

/// Every format masks the failed reply its own way, ends with the last
/// reply, and keeps the thinking apart from the answer (or out).
#[test]
fn failed_steps_are_masked_and_reasoning_is_apart() {
    let record = whole_file_run();
    let mask = Options {
        mask_failed_steps: true,
        ..Options::default()
    };
    let line = convert(&record, Format::Openai, &mask).unwrap();
    validate(&line, Format::Openai).unwrap();
    let messages = line["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5, "the last results teach nothing");
    assert_eq!(messages[2]["weight"], 0);
    assert_eq!(messages[4]["weight"], 1);
    assert_eq!(messages[4]["content"], "a.py\n```python\nx = 1\n```");
    assert!(line.get("tools").is_none() && line.get("parallel_tool_calls").is_none());
    assert!(messages[2].get("reasoning_content").is_none());

    let line = convert(&record, Format::Hf, &mask).unwrap();
    validate(&line, Format::Hf).unwrap();
    assert_eq!(line["messages"][2]["train"], false);
    assert_eq!(line["messages"][2]["reasoning_content"], "b first");
    assert_eq!(
        line["messages"][2]["content"],
        "b.py\n```python\nx = 2\n```"
    );
    assert_eq!(line["messages"][4]["train"], true);
    let unmasked = convert(&record, Format::Hf, &Options::default()).unwrap();
    assert!(unmasked["messages"][2].get("train").is_none());

    // ShareGPT has no mask: the conversation ends before the failed reply,
    // and a record with nothing left is skipped.
    let line = convert(&record, Format::Sharegpt, &mask).unwrap();
    assert!(validate(&line, Format::Sharegpt).is_err(), "{line}");
    let input = serde_json::to_string(&record).unwrap();
    let summary = export(input.as_bytes(), Vec::new(), Format::Sharegpt, &mask).unwrap();
    assert_eq!(summary.written, 0);
    let line = convert(&record, Format::Sharegpt, &Options::default()).unwrap();
    validate(&line, Format::Sharegpt).unwrap();
    assert_eq!(line["conversations"].as_array().unwrap().len(), 4);

    // Every reply failed: nothing to learn from.
    let mut failed = record.clone();
    failed.steps[1].ok = false;
    let input = serde_json::to_string(&failed).unwrap();
    let summary = export(input.as_bytes(), Vec::new(), Format::Openai, &mask).unwrap();
    assert_eq!(summary.written, 0);
    assert!(
        summary
            .describe()
            .contains("no reply of the model's to learn from"),
        "{}",
        summary.describe()
    );
}

#[test]
fn atif_holds_steps_calls_observations_and_the_outcome() {
    let line = convert(&two_parallel_calls(), Format::Atif, &Options::default()).unwrap();
    validate(&line, Format::Atif).unwrap();
    assert_eq!(line["schema_version"], "ATIF-v1.7");
    assert_eq!(line["agent"]["name"], "oc");
    assert_eq!(
        line["agent"]["tool_definitions"][0]["function"]["name"],
        "read_file"
    );
    let steps = line["steps"].as_array().unwrap();
    let sources: Vec<&str> = steps
        .iter()
        .map(|s| s["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["system", "user", "agent", "agent"]);
    let reply = &steps[2];
    assert_eq!(reply["reasoning_content"], "hmm");
    assert_eq!(reply["tool_calls"][1]["arguments"], json!({"path": "b"}));
    assert_eq!(
        reply["observation"]["results"][1]["source_call_id"],
        "call_2"
    );
    assert_eq!(reply["extra"]["ok"], false, "a call failed");
    assert_eq!(steps[3]["extra"]["ok"], true);

    let mask = Options {
        mask_failed_steps: true,
        ..Options::default()
    };
    let line = convert(&whole_file_run(), Format::Atif, &mask).unwrap();
    validate(&line, Format::Atif).unwrap();
    let steps = line["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6, "the last results are kept: {line}");
    assert_eq!(steps[2]["extra"]["train"], false);
    assert_eq!(
        steps[2]["extra"]["notes"][0],
        "write_file: error: b.py was not shown to you"
    );
    assert_eq!(steps[2]["metrics"]["prompt_tokens"], 300);
    assert!(steps[4]["extra"].get("train").is_none());
    assert_eq!(line["extra"]["check"]["passed"], true);
    assert_eq!(line["final_metrics"]["total_steps"], 6);
    // What the checks refuse.
    let mut bad = line.clone();
    bad["steps"][1]["step_id"] = json!(7);
    assert!(validate(&bad, Format::Atif).is_err());
    let mut bad = line.clone();
    bad["steps"][1]["reasoning_content"] = json!("x");
    assert!(validate(&bad, Format::Atif).is_err());
}

/// A tools run whose first reply is `oc`'s read of the named file: never
/// learned from, mask or not; in ShareGPT its result is context of the
/// human turn.
#[test]
fn reads_oc_made_are_never_learned_from() {
    let record: FinetuneRecord = serde_json::from_value(json!({
        "version": 2, "session_id": "s3", "created_at": "2026-12-01T01:00:00Z",
        "model": "m", "mode": "code", "system_prompt": "sys",
        "tools": [{"type": "function", "function": {"name": "read_file"}}],
        "messages": [
            {"role": "user", "content": "Fix a.py"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_g0_0", "function": {"name": "read_file", "arguments": {"path": "a.py"}}}]},
            {"role": "tool", "tool_name": "read_file", "tool_call_id": "call_g0_0", "content": "x = 1"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_1_0", "function": {"name": "edit_file", "arguments": "{\"path\": \"a.py\"}"}}]},
            {"role": "tool", "tool_name": "edit_file", "tool_call_id": "call_1_0", "content": "updated a.py"},
            {"role": "assistant", "content": "Fixed."}
        ],
        "steps": [{"ok": true, "synthetic": true}, {"ok": true}, {"ok": true}],
        "success": true, "exit_reason": "answered", "turns": 2,
        "usage": {"prompt_tokens": 1, "completion_tokens": 1}
    }))
    .unwrap();
    for mask in [true, false] {
        let options = Options {
            mask_failed_steps: mask,
            ..Options::default()
        };
        let line = convert(&record, Format::Openai, &options).unwrap();
        validate(&line, Format::Openai).unwrap();
        assert_eq!(line["messages"][2]["weight"], 0, "mask {mask}");
        // Arguments held as a JSON string are the object they hold.
        assert_eq!(
            line["messages"][4]["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"a.py\"}"
        );
        let line = convert(&record, Format::Hf, &options).unwrap();
        assert_eq!(line["messages"][2]["train"], false, "mask {mask}");
        let line = convert(&record, Format::Atif, &options).unwrap();
        validate(&line, Format::Atif).unwrap();
        assert_eq!(line["steps"][2]["extra"]["train"], false);
        assert_eq!(line["steps"][2]["extra"]["synthetic"], true);
        let line = convert(&record, Format::Sharegpt, &options).unwrap();
        validate(&line, Format::Sharegpt).unwrap();
        let froms: Vec<&str> = (line["conversations"].as_array().unwrap().iter())
            .map(|t| t["from"].as_str().unwrap())
            .collect();
        assert_eq!(froms, ["human", "function_call", "observation", "gpt"]);
        assert_eq!(line["conversations"][0]["value"], "Fix a.py\n\nx = 1");
    }
}

/// Records that do not hold together are named for what they are.
#[test]
fn broken_records_are_skipped_for_what_they_are() {
    let good = serde_json::to_string(&whole_file_run()).unwrap();
    let mut short = whole_file_run();
    short.steps.pop();
    let short = serde_json::to_string(&short).unwrap();
    let newer = good.replacen("\"version\":2", "\"version\":3", 1);
    let wrong_type = good.replacen("\"success\":true", "\"success\":\"true\"", 1);
    let input = format!("\u{feff}{good}\n{short}\n{newer}\n{wrong_type}\n");
    let summary = export(
        input.as_bytes(),
        Vec::new(),
        Format::Hf,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(summary.written, 1, "the BOM is no part of the first record");
    let text = summary.describe();
    for why in [
        "its steps do not match its replies (one step per assistant message) (line 2)",
        "a record of a newer layout (version 3; this oc reads up to 2): update oc (line 3)",
        "not a fine-tuning record (a field is missing or of the wrong type) (line 4)",
    ] {
        assert!(text.contains(why), "{text}");
    }
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    let err = export(short.as_bytes(), Vec::new(), Format::Hf, &strict).unwrap_err();
    assert!(err.contains("2 steps") || err.contains("1 steps"), "{err}");
    // A time that does not parse is not after `--since`.
    let garbage = good.replacen("2026-12-01T01:00:00Z", "garbage", 1);
    let since = Options {
        since: Some("2020-01-01".into()),
        ..Options::default()
    };
    let summary = export(garbage.as_bytes(), Vec::new(), Format::Hf, &since).unwrap();
    assert_eq!(summary.written, 0);
    assert!(
        summary.describe().contains("not a time"),
        "{}",
        summary.describe()
    );
}
