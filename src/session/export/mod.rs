//! `oc export-ft`: fine-tuning records (`OC_HOME/finetune.jsonl`) turned into
//! the JSONL layouts trainers take, one record at a time (memory does not
//! grow with the file), every line checked before it is written.
//!
//! - `openai`: chat fine-tuning, `{"messages", "tools"}`; assistant tool
//!   calls `{"id", "type": "function", "function": {"name", "arguments":
//!   "<JSON string>"}}`, tool messages with `tool_call_id`, thinking dropped,
//!   optional `weight: 0` on assistant turns whose calls failed.
//! - `hf`: the `messages` + `tools` layout of Hugging Face chat templates and
//!   TRL's SFT trainer: arguments as objects (or strings), tool messages with
//!   `name`.
//! - `sharegpt`: `conversations` of `human` / `gpt` / `function_call` /
//!   `observation` entries, plus `system` and `tools` (a JSON string), as
//!   LLaMA-Factory reads it.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, Write};

use serde_json::{Value, json};

use super::FinetuneRecord;
use super::export_images::{Layout, attach};
use crate::client::{Message, Role};
use crate::images::ImageStore;

/// The layout written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Openai,
    Hf,
    Sharegpt,
}

impl Format {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Openai => "openai",
            Format::Hf => "hf",
            Format::Sharegpt => "sharegpt",
        }
    }
}

/// Which records are written and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub success_only: bool,
    pub model: Option<String>,
    pub mode: Option<String>,
    /// RFC 3339 time or `YYYY-MM-DD`; records created before it are skipped.
    pub since: Option<String>,
    pub min_turns: Option<u32>,
    pub dedupe: bool,
    /// A malformed or invalid record is an error instead of a skip.
    pub strict: bool,
    /// `openai`: `weight: 0` on assistant turns whose tool calls failed.
    pub weight_failed_turns: bool,
    /// `hf`: tool-call arguments as JSON strings.
    pub arguments_as_string: bool,
    /// Where the records' images are (the `OC_HOME` of the input); records
    /// with images are skipped without it.
    pub images: Option<ImageStore>,
}

/// What an export did: counts, and why records were skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub read: usize,
    pub written: usize,
    /// `(reason, line numbers)`, in the order first seen.
    pub skipped: Vec<(String, Vec<usize>)>,
}

impl Summary {
    fn skip(&mut self, reason: impl Into<String>, line: usize) {
        let reason = reason.into();
        match self.skipped.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, lines)) => lines.push(line),
            None => self.skipped.push((reason, vec![line])),
        }
    }

    /// One paragraph for stderr.
    pub fn describe(&self) -> String {
        let skipped: usize = self.skipped.iter().map(|(_, l)| l.len()).sum();
        let mut text = format!(
            "read {} record{}, wrote {}, skipped {skipped}",
            self.read,
            if self.read == 1 { "" } else { "s" },
            self.written
        );
        for (reason, lines) in &self.skipped {
            let shown: Vec<String> = lines.iter().take(10).map(usize::to_string).collect();
            let more = if lines.len() > 10 { ", …" } else { "" };
            text.push_str(&format!(
                "\n  {} {reason} (line{} {}{more})",
                lines.len(),
                if lines.len() == 1 { "" } else { "s" },
                shown.join(", ")
            ));
        }
        text
    }
}

