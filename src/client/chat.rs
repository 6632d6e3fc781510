//! The provider-neutral shapes of one chat exchange: the request the loop
//! builds, the streamed deltas it reads and what a server says about a
//! model. [`ChatRequest`] serialises as Ollama's `/api/chat` body and
//! [`ChatChunk`] deserialises from Ollama's NDJSON lines; the
//! OpenAI-compatible client converts both ways (`client::openai_wire`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::message::{Message, ToolCall};
use super::timeouts::Timeouts;
use crate::vocab::{Sampling, Think};

/// Body of `POST /api/chat` (always `stream: true`).
#[derive(Debug, Serialize)]
pub(crate) struct ChatRequest<'a> {
    pub model: &'a str,
    pub messages: &'a [Message],
    /// Tool schemas `{"type": "function", "function": {name, description, parameters}}`;
    /// omitted when empty.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub tools: &'a [Value],
    pub stream: bool,
    /// Omitted for models without the `thinking` capability: Ollama answers
    /// 400 "does not support thinking" otherwise (capture 14).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    pub options: ChatOptions,
    /// `--output-schema`: a JSON Schema the reply is held to while it is
    /// decoded (Ollama's structured outputs); omitted without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'a Value>,
    /// A longer wait for the first streamed chunk than the configured one
    /// (a long prompt on a slow server: nothing streams while it is read),
    /// with why, for the message when it runs out. Not sent.
    #[serde(skip)]
    pub first_byte: Option<FirstByteWait>,
}

/// How long one request waits for its first chunk, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FirstByteWait {
    pub wait: std::time::Duration,
    /// e.g. "about 8514 prompt tokens at 10 tokens/s (assumed)".
    pub why: String,
}

impl ChatRequest<'_> {
    /// The timeouts of this request: `base`, with its longer first-chunk
    /// wait if it has one; and the words that explain that wait (empty
    /// without one).
    pub(crate) fn timeouts(&self, base: Timeouts) -> (Timeouts, String) {
        match &self.first_byte {
            Some(w) if w.wait > base.first_byte => (
                Timeouts {
                    first_byte: w.wait,
                    ..base
                },
                format!(
                    " (the wait was raised from {}s for {})",
                    base.first_byte.as_secs(),
                    w.why
                ),
            ),
            _ => (base, String::new()),
        }
    }
}

/// `options` of a chat request: the context window, and only the sampling
/// options the user set (the rest is the model's own Modelfile parameters).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct ChatOptions {
    pub num_ctx: u32,
    /// Most tokens in the reply; Ollama ends it with `done_reason: "length"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_predict: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
}

impl ChatOptions {
    /// `num_ctx` (tokens) and the sampling options that are set.
    pub(crate) fn new(num_ctx: u32, sampling: &Sampling) -> Self {
        ChatOptions {
            num_ctx,
            num_predict: None,
            temperature: sampling.temperature,
            top_p: sampling.top_p,
            top_k: sampling.top_k,
            presence_penalty: sampling.presence_penalty,
            seed: sampling.seed,
        }
    }
}

/// One line of the `/api/chat` NDJSON stream. `message.content` and
/// `message.thinking` are deltas; `tool_calls` arrive whole; the last chunk has
/// `done: true`, `done_reason` ("stop" / "length") and the token counts.
/// A line `{"error": "…"}` can appear inside a 200 stream.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ChatChunk {
    #[serde(default)]
    pub message: Option<ChunkMessage>,
    #[serde(default)]
    pub done: bool,
    #[serde(default)]
    pub done_reason: Option<String>,
    /// Prompt tokens evaluated for this request.
    #[serde(default)]
    pub prompt_eval_count: Option<u64>,
    /// Tokens generated for this request.
    #[serde(default)]
    pub eval_count: Option<u64>,
    /// Nanoseconds spent reading the prompt (the part not in the server's
    /// cache: this Ollama counts cached tokens in `prompt_eval_count`).
    #[serde(default)]
    pub prompt_eval_duration: Option<u64>,
    /// Nanoseconds spent generating `eval_count` tokens.
    #[serde(default)]
    pub eval_duration: Option<u64>,
    #[serde(default)]
    pub error: Option<String>,
}

/// The `message` part of a [`ChatChunk`].
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ChunkMessage {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub thinking: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
}

