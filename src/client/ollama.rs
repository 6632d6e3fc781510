//! Ollama's native HTTP API: streaming `POST /api/chat`, `POST /api/show`,
//! `GET /api/tags`. Shapes follow the real captures in `fixtures/ollama/`.

use std::collections::VecDeque;

use serde_json::Value;

use super::chat::{ChatChunk, ChatRequest, ModelInfo};
use super::http::{ServerName, http_client, read_body, root_cause, send};
use super::ndjson::LineBuffer;
use super::timeouts::Timeouts;
use crate::error::{Error, Result};

/// A client for one Ollama server.
#[derive(Debug, Clone)]
pub(crate) struct OllamaClient {
    http: reqwest::Client,
    timeouts: Timeouts,
    base: String,
    /// Its address without any `user:password@`, for messages.
    server: ServerName,
}

impl OllamaClient {
    /// A client for the server at `base` (as from
    /// [`super::host::normalize_host`], e.g. `http://127.0.0.1:11434`).
    pub(crate) fn new(base: &str, timeouts: Timeouts) -> Result<Self> {
        let http = http_client(timeouts)?;
        let base = base.trim_end_matches('/').to_string();
        Ok(OllamaClient {
            http,
            timeouts,
            server: ServerName {
                kind: "the Ollama server",
                shown: super::host::display_host(&base),
                hint: "Start it with `ollama serve`, or point `--host` / `OLLAMA_HOST` at a running server.",
            },
            base,
        })
    }

    /// The base URL requests go to, without credentials.
    pub(crate) fn host(&self) -> &str {
        &self.server.shown
    }

    /// `POST /api/show {"model"}`: capabilities and context length.
    ///
    /// Errors: [`Error::Unreachable`], [`Error::ModelNotFound`] (404, with the
    /// models the server has), [`Error::Unavailable`] for an answer without
    /// Ollama's JSON error (not an Ollama server), [`Error::Server`] for
    /// other statuses.
    pub(crate) async fn show(&self, model: &str) -> Result<ModelInfo> {
        Ok(ModelInfo::from_show(&self.show_raw(model).await?))
    }

    /// `POST /api/show {"model"}`: the whole answer (capture `04-show-*`).
    pub(crate) async fn show_raw(&self, model: &str) -> Result<Value> {
        let response = self
            .send(
                self.http
                    .post(self.url("/api/show"))
                    .timeout(self.timeouts.idle)
                    .json(&serde_json::json!({ "model": model })),
            )
            .await?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND && self.base.ends_with("/v1") {
            return Err(Error::Usage(format!(
                "{} is an OpenAI-compatible API root (it ends in `/v1`), not an Ollama server; add `--provider openai --base-url {}` to the command (e.g. `oc run --provider openai --base-url {} \"…\"`)",
                self.server.shown, self.server.shown, self.server.shown
            )));
        }
        self.model_json(response, "/api/show", "details", model)
            .await
    }

    /// As [`Self::ollama_json`], with Ollama's own 404 error read as
    /// `model` missing ([`Error::ModelNotFound`], with the models the
    /// server has).
    async fn model_json(
        &self,
        response: reqwest::Response,
        endpoint: &str,
        key: &str,
        model: &str,
    ) -> Result<Value> {
        let status = response.status();
        match self.ollama_json(response, endpoint, key).await {
            Err(Error::Server(_)) if status == reqwest::StatusCode::NOT_FOUND => {
                Err(self.model_not_found(model).await)
            }
            answer => answer,
        }
    }

    /// The JSON of an answer to `endpoint`: an object with `key` (Ollama's
    /// answers always have it: `details` of `/api/show`, `models` of
    /// `/api/tags`), or Ollama's `{"error": "…"}` (capture
    /// `04-show-not-found`; [`Error::Server`] with its text). Anything else
    /// is another kind of server ([`Error::Unavailable`], exit 3).
    async fn ollama_json(
        &self,
        response: reqwest::Response,
        endpoint: &str,
        key: &str,
    ) -> Result<Value> {
        let status = response.status();
        let redirected = (!response.url().as_str().starts_with(&self.base))
            .then(|| super::host::display_host(response.url().as_str()));
        let bytes = read_body(response, &self.server, endpoint).await?;
        let body = serde_json::from_slice::<Value>(&bytes).ok();
        match body {
            Some(body) if status.is_success() && body.get(key).is_some() => Ok(body),
            Some(body) if !status.is_success() && body["error"].is_string() => {
                Err(self.status_error(endpoint, status, &body))
            }
            _ => Err(self.not_ollama(endpoint, status, redirected.as_deref())),
        }
    }

