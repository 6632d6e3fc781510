//! ATIF, the Agent Trajectory Interchange Format of Harbor (read by
//! Terminal-Bench, NeMo Gym and others): one trajectory per record, its
//! steps as the model saw and wrote them. Written as `ATIF-v1.7` (every
//! field used is in it; readers pinned to v1.7 accept it) and checked
//! in CI with the models of the `atif` package.
//!
//! - `agent`: `oc`, its version, the model, `tool_definitions` (the schemas
//!   offered, when any).
//! - `steps`: the system prompt, then a `user` step per user message and
//!   an `agent` step per reply: its text as written, `reasoning_content`
//!   (the model's thinking, never folded into the text), `tool_calls`
//!   (ids, object arguments), the results as an `observation` whose
//!   entries name their call, `metrics` (the request's and the reply's
//!   tokens), and `extra`: `{"ok", "notes"}` (see `Step`), and with the
//!   mask `"train": false` on a failed reply.
//! - `final_metrics`: the run's tokens and steps; `extra`: the run's
//!   outcome (`success`, `exit_code`, `exit_reason`, `check`, `mode`).

use serde_json::{Map, Value, json};

use super::steps::{Replies, arguments};
use crate::client::{Message, Role};
use crate::images::ImageStore;
use crate::session::record::FinetuneRecord;

/// The schema version written.
pub(super) const SCHEMA_VERSION: &str = "ATIF-v1.7";

/// The record as one ATIF trajectory. Images go in as `image` content
/// parts naming their files in `images`.
///
/// Errors: the record has images and `images` is `None`, or one is missing.
pub(super) fn atif(
    record: &FinetuneRecord,
    mask: bool,
    images: Option<&ImageStore>,
) -> Result<Value, String> {
    let replies = Replies::of(record, mask);
    let mut steps = vec![json!({"source": "system", "message": record.system_prompt})];
    let mut reply = 0;
    let messages = &record.messages;
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        i += 1;
        match m.role {
            Role::System | Role::User => steps.push(json!({
                "source": "user",
                "message": message_of(m, images)?,
            })),
            // A result with no reply before it (none is expected).
            Role::Tool => steps.push(json!({"source": "system", "message": m.content})),
            Role::Assistant => {
                let mut step = agent_step(record, m, reply, &replies);
                if replies.marked(reply) && !replies.learned(reply) {
                    step["extra"]["train"] = json!(false);
                }
                let mut results = Vec::new();
                while let Some(next) = messages.get(i).filter(|n| n.role == Role::Tool) {
                    results.push(result(next));
                    i += 1;
                }
                if !results.is_empty() {
                    step["observation"] = json!({"results": results});
                }
                steps.push(step);
                reply += 1;
            }
        }
    }
    for (n, step) in steps.iter_mut().enumerate() {
        step["step_id"] = json!(n + 1);
    }
    Ok(json!({
        "schema_version": SCHEMA_VERSION,
        "session_id": record.session_id,
        "agent": agent(record),
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": record.usage.prompt_tokens,
            "total_completion_tokens": record.usage.completion_tokens,
            "total_steps": steps.len(),
        },
        "extra": outcome(record),
    }))
}

fn agent(record: &FinetuneRecord) -> Value {
    let mut agent = json!({
        "name": "oc",
        "version": env!("CARGO_PKG_VERSION"),
        "model_name": record.model,
    });
    if !record.tools.is_empty() {
        agent["tool_definitions"] = json!(record.tools);
    }
    agent
}

/// The agent step of reply number `n`, message `m`.
fn agent_step(record: &FinetuneRecord, m: &Message, n: usize, replies: &Replies) -> Value {
    let mut step = json!({
        "source": "agent",
        "model_name": record.model,
        "message": m.content,
    });
    if let Some(thinking) = m.thinking.as_ref().filter(|t| !t.is_empty()) {
        step["reasoning_content"] = json!(thinking);
    }
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = (m.tool_calls.iter())
            .map(|c| {
                json!({
                    "tool_call_id": c.id.clone().unwrap_or_default(),
                    "function_name": c.function.name,
                    "arguments": arguments(&c.function.arguments),
                })
            })
            .collect();
        step["tool_calls"] = json!(calls);
    }
    let mut extra = Map::new();
    match record.steps.get(n) {
        Some(s) => {
            extra.insert("ok".into(), json!(s.ok));
            if s.synthetic {
                extra.insert("synthetic".into(), json!(true));
            }
            if !s.notes.is_empty() {
                extra.insert("notes".into(), json!(s.notes));
            }
            if let Some(usage) = s.usage {
                step["metrics"] = json!({
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                });
            }
        }
        None => {
            extra.insert(
                "ok".into(),
                json!(replies.ok.get(n).copied().unwrap_or(true)),
            );
        }
    }
    step["extra"] = Value::Object(extra);
    step
}

