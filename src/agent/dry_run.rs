//! `--dry-run`: the first request of a run as it would be sent, built the
//! way [`super::run`] builds it (route, protocol, system prompt, the files
//! the prompt is about) in the provider's wire format, and nothing sent.
//! What the model can do is asked of the server (`/api/show`) when it
//! answers; otherwise it is assumed, and the assumption is said.

use std::time::Duration;

use super::calls::CallRunner;
use super::edits::Protocol;
use super::opening::{self, Start};
use super::route;
use super::setup::{self, ModelSetup};
use super::structured;
use crate::client::{ChatRequest, ModelClient, ModelInfo};
use crate::config::Settings;
use crate::error::{Error, Result};
use crate::job::{OutputSchema, open_workspace};
use crate::permissions::HeadlessApprover;
use crate::ui::Output;
use crate::vocab::{EditFormat, Provider};

/// How long a dry run waits for the server to describe the model before it
/// assumes instead.
const SHOW_WAIT: Duration = Duration::from_secs(10);

/// The first request of a run, and what shaped it.
#[derive(Debug)]
pub(crate) struct DryRun {
    /// The JSON body as it would be posted: Ollama `/api/chat`, or OpenAI
    /// `/chat/completions` ([`crate::client::openai_wire::request_body`]).
    pub body: String,
    /// Bytes of the system prompt.
    pub system_bytes: usize,
    /// Bytes of the tool schemas sent as `tools` (0 when none are).
    pub tools_bytes: usize,
    /// The protocol in words, e.g. "whole files (qwen2.5-coder:1.5b has
    /// 1.5B parameters, the server says)".
    pub protocol: String,
    /// The request's tokens as the run counts them before sending
    /// ([`super::context::request_tokens`]: the text, not its JSON).
    pub tokens: u64,
    /// The context the run would count against, in tokens (`num_ctx`).
    pub num_ctx: u32,
    /// Whether the run compacts (no `--no-compact`): a request that does
    /// not fit then ends the run (exit 4) instead of going to the server.
    pub compacts: bool,
}

/// Builds the first request for `prompt` without sending it. The files the
/// prompt names are read (through the permission rules, as in a run);
/// nothing is written, no command runs (`--check`'s first run included)
/// and no session is saved. Notes on what a run would say go to `out`.
///
/// Errors: an unusable workspace (exit 2); a server that does not have the
/// model (exit 3); a body that cannot be encoded.
pub(crate) async fn dry_run(
    settings: &Settings,
    prompt: &str,
    schema: Option<&OutputSchema>,
    out: &mut dyn Output,
) -> Result<DryRun> {
    let client = settings.model_client()?;
    let workspace = open_workspace(&settings.cwd)?;
    let (info, source) = describe_model(&client, settings).await?;
    let task = route::decide(
        settings.task,
        settings.mode,
        prompt,
        settings.enabled(crate::heuristics::Heuristic::Route),
    );
    if settings.mode == crate::vocab::Mode::Code && task == crate::vocab::Task::Answer {
        // Said on stderr; a dry run writes no result to keep it in.
        route::say_answer(settings.task, prompt, out);
    }
    let mut model = ModelSetup::from_capabilities(&info, settings, task, out);
    if let Some(schema) = schema {
        model = model.held_to(schema.schema.clone());
    }
    let mut session = setup::open_session(settings, None, prompt, &model, &workspace, out);
    let mut protocol = model.protocol(workspace.root(), settings.heuristics);
    let mut approver = HeadlessApprover;
    let mut calls = CallRunner::new(settings, &workspace, protocol.runnable(), &mut approver);
    let start = Start::for_run(settings, &model, None);
    opening::open(
        &mut session,
        prompt.to_string(),
        &mut protocol,
        &mut calls,
        start,
        out,
    )
    .await;
    if let Some(schema) = schema {
        structured::instruct(&mut session, schema);
    }
    let messages = protocol.wire(session.messages());
    let request = ChatRequest {
        model: &settings.model,
        messages: &messages,
        tools: model.wire_schemas(),
        stream: true,
        think: model.think,
        options: model.options(settings),
        format: model.output_schema.as_ref(),
        first_byte: None,
    };
    let body = serde_json::to_string(&client.request_body(&request))
        .map_err(|e| Error::Server(format!("cannot encode the request: {e}")))?;
    let tools_bytes = match model.wire_schemas() {
        [] => 0,
        schemas => serde_json::to_string(schemas).map_or(0, |t| t.len()),
    };
    Ok(DryRun {
        body,
        system_bytes: session.messages().first().map_or(0, |m| m.content.len()),
        tools_bytes,
        protocol: format!("{} ({source})", describe_protocol(&protocol, &model)),
        tokens: super::context::request_tokens(&messages, model.wire_schemas()),
        num_ctx: model.num_ctx,
        compacts: settings.compact_at.is_some(),
    })
}