    /// A server at the host that does not answer as Ollama does (an HTML
    /// page, JSON of another shape), `redirected` to another address or
    /// not: exit 3.
    fn not_ollama(
        &self,
        endpoint: &str,
        status: reqwest::StatusCode,
        redirected: Option<&str>,
    ) -> Error {
        let after = redirected.map_or(String::new(), |to| {
            format!(" after a redirect to {to} (a redirect turns a POST into a GET)")
        });
        Error::Unavailable(format!(
            "the server at {host} does not answer as Ollama does: {status} to {endpoint}{after}, not in Ollama's JSON (another program on that port, or a proxy before Ollama that refuses or cannot reach it)\nPoint `--host` / `OLLAMA_HOST` at Ollama itself (`curl {host}/api/tags` lists its models), or use `--provider openai --base-url URL` for an OpenAI-compatible server.",
            host = self.server.shown
        ))
    }

    /// `GET /api/tags`: the names of the models on the server.
    pub(crate) async fn tags(&self) -> Result<Vec<String>> {
        Ok(self
            .tags_raw()
            .await?
            .iter()
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect())
    }

    /// `GET /api/tags`: the `models` entries as sent (capture `03-tags`):
    /// `name`, `size` (bytes), `modified_at`, `details`, `capabilities`.
    pub(crate) async fn tags_raw(&self) -> Result<Vec<Value>> {
        let response = self
            .send(
                self.http
                    .get(self.url("/api/tags"))
                    .timeout(self.timeouts.idle),
            )
            .await?;
        let body = self.ollama_json(response, "/api/tags", "models").await?;
        Ok(body["models"].as_array().cloned().unwrap_or_default())
    }

    /// `POST /api/chat` with `stream: true`. Returns once the status line and
    /// headers are in; read the chunks with [`OllamaStream::next`].
    ///
    /// Errors: unreachable server, 404 (model not found), any other non-200
    /// status with the server's `error` text.
    pub(crate) async fn chat(&self, request: &ChatRequest<'_>) -> Result<OllamaStream> {
        let (timeouts, why) = request.timeouts(self.timeouts);
        let wait = timeouts.first_byte;
        let send = self.send(self.http.post(self.url("/api/chat")).json(request));
        let response = tokio::time::timeout(wait, send).await.map_err(|_| {
            Error::Server(format!(
                "the Ollama server at {} sent no answer within {}s{why}; a model that is still loading, or a long prompt on a slow machine, can take minutes: raise `first_byte_timeout_secs` in the config",
                self.server.shown,
                wait.as_secs()
            ))
        })??;
        let status = response.status();
        if !status.is_success() {
            let answer = self.model_json(response, "/api/chat", "error", request.model);
            // An error status is never an answer.
            let error = answer.await.err();
            return Err(error.unwrap_or_else(|| self.not_ollama("/api/chat", status, None)));
        }
        Ok(OllamaStream {
            response,
            timeouts,
            why,
            got_chunk: false,
            host: self.server.shown.clone(),
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
        send(request, &self.server, self.timeouts).await
    }

    fn status_error(&self, endpoint: &str, status: reqwest::StatusCode, body: &Value) -> Error {
        let text = body["error"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| body.to_string());
        Error::Server(format!(
            "the Ollama server at {} answered {status} to {endpoint}: {text}",
            self.server.shown
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
            host: self.server.shown.clone(),
            available,
        }
    }
}

/// The body of a streamed `/api/chat` answer, read chunk by chunk.
#[derive(Debug)]
pub(crate) struct OllamaStream {
    response: reqwest::Response,
    timeouts: Timeouts,
    /// Whether any body bytes arrived yet (the first wait is longer).
    got_chunk: bool,
    /// Why the first wait is longer than configured (empty when it is not).
    why: String,
    host: String,
    lines: LineBuffer,
    queued: VecDeque<Vec<u8>>,
    line_number: usize,
    ended: bool,
}

impl OllamaStream {
    /// The next chunk, or `None` when the body ended. A `{"error": …}` line
    /// and a line that is not a chunk are errors; the caller decides what a
    /// body that ends without `done: true` means.
    pub(crate) async fn next(&mut self) -> Result<Option<ChatChunk>> {
        loop {
            if let Some(line) = self.queued.pop_front() {
                self.line_number += 1;
                return self.parse(&line).map(Some);
            }
            if self.ended {
                return Ok(None);
            }
            let (wait, setting, why) = if self.got_chunk {
                (self.timeouts.idle, "idle_timeout_secs", "")
            } else {
                (
                    self.timeouts.first_byte,
                    "first_byte_timeout_secs",
                    self.why.as_str(),
                )
            };
            let chunk = tokio::time::timeout(wait, self.response.chunk())
                .await
                .map_err(|_| {
                    Error::Server(format!(
                        "the /api/chat stream from {} sent nothing for {}s{why}; giving up (raise `{setting}` in the config to wait longer)",
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