/// What `/api/show` says about a model that the agent needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ModelInfo {
    /// e.g. `["completion", "tools", "insert"]`, `"thinking"`, `"vision"`.
    pub capabilities: Vec<String>,
    /// `model_info["<arch>.context_length"]` in tokens, when reported.
    pub context_length: Option<u64>,
    /// `details.parameter_size` in billions of parameters (`"1.8B"` is 1.8,
    /// `"494.03M"` is 0.494), when reported.
    pub parameter_billions: Option<f64>,
    /// The server, not the request, sets the context size (OpenAI-compatible
    /// servers): `context_length` is then the size it runs with, when it
    /// reports one, and `num_ctx` is not sent.
    pub context_set_by_server: bool,
}

impl ModelInfo {
    /// Whether `capabilities` lists `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.capabilities.iter().any(|c| c == name)
    }

    /// Reads the fields of a `/api/show` response body.
    pub(crate) fn from_show(body: &Value) -> Self {
        let capabilities = body["capabilities"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let info = &body["model_info"];
        let context_length = info["general.architecture"]
            .as_str()
            .and_then(|arch| info[format!("{arch}.context_length")].as_u64())
            .or_else(|| {
                info.as_object()?
                    .iter()
                    .find(|(k, _)| k.ends_with(".context_length"))
                    .and_then(|(_, v)| v.as_u64())
            });
        ModelInfo {
            capabilities,
            context_length,
            parameter_billions: body["details"]["parameter_size"]
                .as_str()
                .and_then(parse_parameter_size),
            context_set_by_server: false,
        }
    }
}

/// `"1.8B"` → 1.8, `"494.03M"` → 0.49403, `"7B"` → 7.
pub(crate) fn parse_parameter_size(text: &str) -> Option<f64> {
    let text = text.trim();
    let (number, scale) = match text.chars().last()?.to_ascii_uppercase() {
        'B' => (&text[..text.len() - 1], 1.0),
        'M' => (&text[..text.len() - 1], 0.001),
        'T' => (&text[..text.len() - 1], 1000.0),
        _ => (text, 1e-9),
    };
    number.trim().parse::<f64>().ok().map(|n| n * scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::message::Role;
    use pretty_assertions::assert_eq;

    #[test]
    fn show_fixture_gives_capabilities_and_context_length() {
        let body: Value = serde_json::from_str(include_str!(
            "../../fixtures/ollama/04-show-qwen2.5-coder-1.5b.json"
        ))
        .unwrap();
        let info = ModelInfo::from_show(&body);
        assert_eq!(info.capabilities, vec!["completion", "tools", "insert"]);
        assert_eq!(info.context_length, Some(32768));
        assert!(info.has("tools"));
        assert!(!info.has("thinking"));
    }

    #[test]
    fn captured_tool_call_chunk_parses() {
        let line = include_str!("../../fixtures/ollama/07-chat-stream-tool-call.ndjson")
            .lines()
            .next()
            .unwrap();
        let chunk: ChatChunk = serde_json::from_str(line).unwrap();
        let calls = chunk.message.unwrap().tool_calls.unwrap();
        assert_eq!(calls[0].function.name, "read_file");
        assert_eq!(calls[0].id.as_deref(), Some("call_usotw8c9"));
        assert_eq!(calls[0].function.arguments["path"], "src/main.rs");
    }

    #[test]
    fn parameter_sizes_are_read_in_billions() {
        for (text, want) in [
            ("1.8B", Some(1.8)),
            ("494.03M", Some(0.49403)),
            ("7B", Some(7.0)),
            ("big", None),
        ] {
            let got = parse_parameter_size(text);
            assert!(
                got.zip(want).is_some_and(|(g, w)| (g - w).abs() < 1e-9) || got == want,
                "{text}: {got:?}"
            );
        }
        let show: Value = serde_json::from_str(include_str!(
            "../../fixtures/ollama/04-show-qwen2.5-coder-0.5b.json"
        ))
        .unwrap();
        assert!(
            ModelInfo::from_show(&show)
                .parameter_billions
                .is_some_and(|b| b < 1.0)
        );
    }

    #[test]
    fn request_omits_empty_tools_and_absent_think() {
        let messages = [Message::text(Role::User, "hi")];
        let request = ChatRequest {
            model: "m",
            messages: &messages,
            tools: &[],
            stream: true,
            think: None,
            options: ChatOptions::new(
                4096,
                &Sampling {
                    temperature: Some(0.2),
                    seed: Some(7),
                    ..Sampling::default()
                },
            ),
            format: None,
            first_byte: None,
        };
        let json = serde_json::to_value(&request).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "model": "m",
                "messages": [{"role": "user", "content": "hi"}],
                "stream": true,
                "options": {"num_ctx": 4096, "temperature": 0.2, "seed": 7}
            })
        );
    }
}
