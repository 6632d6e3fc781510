//! Ollama's native HTTP API: streaming `POST /api/chat`, `POST /api/show`,
//! `GET /api/tags`. Shapes follow the real captures in `fixtures/ollama/`.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::message::{Message, ToolCall};
use super::ndjson::LineBuffer;
use super::timeouts::Timeouts;
use crate::error::{Error, Result};
use crate::vocab::{Sampling, Think};

/// Body of `POST /api/chat` (always `stream: true`).
#[derive(Debug, Serialize)]
pub struct ChatRequest<'a> {
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
}

/// `options` of a chat request: the context window, and only the sampling
/// options the user set (the rest is the model's own Modelfile parameters).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ChatOptions {
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
    pub fn new(num_ctx: u32, sampling: &Sampling) -> Self {
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
pub struct ChatChunk {
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
    #[serde(default)]
    pub error: Option<String>,
}

/// The `message` part of a [`ChatChunk`].
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChunkMessage {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub thinking: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
}

/// What `/api/show` says about a model that the agent needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelInfo {
    /// e.g. `["completion", "tools", "insert"]`, `"thinking"`, `"vision"`.
    pub capabilities: Vec<String>,
    /// `model_info["<arch>.context_length"]` in tokens, when reported.
    pub context_length: Option<u64>,
    /// `details.parameter_size` in billions of parameters (`"1.8B"` is 1.8,
    /// `"494.03M"` is 0.494), when reported.
    pub parameter_billions: Option<f64>,
}

impl ModelInfo {
    /// Whether `capabilities` lists `name`.
    pub fn has(&self, name: &str) -> bool {
        self.capabilities.iter().any(|c| c == name)
    }

    /// Reads the fields of a `/api/show` response body.
    pub fn from_show(body: &Value) -> Self {
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
        }
    }
}

/// `"1.8B"` → 1.8, `"494.03M"` → 0.49403, `"7B"` → 7.
fn parse_parameter_size(text: &str) -> Option<f64> {
    let text = text.trim();
    let (number, scale) = match text.chars().last()?.to_ascii_uppercase() {
        'B' => (&text[..text.len() - 1], 1.0),
        'M' => (&text[..text.len() - 1], 0.001),
        'T' => (&text[..text.len() - 1], 1000.0),
        _ => (text, 1e-9),
    };
    number.trim().parse::<f64>().ok().map(|n| n * scale)
}

/// A client for one Ollama server.
#[derive(Debug, Clone)]
pub struct OllamaClient {
    http: reqwest::Client,
    timeouts: Timeouts,
    base: String,
    /// `base` without any `user:password@`, for messages.
    shown: String,
}

impl OllamaClient {
    /// A client for the server at `base` (as from
    /// [`super::host::normalize_host`], e.g. `http://127.0.0.1:11434`).
    pub fn new(base: &str, timeouts: Timeouts) -> Result<Self> {
        // reqwest is built without a bundled crypto provider; install ring's
        // once. A second install fails harmlessly.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!("oc/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(timeouts.connect)
            .build()
            .map_err(|e| Error::Server(format!("cannot set up the HTTP client: {e}")))?;
        let base = base.trim_end_matches('/').to_string();
        Ok(OllamaClient {
            http,
            timeouts,
            shown: super::host::display_host(&base),
            base,
        })
    }

    /// The base URL requests go to, without credentials.
    pub fn host(&self) -> &str {
        &self.shown
    }

    /// `POST /api/show {"model"}`: capabilities and context length.
    ///
    /// Errors: [`Error::Unreachable`], [`Error::ModelNotFound`] (404, with the
    /// models the server has), [`Error::Server`] for other statuses.
    pub async fn show(&self, model: &str) -> Result<ModelInfo> {
        Ok(ModelInfo::from_show(&self.show_raw(model).await?))
    }

