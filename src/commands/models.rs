//! `oc models list|show`: the models a server has, with their size,
//! context and capabilities.

use serde_json::{Value, json};

use crate::cli::{ModelsArgs, ModelsCommand};
use crate::client::{ModelClient, ModelInfo, OpenAiClient, printable};
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::ui::{out, print_warning, short_time, table};

/// `oc models [list]` and `oc models show NAME`.
pub(super) async fn models(settings: &Settings, args: ModelsArgs) -> Result<ExitStatus> {
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
