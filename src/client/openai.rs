//! OpenAI-compatible model servers: streaming `POST {base}/chat/completions`
//! (SSE), `GET {base}/models`, and llama.cpp's `/props` for the context
//! size. `base` is the API root the server documents, e.g.
//! `http://127.0.0.1:8080/v1`.

use std::collections::VecDeque;
use std::pin::Pin;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt};
use serde_json::Value;

use super::chat::{ChatChunk, ChatRequest, ModelInfo, parse_parameter_size};
use super::http::{ServerName, http_client, root_cause, send};
use super::openai_wire::{ChunkReader, error_text, request_body};
use super::timeouts::Timeouts;
use crate::error::{Error, Result};

/// A client for one OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    timeouts: Timeouts,
    base: String,
    /// Sent as `Authorization: Bearer …`; never shown, saved or logged.
    api_key: Option<String>,
    server: ServerName,
}

impl OpenAiClient {
    /// A client for the API at `base` (e.g. `http://127.0.0.1:8080/v1`),
    /// with an optional API key.
    pub fn new(base: &str, api_key: Option<String>, timeouts: Timeouts) -> Result<Self> {
        let base = base.trim_end_matches('/').to_string();
        Ok(OpenAiClient {
            http: http_client(timeouts)?,
            timeouts,
            server: ServerName {
                kind: "the OpenAI-compatible server",
                shown: super::host::display_host(&base),
                hint: "Start it (`scripts/local-model.sh` starts a llama.cpp server), or point `--base-url` at a running server's API root (it usually ends in `/v1`).",
            },
            api_key,
            base,
        })
    }

    /// The base URL requests go to, without credentials.
    pub fn host(&self) -> &str {
        &self.server.shown
    }

    /// `GET {base}/models`: the `data` entries as sent (`id`, `owned_by`;
    /// llama.cpp adds `meta.n_ctx` and `meta.n_params`, vLLM
    /// `max_model_len`).
    pub async fn models_raw(&self) -> Result<Vec<Value>> {
        let (status, body) = self.get_json("/models").await?;
        if !status.is_success() {
            return Err(self.status_error("/models", status, &body));
        }
        Ok(body["data"].as_array().cloned().unwrap_or_default())
    }

    /// The model ids the server serves.
    pub async fn models(&self) -> Result<Vec<String>> {
        Ok(self
            .models_raw()
            .await?
            .iter()
            .filter_map(|m| m["id"].as_str().map(str::to_string))
            .collect())
    }

    /// What the server says about `model`: its context size (llama.cpp
    /// `meta.n_ctx` or `/props` `n_ctx`, vLLM `max_model_len`), its size
    /// (`meta.n_params`, else a `1.5b`-like part of its name) and whether it
    /// takes images. Tool calling is assumed; a server that refuses `tools`
    /// is answered by falling back to the fenced protocol.
    ///
    /// Errors: the server cannot be reached ([`Error::Unreachable`]), does
    /// not list `model` by id or alias ([`Error::Unavailable`], exit 3), or
    /// its model list is not an OpenAI one.
    pub async fn show(&self, model: &str) -> Result<ModelInfo> {
        let entries = self.models_raw().await?;
        let named = |m: &&Value| {
            m["id"] == model
                || m["aliases"]
                    .as_array()
                    .is_some_and(|a| a.contains(&Value::from(model)))
        };
        let Some(entry) = entries.iter().find(named).cloned() else {
            let ids: Vec<&str> = entries.iter().filter_map(|m| m["id"].as_str()).collect();
            return Err(Error::Unavailable(format!(
                "model `{model}` is not served by {} at {} (it serves: {}); pick one with `--model`, `OC_MODEL` or `\"model\"` in the config (`oc models` lists them; llama-server's `--alias NAME` gives its model a short name)",
                self.server.kind,
                self.server.shown,
                if ids.is_empty() {
                    "nothing".to_string()
                } else {
                    ids.join(", ")
                }
            )));
        };
        let mut context_length = entry["meta"]["n_ctx"]
            .as_u64()
            .or_else(|| entry["max_model_len"].as_u64());
        if context_length.is_none() {
            context_length = self.props_context().await;
        }
        let parameter_billions = entry["meta"]["n_params"]
            .as_f64()
            .map(|n| n / 1e9)
            .or_else(|| billions_in_name(model));
        let mut capabilities = vec!["completion".to_string(), "tools".to_string()];
        let inputs = &entry["architecture"]["input_modalities"];
        if inputs
            .as_array()
            .is_some_and(|m| m.contains(&Value::from("image")))
        {
            capabilities.push("vision".to_string());
        }
        Ok(ModelInfo {
            capabilities,
            context_length,
            parameter_billions,
            context_set_by_server: true,
        })
    }

