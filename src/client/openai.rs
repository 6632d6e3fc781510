//! OpenAI-compatible model servers: streaming `POST {base}/chat/completions`
//! (SSE), `GET {base}/models`, and llama.cpp's `/props` for the context
//! size. `base` is the API root the server documents, e.g.
//! `http://127.0.0.1:8080/v1`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt};
use serde_json::Value;

use super::chat::{ChatChunk, ChatRequest, ModelInfo, parse_parameter_size};
use super::http::{ServerName, http_client, printable, read_json, send};
use super::openai_wire::{ChunkReader, error_text, request_body};
use super::timeouts::Timeouts;
use crate::error::{Error, Result};

/// The API key of an OpenAI-compatible server and the environment variable
/// it was read from. Its value is never shown (not even by `Debug`).
#[derive(Clone)]
pub(crate) struct ApiKey {
    /// e.g. `OPENAI_API_KEY`, or what `api_key_env` names.
    pub variable: String,
    pub value: Option<String>,
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKey")
            .field("variable", &self.variable)
            .field("set", &self.value.is_some())
            .finish()
    }
}

impl ApiKey {
    /// Where the key comes from, for a refusal: the variable and whether
    /// it is set.
    fn hint(&self) -> String {
        let state = if self.value.is_some() {
            "set"
        } else {
            "not set"
        };
        format!(
            "the key is read from `{}` ({state}); set it, or name the variable that holds it with `api_key_env` in `OC_HOME/config.json`",
            self.variable
        )
    }

    /// `error` with the key's value replaced wherever a server echoed it.
    fn scrub(&self, error: Error) -> Error {
        let Some(key) = self.value.as_deref().filter(|k| !k.is_empty()) else {
            return error;
        };
        let clean = |text: String| text.replace(key, crate::secrets::REDACTED);
        match error {
            Error::Server(text) => Error::Server(clean(text)),
            Error::Unavailable(text) => Error::Unavailable(clean(text)),
            Error::ToolsRejected(text) => Error::ToolsRejected(clean(text)),
            Error::Usage(text) => Error::Usage(clean(text)),
            other => other,
        }
    }
}

/// A client for one OpenAI-compatible server.
#[derive(Debug, Clone)]
pub(crate) struct OpenAiClient {
    http: reqwest::Client,
    timeouts: Timeouts,
    base: String,
    /// Sent as `Authorization: Bearer …`; never shown, saved or logged.
    api_key: ApiKey,
    server: ServerName,
}

impl OpenAiClient {
    /// A client for the API at `base` (e.g. `http://127.0.0.1:8080/v1`),
    /// with an API key when its variable is set.
    ///
    /// Errors: the HTTP client cannot be set up; a key that cannot be a
    /// header value ([`Error::Usage`]).
    pub(crate) fn new(base: &str, api_key: ApiKey, timeouts: Timeouts) -> Result<Self> {
        if let Some(key) = &api_key.value
            && reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).is_err()
        {
            return Err(Error::Usage(format!(
                "the API key in `{}` holds characters a header cannot carry (a line break?); set it to the key alone",
                api_key.variable
            )));
        }
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
    pub(crate) fn host(&self) -> &str {
        &self.server.shown
    }

    /// `GET {base}/models`: the `data` entries as sent (`id`, `owned_by`;
    /// llama.cpp adds `meta.n_ctx` and `meta.n_params`, vLLM
    /// `max_model_len`).
    ///
    /// Errors: unreachable ([`Error::Unreachable`]); any other failure
    /// ([`Error::Unavailable`], exit 3: nothing can run without the list).
    pub(crate) async fn models_raw(&self) -> Result<Vec<Value>> {
        let listed = async {
            let (status, body) = self.get_json("/models").await?;
            if !status.is_success() {
                return Err(self.status_error("/models", status, &body));
            }
            Ok(body["data"].as_array().cloned().unwrap_or_default())
        };
        listed.await.map_err(|e| match self.api_key.scrub(e) {
            Error::Server(text) => Error::Unavailable(text),
            other => other,
        })
    }

