//! The run's first messages: the prompt, with the files it is about
//! ([`super::grounding`]) already in the conversation, a failing check's
//! output, and the repository map when the prompt names nothing. With tool
//! calls the files are real `read_file` calls and results, as if the model
//! had asked; with file blocks they are shown in the prompt's message (big
//! ones in parts, [`super::excerpts`]), with which of them may change.
//! Either way the reads go through the permission rules, and the write
//! guards know the files were read.

use std::collections::BTreeSet;

use serde_json::json;

use super::calls::CallRunner;
use super::check::Precheck;
use super::edits::Protocol;
use super::edits::shown::ShownFile;
use super::excerpts::{self, Focus, Pointed};
use super::file_kind::is_test;
use super::grounding::{self, Evidence, FileRole, Grounded, Grounding, Leads};
use super::relevance;
use super::repo_map;
use super::setup::ModelSetup;
use crate::client::{Message, Role, ToolCall};
use crate::config::Settings;
use crate::heuristics::{Heuristic, Heuristics};
use crate::session::Session;
use crate::ui::Output;
use crate::vocab::Task;

/// Most bytes of file text put in the first turn, whatever the context.
pub(crate) const MAX_GROUNDING_BYTES: usize = 32 * 1024;
/// The tokens the whole first request aims at in the text edit formats
/// (small models): at about 30 ms a prompt token on a CPU, some 75 seconds
/// before the model says a word. What the files may take is what the
/// system prompt, the task, the map, the check's output and the
/// instructions leave of it ([`files_budget`]).
pub(crate) const FIRST_REQUEST_TOKENS: usize = 2_500;
/// Characters a prompt token stands for: measured against Ollama's
/// prompt_eval_count for qwen2.5-coder on first requests of code, English
/// and check output (3.25 to 3.86, median 3.5; docs/benchmarks.md).
const CHARS_PER_TOKEN: usize = 35; // tenths
/// Bytes of what follows the task in the first message (which files may
/// change, how to reply).
const INSTRUCTIONS_BYTES: usize = 600;
/// Bytes of file text the first turn shows at the least, whatever else it
/// carries.
const MIN_FILE_BYTES: usize = 2 * 1024;

/// A test this long or shorter is shown whole even when a traceback
/// points into one of its tests.
const TEST_WHOLE_BYTES: usize = 1500;

/// How much file text the first turn may carry with a context of `num_ctx`
/// tokens: a third of it at about 4 bytes a token, at most
/// [`MAX_GROUNDING_BYTES`].
pub(crate) fn grounding_budget(num_ctx: u32) -> usize {
    (num_ctx as usize * 4 / 3).min(MAX_GROUNDING_BYTES)
}

/// What the first turn starts from besides the prompt.
pub(crate) struct Start<'a> {
    /// Pick the files the prompt is about (off: `OC_DISABLE=ground`).
    pub ground: bool,
    /// Which of grounding's leads are followed (`OC_DISABLE=words,trails`).
    pub leads: Leads,
    /// The heuristics on, for what the opening shows.
    pub heuristics: Heuristics,
    /// Bytes of file text at most.
    pub budget: usize,
    /// Tokens of the repository map at most.
    pub map_budget: usize,
    /// The check as it stood before the first request.
    pub precheck: Option<&'a Precheck>,
    /// What the run is for.
    pub task: Task,
}

impl<'a> Start<'a> {
    /// The start of a run with `settings` and `model`, after the check as
    /// it stood before the first request (`precheck`).
    pub(crate) fn for_run(
        settings: &Settings,
        model: &ModelSetup,
        precheck: Option<&'a Precheck>,
    ) -> Start<'a> {
        Start {
            ground: settings.enabled(Heuristic::Ground),
            leads: Leads {
                words: settings.enabled(Heuristic::Words),
                trails: settings.enabled(Heuristic::Trails),
            },
            heuristics: settings.heuristics,
            budget: grounding_budget(model.num_ctx),
            map_budget: repo_map::budget_tokens(model.num_ctx),
            precheck,
            task: model.task,
        }
    }
}

/// Adds the prompt (and, unless `start.ground` is false, the files it is
/// about, the failing check and the map) to the session.
///
/// Unsaved: what it adds is scrubbed of the run's secrets before the
/// caller saves it, so no secret reaches the session file.
pub(crate) async fn open(
    session: &mut Session,
    prompt: String,
    protocol: &mut Protocol,
    calls: &mut CallRunner<'_>,
    start: Start<'_>,
    out: &mut dyn Output,
) {
    let prompt_at = session.messages().len();
    let decided_at = session.permissions.len();
    show(session, prompt, protocol, calls, start, out).await;
    scrub_built(session, prompt_at, calls);
    // The decisions on those calls name the same paths.
    for decision in session.permissions.iter_mut().skip(decided_at) {
        if let (true, clean) = calls.scrub(&decision.detail) {
            decision.detail = clean;
        }
    }
}