/// Reads records from `input`, writes one line per exported record to
/// `output`.
///
/// Errors: reading or writing fails; with `strict`, the first malformed or
/// invalid record (the message names its line).
pub fn export(
    input: impl BufRead,
    mut output: impl Write,
    format: Format,
    options: &Options,
) -> Result<Summary, String> {
    let since = options.since.as_deref().map(parse_since).transpose()?;
    let mut summary = Summary::default();
    let mut seen: HashSet<u64> = HashSet::new();
    for (index, line) in input.split(b'\n').enumerate() {
        let number = index + 1;
        let line = line.map_err(|e| format!("cannot read line {number}: {e}"))?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        summary.read += 1;
        // Bytes, not text: a line cut inside a character (a crash) is a
        // malformed record like any other.
        let record: FinetuneRecord = match serde_json::from_slice(&line) {
            Ok(record) => record,
            Err(e) => {
                if options.strict {
                    return Err(format!("line {number} is not a fine-tuning record: {e}"));
                }
                summary.skip(
                    "malformed (not a record; a truncated last line is one)",
                    number,
                );
                continue;
            }
        };
        if let Some(reason) = filtered_out(&record, options, since.as_deref()) {
            summary.skip(reason, number);
            continue;
        }
        if options.dedupe {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            serde_json::to_string(&record.messages)
                .unwrap_or_default()
                .hash(&mut hasher);
            record.system_prompt.hash(&mut hasher);
            if !seen.insert(hasher.finish()) {
                summary.skip("duplicate conversation", number);
                continue;
            }
        }
        let converted = convert(&record, format, options);
        if let Err(why) = validate(&converted, format) {
            if options.strict {
                return Err(format!(
                    "line {number} cannot be exported as {}: {why}",
                    format.name()
                ));
            }
            summary.skip(format!("invalid for this format: {why}"), number);
            continue;
        }
        let mut converted = converted;
        if let Err(why) = with_images(&mut converted, &record, format, options) {
            if options.strict {
                return Err(format!("line {number}: {why}"));
            }
            summary.skip(why, number);
            continue;
        }
        let mut text = converted.to_string();
        text.push('\n');
        match output.write_all(text.as_bytes()) {
            Ok(()) => summary.written += 1,
            // The reader went away (`| head`): stop, not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(summary),
            Err(e) => return Err(format!("cannot write: {e}")),
        }
    }
    match output.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write: {e}")),
        _ => Ok(summary),
    }
}

/// `line` with the record's images, when it has any (see
/// [`super::export_images`]).
fn with_images(
    line: &mut Value,
    record: &FinetuneRecord,
    format: Format,
    options: &Options,
) -> Result<(), String> {
    if record.messages.iter().all(|m| m.images.is_empty()) {
        return Ok(());
    }
    let store = (options.images.as_ref()).ok_or("its images: no image folder given")?;
    let layout = match format {
        Format::Openai => Layout::DataUrlParts,
        Format::Hf => Layout::ImagePartsAndPaths,
        Format::Sharegpt => Layout::TagsAndPaths,
    };
    attach(line, record, layout, store)
        .map_err(|why| format!("its images cannot be exported: {why}"))
}

fn parse_since(text: &str) -> Result<String, String> {
    let date = time::format_description::well_known::Rfc3339;
    if time::OffsetDateTime::parse(text, &date).is_ok() {
        return Ok(text.to_string());
    }
    let day = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(text, &day)
        .map(|d| format!("{d}T00:00:00Z"))
        .map_err(|_| format!("`--since {text}` is not a date; use YYYY-MM-DD or an RFC 3339 time"))
}

/// Why `record` is filtered out, if it is.
fn filtered_out(record: &FinetuneRecord, options: &Options, since: Option<&str>) -> Option<String> {
    if record.unexecuted_call {
        return Some("ended on a tool call that was not run".into());
    }
    if options.success_only && !record.success {
        return Some("not successful (--success-only)".into());
    }
    if options.model.as_ref().is_some_and(|m| *m != record.model) {
        return Some("another model (--model)".into());
    }
    if options
        .mode
        .as_ref()
        .is_some_and(|m| m != record.mode.as_str())
    {
        return Some("another mode (--mode)".into());
    }
    if since.is_some_and(|since| !newer_or_equal(&record.created_at, since)) {
        return Some("older than --since".into());
    }
    if options.min_turns.is_some_and(|n| record.turns < n) {
        return Some("fewer turns than --min-turns".into());
    }
    None
}