    /// The model ids the server serves.
    /// The model ids the server serves, as printable text (control
    /// characters dropped: they reach the terminal in messages).
    pub(crate) async fn models(&self) -> Result<Vec<String>> {
        Ok(self
            .models_raw()
            .await?
            .iter()
            .filter_map(printable_id)
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
    pub(crate) async fn show(&self, model: &str) -> Result<ModelInfo> {
        let entries = self.models_raw().await?;
        let named = |m: &&Value| {
            m["id"] == model
                || m["aliases"]
                    .as_array()
                    .is_some_and(|a| a.contains(&Value::from(model)))
        };
        let Some(entry) = entries.iter().find(named).cloned() else {
            let ids: Vec<String> = entries.iter().filter_map(printable_id).collect();
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
    pub(crate) async fn chat(&self, request: &ChatRequest<'_>) -> Result<OpenAiStream> {
        self.start_chat(request)
            .await
            .map_err(|e| self.api_key.scrub(e))
    }

    async fn start_chat(&self, request: &ChatRequest<'_>) -> Result<OpenAiStream> {
        let (timeouts, why) = request.timeouts(self.timeouts);
        let wait = timeouts.first_byte;
        let body = request_body(request);
        let post = self.authorized(self.http.post(self.url("/chat/completions")).json(&body));
        let response = tokio::time::timeout(wait, send(post, &self.server, self.timeouts))
            .await
            .map_err(|_| {
                Error::Server(format!(
                    "{} at {} sent no answer within {}s{why}; a model that is still loading, or a long prompt on a slow machine, can take minutes: raise `first_byte_timeout_secs` in the config",
                    self.server.kind,
                    self.server.shown,
                    wait.as_secs()
                ))
            })??;
        let status = response.status();
        if !status.is_success() {
            let endpoint = "/chat/completions";
            let body = read_json(response, &self.server, endpoint, "")
                .await
                .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }));
            return Err(self.chat_error(request, status, &body).await);
        }
        let activity = Arc::new(Mutex::new(Instant::now()));
        let seen = Arc::clone(&activity);
        // Every byte counts as life, keep-alive comments too.
        let bytes = response.bytes_stream().inspect(move |_| {
            if let Ok(mut last) = seen.lock() {
                *last = Instant::now();
            }
        });
        Ok(OpenAiStream {
            events: Box::pin(bytes.eventsource()),
            activity,
            api_key: self.api_key.clone(),
            reader: ChunkReader::default(),
            queued: VecDeque::new(),
            timeouts,
            why,
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
                "{endpoint} refused the request ({status}: {text}); {}",
                self.api_key.hint()
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
        match &self.api_key.value {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    async fn get_json(&self, path: &str) -> Result<(reqwest::StatusCode, Value)> {
        let request = self.authorized(self.http.get(self.url(path)).timeout(self.timeouts.idle));
        let response = send(request, &self.server, self.timeouts).await?;
        let status = response.status();
        let hint = "is `--base-url` an OpenAI-compatible API root (it usually ends in `/v1`)?";
        Ok((status, read_json(response, &self.server, path, hint).await?))
    }

    fn status_error(&self, endpoint: &str, status: reqwest::StatusCode, body: &Value) -> Error {
        let text = error_text(body.get("error").unwrap_or(body));
        let hint = match status {
            reqwest::StatusCode::NOT_FOUND => {
                "; is `--base-url` the API root (it usually ends in `/v1`)?".to_string()
            }
            reqwest::StatusCode::UNAUTHORIZED | reqwest::StatusCode::FORBIDDEN => {
                format!("; {}", self.api_key.hint())
            }
            _ => String::new(),
        };
        Error::Server(format!(
            "{} at {} answered {status} to {endpoint}: {text}{hint}",
            self.server.kind, self.server.shown
        ))
    }
}

/// A `/models` entry's `id`, safe for a terminal.
fn printable_id(entry: &Value) -> Option<String> {
    entry["id"].as_str().map(printable)
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
pub(crate) struct OpenAiStream {
    events: Events,
    /// When the body last sent a byte.
    activity: Arc<Mutex<Instant>>,
    api_key: ApiKey,
    reader: ChunkReader,
    queued: VecDeque<ChatChunk>,
    timeouts: Timeouts,
    /// Why the first wait is longer than configured (empty when it is not).
    why: String,
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
    pub(crate) async fn next(&mut self) -> Result<Option<ChatChunk>> {
        let next = self.read_next().await;
        next.map_err(|e| self.api_key.scrub(e))
    }

    async fn read_next(&mut self) -> Result<Option<ChatChunk>> {
        loop {
            if let Some(chunk) = self.queued.pop_front() {
                return Ok(Some(chunk));
            }
            if self.ended {
                return Ok(None);
            }
            match self.next_event().await? {
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
                Some(Ok(event)) if event.event == "error" => {
                    return Err(Error::Server(format!(
                        "the OpenAI-compatible server at {} reported an error mid-stream: {}",
                        self.host, event.data
                    )));
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

    /// The next event, waiting while bytes (keep-alives too) keep coming.
    /// A reply whose finish reason arrived is complete even if the server
    /// then holds the connection open without `[DONE]`.
    async fn next_event(
        &mut self,
    ) -> Result<Option<Result<Event, EventStreamError<reqwest::Error>>>> {
        let (wait, setting, why) = if self.got_event {
            (self.timeouts.idle, "idle_timeout_secs", "")
        } else {
            (
                self.timeouts.first_byte,
                "first_byte_timeout_secs",
                self.why.as_str(),
            )
        };
        loop {
            match tokio::time::timeout(wait, self.events.next()).await {
                Ok(event) => {
                    self.got_event = true;
                    return Ok(event);
                }
                Err(_) if self.quiet_for() < wait => continue,
                Err(_) if self.reader.finished() => return Ok(None),
                Err(_) => {
                    return Err(Error::Server(format!(
                        "the chat-completions stream from {} sent nothing for {}s{why}; giving up (raise `{setting}` in the config to wait longer)",
                        self.host,
                        wait.as_secs()
                    )));
                }
            }
        }
    }

    fn quiet_for(&self) -> std::time::Duration {
        self.activity
            .lock()
            .map(|last| last.elapsed())
            .unwrap_or_default()
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
