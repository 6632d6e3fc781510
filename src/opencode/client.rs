//! HTTP to an opencode server (`opencode serve`, no password): health,
//! sessions, the prompt, the event stream, permission replies (the current
//! endpoint, and the older one where the current one is missing), abort,
//! the transcript. Shapes in `fixtures/opencode/` (opencode 1.18.33).

use std::pin::Pin;

use eventsource_stream::{Event as SseEvent, EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};

use super::wire::{Event, PermissionRequest, TranscriptMessage, error_message};
use crate::client::Timeouts;
use crate::client::http::{ServerName, http_client, printable, read_json, send};
use crate::error::{Error, Result};

/// What to do when no opencode server answers.
pub(crate) const HINT: &str = "Start one with `opencode serve --hostname 127.0.0.1 --port 4096` and pass `--opencode-url http://127.0.0.1:4096`, or install opencode (`npm install -g opencode-ai`) and let oc start it";

/// An opencode server at `base` (e.g. `http://127.0.0.1:4096`).
#[derive(Debug, Clone)]
pub(crate) struct OpencodeClient {
    base: String,
    http: reqwest::Client,
    server: ServerName,
    timeouts: Timeouts,
}

/// A permission answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reply {
    Once,
    Reject,
}

impl Reply {
    fn as_str(self) -> &'static str {
        match self {
            Reply::Once => "once",
            Reply::Reject => "reject",
        }
    }
}

type Frames =
    Pin<Box<dyn Stream<Item = Result<SseEvent, EventStreamError<reqwest::Error>>> + Send>>;

/// `GET /event`: the server's events, as they come.
pub(crate) struct EventStream {
    frames: Frames,
}

impl EventStream {
    /// The next event; `None` when the server closed the stream.
    ///
    /// Errors: the connection broke ([`Error::Server`]).
    pub(crate) async fn next(&mut self) -> Result<Option<Event>> {
        match self.frames.next().await {
            None => Ok(None),
            Some(Ok(frame)) => Ok(Some(Event::parse(&frame.data))),
            Some(Err(e)) => Err(Error::Server(format!(
                "the opencode event stream broke: {e}"
            ))),
        }
    }
}

