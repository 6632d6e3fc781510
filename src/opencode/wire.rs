//! The opencode server's wire format (opencode 1.18, `opencode serve`;
//! captures in `fixtures/opencode/`): the events of `GET /event` (SSE
//! frames `data: {"id", "type", "properties"}`) that a run follows, and the
//! transcript of `GET /session/{id}/message`.

use serde::Deserialize;
use serde_json::Value;

/// One event of `GET /event`, read as far as a run needs it; other types
/// (`server.heartbeat`, `session.diff`, `plugin.added`, …) are [`Event::Other`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// `message.part.delta`: streamed text of a part (`field: "text"`).
    Delta {
        session: String,
        part: String,
        delta: String,
    },
    /// `message.part.updated`: a part was created or changed.
    Part {
        session: String,
        part: Part,
    },
    /// `message.updated`: a message was created or changed.
    Message {
        session: String,
        info: MessageInfo,
    },
    /// `permission.asked`: a tool waits for an answer.
    PermissionAsked(PermissionRequest),
    /// `session.error`: the session's step failed (`MessageAbortedError`
    /// after an abort, `UnknownError` for an unknown model…).
    SessionError {
        session: String,
        name: String,
        message: String,
    },
    /// `session.idle`: the session has nothing left to do.
    SessionIdle {
        session: String,
    },
    Other,
}

impl Event {
    /// Reads one SSE frame's data. Frames that do not parse are
    /// [`Event::Other`]: a newer server's events must not stop a run.
    pub(crate) fn parse(data: &str) -> Event {
        let Ok(raw) = serde_json::from_str::<RawEvent>(data) else {
            return Event::Other;
        };
        let p = raw.properties;
        let text =
            |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        let session = text(&p, "sessionID");
        match raw.kind.as_str() {
            "message.part.delta" if text(&p, "field") == "text" => Event::Delta {
                session,
                part: text(&p, "partID"),
                delta: text(&p, "delta"),
            },
            "message.part.updated" => match serde_json::from_value(p["part"].clone()) {
                Ok(part) => Event::Part { session, part },
                Err(_) => Event::Other,
            },
            "message.updated" => match serde_json::from_value(p["info"].clone()) {
                Ok(info) => Event::Message { session, info },
                Err(_) => Event::Other,
            },
            "permission.asked" => match serde_json::from_value(p) {
                Ok(request) => Event::PermissionAsked(request),
                Err(_) => Event::Other,
            },
            "session.error" => Event::SessionError {
                session,
                name: text(&p["error"], "name"),
                message: error_message(&p["error"]),
            },
            "session.idle" => Event::SessionIdle { session },
            _ => Event::Other,
        }
    }
}

/// The text of an opencode error object `{name, data: {message}}`.
pub(crate) fn error_message(error: &Value) -> String {
    error["data"]["message"]
        .as_str()
        .or_else(|| error["message"].as_str())
        .or_else(|| error["name"].as_str())
        .unwrap_or("unknown error")
        .to_string()
}

#[derive(Deserialize)]
struct RawEvent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    properties: Value,
}

/// A part of a message (`text`, `reasoning`, `tool`, `step-start`,
/// `step-finish`, `patch`, …).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct Part {
    pub id: String,
    #[serde(rename = "messageID", default)]
    pub message_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// `text` and `reasoning` parts: the whole text so far.
    #[serde(default)]
    pub text: String,
    /// `tool` parts: the tool's name (`read`, `write`, `edit`, `bash`, …).
    #[serde(default)]
    pub tool: String,
    #[serde(rename = "callID", default)]
    pub call_id: String,
    /// `tool` parts: `{status: pending|running|completed|error, input,
    /// output?, error?}`.
    #[serde(default)]
    pub state: Value,
    /// `patch` parts: the files the step changed (absolute paths).
    #[serde(default)]
    pub files: Vec<String>,
}

impl Part {
    /// A tool part's status.
    pub(crate) fn status(&self) -> &str {
        self.state["status"].as_str().unwrap_or("")
    }
}

/// A message's `info`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct MessageInfo {
    pub id: String,
    pub role: String,
    #[serde(default)]
    pub time: MessageTime,
    /// Assistant messages: `{input, output, reasoning, cache: {read, write}}`.
    #[serde(default)]
    pub tokens: Option<Tokens>,
    /// Assistant messages: why the step ended (`tool-calls`, `stop`, …).
    #[serde(default)]
    pub finish: Option<String>,
    #[serde(default)]
    pub error: Option<Value>,
}

/// `info.time` (epoch milliseconds).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub(crate) struct MessageTime {
    #[serde(default)]
    pub completed: Option<u64>,
}

/// Token counts of an assistant message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub(crate) struct Tokens {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
}

/// `permission.asked`: `{id, sessionID, permission, patterns, metadata,
/// always, tool?: {messageID, callID}}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct PermissionRequest {
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session: String,
    /// `edit` (write, edit), `bash`, `read`, `external_directory`, …
    pub permission: String,
    #[serde(default)]
    pub patterns: Vec<String>,
    /// `edit`: `{filepath, diff}`; `bash`: `{command}`.
    #[serde(default)]
    pub metadata: Value,
    #[serde(default)]
    pub tool: Option<PermissionTool>,
}

/// The tool call a permission request belongs to.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct PermissionTool {
    #[serde(rename = "callID", default)]
    pub call_id: String,
}

/// One message of `GET /session/{id}/message`: `{info, parts}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct TranscriptMessage {
    pub info: MessageInfo,
    #[serde(default)]
    pub parts: Vec<Part>,
}