/// Scrubs the run's secret values from what `oc` built from workspace
/// files, as tool results are scrubbed: the system prompt (`AGENTS.md` is
/// in it) and the opening's messages (the repository map, the check's
/// output, the `read_file` calls `oc` wrote for the files it shows). A
/// model can write a secret into such a file or a file's name (a copy in
/// `AGENTS.md`, a function or a file named after it) for the next run to
/// send.
fn scrub_built(session: &mut Session, prompt_at: usize, calls: &CallRunner<'_>) {
    let opening = prompt_at..session.messages().len();
    for at in std::iter::once(0).chain(opening) {
        let Some(message) = session.messages_unsaved().get_mut(at) else {
            continue;
        };
        if let (true, clean) = calls.scrub(&message.content) {
            message.content = clean;
        }
        // The files read for the model are named in calls `oc` wrote: a
        // name can hold a secret value (a command made `leak_<value>.py`).
        for call in &mut message.tool_calls {
            scrub_strings(&mut call.function.arguments, calls);
        }
    }
}

/// Scrubs every string in `value`, however deep.
fn scrub_strings(value: &mut serde_json::Value, calls: &CallRunner<'_>) {
    match value {
        serde_json::Value::String(text) => {
            if let (true, clean) = calls.scrub(text) {
                *text = clean;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| scrub_strings(v, calls)),
        serde_json::Value::Object(fields) => {
            fields.values_mut().for_each(|v| scrub_strings(v, calls));
        }
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
    }
}

/// The prompt and what the first request shows with it, added to the
/// session.
async fn show(
    session: &mut Session,
    prompt: String,
    protocol: &mut Protocol,
    calls: &mut CallRunner<'_>,
    start: Start<'_>,
    out: &mut dyn Output,
) {
    let failing = start.precheck.filter(|p| !p.check.passed);
    let evidence = Evidence {
        failure: failing.map(|p| p.locations.as_slice()).unwrap_or_default(),
        suspects: failing.map(|p| p.suspects.as_slice()).unwrap_or_default(),
    };
    let grounding = if start.ground {
        let root = calls.workspace().root();
        grounding::select(&prompt, root, &evidence, start.task, start.leads)
    } else {
        Grounding::default()
    };
    let mut context = Vec::new();
    if let Some(ranked) = &grounding.map {
        out.note(&format!(
            "the prompt names no file; showing the model a map of {} files",
            ranked.len()
        ));
        context.push(repo_map::render(ranked, start.map_budget));
    }
    if let Some(precheck) = start.precheck {
        context.push(precheck.message());
    }
    let context = context.join("\n\n");
    let focus = Focus {
        words: relevance::words(&prompt),
        names: grounding.names.clone(),
        asked: grounding.names.clone(),
        whole_docstrings: !start.heuristics.on(Heuristic::Docstrings),
    };
    match protocol {
        Protocol::FileBlocks(blocks) => {
            let budget = files_budget(session, &prompt, &context).min(start.budget);
            let small = grounding.small_repository;
            let mut files = read_shown(
                &grounding.files,
                calls,
                session,
                (budget, small),
                focus.clone(),
            );
            if blocks.answers() {
                // An answer changes nothing: every file is for reference.
                files.retain(|f| f.text.is_some());
                for file in &mut files {
                    file.role = FileRole::ReadOnly;
                }
            }
            for file in &files {
                let why = grounding.files.iter().find(|g| g.path == file.path);
                let why = why.map_or("", |g| g.why.as_str());
                out.note(&format!("showing the model {}: {why}", describe(file)));
            }
            blocks.focus = focus;
            blocks.tests_editable = grounding.tests_editable;
            let text = blocks.opening(&prompt, &files, &context);
            session.push_unsaved(Message::text(Role::User, text));
        }
        Protocol::ToolCalls { offered, .. } => {
            let text = if context.is_empty() {
                prompt
            } else {
                format!("{prompt}\n\n{context}")
            };
            session.push_unsaved(Message::text(Role::User, text));
            if offered.contains(&crate::tools::ToolName::ReadFile) {
                read_as_calls(&grounding.files, calls, session, start.budget, out).await;
            }
        }
    }
}

/// Bytes of file text the first request can carry within
/// [`FIRST_REQUEST_TOKENS`], after what the session already holds (the
/// system prompt), the prompt, the `context` (map, check output) and the
/// instructions; at least [`MIN_FILE_BYTES`].
fn files_budget(session: &Session, prompt: &str, context: &str) -> usize {
    let total = FIRST_REQUEST_TOKENS * CHARS_PER_TOKEN / 10;
    let held: usize = session.messages().iter().map(|m| m.content.len()).sum();
    let fixed = held + prompt.len() + context.len() + INSTRUCTIONS_BYTES;
    total.saturating_sub(fixed).max(MIN_FILE_BYTES)
}

/// `path`, or `path (parts)` for a file shown in parts.
fn describe(file: &ShownFile) -> String {
    match &file.parts {
        Some(parts) => {
            let labels: Vec<&str> = parts.pieces.iter().map(|p| p.label.as_str()).collect();
            format!("{} ({})", file.path, labels.join(", "))
        }
        None => file.path.clone(),
    }
}

/// The files' texts within `budget`, big ones in the parts `focus` picks
/// (the names that the shown parts of read-only files, such as a failing
/// test, use help pick the parts of the files that may change). The budget
/// goes first to the file to change that the task is most about (shown
/// whatever its size), then to the tests (two fifths of the budget at
/// most, unless the repository is `small`: its tests are the task's spec,
/// whole when they fit), the other files to change, the rest. Files that
/// cannot be read (rules, binary) are left out, and so is a file whose text
/// had secrets scrubbed from it, as it could not be rewritten whole.
fn read_shown(
    picked: &[Grounded],
    calls: &mut CallRunner<'_>,
    session: &mut Session,
    (budget, small): (usize, bool),
    mut focus: Focus,
) -> Vec<ShownFile> {
    let mut read: Vec<(&Grounded, Option<(String, bool)>)> = picked
        .iter()
        .map(|g| match g.role {
            FileRole::New => (g, None),
            _ => (g, calls.read_grounded(session, &g.path)),
        })
        .collect();
    read.retain(|(g, text)| g.role == FileRole::New || text.is_some());
    for (g, text) in &read {
        let (FileRole::ReadOnly, Some((text, _))) = (g.role, text) else {
            continue;
        };
        if excerpts::fits_whole(text) {
            focus.names.extend(identifiers(text));
            continue;
        }
        let parts = excerpts::choose(&g.path, text, &focus, pointed(g), budget);
        for piece in &parts.pieces {
            focus.names.extend(identifiers(&piece.text));
        }
    }
    let order = priority(&read, &focus);
    let mut left = budget;
    let mut tests_left = if small { budget } else { budget * 2 / 5 };
    let mut files = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let (g, text) = &read[i];
        let Some((text, scrubbed)) = text else {
            files.push((i, ShownFile::whole(&g.path, g.role, None)));
            continue;
        };
        let role = if *scrubbed {
            FileRole::ReadOnly
        } else {
            g.role
        };
        let test = role == FileRole::ReadOnly && is_test(&g.path);
        // A test is shown by the tests a traceback points into (or the
        // prompt names) unless it is short, or whole in a small repository.
        let in_parts = !excerpts::fits_whole(text)
            || (test && !small && text.len() > TEST_WHOLE_BYTES && points_into(g, text, &focus));
        // After the first file, a big file's parts get half of what is
        // left while files the evidence points into wait: its lines'
        // definitions come first, the rest of its parts only as room allows.
        let waiting = order[k + 1..].iter().any(|&j| !read[j].0.lines.is_empty());
        let room = if waiting && !files.is_empty() {
            left / 2
        } else {
            left
        };
        let parts =
            in_parts.then(|| excerpts::choose(&g.path, text, &focus, pointed(g), room.max(1)));
        let file = ShownFile {
            parts,
            ..ShownFile::whole(&g.path, role, Some(text.clone()))
        };
        // As the model reads it: headers and outlines count too.
        let size = file.render().len();
        let first = files.is_empty() && role == FileRole::Editable;
        if !first && (size > left || (test && size > tests_left)) {
            continue;
        }
        left = left.saturating_sub(size);
        if test {
            tests_left = tests_left.saturating_sub(size);
        }
        files.push((i, file));
    }
    // Shown in the grounding's order.
    files.sort_by_key(|(i, f)| (f.role, *i));
    files.into_iter().map(|(_, f)| f).collect()
}

