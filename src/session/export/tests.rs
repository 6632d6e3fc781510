//! Tests of the export formats, filters and checks.

use super::*;
use pretty_assertions::assert_eq;

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
        weight_failed_turns: true,
        ..Options::default()
    };
    let line = convert(&two_parallel_calls(), Format::Openai, &options);
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
    let line = convert(&two_parallel_calls(), Format::Hf, &Options::default());
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
    let line = convert(&two_parallel_calls(), Format::Hf, &options);
    assert_eq!(
        line["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"a\"}"
    );
}

#[test]
fn sharegpt_alternates() {
    let line = convert(&two_parallel_calls(), Format::Sharegpt, &Options::default());
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
