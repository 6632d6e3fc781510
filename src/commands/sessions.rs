//! `oc sessions list|show|rm`: the saved sessions as a table or JSON
//! rows, one session's transcript, and removing them.

use std::path::Path;

use serde_json::{Value, json};

use crate::cli::SessionsCommand;
use crate::client::{Message, Role};
use crate::error::{Error, ExitStatus, Result};
use crate::session::{Session, Store, read_session};
use crate::ui::{confirm, out, print_warning, sanitize, short_time, table};

/// `oc sessions list|show|rm`.
pub(super) fn sessions(home: &Path, command: SessionsCommand) -> Result<ExitStatus> {
    let store = Store::new(home);
    match command {
        SessionsCommand::List { json, here } => {
            let (mut sessions, problems) = store.list();
            if here {
                let cwd = std::env::current_dir()
                    .and_then(|d| d.canonicalize())
                    .map_err(|e| Error::io("cannot read the current directory", e))?;
                let cwd = cwd.display().to_string();
                sessions.retain(|s| s.cwd == cwd);
            }
            for problem in &problems {
                print_warning(problem);
            }
            if json {
                let rows: Vec<Value> = sessions.iter().map(session_row).collect();
                out(&format!("{}\n", Value::Array(rows)));
            } else if sessions.is_empty() {
                print_warning(&format!(
                    "no saved sessions in `{}`",
                    home.join("sessions").display()
                ));
            } else {
                out(&sessions_table(&sessions));
            }
            Ok(ExitStatus::Success)
        }
        SessionsCommand::Show { id, json } => {
            let path = store.find(&id)?;
            if json {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| Error::io(format!("cannot read `{}`", path.display()), e))?;
                out(&text);
                if !text.ends_with('\n') {
                    out("\n");
                }
            } else {
                out(&transcript(&read_session(&path)?));
            }
            Ok(ExitStatus::Success)
        }
        SessionsCommand::Rm { ids, yes } => {
            // Every id must resolve before anything is removed.
            let paths = ids
                .iter()
                .map(|id| store.find(id))
                .collect::<Result<Vec<_>>>()?;
            if !yes {
                let Some(confirmed) = confirm(&format!("Delete {} session(s)?", paths.len()))
                else {
                    return Err(Error::Usage(
                        "`oc sessions rm` deletes files and there is no terminal to confirm it; pass `--yes`"
                            .into(),
                    ));
                };
                if !confirmed {
                    print_warning("nothing was removed");
                    return Ok(ExitStatus::Success);
                }
            }
            for path in &paths {
                std::fs::remove_file(path)
                    .map_err(|e| Error::io(format!("cannot remove `{}`", path.display()), e))?;
                let id = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_default();
                out(&format!("removed {id}\n"));
            }
            Ok(ExitStatus::Success)
        }
    }
}

fn session_row(s: &Session) -> Value {
    json!({
        "id": s.id,
        "created_at": s.created_at,
        "updated_at": s.updated_at,
        "mode": s.mode,
        "model": s.model,
        "status": s.status,
        "exit_code": s.exit_code,
        "turns": s.turns,
        "cwd": s.cwd,
        "title": s.title,
    })
}

fn sessions_table(sessions: &[Session]) -> String {
    let mut rows = vec![vec![
        "ID".to_string(),
        "CREATED (UTC)".to_string(),
        "MODE".to_string(),
        "MODEL".to_string(),
        "STATUS".to_string(),
        "TITLE".to_string(),
    ]];
    for s in sessions {
        rows.push(vec![
            s.id.clone(),
            short_time(&s.created_at),
            s.mode.as_str().to_string(),
            s.model.clone(),
            status_text(s),
            sanitize(&s.title).to_string(),
        ]);
    }
    table(&rows)
}