fn newer_or_equal(created: &str, since: &str) -> bool {
    let date = time::format_description::well_known::Rfc3339;
    match (
        time::OffsetDateTime::parse(created, &date),
        time::OffsetDateTime::parse(since, &date),
    ) {
        (Ok(a), Ok(b)) => a >= b,
        _ => created >= since,
    }
}

/// Whether the assistant message made a call that failed.
fn failed(message: &Message, record: &FinetuneRecord) -> bool {
    message.tool_calls.iter().any(|c| {
        c.id.as_ref()
            .is_some_and(|id| record.failed_tool_calls.contains(id))
    })
}

/// The record in `format`.
pub fn convert(record: &FinetuneRecord, format: Format, options: &Options) -> Value {
    match format {
        Format::Openai => openai(record, options),
        Format::Hf => hf(record, options),
        Format::Sharegpt => sharegpt(record),
    }
}

fn openai(record: &FinetuneRecord, options: &Options) -> Value {
    let mut messages = vec![json!({"role": "system", "content": record.system_prompt})];
    for m in &record.messages {
        messages.push(match m.role {
            Role::System | Role::User => json!({"role": role(m.role), "content": m.content}),
            Role::Assistant => {
                let mut out = json!({"role": "assistant"});
                if m.tool_calls.is_empty() {
                    out["content"] = json!(m.content);
                } else {
                    out["content"] = if m.content.is_empty() {
                        Value::Null
                    } else {
                        json!(m.content)
                    };
                    out["tool_calls"] = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {
                                    "name": c.function.name,
                                    "arguments": c.function.arguments.to_string(),
                                }
                            })
                        })
                        .collect();
                }
                if options.weight_failed_turns {
                    out["weight"] = json!(if failed(m, record) { 0 } else { 1 });
                }
                out
            }
            Role::Tool => json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id,
                "content": m.content,
            }),
        });
    }
    json!({"messages": messages, "tools": record.tools})
}

fn hf(record: &FinetuneRecord, options: &Options) -> Value {
    let mut messages = vec![json!({"role": "system", "content": record.system_prompt})];
    for m in &record.messages {
        messages.push(match m.role {
            Role::System | Role::User => json!({"role": role(m.role), "content": m.content}),
            Role::Assistant => {
                let mut out = json!({"role": "assistant", "content": m.content});
                if !m.tool_calls.is_empty() {
                    out["tool_calls"] = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            let arguments = if options.arguments_as_string {
                                json!(c.function.arguments.to_string())
                            } else {
                                c.function.arguments.clone()
                            };
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.function.name, "arguments": arguments}
                            })
                        })
                        .collect();
                }
                out
            }
            Role::Tool => json!({
                "role": "tool",
                "name": m.tool_name,
                "tool_call_id": m.tool_call_id,
                "content": m.content,
            }),
        });
    }
    json!({"messages": messages, "tools": record.tools})
}

fn sharegpt(record: &FinetuneRecord) -> Value {
    let mut conversations: Vec<Value> = Vec::new();
    let mut results: Vec<String> = Vec::new();
    let flush = |results: &mut Vec<String>, conversations: &mut Vec<Value>| {
        if results.is_empty() {
            return;
        }
        let value = if results.len() == 1 {
            results[0].clone()
        } else {
            json!(results).to_string()
        };
        conversations.push(json!({"from": "observation", "value": value}));
        results.clear();
    };
    for m in &record.messages {
        if m.role != Role::Tool {
            flush(&mut results, &mut conversations);
        }
        match m.role {
            Role::System | Role::User => {
                conversations.push(json!({"from": "human", "value": m.content}));
            }
            Role::Assistant if m.tool_calls.is_empty() => {
                conversations.push(json!({"from": "gpt", "value": m.content}));
            }
            Role::Assistant => {
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| json!({"name": c.function.name, "arguments": c.function.arguments}))
                    .collect();
                let value = if calls.len() == 1 {
                    calls[0].to_string()
                } else {
                    json!(calls).to_string()
                };
                conversations.push(json!({"from": "function_call", "value": value}));
            }
            Role::Tool => results.push(m.content.clone()),
        }
    }
    flush(&mut results, &mut conversations);
    json!({
        "conversations": conversations,
        "system": record.system_prompt,
        "tools": serde_json::to_string(&record.tools).unwrap_or_default(),
    })
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// Checks a converted line against what its format requires.
pub fn validate(line: &Value, format: Format) -> Result<(), String> {
    match format {
        Format::Openai | Format::Hf => validate_messages(line, format),
        Format::Sharegpt => validate_sharegpt(line),
    }
}