    /// llama.cpp's `GET /props` (beside `/v1`): `default_generation_settings.n_ctx`.
    async fn props_context(&self) -> Option<u64> {
        let root = self.base.strip_suffix("/v1")?;
        let request = self
            .http
            .get(format!("{root}/props"))
            .timeout(self.timeouts.idle);
        let response = send(request, &self.server, self.timeouts).await.ok()?;
        let body: Value = response.json().await.ok()?;
        body["default_generation_settings"]["n_ctx"]
            .as_u64()
            .or_else(|| body["n_ctx"].as_u64())
    }

    /// `POST {base}/chat/completions` with `stream: true`. Returns once the
    /// status line and headers are in; read the chunks with
    /// [`OpenAiStream::next`].
    ///
    /// Errors: unreachable server; 401/403 (the key); 404 (the model or the
    /// base URL); a refusal of `tools` ([`Error::ToolsRejected`], so the
    /// loop can fall back to the fenced protocol); a refused sampling option;
    /// any other non-200 status with the server's error text.
    pub async fn chat(&self, request: &ChatRequest<'_>) -> Result<OpenAiStream> {
        let wait = self.timeouts.first_byte;
        let body = request_body(request);
        let post = self.authorized(self.http.post(self.url("/chat/completions")).json(&body));
        let response = tokio::time::timeout(wait, send(post, &self.server, self.timeouts))
            .await
            .map_err(|_| {
                Error::Server(format!(
                    "{} at {} sent no answer within {}s; a model that is still loading can take minutes on a small machine: raise `first_byte_timeout_secs` in the config",
                    self.server.kind,
                    self.server.shown,
                    wait.as_secs()
                ))
            })??;
        let status = response.status();
        if !status.is_success() {
            let body = self.body_json(response).await;
            return Err(self.chat_error(request, status, &body).await);
        }
        let events = response.bytes_stream().eventsource();
        Ok(OpenAiStream {
            events: Box::pin(events),
            reader: ChunkReader::default(),
            queued: VecDeque::new(),
            timeouts: self.timeouts,
            got_event: false,
            ended: false,
            host: self.server.shown.clone(),
        })
    }

    /// What a refused chat request means, in words that say what to do.
    async fn chat_error(
        &self,
        request: &ChatRequest<'_>,
        status: reqwest::StatusCode,
        body: &Value,
    ) -> Error {
        let text = error_text(body.get("error").unwrap_or(body));
        let lower = text.to_lowercase();
        let endpoint = format!("{}/chat/completions", self.server.shown);
        if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
            return Error::Unavailable(format!(
                "{endpoint} refused the request ({status}: {text}); set the API key in `OPENAI_API_KEY`, or name the variable that holds it with `api_key_env` in the config"
            ));
        }
        if status == reqwest::StatusCode::NOT_FOUND {
            let served = match self.models().await {
                Ok(ids) if !ids.is_empty() => format!("it serves: {}", ids.join(", ")),
                Ok(_) => "it lists no models".to_string(),
                Err(_) => "its model list cannot be read either; is `--base-url` the API root (it usually ends in `/v1`)?".to_string(),
            };
            return Error::Unavailable(format!(
                "{endpoint} answered 404 for model `{}` ({text}); {served}. Pick one with `--model` (`oc models` lists them)",
                request.model
            ));
        }
        if !request.tools.is_empty()
            && (lower.contains("tool") || lower.contains("template") || lower.contains("function"))
        {
            return Error::ToolsRejected(format!("{status}: {text}"));
        }
        let unknown = ["top_k", "seed", "presence_penalty", "stream_options"]
            .into_iter()
            .find(|name| lower.contains(name));
        if let Some(name) = unknown {
            return Error::Server(format!(
                "{endpoint} refused the request ({status}: {text}); the server does not take `{name}`: drop the option that sets it (`--top-k`, `--seed`, `--presence-penalty` or the config) and try again"
            ));
        }
        Error::Server(format!("{endpoint} answered {status}: {text}"))
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    async fn get_json(&self, path: &str) -> Result<(reqwest::StatusCode, Value)> {
        let request = self.authorized(self.http.get(self.url(path)).timeout(self.timeouts.idle));
        let response = send(request, &self.server, self.timeouts).await?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| {
            Error::Server(format!(
                "reading the answer of {}{path} failed: {}",
                self.server.shown,
                root_cause(&e.without_url())
            ))
        })?;
        match serde_json::from_slice(&bytes) {
            Ok(body) => Ok((status, body)),
            Err(_) if !status.is_success() => Ok((status, plain_error(&bytes))),
            Err(e) => Err(Error::Server(format!(
                "{}{path} answered with something that is not JSON ({e}); is `--base-url` an OpenAI-compatible API root (it usually ends in `/v1`)?",
                self.server.shown
            ))),
        }
    }

    async fn body_json(&self, response: reqwest::Response) -> Value {
        let bytes = response.bytes().await.unwrap_or_default();
        serde_json::from_slice(&bytes).unwrap_or_else(|_| plain_error(&bytes))
    }

    fn status_error(&self, endpoint: &str, status: reqwest::StatusCode, body: &Value) -> Error {
        let text = error_text(body.get("error").unwrap_or(body));
        let hint = if status == reqwest::StatusCode::NOT_FOUND {
            "; is `--base-url` the API root (it usually ends in `/v1`)?"
        } else {
            ""
        };
        Error::Server(format!(
            "{} at {} answered {status} to {endpoint}: {text}{hint}",
            self.server.kind, self.server.shown
        ))
    }
}

