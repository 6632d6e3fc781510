//! The run's first messages: the prompt, with the files it is about
//! ([`super::grounding`]) already in the conversation. With tool calls they
//! are real `read_file` calls and results, as if the model had asked; with
//! file blocks they are shown in the prompt's message, with which of them
//! may change. Either way the reads go through the permission rules, and
//! the write guards know the files were read.

use serde_json::json;

use super::calls::CallRunner;
use super::edits::Protocol;
use super::edits::file_blocks::ShownFile;
use super::grounding::{self, Grounded, Role as FileRole};
use crate::client::{Message, Role, ToolCall};
use crate::session::Session;
use crate::ui::Output;

/// Most bytes of file text put in the first turn, whatever the context.
pub const MAX_GROUNDING_BYTES: usize = 32 * 1024;

/// How much file text the first turn may carry with a context of `num_ctx`
/// tokens: a third of it at about 4 bytes a token, at most
/// [`MAX_GROUNDING_BYTES`].
pub fn grounding_budget(num_ctx: u32) -> usize {
    (num_ctx as usize * 4 / 3).min(MAX_GROUNDING_BYTES)
}

/// Adds the prompt (and, unless `ground` is false, the files it is about)
/// to the session.
pub async fn open(
    session: &mut Session,
    prompt: String,
    protocol: &mut Protocol,
    calls: &mut CallRunner<'_>,
    ground: bool,
    budget: usize,
    out: &mut dyn Output,
) {
    let picked = if ground {
        grounding::select(&prompt, calls.workspace().root())
    } else {
        Vec::new()
    };
    match protocol {
        Protocol::FileBlocks(blocks) => {
            let mut files = read_shown(&picked, calls, session, budget);
            if super::guards::is_question(&prompt) {
                // A question is answered in words: nothing is offered to change.
                files.retain(|f| f.text.is_some());
                for file in &mut files {
                    file.role = FileRole::ReadOnly;
                }
            }
            if !files.is_empty() {
                let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
                out.note(&format!("showing the model {}", names.join(", ")));
            }
            let text = blocks.opening(&prompt, &files);
            session.messages.push(Message::text(Role::User, text));
        }
        Protocol::ToolCalls { offered, .. } => {
            session.messages.push(Message::text(Role::User, prompt));
            if offered.contains(&crate::tools::ToolName::ReadFile) {
                read_as_calls(&picked, calls, session, budget, out).await;
            }
        }
    }
}

/// The files' texts within `budget`, editable ones first; files that cannot
/// be read (rules, binary) are left out, and so is a file whose text had
/// secrets scrubbed from it, as it could not be rewritten whole.
fn read_shown(
    picked: &[Grounded],
    calls: &mut CallRunner<'_>,
    session: &mut Session,
    budget: usize,
) -> Vec<ShownFile> {
    let mut left = budget;
    let mut files = Vec::new();
    for g in picked {
        if g.role == FileRole::New {
            files.push(ShownFile {
                path: g.path.clone(),
                role: g.role,
                text: None,
            });
            continue;
        }
        let Some((text, scrubbed)) = calls.read_grounded(session, &g.path) else {
            continue;
        };
        if text.len() > left {
            continue;
        }
        left -= text.len();
        let role = if scrubbed { FileRole::ReadOnly } else { g.role };
        files.push(ShownFile {
            path: g.path.clone(),
            role,
            text: Some(text),
        });
    }
    files
}

/// One assistant message with a `read_file` call per file, and the results,
/// run as real calls; stops adding files once `budget` is spent.
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
    for g in picked.iter().filter(|g| g.role != FileRole::New) {
        let size = std::fs::metadata(root.join(&g.path)).map_or(usize::MAX, |m| m.len() as usize);
        if size <= left {
            left -= size;
            chosen.push(g.path.clone());
        }
    }
    if chosen.is_empty() {
        return;
    }
    let tool_calls: Vec<ToolCall> = chosen
        .iter()
        .enumerate()
        .map(|(n, path)| ToolCall {
            id: Some(format!("call_g{}_{n}", session.turns)),
            ..ToolCall::new("read_file", json!({ "path": path }))
        })
        .collect();
    session.messages.push(Message {
        tool_calls: tool_calls.clone(),
        ..Message::text(Role::Assistant, "")
    });
    for call in &tool_calls {
        let id = call.id.clone().unwrap_or_default();
        let arguments = call.function.arguments.clone();
        let outcome = calls
            .run(session, out, &id, "read_file", Ok(arguments))
            .await;
        if !outcome.ok {
            session.failed_tool_calls.push(id.clone());
        }
        session
            .messages
            .push(Message::tool_result("read_file", &id, outcome.content));
    }
}
