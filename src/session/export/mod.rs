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

use serde_json::Value;

use super::export_images::{Layout, attach};
use super::record::FinetuneRecord;
use crate::error::ExitStatus;
use crate::images::ImageStore;

mod atif;
mod chat;
mod sharegpt;
mod steps;
mod validate;

/// The layout written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Openai,
    Hf,
    Sharegpt,
    Atif,
}

impl Format {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Openai => "openai",
            Format::Hf => "hf",
            Format::Sharegpt => "sharegpt",
            Format::Atif => "atif",
        }
    }
}

/// Which records are written and how.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub success_only: bool,
    pub model: Option<String>,
    pub mode: Option<String>,
    /// RFC 3339 time or `YYYY-MM-DD`; records created before it are skipped.
    pub since: Option<String>,
    pub min_turns: Option<u32>,
    pub dedupe: bool,
    /// A malformed or invalid record is an error instead of a skip.
    pub strict: bool,
    /// Failed replies are not learned from, each format its own way
    /// (`weight: 0`, `train: false`, the conversation cut before them,
    /// `extra.train: false`).
    pub mask_failed_steps: bool,
    /// `hf`: tool-call arguments as JSON strings.
    pub arguments_as_string: bool,
    /// Where the records' images are (the `OC_HOME` of the input); records
    /// with images are skipped without it.
    pub images: Option<ImageStore>,
}

/// What an export did: counts, and why records were skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Summary {
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
    pub(crate) fn describe(&self) -> String {
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
pub(crate) fn export(
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
        // A byte-order mark before the first record is no part of it.
        let line = match index {
            0 => line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&line),
            _ => &line[..],
        };
        let record = match read_record(line) {
            Ok(record) => record,
            Err((why, detail)) => {
                if options.strict {
                    return Err(format!(
                        "line {number} is not a fine-tuning record: {detail}"
                    ));
                }
                summary.skip(why, number);
                continue;
            }
        };
        if let Some(reason) = filtered_out(&record, options, since.as_deref()) {
            summary.skip(reason, number);
            continue;
        }
        if options.strict
            && let Some(why) = unfinished(&record)
        {
            return Err(format!(
                "line {number} is the record of a run that did not finish ({why}); add --success-only to leave such runs out"
            ));
        }
        if options.dedupe && !seen.insert(conversation_hash(&record)) {
            summary.skip("duplicate conversation", number);
            continue;
        }
        if !learnable(&record, format, options.mask_failed_steps) {
            let why = match options.mask_failed_steps {
                true => "no reply of the model's to learn from once failed ones are masked",
                false => "no reply of the model's to learn from",
            };
            summary.skip(why, number);
            continue;
        }
        let converted = convert(&record, format, options);
        let converted = converted.and_then(|line| validate(&line, format).map(|()| line));
        let converted = match converted {
            Ok(line) => line,
            Err(why) => {
                if options.strict {
                    return Err(format!(
                        "line {number} cannot be exported as {}: {why}",
                        format.name()
                    ));
                }
                summary.skip(format!("invalid for this format: {why}"), number);
                continue;
            }
        };
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

/// A hash of the conversation of `record` and its system prompt, for
/// `--dedupe`.
fn conversation_hash(record: &FinetuneRecord) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(&record.messages)
        .unwrap_or_default()
        .hash(&mut hasher);
    record.system_prompt.hash(&mut hasher);
    hasher.finish()
}

/// Why `record` is of a run that did not finish, if it is: a signal or
/// `--timeout` stopped it (exit 130, 143, 129 or 124). Its conversation may
/// still end with an answer (stopped during `--check`), so `--strict`
/// cannot tell from the messages alone.
fn unfinished(record: &FinetuneRecord) -> Option<&str> {
    let stopped = [
        ExitStatus::TimedOut,
        ExitStatus::Interrupted,
        ExitStatus::Terminated,
        ExitStatus::HungUp,
    ]
    .map(ExitStatus::code);
    let reason = record.exit_reason.as_str();
    // Records from before `exit_reason` was a word held the words.
    let by_reason = ["interrupted", "terminated", "hung_up", "timed_out"].contains(&reason)
        || reason.starts_with("stopped by SIG")
        || reason.starts_with("timed out after");
    let said = [record.exit_detail.as_str(), reason, "interrupted"]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or("interrupted");
    (record.exit_code.is_some_and(|code| stopped.contains(&code)) || by_reason).then_some(said)
}

