//! What both model-server clients share about HTTP: the client itself and
//! error texts that say what really happened.

use serde_json::Value;

use super::timeouts::Timeouts;
use crate::error::{Error, Result};

/// Who answers requests, for error texts: the kind of server, its address
/// without credentials, and how to get one running.
#[derive(Debug, Clone)]
pub(crate) struct ServerName {
    /// "the Ollama server", "the OpenAI-compatible server".
    pub kind: &'static str,
    /// The base URL without `user:password@`.
    pub shown: String,
    /// What to do when it cannot be reached.
    pub hint: &'static str,
}

/// Sends `request`; a failure says whether the server could not be reached
/// ([`Error::Unreachable`], exit 3) or the exchange broke.
pub(crate) async fn send(
    request: reqwest::RequestBuilder,
    server: &ServerName,
    timeouts: Timeouts,
) -> Result<reqwest::Response> {
    request.send().await.map_err(|e| {
        let unreachable = |reason| Error::Unreachable {
            server: server.kind,
            host: server.shown.clone(),
            reason,
            hint: server.hint,
        };
        if e.is_connect() && e.is_timeout() {
            unreachable(format!(
                "no connection within {}s (`connect_timeout_secs`)",
                timeouts.connect.as_secs()
            ))
        } else if e.is_timeout() {
            unreachable(format!(
                "no answer within {}s (`idle_timeout_secs`)",
                timeouts.idle.as_secs()
            ))
        } else if e.is_connect() {
            unreachable(root_cause(&e.without_url()))
        } else {
            Error::Server(format!(
                "request to {} failed: {}",
                server.shown,
                root_cause(&e.without_url())
            ))
        }
    })
}

/// A reqwest client with `oc`'s user agent and connect timeout.
///
/// Errors: [`Error::Server`] when the TLS setup fails.
pub(crate) fn http_client(timeouts: Timeouts) -> Result<reqwest::Client> {
    // reqwest is built without a bundled crypto provider; install ring's
    // once. A second install fails harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("oc/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(timeouts.connect)
        .build()
        .map_err(|e| Error::Server(format!("cannot set up the HTTP client: {e}")))
}

/// Reads a JSON answer of `endpoint`. A body that is not JSON is an error
/// object (its first 300 characters on one line) when the status is one,
/// and an error saying `hint` otherwise.
///
/// Errors: the body cannot be read, or a success that is not JSON
/// ([`Error::Server`]).
pub(crate) async fn read_json(
    response: reqwest::Response,
    server: &ServerName,
    endpoint: &str,
    hint: &str,
) -> Result<Value> {
    let status = response.status();
    let bytes = read_body(response, server, endpoint).await?;
    match serde_json::from_slice(&bytes) {
        Ok(value) => Ok(value),
        // A non-JSON error body still says something useful.
        Err(_) if !status.is_success() => Ok(plain_error(&bytes)),
        Err(e) => Err(Error::Server(format!(
            "{}{endpoint} answered with something that is not JSON ({e}); {hint}",
            server.shown
        ))),
    }
}

/// The whole body of an answer to `endpoint`.
///
/// Errors: it cannot be read ([`Error::Server`]).
pub(crate) async fn read_body(
    response: reqwest::Response,
    server: &ServerName,
    endpoint: &str,
) -> Result<Vec<u8>> {
    let bytes = response.bytes().await.map_err(|e| {
        Error::Server(format!(
            "reading the answer of {}{endpoint} failed: {}",
            server.shown,
            root_cause(&e.without_url())
        ))
    })?;
    Ok(bytes.to_vec())
}

/// A body that is not JSON (an HTML error page), as an error object: its
/// first 300 characters on one line.
fn plain_error(bytes: &[u8]) -> Value {
    let text = String::from_utf8_lossy(bytes);
    let mut line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 300 {
        line = line.chars().take(300).collect::<String>() + "…";
    }
    serde_json::json!({ "error": line })
}

/// Text a server sent, safe for a terminal: control characters (escape
/// sequences) dropped.
pub(crate) fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// The innermost cause of an error, which for reqwest says what really
/// happened ("Connection refused").
pub(crate) fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
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
