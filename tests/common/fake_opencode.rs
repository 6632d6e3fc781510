//! A fake opencode server (`opencode serve`) that replays real captures of
//! opencode 1.18.33 (`fixtures/opencode/`) over real TCP: `/global/health`,
//! `POST /session`, `prompt_async` (204), `GET /event` as the captured SSE
//! frames (released after the prompt; paused after each `permission.asked`
//! until it is answered), both permission reply endpoints, abort, and the
//! transcript.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::http::{Incoming, read_request};

/// A capture of `fixtures/opencode/`, e.g. `fixture("11-read-event.sse")`.
pub(crate) fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/opencode/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What the fake replays.
#[derive(Debug, Clone)]
pub(crate) struct Scenario {
    /// The captured event stream (`NN-…-event.sse`).
    pub events: &'static str,
    /// The captured transcript (`NN-…-messages.json`).
    pub messages: &'static str,
    /// Only the older reply endpoint exists (the newer one answers 404).
    pub legacy_only: bool,
    /// Frames sent before the stream stops sending (to be interrupted):
    /// after an abort, `session.error` and `session.idle` follow.
    pub hang_after: Option<usize>,
    /// Connections closed after this many frames each (the stream is
    /// resumed where it stopped on the next connection).
    pub drop_after: Option<usize>,
}

impl Scenario {
    pub(crate) fn new(events: &'static str, messages: &'static str) -> Scenario {
        Scenario {
            events,
            messages,
            legacy_only: false,
            hang_after: None,
            drop_after: None,
        }
    }
}

/// A request the fake received.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    pub path: String,
    pub body: Value,
}

struct State {
    scenario: Scenario,
    session: String,
    frames: Vec<String>,
    /// Frames already sent (over all connections).
    sent: usize,
    prompted: bool,
    aborted: bool,
    requests: Vec<Request>,
}

/// The running fake; it stops with the test process.
pub(crate) struct FakeOpencode {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    state: Arc<Mutex<State>>,
}

impl FakeOpencode {
    pub(crate) fn start(scenario: Scenario) -> FakeOpencode {
        let transcript: Value = serde_json::from_str(&fixture(scenario.messages)).unwrap();
        let session = transcript[0]["info"]["sessionID"]
            .as_str()
            .unwrap()
            .to_string();
        let frames = fixture(scenario.events)
            .split("\n\n")
            .filter(|f| f.starts_with("data: "))
            .map(|f| format!("{f}\n\n"))
            .collect();
        let state = Arc::new(Mutex::new(State {
            scenario,
            session,
            frames,
            sent: 0,
            prompted: false,
            aborted: false,
            requests: Vec::new(),
        }));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || handle(stream, &shared));
            }
        });
        FakeOpencode { url, state }
    }

    /// Every request received, in order.
    pub(crate) fn requests(&self) -> Vec<Request> {
        self.state.lock().unwrap().requests.clone()
    }

    /// The permission answers received: `(path, body)`.
    pub(crate) fn replies(&self) -> Vec<(String, Value)> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.contains("/permission"))
            .map(|r| (r.path, r.body))
            .collect()
    }
}

fn handle(stream: TcpStream, state: &Mutex<State>) {
    let Some(Incoming {
        method, path, body, ..
    }) = read_request(&stream)
    else {
        return;
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (session, legacy_only) = {
        let mut s = state.lock().unwrap();
        s.requests.push(Request {
            method: method.clone(),
            path: path.clone(),
            body: body.clone(),
        });
        (s.session.clone(), s.scenario.legacy_only)
    };
    let mut stream = stream;
    let ok = |stream: &mut TcpStream, body: &str| respond(stream, 200, body);
    match (method.as_str(), path.as_str()) {
        ("GET", "/global/health") => ok(&mut stream, &fixture("02-global-health.json")),
        ("POST", "/session") => ok(&mut stream, &json!({"id": session}).to_string()),
        ("GET", "/event") => stream_events(&mut stream, state),
        ("POST", p) if p.ends_with("/prompt_async") => {
            state.lock().unwrap().prompted = true;
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n");
        }
        ("POST", p) if p.starts_with("/permission/") && legacy_only => respond(
            &mut stream,
            404,
            &fixture("46-permission-reply-unknown.json"),
        ),
        ("POST", p) if p.starts_with("/permission/") || p.contains("/permissions/") => {
            ok(&mut stream, "true")
        }
        ("POST", p) if p.ends_with("/abort") => {
            state.lock().unwrap().aborted = true;
            ok(&mut stream, "true")
        }
        ("GET", p) if p.ends_with("/message") => {
            let messages = state.lock().unwrap().scenario.messages;
            ok(&mut stream, &fixture(messages))
        }
        _ => respond(
            &mut stream,
            404,
            &json!({"name": "NotFoundError", "data": {"message": "fake: no such route"}})
                .to_string(),
        ),
    }
}

fn respond(stream: &mut TcpStream, status: u16, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn chunk(stream: &mut TcpStream, data: &str) -> bool {
    write!(stream, "{:x}\r\n{data}\r\n", data.len()).is_ok() && stream.flush().is_ok()
}

/// Waits (10 s at most) until `done` says so.
fn wait_until(state: &Mutex<State>, done: impl Fn(&State) -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if done(&state.lock().unwrap()) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// `GET /event`: `server.connected`, then (once prompted) the captured
/// frames from where the last connection stopped.
fn stream_events(stream: &mut TcpStream, state: &Mutex<State>) {
    let _ = stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    if !chunk(
        stream,
        "data: {\"type\":\"server.connected\",\"properties\":{}}\n\n",
    ) {
        return;
    }
    if !wait_until(state, |s| s.prompted) {
        return;
    }
    let mut this_connection = 0;
    loop {
        let (frame, scenario) = {
            let s = state.lock().unwrap();
            (s.frames.get(s.sent).cloned(), s.scenario.clone())
        };
        let Some(frame) = frame else {
            let _ = chunk(stream, "");
            return;
        };
        if scenario.drop_after.is_some_and(|n| this_connection >= n) {
            return; // the connection closes mid-stream
        }
        if scenario
            .hang_after
            .is_some_and(|n| state.lock().unwrap().sent >= n)
        {
            wait_until(state, |s| s.aborted);
            let session = state.lock().unwrap().session.clone();
            for data in [
                json!({"type": "session.error", "properties": {"sessionID": session, "error": {"name": "MessageAbortedError", "data": {"message": "Aborted"}}}}),
                json!({"type": "session.idle", "properties": {"sessionID": session}}),
            ] {
                chunk(stream, &format!("data: {data}\n\n"));
            }
            return;
        }
        if !chunk(stream, &frame) {
            return;
        }
        state.lock().unwrap().sent += 1;
        this_connection += 1;
        if let Some(id) = asked_permission(&frame) {
            wait_until(state, |s| s.requests.iter().any(|r| r.path.contains(&id)));
        }
    }
}

/// The id of the permission a `permission.asked` frame asks.
fn asked_permission(frame: &str) -> Option<String> {
    let event: Value = serde_json::from_str(frame.strip_prefix("data: ")?.trim()).ok()?;
    (event["type"] == "permission.asked")
        .then(|| event["properties"]["id"].as_str().map(str::to_string))
        .flatten()
}