/// One observation result: the call it answers and its text.
fn result(m: &Message) -> Value {
    json!({"source_call_id": m.tool_call_id, "content": m.content})
}

/// A user step's message: its text, or text and image parts.
fn message_of(m: &Message, images: Option<&ImageStore>) -> Result<Value, String> {
    if m.images.is_empty() {
        return Ok(json!(m.content));
    }
    let store = images.ok_or("its images: no image folder given")?;
    let mut parts = vec![json!({"type": "text", "text": m.content})];
    for name in &m.images {
        let path = store.path(name).map_err(|e| e.to_string())?;
        if !path.is_file() {
            return Err(format!("the image `{}` is missing", path.display()));
        }
        parts.push(json!({
            "type": "image",
            "source": {"media_type": ImageStore::media_type(name), "path": path.display().to_string()},
        }));
    }
    Ok(json!(parts))
}

/// The run's outcome, for the trajectory's `extra`.
fn outcome(record: &FinetuneRecord) -> Value {
    let mut extra = json!({
        "success": record.success,
        "exit_reason": record.exit_reason,
        "mode": record.mode.as_str(),
        "record_version": record.version,
    });
    if let Some(code) = record.exit_code {
        extra["exit_code"] = json!(code);
    }
    if !record.exit_detail.is_empty() {
        extra["exit_detail"] = json!(record.exit_detail);
    }
    if let Some(check) = &record.check {
        extra["check"] = json!({
            "command": check.command,
            "passed": check.passed,
            "exit_code": check.exit_code,
            "attempts": check.attempts,
        });
    }
    if let Some(attempt) = &record.attempt {
        extra["attempt"] = json!({
            "run_id": attempt.run_id,
            "number": attempt.number,
            "of": attempt.of,
        });
    }
    extra
}

/// Checks a trajectory against the rules of ATIF's models: step ids
/// 1, 2, 3…; sources `system`, `user` or `agent`; reasoning, calls and
/// metrics only on agent steps; object arguments; every observation entry
/// naming a call of its step.
pub(super) fn validate(line: &Value) -> Result<(), String> {
    for field in ["schema_version", "session_id"] {
        if !line[field].is_string() {
            return Err(format!("no `{field}`"));
        }
    }
    if !line["agent"]["name"].is_string() || !line["agent"]["version"].is_string() {
        return Err("the agent has no name or version".into());
    }
    let steps = line["steps"].as_array().ok_or("no `steps` list")?;
    for (n, step) in steps.iter().enumerate() {
        if step["step_id"] != json!(n + 1) {
            return Err(format!("step {} is not numbered {}", n + 1, n + 1));
        }
        let source = step["source"].as_str().unwrap_or_default();
        if !["system", "user", "agent"].contains(&source) {
            return Err(format!("step {}: unknown source `{source}`", n + 1));
        }
        if step["message"].is_null() {
            return Err(format!("step {}: no message", n + 1));
        }
        let agent_only = ["model_name", "reasoning_content", "tool_calls", "metrics"];
        if source != "agent" && agent_only.iter().any(|f| !step[f].is_null()) {
            return Err(format!("step {}: agent fields on a {source} step", n + 1));
        }
        let calls = step["tool_calls"].as_array().cloned().unwrap_or_default();
        if calls.iter().any(|c| !c["arguments"].is_object()) {
            return Err(format!("step {}: arguments that are not an object", n + 1));
        }
        for r in step["observation"]["results"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let named = &r["source_call_id"];
            if !named.is_null() && !calls.iter().any(|c| &c["tool_call_id"] == named) {
                return Err(format!(
                    "step {}: an observation of {named}, which is no call of the step",
                    n + 1
                ));
            }
        }
    }
    Ok(())
}