/// The lines the grounding points at in `g`.
fn pointed(g: &Grounded) -> Pointed<'_> {
    Pointed {
        evidence: &g.lines,
        uses: &g.uses,
    }
}

/// Whether the traceback points into `g` or the prompt names one of its
/// definitions: its parts say what matters.
fn points_into(g: &Grounded, text: &str, focus: &Focus) -> bool {
    !g.lines.is_empty()
        || crate::tools::outline::definitions(&g.path, text)
            .unwrap_or_default()
            .iter()
            .any(|d| focus.names.contains(&d.name))
}

/// The order the budget goes in (indices of `read`): the file to change
/// the task is most about (one the check's traceback points into, else the
/// one whose definitions and text share most of the task's words), the
/// other files to change that the evidence points into, the tests, the
/// other files to change, the rest.
fn priority(read: &[(&Grounded, Option<(String, bool)>)], focus: &Focus) -> Vec<usize> {
    let about = |i: usize| -> f64 {
        let Some((text, _)) = &read[i].1 else {
            return 0.0;
        };
        let path = &read[i].0.path;
        let names: String = crate::tools::outline::definitions(path, text)
            .unwrap_or_default()
            .iter()
            .map(|d| format!("{} ", d.name))
            .collect();
        let named = relevance::words(&names).intersection(&focus.words).count();
        let shared = relevance::words(text).intersection(&focus.words).count();
        let traceback = if read[i].0.lines.is_empty() {
            0.0
        } else {
            100.0
        };
        traceback + 3.0 * named as f64 + shared as f64
    };
    let editable: Vec<usize> = (0..read.len())
        .filter(|&i| read[i].0.role == FileRole::Editable)
        .collect();
    let best = editable
        .iter()
        .copied()
        .max_by(|&a, &b| about(a).total_cmp(&about(b)).then(b.cmp(&a)));
    let mut order: Vec<usize> = (0..read.len()).collect();
    // Within each class, what a traceback points into first.
    order.sort_by_key(|&i| {
        let pointed = !read[i].0.lines.is_empty();
        let class = match (Some(i) == best, read[i].0.role) {
            (true, _) => 0,
            (false, FileRole::Editable) if pointed => 1,
            (false, FileRole::ReadOnly) if is_test(&read[i].0.path) => 2,
            (false, FileRole::Editable) => 3,
            (false, FileRole::ReadOnly) => 4,
            (false, FileRole::New) => 5,
        };
        (class, read[i].0.lines.is_empty())
    });
    order
}