/// What the server says of the model, or an assumption when it cannot say
/// (unreachable, too slow), with where it came from.
///
/// Errors: the server answers that it does not have the model, or it is no
/// Ollama server (exit 3, as the run would).
async fn describe_model(client: &ModelClient, settings: &Settings) -> Result<(ModelInfo, String)> {
    let model = &settings.model;
    let why = match tokio::time::timeout(SHOW_WAIT, client.show(model)).await {
        // As the run would: no model, or no Ollama there (exit 3).
        Ok(Err(missing @ (Error::ModelNotFound { .. } | Error::Unavailable(_)))) => {
            return Err(missing);
        }
        Ok(Ok(info)) => {
            let size = info
                .parameter_billions
                .map(|b| format!("{model} has {b}B parameters"))
                .unwrap_or_else(|| format!("{model}, of no reported size"));
            return Ok((info, format!("{size}, the server says")));
        }
        Ok(Err(e)) => {
            let e = e.to_string();
            let first_line = e.lines().next().unwrap_or_default();
            format!("the server could not describe it: {first_line}")
        }
        Err(_) => format!(
            "the server did not describe it within {}s",
            SHOW_WAIT.as_secs()
        ),
    };
    let info = assumed_info(model, settings.provider);
    let size = info
        .parameter_billions
        .map(|b| format!("{b}B parameters, from its name"))
        .unwrap_or_else(|| "no size in its name".to_string());
    Ok((info, format!("assumed: native tool calling, {size}; {why}")))
}

/// A model the server did not describe: native tool calling, and the size
/// its name gives (`qwen2.5-coder:1.5b`, `Llama-3.2-3B-Instruct`).
fn assumed_info(model: &str, provider: Provider) -> ModelInfo {
    ModelInfo {
        capabilities: vec!["completion".into(), "tools".into()],
        context_length: None,
        parameter_billions: billions_in_name(model),
        context_set_by_server: provider == Provider::OpenAi,
    }
}

/// The parameter count a model's name states, in billions: `1.5b`, `3B`,
/// `135m` (0.135) as a word of its own (after `:`, `-`, `_`, `/` or a
/// space). `None` when the name states none.
fn billions_in_name(model: &str) -> Option<f64> {
    model
        .split([':', '-', '_', '/', ' '])
        .find_map(|word| {
            let lower = word.to_ascii_lowercase();
            let (number, scale) = match lower.as_bytes().last()? {
                b'b' => (&lower[..lower.len() - 1], 1.0),
                b'm' => (&lower[..lower.len() - 1], 0.001),
                _ => return None,
            };
            number.parse::<f64>().ok().map(|n| n * scale)
        })
        .filter(|b| *b > 0.0)
}

/// The protocol in words.
fn describe_protocol(protocol: &Protocol, model: &ModelSetup) -> String {
    let answering = model.task == crate::vocab::Task::Answer;
    let purpose = if answering { "an answer" } else { "a change" };
    let how = match (protocol, model.edit_format) {
        (Protocol::FileBlocks(_), EditFormat::Diff) => "SEARCH/REPLACE blocks",
        (Protocol::FileBlocks(_), _) => "whole files",
        (Protocol::ToolCalls { offered, .. }, _) if offered.is_empty() => "no tools",
        (Protocol::ToolCalls { fenced: true, .. }, _) => "tools described in the system prompt",
        (Protocol::ToolCalls { .. }, _) => "native tool calls",
    };
    format!("{purpose}, {how}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_from_model_names() {
        assert_eq!(billions_in_name("qwen2.5-coder:1.5b"), Some(1.5));
        assert_eq!(billions_in_name("llama3.2:3b-instruct-q4_K_M"), Some(3.0));
        assert_eq!(billions_in_name("Qwen2.5-Coder-7B-Instruct"), Some(7.0));
        assert_eq!(billions_in_name("smollm:135m"), Some(0.135));
        assert_eq!(billions_in_name("qwen2.5-coder"), None);
        assert_eq!(billions_in_name("gpt-4o"), None);
        assert_eq!(billions_in_name("model:latest"), None);
    }
}