/// `--opencode-url` (or `opencode_url`) checked: an `http(s)://host[:port]`
/// URL, without a trailing slash.
///
/// Errors: anything else ([`Error::Usage`], exit 2), with the form to use.
pub(crate) fn server_url(text: &str) -> Result<String> {
    let text = text.trim();
    let bad = |why: &str| {
        let example = if text.contains("://") || text.is_empty() {
            "http://127.0.0.1:4096".to_string()
        } else {
            format!("http://{text}")
        };
        Error::Usage(format!(
            "the opencode server `{text}` {why}; give an http URL such as `{example}` (`--opencode-url`, config `opencode_url`)"
        ))
    };
    let url = url::Url::parse(text).map_err(|_| bad("is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("is not an http(s) URL"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("names no host"));
    }
    Ok(text.trim_end_matches('/').to_string())
}

impl OpencodeClient {
    /// A client for the server at `base` (no trailing slash).
    ///
    /// Errors: the HTTP client cannot be set up.
    pub(crate) fn new(base: &str, timeouts: Timeouts) -> Result<Self> {
        let base = base.trim_end_matches('/').to_string();
        Ok(OpencodeClient {
            http: http_client(timeouts)?,
            server: ServerName {
                kind: "the opencode server",
                shown: base.clone(),
                hint: HINT,
            },
            base,
            timeouts,
        })
    }

    /// The server's address.
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// `GET /global/health`: the server's version.
    ///
    /// Errors: no server answers ([`Error::Unreachable`], exit 3), or it
    /// is not healthy.
    pub(crate) async fn health(&self) -> Result<String> {
        let body = self.get_json("/global/health").await?;
        if body["healthy"] != true {
            return Err(Error::Unavailable(format!(
                "the opencode server at {} is not healthy: {}",
                self.base,
                printable(&body.to_string())
            )));
        }
        Ok(body["version"].as_str().unwrap_or("unknown").to_string())
    }

    /// `POST /session {title}`: a new session's id.
    pub(crate) async fn create_session(&self, title: &str) -> Result<String> {
        let body = self
            .post_json("/session", &json!({ "title": title }))
            .await?;
        body["id"].as_str().map(str::to_string).ok_or_else(|| {
            Error::Server(format!(
                "the opencode server made no session: {}",
                printable(&body.to_string())
            ))
        })
    }

    /// `GET /event`, opened before the prompt so that nothing is missed.
    pub(crate) async fn events(&self) -> Result<EventStream> {
        let request = self
            .http
            .get(format!("{}/event", self.base))
            .header("Accept", "text/event-stream");
        let response = send(request, &self.server, self.timeouts).await?;
        if !response.status().is_success() {
            let status = response.status();
            let body = read_json(response, &self.server, "/event", "").await?;
            return Err(Error::Server(format!(
                "the opencode event stream was refused ({status}): {}",
                error_message(&body)
            )));
        }
        Ok(EventStream {
            frames: Box::pin(response.bytes_stream().eventsource()),
        })
    }

    /// `POST /session/{id}/prompt_async`: starts the agent on `text` with
    /// `provider`/`model`; the server answers 204 at once.
    pub(crate) async fn prompt(
        &self,
        session: &str,
        text: &str,
        provider: &str,
        model: &str,
    ) -> Result<()> {
        let body = json!({
            "parts": [{"type": "text", "text": text}],
            "model": {"providerID": provider, "modelID": model},
        });
        let path = format!("/session/{session}/prompt_async");
        let response = self.post(&path, &body).await?;
        if response.status().is_success() {
            return Ok(());
        }
        let status = response.status();
        let body = read_json(response, &self.server, &path, "").await?;
        Err(Error::Server(format!(
            "the opencode server refused the prompt ({status}): {}",
            printable(&error_message(&body))
        )))
    }

    /// Answers a permission request: `POST /permission/{id}/reply`, or the
    /// older `POST /session/{session}/permissions/{id}` where the server
    /// does not know the first (404 for a request it still lists).
    pub(crate) async fn reply(&self, request: &PermissionRequest, reply: Reply) -> Result<()> {
        let current = format!("/permission/{}/reply", request.id);
        let response = self
            .post(&current, &json!({ "reply": reply.as_str() }))
            .await?;
        if response.status().is_success() {
            return Ok(());
        }
        let legacy = format!("/session/{}/permissions/{}", request.session, request.id);
        let response = self
            .post(&legacy, &json!({ "response": reply.as_str() }))
            .await?;
        if response.status().is_success() {
            return Ok(());
        }
        let status = response.status();
        let body = read_json(response, &self.server, &legacy, "").await?;
        Err(Error::Server(format!(
            "the opencode server did not take the answer to permission {} ({status}): {}",
            request.id,
            printable(&error_message(&body))
        )))
    }

    /// `POST /session/{id}/abort`: stops the session's work.
    pub(crate) async fn abort(&self, session: &str) -> Result<()> {
        self.post(&format!("/session/{session}/abort"), &Value::Null)
            .await
            .map(|_| ())
    }

    /// `GET /session/{id}/message`: the transcript, oldest first.
    pub(crate) async fn messages(&self, session: &str) -> Result<Vec<TranscriptMessage>> {
        let body = self
            .get_json(&format!("/session/{session}/message"))
            .await?;
        serde_json::from_value(body.clone()).map_err(|e| {
            Error::Server(format!(
                "the opencode transcript of {session} could not be read ({e}): {}",
                printable(&error_message(&body))
            ))
        })
    }

    async fn get_json(&self, path: &str) -> Result<Value> {
        let request = (self.http.get(format!("{}{path}", self.base))).timeout(self.timeouts.idle);
        let response = send(request, &self.server, self.timeouts).await?;
        self.success_body(response, path).await
    }

    async fn post_json(&self, path: &str, body: &Value) -> Result<Value> {
        let response = self.post(path, body).await?;
        self.success_body(response, path).await
    }

    /// The JSON body of a successful answer to `path`.
    ///
    /// Errors: another status, with the server's message ([`Error::Server`]).
    async fn success_body(&self, response: reqwest::Response, path: &str) -> Result<Value> {
        let status = response.status();
        let body = read_json(response, &self.server, path, "is it an opencode server?").await?;
        if !status.is_success() {
            return Err(Error::Server(format!(
                "{}{path} answered {status}: {}",
                self.base,
                printable(&error_message(&body))
            )));
        }
        Ok(body)
    }

    async fn post(&self, path: &str, body: &Value) -> Result<reqwest::Response> {
        let mut request =
            (self.http.post(format!("{}{path}", self.base))).timeout(self.timeouts.idle);
        if !body.is_null() {
            request = request.json(body);
        }
        send(request, &self.server, self.timeouts).await
    }
}