fn validate_messages(line: &Value, format: Format) -> Result<(), String> {
    let messages = line["messages"].as_array().ok_or("no `messages` list")?;
    let mut open_calls: Vec<String> = Vec::new();
    let mut previous = "";
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"]
            .as_str()
            .ok_or(format!("message {i} has no role"))?;
        match role {
            "system" if i == 0 => {}
            "user" | "system" => {
                if !open_calls.is_empty() {
                    return Err(format!(
                        "message {i}: tool calls {open_calls:?} have no results"
                    ));
                }
            }
            "assistant" => {
                if !open_calls.is_empty() {
                    return Err(format!(
                        "message {i}: tool calls {open_calls:?} have no results"
                    ));
                }
                if previous == "assistant" {
                    return Err(format!("message {i}: two assistant messages in a row"));
                }
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    let id = call["id"]
                        .as_str()
                        .ok_or(format!("message {i}: a tool call has no id"))?;
                    let arguments = &call["function"]["arguments"];
                    let good = match format {
                        Format::Openai => arguments.as_str().is_some_and(|a| {
                            serde_json::from_str::<Value>(a).is_ok_and(|v| v.is_object())
                        }),
                        Format::Hf | Format::Sharegpt => {
                            arguments.is_object()
                                || arguments
                                    .as_str()
                                    .is_some_and(|a| serde_json::from_str::<Value>(a).is_ok())
                        }
                    };
                    if !good {
                        return Err(format!(
                            "message {i}: arguments of `{id}` are not in this format's shape"
                        ));
                    }
                    open_calls.push(id.to_string());
                }
                if m["tool_calls"].is_null() && !m["content"].is_string() {
                    return Err(format!(
                        "message {i}: an assistant message without content or tool calls"
                    ));
                }
            }
            "tool" => {
                let id = m["tool_call_id"]
                    .as_str()
                    .ok_or(format!("message {i}: a tool message without tool_call_id"))?;
                let Some(at) = open_calls.iter().position(|c| c == id) else {
                    return Err(format!(
                        "message {i}: tool_call_id `{id}` answers no open call"
                    ));
                };
                open_calls.remove(at);
            }
            other => return Err(format!("message {i}: unknown role `{other}`")),
        }
        previous = role;
    }
    if !open_calls.is_empty() {
        return Err(format!("tool calls {open_calls:?} have no results"));
    }
    if previous != "assistant" {
        return Err("the conversation does not end with an assistant message".into());
    }
    Ok(())
}

fn validate_sharegpt(line: &Value) -> Result<(), String> {
    let turns = line["conversations"]
        .as_array()
        .ok_or("no `conversations` list")?;
    if turns.is_empty() {
        return Err("no conversation".into());
    }
    for (i, t) in turns.iter().enumerate() {
        let from = t["from"]
            .as_str()
            .ok_or(format!("entry {i} has no `from`"))?;
        let asking = matches!(from, "human" | "observation");
        let answering = matches!(from, "gpt" | "function_call");
        if !asking && !answering {
            return Err(format!("entry {i}: unknown `from` `{from}`"));
        }
        // Human and observation at even places, gpt and function_call at
        // odd ones, as LLaMA-Factory requires.
        if (i % 2 == 0) != asking {
            return Err(format!("entry {i}: `{from}` out of turn"));
        }
        if !t["value"].is_string() {
            return Err(format!("entry {i}: `value` is not text"));
        }
    }
    if turns.len() % 2 == 1 {
        return Err("the conversation does not end with an answer".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