/// A body that is not JSON, as an error object.
fn plain_error(bytes: &[u8]) -> Value {
    serde_json::json!({"error": String::from_utf8_lossy(bytes).trim().to_string()})
}

/// `qwen2.5-coder-1.5b-instruct` → 1.5, `Qwen/Qwen2.5-Coder-7B` → 7, from
/// the last `<number>b` part of a model name.
fn billions_in_name(model: &str) -> Option<f64> {
    let lower = model.to_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .filter(|part| part.ends_with('b') && part.len() > 1)
        .filter_map(parse_parameter_size)
        .next_back()
}

type Events = Pin<Box<dyn Stream<Item = Result<Event, EventStreamError<reqwest::Error>>> + Send>>;

/// The body of a streamed chat-completions answer (server-sent events),
/// read as [`ChatChunk`]s: text deltas as they come, then one final chunk
/// with `done: true`, the assembled tool calls and the usage.
pub struct OpenAiStream {
    events: Events,
    reader: ChunkReader,
    queued: VecDeque<ChatChunk>,
    timeouts: Timeouts,
    got_event: bool,
    ended: bool,
    host: String,
}

impl std::fmt::Debug for OpenAiStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiStream")
            .field("host", &self.host)
            .finish()
    }
}

impl OpenAiStream {
    /// The next chunk, or `None` when the body ended before the reply was
    /// complete (no `finish_reason` and no `[DONE]`). An `error` object in
    /// the stream and an event that is not a chunk are errors.
    pub async fn next(&mut self) -> Result<Option<ChatChunk>> {
        loop {
            if let Some(chunk) = self.queued.pop_front() {
                return Ok(Some(chunk));
            }
            if self.ended {
                return Ok(None);
            }
            let (wait, setting) = if self.got_event {
                (self.timeouts.idle, "idle_timeout_secs")
            } else {
                (self.timeouts.first_byte, "first_byte_timeout_secs")
            };
            let event = tokio::time::timeout(wait, self.events.next())
                .await
                .map_err(|_| {
                    Error::Server(format!(
                        "the chat-completions stream from {} sent nothing for {}s; giving up (raise `{setting}` in the config to wait longer)",
                        self.host,
                        wait.as_secs()
                    ))
                })?;
            self.got_event = true;
            match event {
                None => {
                    self.ended = true;
                    if self.reader.finished() {
                        self.queued.push_back(self.reader.finish());
                    }
                }
                Some(Err(e)) => {
                    return Err(Error::Server(format!(
                        "the chat-completions stream from {} broke off: {e}",
                        self.host
                    )));
                }
                Some(Ok(event)) if event.data.trim() == "[DONE]" => {
                    self.ended = true;
                    self.queued.push_back(self.reader.finish());
                }
                Some(Ok(event)) => {
                    let chunk = self.reader.read(&event.data).map_err(|e| {
                        Error::Server(format!(
                            "the OpenAI-compatible server at {} reported an error mid-stream: {e}",
                            self.host
                        ))
                    })?;
                    self.queued.extend(chunk);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_from_model_names() {
        assert_eq!(billions_in_name("qwen2.5-coder-1.5b-instruct"), Some(1.5));
        assert_eq!(
            billions_in_name("Qwen/Qwen2.5-Coder-7B-Instruct"),
            Some(7.0)
        );
        assert_eq!(billions_in_name("qwen2.5-coder:0.5b"), Some(0.5));
        assert_eq!(billions_in_name("gpt-4o"), None);
    }
}