    /// `POST /api/show {"model"}`: the whole answer (capture `04-show-*`).
    pub async fn show_raw(&self, model: &str) -> Result<Value> {
        let response = self
            .send(
                self.http
                    .post(self.url("/api/show"))
                    .timeout(self.timeouts.idle)
                    .json(&serde_json::json!({ "model": model })),
            )
            .await?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(self.model_not_found(model).await);
        }
        let body = self.body_json(response, "/api/show").await?;
        if !status.is_success() {
            return Err(self.status_error("/api/show", status, &body));
        }
        Ok(body)
    }

    /// `GET /api/tags`: the names of the models on the server.
    pub async fn tags(&self) -> Result<Vec<String>> {
        Ok(self
            .tags_raw()
            .await?
            .iter()
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect())
    }

    /// `GET /api/tags`: the `models` entries as sent (capture `03-tags`):
    /// `name`, `size` (bytes), `modified_at`, `details`, `capabilities`.
    pub async fn tags_raw(&self) -> Result<Vec<Value>> {
        let response = self
            .send(
                self.http
                    .get(self.url("/api/tags"))
                    .timeout(self.timeouts.idle),
            )
            .await?;
        let status = response.status();
        let body = self.body_json(response, "/api/tags").await?;
        if !status.is_success() {
            return Err(self.status_error("/api/tags", status, &body));
        }
        Ok(body["models"].as_array().cloned().unwrap_or_default())
    }

    /// `POST /api/chat` with `stream: true`. Returns once the status line and
    /// headers are in; read the chunks with [`ChatStream::next`].
    ///
    /// Errors: unreachable server, 404 (model not found), any other non-200
    /// status with the server's `error` text.
    pub async fn chat(&self, request: &ChatRequest<'_>) -> Result<ChatStream> {
        let wait = self.timeouts.first_byte;
        let send = self.send(self.http.post(self.url("/api/chat")).json(request));
        let response = tokio::time::timeout(wait, send).await.map_err(|_| {
            Error::Server(format!(
                "the Ollama server at {} sent no answer within {}s; a model that is still loading can take minutes on a small machine: raise `first_byte_timeout_secs` in the config",
                self.shown,
                wait.as_secs()
            ))
        })??;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(self.model_not_found(request.model).await);
        }
        if !status.is_success() {
            let body = self.body_json(response, "/api/chat").await?;
            return Err(self.status_error("/api/chat", status, &body));
        }
        Ok(ChatStream {
            response,
            timeouts: self.timeouts,
            got_chunk: false,
            host: self.shown.clone(),
            lines: LineBuffer::default(),
            queued: VecDeque::new(),
            line_number: 0,
            ended: false,
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Result<reqwest::Response> {
        request.send().await.map_err(|e| {
            if e.is_timeout() {
                Error::Unreachable {
                    host: self.shown.clone(),
                    reason: format!(
                        "no answer within {}s (`idle_timeout_secs`)",
                        self.timeouts.idle.as_secs()
                    ),
                }
            } else if e.is_connect() {
                Error::Unreachable {
                    host: self.shown.clone(),
                    reason: root_cause(&e.without_url()),
                }
            } else {
                Error::Server(format!(
                    "request to {} failed: {}",
                    self.shown,
                    root_cause(&e.without_url())
                ))
            }
        })
    }

    async fn body_json(&self, response: reqwest::Response, endpoint: &str) -> Result<Value> {
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| {
            Error::Server(format!(
                "reading the answer of {}{endpoint} failed: {}",
                self.shown,
                root_cause(&e.without_url())
            ))
        })?;
        match serde_json::from_slice(&bytes) {
            Ok(value) => Ok(value),
            // A non-JSON error body still says something useful.
            Err(_) if !status.is_success() => Ok(serde_json::json!({
                "error": String::from_utf8_lossy(&bytes).trim().to_string()
            })),
            Err(e) => Err(Error::Server(format!(
                "{}{endpoint} answered with something that is not JSON ({e}); is `--host` an Ollama server?",
                self.shown
            ))),
        }
    }

    fn status_error(&self, endpoint: &str, status: reqwest::StatusCode, body: &Value) -> Error {
        let text = body["error"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| body.to_string());
        Error::Server(format!(
            "the Ollama server at {} answered {status} to {endpoint}: {text}",
            self.shown
        ))
    }

    async fn model_not_found(&self, model: &str) -> Error {
        let available = match self.tags().await {
            Ok(names) if !names.is_empty() => format!(" (it has: {})", names.join(", ")),
            Ok(_) => " (it has no models yet)".to_string(),
            Err(_) => String::new(),
        };
        Error::ModelNotFound {
            model: model.to_string(),
            host: self.shown.clone(),
            available,
        }
    }
}

/// The body of a streamed `/api/chat` answer, read chunk by chunk.
#[derive(Debug)]
pub struct ChatStream {
    response: reqwest::Response,
    timeouts: Timeouts,
    /// Whether any body bytes arrived yet (the first wait is longer).
    got_chunk: bool,
    host: String,
    lines: LineBuffer,
    queued: VecDeque<Vec<u8>>,
    line_number: usize,
    ended: bool,
}

impl ChatStream {
    /// The next chunk, or `None` when the body ended. A `{"error": …}` line
    /// and a line that is not a chunk are errors; the caller decides what a
    /// body that ends without `done: true` means.
    pub async fn next(&mut self) -> Result<Option<ChatChunk>> {
        loop {
            if let Some(line) = self.queued.pop_front() {
                self.line_number += 1;
                return self.parse(&line).map(Some);
            }
            if self.ended {
                return Ok(None);
            }
            let (wait, setting) = if self.got_chunk {
                (self.timeouts.idle, "idle_timeout_secs")
            } else {
                (self.timeouts.first_byte, "first_byte_timeout_secs")
            };
            let chunk = tokio::time::timeout(wait, self.response.chunk())
                .await
                .map_err(|_| {
                    Error::Server(format!(
                        "the /api/chat stream from {} sent nothing for {}s; giving up (raise `{setting}` in the config to wait longer)",
                        self.host,
                        wait.as_secs()
                    ))
                })?;
            match chunk {
                Ok(Some(bytes)) => {
                    self.got_chunk = true;
                    self.queued.extend(self.lines.push(&bytes));
                }
                Ok(None) => {
                    self.ended = true;
                    self.queued.extend(self.lines.finish());
                }
                Err(e) => {
                    return Err(Error::Server(format!(
                        "the /api/chat stream from {} broke off: {}",
                        self.host,
                        root_cause(&e.without_url())
                    )));
                }
            }
        }
    }

    fn parse(&self, line: &[u8]) -> Result<ChatChunk> {
        let chunk: ChatChunk = serde_json::from_slice(line).map_err(|e| {
            let text = String::from_utf8_lossy(line);
            let excerpt: String = text.chars().take(200).collect();
            Error::Server(format!(
                "line {} of the /api/chat stream from {} is not a chat chunk ({e}): {excerpt}",
                self.line_number, self.host
            ))
        })?;
        if let Some(message) = &chunk.error {
            return Err(Error::Server(format!(
                "the Ollama server at {} reported an error mid-stream: {message}",
                self.host
            )));
        }
        Ok(chunk)
    }
}

/// The innermost cause of an error, which for reqwest says what really
/// happened ("Connection refused").
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    let inner = cause.to_string();
    let outer = e.to_string();
    if inner == outer {
        outer
    } else {
        format!("{outer}: {inner}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let messages = [Message::text(super::super::message::Role::User, "hi")];
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