/// The session's status, with its exit code when the run did not exit 0
/// (`finished (exit 5)`: it answered, but actions were denied).
fn status_text(s: &Session) -> String {
    let status = serde_json::to_value(s.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    match s.exit_code {
        Some(code) if code != 0 => format!("{status} (exit {code})"),
        _ => status,
    }
}

/// Lines of a tool result shown in a transcript.
const TRANSCRIPT_LINES: usize = 12;

/// A session as a readable transcript.
pub(super) fn transcript(s: &Session) -> String {
    let status = status_text(s);
    let mut text = format!(
        "session {} · {} · {} · {status}{} · {} turn{}\ncwd {}\ncreated {} · updated {}\n",
        s.id,
        s.mode.as_str(),
        s.model,
        s.exit_detail
            .as_deref()
            .or(s.exit_reason.as_deref())
            .map(|r| format!(" ({r})"))
            .unwrap_or_default(),
        s.turns,
        if s.turns == 1 { "" } else { "s" },
        s.cwd,
        short_time(&s.created_at),
        short_time(&s.updated_at),
    );
    text.push_str(&undo_text(s));
    for message in s.messages() {
        text.push('\n');
        text.push_str(&message_text(message));
    }
    if let Some(aborted) = &s.aborted_reply {
        text.push_str(&format!(
            "\nassistant (cut short): {}\n",
            sanitize(&aborted.content)
        ));
    }
    text.push_str(&compactions_text(s));
    text
}

/// Whether the session's last run can be undone, as one line.
fn undo_text(s: &Session) -> String {
    let Some(record) = &s.checkpoint else {
        return "undo: not possible (no checkpoint)\n".to_string();
    };
    let count = record.changes.len();
    let index = match record.index {
        Some(_) => " and the git index",
        None => "",
    };
    let files = format!("{count} file{}{index}", if count == 1 { "" } else { "s" });
    match (&record.undone_at, count, index.is_empty()) {
        (_, 0, true) => "undo: nothing to undo (the last run changed no file)\n".to_string(),
        (Some(at), _, _) => format!("undo: done {} ({files} put back)\n", short_time(at)),
        (None, _, _) => format!("undo: `oc undo {}` puts back {files}\n", s.id),
    }
}

/// The compaction markers and prompt cuts of a session: what the model
/// stopped seeing, when. Empty when there were none.
fn compactions_text(s: &Session) -> String {
    let mut text = String::new();
    if !s.compactions.is_empty() {
        text.push_str(
            "
compactions (the full messages are in `--json`):
",
        );
    }
    let bytes = |messages: &[Message]| messages.iter().map(|m| m.content.len()).sum::<usize>();
    for c in &s.compactions {
        text.push_str(&format!(
            "  turn {}: {} at message {}: {} message{} of {} bytes became {} of {} bytes\n",
            c.turn,
            c.kind,
            c.at,
            c.replaced.len(),
            if c.replaced.len() == 1 { "" } else { "s" },
            bytes(&c.replaced),
            c.by.len(),
            bytes(&c.by),
        ));
    }
    if !s.truncated_turns.is_empty() {
        let turns: Vec<String> = s.truncated_turns.iter().map(u32::to_string).collect();
        text.push_str(&format!(
            "\nthe server cut the prompt at turn{} {}: the model did not see all of it\n",
            if turns.len() == 1 { "" } else { "s" },
            turns.join(", ")
        ));
    }
    text
}

fn message_text(m: &Message) -> String {
    let mut text = String::new();
    match m.role {
        Role::System => {
            let first = m.content.lines().next().unwrap_or_default();
            text.push_str(&format!("system: {} …\n", sanitize(first)));
        }
        Role::User => {
            text.push_str(&format!("user: {}\n", sanitize(&m.content)));
            for image in &m.images {
                text.push_str(&format!("  [image {}]\n", sanitize(image)));
            }
        }
        Role::Assistant => {
            if let Some(thinking) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
                text.push_str(&format!("thinking: {}\n", sanitize(thinking)));
            }
            if !m.content.is_empty() {
                text.push_str(&format!("assistant: {}\n", sanitize(&m.content)));
            }
            for call in &m.tool_calls {
                text.push_str(&format!(
                    "  → {} {}\n",
                    call.function.name,
                    sanitize(&call.function.arguments.to_string())
                ));
            }
        }
        Role::Tool => {
            let lines: Vec<&str> = m.content.lines().collect();
            text.push_str(&format!(
                "tool {}:\n",
                m.tool_name.as_deref().unwrap_or("?")
            ));
            for line in lines.iter().take(TRANSCRIPT_LINES) {
                text.push_str(&format!("  {}\n", sanitize(line)));
            }
            if lines.len() > TRANSCRIPT_LINES {
                text.push_str(&format!(
                    "  … {} more lines\n",
                    lines.len() - TRANSCRIPT_LINES
                ));
            }
        }
    }
    text
}
