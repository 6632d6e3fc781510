//! The commands that are not an agent run: `oc sessions`, `oc models`,
//! `oc completions`, `oc export-ft`, `oc undo`.

mod export_ft;
mod undo;

pub use export_ft::export_ft;
pub use undo::undo;

use std::io::IsTerminal;
use std::path::Path;

use clap::CommandFactory;
use serde_json::{Value, json};

use crate::cli::{Cli, ModelsArgs, ModelsCommand, SessionsCommand};
use crate::client::{Message, ModelClient, ModelInfo, OpenAiClient, Role, printable};
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::session::{Session, Store, read_session};
use crate::ui::{out, print_warning, sanitize};

/// `oc sessions list|show|rm`.
pub fn sessions(home: &Path, command: SessionsCommand) -> Result<ExitStatus> {
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
                let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
                if !terminal {
                    return Err(Error::Usage(
                        "`oc sessions rm` deletes files and there is no terminal to confirm it; pass `--yes`"
                            .into(),
                    ));
                }
                let confirmed = dialoguer::Confirm::new()
                    .with_prompt(format!("Delete {} session(s)?", paths.len()))
                    .default(false)
                    .interact_on(&console::Term::stderr())
                    .unwrap_or(false);
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

/// `2026-11-30T01:41:02.123Z` → `2026-11-30 01:41`.
fn short_time(rfc3339: &str) -> String {
    rfc3339.get(..16).unwrap_or(rfc3339).replace('T', " ")
}

/// Rows padded into columns.
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c + 1 == columns {
                    cell.clone()
                } else {
                    format!("{cell:<width$}", width = widths[c])
                }
            })
            .collect();
        text.push_str(line.join("  ").trim_end());
        text.push('\n');
    }
    text
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
pub fn transcript(s: &Session) -> String {
    let status = status_text(s);
    let mut text = format!(
        "session {} · {} · {} · {status}{} · {} turn{}\ncwd {}\ncreated {} · updated {}\n",
        s.id,
        s.mode.as_str(),
        s.model,
        s.exit_reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default(),
        s.turns,
        if s.turns == 1 { "" } else { "s" },
        s.cwd,
        short_time(&s.created_at),
        short_time(&s.updated_at),
    );
    text.push_str(&undo_text(s));
    for message in &s.messages {
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
    let files = format!("{count} file{}", if count == 1 { "" } else { "s" });
    match (&record.undone_at, count) {
        (_, 0) => "undo: nothing to undo (the last run changed no file)\n".to_string(),
        (Some(at), _) => format!("undo: done {} ({files} put back)\n", short_time(at)),
        (None, _) => format!("undo: `oc undo {}` puts back {files}\n", s.id),
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

/// `oc models [list]` and `oc models show NAME`.
pub async fn models(settings: &Settings, args: ModelsArgs) -> Result<ExitStatus> {
    let client = match settings.model_client()? {
        ModelClient::Ollama(client) => client,
        ModelClient::OpenAi(client) => return openai_models(&client, args).await,
    };
    match args.command.unwrap_or(ModelsCommand::List) {
        ModelsCommand::List => {
            let mut models = client.tags_raw().await?;
            models.sort_by(|a, b| {
                b["modified_at"]
                    .as_str()
                    .unwrap_or_default()
                    .cmp(a["modified_at"].as_str().unwrap_or_default())
            });
            let rows: Vec<Value> = models.iter().map(model_row).collect();
            if args.json {
                out(&format!("{}\n", Value::Array(rows)));
            } else if rows.is_empty() {
                print_warning(&format!(
                    "the server at {} has no models; pull one with `ollama pull qwen2.5-coder:7b`",
                    client.host()
                ));
            } else {
                out(&models_table(&rows));
            }
        }
        ModelsCommand::Show { name } => {
            let body = client.show_raw(&name).await?;
            if args.json {
                out(&format!("{body}\n"));
            } else {
                out(&model_details(&name, &body));
            }
        }
    }
    Ok(ExitStatus::Success)
}

/// `oc models` against an OpenAI-compatible server: `GET {base}/models`, in
/// the same rows as Ollama's list (what the server does not say is null).
async fn openai_models(client: &OpenAiClient, args: ModelsArgs) -> Result<ExitStatus> {
    let entries = client.models_raw().await?;
    match args.command.unwrap_or(ModelsCommand::List) {
        ModelsCommand::List => {
            let rows: Vec<Value> = entries.iter().map(openai_model_row).collect();
            if args.json {
                out(&format!("{}\n", Value::Array(rows)));
            } else if rows.is_empty() {
                print_warning(&format!("the server at {} lists no models", client.host()));
            } else {
                out(&models_table(&rows));
            }
        }
        ModelsCommand::Show { name } => {
            let Some(entry) = entries.iter().find(|m| m["id"] == name.as_str()) else {
                let ids: Vec<String> = (entries.iter().filter_map(|m| m["id"].as_str()))
                    .map(printable)
                    .collect();
                return Err(Error::Unavailable(format!(
                    "model `{name}` is not listed by {} (it lists: {})",
                    client.host(),
                    ids.join(", ")
                )));
            };
            if args.json {
                out(&format!("{entry}\n"));
            } else {
                let info = client.show(&name).await?;
                let row = openai_model_row(entry);
                let field = |v: &Value| v.as_str().map_or_else(|| "-".to_string(), str::to_string);
                let context = info
                    .context_length
                    .map_or_else(|| "- (the server decides)".into(), |n| n.to_string());
                out(&format!(
                    "{name}\n  {:<15}{}\n  {:<15}{}\n  {:<15}{context}\n  {:<15}{}\n",
                    "parameters",
                    field(&row["parameter_size"]),
                    "quantization",
                    field(&row["quantization_level"]),
                    "context length",
                    "owned by",
                    field(&entry["owned_by"]),
                ));
            }
        }
    }
    Ok(ExitStatus::Success)
}

/// One `/models` entry in the row shape of [`model_row`]: llama.cpp's
/// `meta` gives size, parameters, quantization and context; vLLM's
/// `max_model_len` the context.
fn openai_model_row(m: &Value) -> Value {
    let meta = &m["meta"];
    json!({
        "name": m["id"],
        "size": meta["size"],
        "parameter_size": meta["n_params"].as_f64().map(|n| format!("{:.1}B", n / 1e9)),
        "quantization_level": meta["ftype"],
        "context_length": meta["n_ctx"].as_u64().or_else(|| m["max_model_len"].as_u64()),
        "capabilities": Value::Null,
        "modified_at": Value::Null,
    })
}

/// One `/api/tags` entry as `oc models --json` prints it.
fn model_row(m: &Value) -> Value {
    let details = &m["details"];
    json!({
        "name": m["name"],
        "size": m["size"],
        "parameter_size": details["parameter_size"],
        "quantization_level": details["quantization_level"],
        "context_length": details["context_length"],
        "capabilities": m["capabilities"],
        "modified_at": m["modified_at"],
    })
}

/// Bytes as `986 MB`, `4.7 GB`.
fn human_size(bytes: u64) -> String {
    const GB: f64 = 1e9;
    const MB: f64 = 1e6;
    let b = bytes as f64;
    if b >= GB {
        format!("{:.1} GB", b / GB)
    } else {
        format!("{:.0} MB", b / MB)
    }
}

fn models_table(rows: &[Value]) -> String {
    // A server's names reach the terminal: no control characters (escape
    // sequences) among them.
    let text = |v: &Value| match v {
        Value::String(s) => printable(s),
        Value::Null => "-".to_string(),
        other => other.to_string(),
    };
    let mut table_rows = vec![
        [
            "NAME",
            "SIZE",
            "PARAMS",
            "QUANT",
            "CONTEXT",
            "MODIFIED (UTC)",
            "CAPABILITIES",
        ]
        .map(str::to_string)
        .to_vec(),
    ];
    for r in rows {
        let capabilities = r["capabilities"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        table_rows.push(vec![
            text(&r["name"]),
            r["size"].as_u64().map_or_else(|| "-".into(), human_size),
            text(&r["parameter_size"]),
            text(&r["quantization_level"]),
            text(&r["context_length"]),
            short_time(r["modified_at"].as_str().unwrap_or_default()),
            capabilities,
        ]);
    }
    table(&table_rows)
}

fn model_details(name: &str, body: &Value) -> String {
    let info = ModelInfo::from_show(body);
    let details = &body["details"];
    let field = |v: &Value| v.as_str().unwrap_or("-").to_string();
    let mut text = format!("{name}\n");
    let rows = [
        ("family", field(&details["family"])),
        ("parameters", field(&details["parameter_size"])),
        ("quantization", field(&details["quantization_level"])),
        (
            "context length",
            info.context_length
                .map_or_else(|| "-".into(), |n| n.to_string()),
        ),
        ("capabilities", info.capabilities.join(", ")),
        ("modified", field(&body["modified_at"])),
    ];
    for (label, value) in rows {
        text.push_str(&format!("  {label:<15}{value}\n"));
    }
    let modelfile = modelfile_parameters(body["parameters"].as_str().unwrap_or_default());
    if modelfile.is_empty() {
        text.push_str(&format!(
            "  {:<15}none set (the server's defaults apply)\n",
            "modelfile"
        ));
    }
    for (n, (key, values)) in modelfile.iter().enumerate() {
        let label = if n == 0 { "modelfile" } else { "" };
        text.push_str(&format!("  {label:<15}{key} {}\n", values.join(", ")));
    }
    text
}

/// The Modelfile parameters of `/api/show` (`parameters`: one `key value`
/// per line, keys repeated for lists such as `stop`), grouped by key in
/// their order. These decide sampling when `oc` sends no option.
fn modelfile_parameters(text: &str) -> Vec<(String, Vec<String>)> {
    let mut grouped: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let Some((key, value)) = line.trim().split_once(char::is_whitespace) else {
            continue;
        };
        let value = value.trim().to_string();
        match grouped.iter_mut().find(|(k, _)| k == key) {
            Some((_, values)) => values.push(value),
            None => grouped.push((key.to_string(), vec![value])),
        }
    }
    grouped
}

/// `oc completions SHELL`: the script on stdout.
pub fn completions(shell: clap_complete::Shell) -> ExitStatus {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "oc", &mut script);
    out(&String::from_utf8_lossy(&script));
    ExitStatus::Success
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_line_up() {
        let rows = vec![
            vec!["A".to_string(), "B".to_string()],
            vec!["long cell".to_string(), "x".to_string()],
        ];
        assert_eq!(table(&rows), "A          B\nlong cell  x\n");
        assert_eq!(human_size(986_000_000), "986 MB");
        assert_eq!(human_size(4_700_000_000), "4.7 GB");
        assert_eq!(short_time("2026-11-30T01:41:02.123Z"), "2026-11-30 01:41");
    }

    #[test]
    fn model_details_show_the_modelfile_parameters() {
        let body = serde_json::json!({
            "details": {"family": "qwen2", "parameter_size": "1.8B"},
            "capabilities": ["completion", "tools"],
            "parameters": "stop                           \"<|im_start|>\"\nstop                           \"<|im_end|>\"\ntemperature                    0.7",
        });
        let text = model_details("m", &body);
        assert!(
            text.contains("  modelfile      stop \"<|im_start|>\", \"<|im_end|>\"\n                 temperature 0.7\n"),
            "{text}"
        );
        let text = model_details("m", &serde_json::json!({"details": {}}));
        assert!(text.contains("modelfile      none set"), "{text}");
    }
}