/// Whether an export of `record` keeps a reply of the model's to learn
/// from: ATIF keeps every step, ShareGPT the replies before the first one
/// not learned from, the chat layouts every reply learned from.
fn learnable(record: &FinetuneRecord, format: Format, mask: bool) -> bool {
    let replies = steps::Replies::of(record, mask);
    match format {
        Format::Atif => !replies.ok.is_empty(),
        Format::Sharegpt => {
            let first = (0..replies.ok.len()).find(|&n| !replies.synthetic(n));
            first.is_some_and(|n| replies.learned(n))
        }
        Format::Openai | Format::Hf => replies.any_learned(),
    }
}

/// The record a line holds. Errors: why not, for the summary (one reason
/// for many lines) and in detail.
fn read_record(line: &[u8]) -> Result<FinetuneRecord, (String, String)> {
    // Bytes, not text: a line cut inside a character (a crash) is a
    // malformed line like any other.
    let value: serde_json::Value = serde_json::from_slice(line).map_err(|e| {
        (
            "malformed (not JSON; a truncated last line is one)".to_string(),
            e.to_string(),
        )
    })?;
    let record: FinetuneRecord = serde_json::from_value(value).map_err(|e| {
        let field = e.to_string();
        (
            "not a fine-tuning record (a field is missing or of the wrong type)".to_string(),
            field,
        )
    })?;
    if record.version > super::record::FINETUNE_VERSION {
        let why = format!(
            "a record of a newer layout (version {}; this oc reads up to {}): update oc",
            record.version,
            super::record::FINETUNE_VERSION
        );
        return Err((why.clone(), why));
    }
    let replies = (record.messages.iter())
        .filter(|m| m.role == crate::client::Role::Assistant)
        .count();
    if !record.steps.is_empty() && record.steps.len() != replies {
        let why = "its steps do not match its replies (one step per assistant message)";
        let detail = format!("{why}: {} steps, {replies} replies", record.steps.len());
        return Err((why.to_string(), detail));
    }
    Ok(record)
}

/// `line` with the record's images, when it has any (see
/// [`super::export_images`]).
fn with_images(
    line: &mut Value,
    record: &FinetuneRecord,
    format: Format,
    options: &Options,
) -> Result<(), String> {
    if format == Format::Atif || record.messages.iter().all(|m| m.images.is_empty()) {
        // ATIF names its images in its steps.
        return Ok(());
    }
    let store = (options.images.as_ref()).ok_or("its images: no image folder given")?;
    let layout = match format {
        Format::Openai => Layout::DataUrlParts,
        Format::Hf => Layout::ImagePartsAndPaths,
        Format::Sharegpt | Format::Atif => Layout::TagsAndPaths,
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
    let date = time::format_description::well_known::Rfc3339;
    if since.is_some() && time::OffsetDateTime::parse(&record.created_at, &date).is_err() {
        return Some("its created_at is not a time (--since)".into());
    }
    if since.is_some_and(|since| !newer_or_equal(&record.created_at, since)) {
        return Some("older than --since".into());
    }
    if options.min_turns.is_some_and(|n| record.turns < n) {
        return Some("fewer turns than --min-turns".into());
    }
    None
}

/// Whether `created` is at or after `since` (both RFC 3339); a time that
/// does not parse is not.
fn newer_or_equal(created: &str, since: &str) -> bool {
    let date = time::format_description::well_known::Rfc3339;
    match (
        time::OffsetDateTime::parse(created, &date),
        time::OffsetDateTime::parse(since, &date),
    ) {
        (Ok(a), Ok(b)) => a >= b,
        _ => false,
    }
}

/// The record in `format`.
///
/// Errors: the record cannot be written in it (ATIF: a missing image).
pub(crate) fn convert(
    record: &FinetuneRecord,
    format: Format,
    options: &Options,
) -> Result<Value, String> {
    let mask = options.mask_failed_steps;
    Ok(match format {
        Format::Openai => chat::openai(record, mask),
        Format::Hf => chat::hf(record, mask, options.arguments_as_string),
        Format::Sharegpt => sharegpt::sharegpt(record, mask),
        Format::Atif => atif::atif(record, mask, options.images.as_ref())?,
    })
}

/// Checks a converted line against what its format requires.
pub(crate) fn validate(line: &Value, format: Format) -> Result<(), String> {
    match format {
        Format::Openai | Format::Hf => validate::messages(line, format == Format::Openai),
        Format::Sharegpt => validate::sharegpt(line),
        Format::Atif => atif::validate(line),
    }
}

#[cfg(test)]
mod tests;