/// The identifiers in `text` (three characters or more).
fn identifiers(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.len() >= 3 && w.starts_with(|c: char| c.is_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect()
}

/// One assistant message with a `read_file` call per file, and the results,
/// run as real calls; stops adding files once `budget` is spent. A big file
/// a traceback points into is read around the line it names.
async fn read_as_calls(
    picked: &[Grounded],
    calls: &mut CallRunner<'_>,
    session: &mut Session,
    budget: usize,
    out: &mut dyn Output,
) {
    let root = calls.workspace().root().to_path_buf();
    let mut left = budget;
    let mut chosen = Vec::new();
    // A file whose name holds a secret value is not shown: its call and
    // the events about it would carry the name.
    let named_plainly = |g: &&Grounded| !calls.scrub(&g.path).0;
    for g in (picked.iter())
        .filter(|g| g.role != FileRole::New)
        .filter(named_plainly)
    {
        let size = std::fs::metadata(root.join(&g.path)).map_or(usize::MAX, |m| m.len() as usize);
        let window = g
            .lines
            .first()
            .filter(|_| size > excerpts::WHOLE_FILE_MAX_BYTES);
        let arguments = match window {
            Some(&line) => {
                json!({"path": g.path, "offset": line.saturating_sub(40).max(1), "limit": 80})
            }
            None => json!({ "path": g.path }),
        };
        let cost = if window.is_some() { 80 * 60 } else { size };
        if cost <= left {
            left -= cost;
            chosen.push(arguments);
        }
    }
    if chosen.is_empty() {
        return;
    }
    let tool_calls: Vec<ToolCall> = chosen
        .into_iter()
        .enumerate()
        .map(|(n, arguments)| ToolCall {
            id: Some(format!(
                "{}{}_{n}",
                crate::session::GROUNDING_CALL,
                session.turns
            )),
            ..ToolCall::new("read_file", arguments)
        })
        .collect();
    session.push_unsaved(Message {
        tool_calls: tool_calls.clone(),
        ..Message::text(Role::Assistant, "")
    });
    for call in &tool_calls {
        let id = call.id.clone().unwrap_or_default();
        let arguments = call.function.arguments.clone();
        let outcome = calls
            .call(
                session,
                out,
                (&id, "read_file"),
                &arguments,
                Ok(arguments.clone()),
            )
            .await;
        if !outcome.ok {
            session.failed_tool_calls.push(id.clone());
        }
        session.push_unsaved(Message::tool_result("read_file", &id, outcome.content));
    }
}
