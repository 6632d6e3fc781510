//! A fake Ollama server on 127.0.0.1 that speaks the wire format recorded in
//! `fixtures/ollama/`: the same status lines, headers, chunked NDJSON framing
//! (one line per HTTP chunk) and JSON fields. It replays scripted `/api/chat`
//! replies in order and records every request.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::http::{Incoming, read_request};
use super::openai_dialect::{as_ollama_request, error_body, events_of, models_body};
use super::tool_results::{self, Wire};

/// The model every test uses unless it says otherwise: the real capture of
/// `qwen2.5-coder:1.5b` (capabilities completion, tools, insert; context 32768).
pub(crate) const MODEL: &str = "qwen2.5-coder:1.5b";

/// A fixture file's text, from the repository's `fixtures/ollama/`.
pub(crate) fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/ollama/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

/// How a streamed body ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum End {
    /// The terminating zero-length chunk, as a real server sends.
    Clean,
    /// The connection closes mid-body, without the terminating chunk.
    Abrupt,
    /// The body stays open and silent for a minute after the lines, like a
    /// model that is still thinking.
    Stall,
}

/// One scripted answer to `POST /api/chat`.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// A 200 NDJSON stream. `split`: write the chunked body in pieces of this
    /// many bytes (cutting through lines and characters) instead of one line
    /// per chunk. Without `split`, a line `#sleep MS` pauses, and a line
    /// `#wait PATH` holds the rest back until the file PATH exists (at most
    /// 20 s): a test sees what `oc` shows before the reply is over.
    Stream {
        lines: Vec<String>,
        split: Option<usize>,
        end: End,
    },
    /// A single JSON body with a status, as Ollama sends its errors.
    Status { status: u16, body: String },
    /// `reply`, after `millis` of silence before even the status line: a
    /// server still reading a long prompt sends nothing at all.
    Delayed { millis: u64, reply: Box<Reply> },
    /// Server-sent events written as given (each a complete `data: …\n\n`
    /// or comment), one per HTTP chunk, or in pieces of `split` bytes; an
    /// entry `#sleep MS` pauses instead. `end` as for [`Reply::Stream`].
    Sse {
        events: Vec<String>,
        split: Option<usize>,
        end: End,
    },
}

impl Reply {
    /// A plain answer, streamed a few characters per chunk, then `done`.
    pub(crate) fn answer(text: &str) -> Reply {
        let mut lines: Vec<String> = chunks_of(text, 4).map(|t| content_chunk(&t)).collect();
        lines.push(done_chunk("stop"));
        Reply::lines(lines)
    }

    /// One chunk carrying whole tool calls `(name, arguments)`, then `done`,
    /// as in capture 07.
    pub(crate) fn tool_calls(calls: &[(&str, Value)]) -> Reply {
        Reply::lines(vec![tool_call_chunk(calls), done_chunk("stop")])
    }

    /// The given NDJSON lines, one per HTTP chunk, cleanly ended.
    pub(crate) fn lines(lines: Vec<String>) -> Reply {
        Reply::Stream {
            lines,
            split: None,
            end: End::Clean,
        }
    }

    /// A recorded SSE body from `fixtures/` (e.g.
    /// `llama-server/ls-06-chat-stream-tool-call.sse`), event by event.
    pub(crate) fn sse_fixture(name: &str, split: Option<usize>) -> Reply {
        let path = format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let events = text.split_inclusive("\n\n").map(str::to_string).collect();
        Reply::Sse {
            events,
            split,
            end: End::Clean,
        }
    }

    /// A recorded body from `fixtures/ollama/`, replayed line for line.
    pub(crate) fn fixture(name: &str) -> Reply {
        Reply::lines(fixture(name).lines().map(str::to_string).collect())
    }
}

fn chunks_of(text: &str, size: usize) -> impl Iterator<Item = String> + '_ {
    let chars: Vec<char> = text.chars().collect();
    (0..chars.len())
        .step_by(size)
        .map(move |i| chars[i..(i + size).min(chars.len())].iter().collect())
        .collect::<Vec<_>>()
        .into_iter()
}

const CREATED_AT: &str = "2026-11-29T23:57:55.213123687Z";

/// A content delta chunk, shaped like capture 05.
pub(crate) fn content_chunk(text: &str) -> String {
    json!({"model": MODEL, "created_at": CREATED_AT,
           "message": {"role": "assistant", "content": text}, "done": false})
    .to_string()
}

/// A thinking delta chunk (thinking models stream these before content).
pub(crate) fn thinking_chunk(text: &str) -> String {
    json!({"model": MODEL, "created_at": CREATED_AT,
           "message": {"role": "assistant", "content": "", "thinking": text}, "done": false})
    .to_string()
}

/// A chunk with whole tool calls, shaped like capture 07.
pub(crate) fn tool_call_chunk(calls: &[(&str, Value)]) -> String {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({"id": format!("call_{:08}", i + 1), "function": {"index": i, "name": name, "arguments": args}})
        })
        .collect();
    json!({"model": MODEL, "created_at": CREATED_AT,
           "message": {"role": "assistant", "content": "", "tool_calls": calls}, "done": false})
    .to_string()
}

/// The final chunk, shaped like capture 07's.
pub(crate) fn done_chunk(reason: &str) -> String {
    json!({"model": MODEL, "created_at": CREATED_AT,
           "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": reason,
           "total_duration": 2783483084u64, "load_duration": 1242361, "prompt_eval_count": 253,
           "prompt_eval_duration": 95572000, "eval_count": 27, "eval_duration": 2680962000u64})
    .to_string()
}

/// One request the server received.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub method: String,
    pub path: String,
    /// The JSON body, or `Null` when there was none; a chat-completions
    /// body in Ollama's `/api/chat` shape (see [`as_ollama_request`]).
    pub body: Value,
    /// The JSON body exactly as sent.
    pub raw: Value,
    /// The `Authorization` header, when sent.
    pub authorization: Option<String>,
}

#[derive(Default)]
struct State {
    models: HashMap<String, Value>,
    replies: VecDeque<Reply>,
    requests: Vec<Recorded>,
    /// Report `prompt_eval_count` as a real server would: the size of the
    /// request's prompt (bytes / 4).
    counting: bool,
    /// Answer summary requests (system prompt "You summarise a coding
    /// session…") with this text, outside the script.
    summary: Option<String>,
    /// Chat requests that broke the tool-result rule
    /// ([`tool_results::check`]), each with the reason; the server's handle
    /// panics on drop while any is here.
    violations: Vec<String>,
}

/// The running fake server. It stops with the test process.
///
/// Every chat request is checked: each `tool` message must answer a call of
/// the assistant message before it and every call must be answered
/// ([`tool_results::check`], per wire). A request that breaks the rule
/// gets an HTTP 400 saying why, and is kept: dropping the handle then
/// panics with the reasons, so the test fails even when `oc` was expected
/// to fail.
pub(crate) struct FakeOllama {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    state: Arc<Mutex<State>>,
}

impl FakeOllama {
    /// A server that knows [`MODEL`] (the real `/api/show` capture) and
    /// answers `/api/chat` with `replies`, in order.
    pub(crate) fn start(replies: Vec<Reply>) -> FakeOllama {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let mut state = State::default();
        state.models.insert(
            MODEL.to_string(),
            serde_json::from_str(&fixture("04-show-qwen2.5-coder-1.5b.json")).unwrap(),
        );
        state.replies = replies.into();
        let state = Arc::new(Mutex::new(state));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || handle(stream, &shared));
            }
        });
        FakeOllama { url, state }
    }

    /// Adds a model whose `/api/show` is the real capture with other
    /// `capabilities` and `context_length`.
    pub(crate) fn with_model(self, name: &str, capabilities: &[&str], context_length: u64) -> Self {
        let mut show: Value =
            serde_json::from_str(&fixture("04-show-qwen2.5-coder-1.5b.json")).unwrap();
        show["capabilities"] = json!(capabilities);
        show["model_info"]["qwen2.context_length"] = json!(context_length);
        self.state
            .lock()
            .unwrap()
            .models
            .insert(name.to_string(), show);
        self
    }

    /// Adds a model whose `/api/show` is the real capture with another
    /// `details.parameter_size` (e.g. `"7.6B"`).
    pub(crate) fn with_model_size(self, name: &str, parameter_size: &str) -> Self {
        let mut show: Value =
            serde_json::from_str(&fixture("04-show-qwen2.5-coder-1.5b.json")).unwrap();
        show["details"]["parameter_size"] = json!(parameter_size);
        self.state
            .lock()
            .unwrap()
            .models
            .insert(name.to_string(), show);
        self
    }

    /// Reports `prompt_eval_count` from each request's size (its messages
    /// and tools, bytes / 4), as a real server counts the whole prompt,
    /// instead of the recorded figure.
    pub(crate) fn counting(self) -> Self {
        self.state.lock().unwrap().counting = true;
        self
    }

    /// Answers each of `oc`'s summary requests with `summary` without
    /// taking a scripted reply, as a real model would answer it.
    pub(crate) fn summarising(self, summary: &str) -> Self {
        self.state.lock().unwrap().summary = Some(summary.to_string());
        self
    }

    /// The tool-result violations so far (see [`FakeOllama`]), taken: the
    /// handle no longer panics for them on drop. For the test of the check.
    pub(crate) fn take_violations(&self) -> Vec<String> {
        std::mem::take(&mut self.state.lock().unwrap().violations)
    }

    /// Every request so far.
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// The bodies of the chat requests so far (`/api/chat`, or
    /// `/v1/chat/completions` in Ollama's shape).
    pub(crate) fn chat_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| is_chat(&r.path))
            .map(|r| r.body)
            .collect()
    }

    /// The chat request bodies exactly as sent.
    pub(crate) fn raw_chat_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| is_chat(&r.path))
            .map(|r| r.raw)
            .collect()
    }
}

impl Drop for FakeOllama {
    fn drop(&mut self) {
        let violations = match self.state.lock() {
            Ok(mut state) => std::mem::take(&mut state.violations),
            Err(poisoned) => std::mem::take(&mut poisoned.into_inner().violations),
        };
        if violations.is_empty() {
            return;
        }
        let report = format!(
            "the fake server got {} chat request(s) whose tool results do not answer the calls before them:\n{}",
            violations.len(),
            violations.join("\n")
        );
        if std::thread::panicking() {
            // A second panic would abort the test binary: say it instead.
            eprintln!("{report}");
        } else {
            panic!("{report}");
        }
    }
}

fn handle(stream: TcpStream, state: &Mutex<State>) {
    let Some(Incoming {
        method,
        path,
        authorization,
        body,
    }) = read_request(&stream)
    else {
        return;
    };
    let raw: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let openai = path.starts_with("/v1/");
    let body = if openai && raw.is_object() {
        as_ollama_request(&raw)
    } else {
        raw.clone()
    };
    let model = body["model"].as_str().unwrap_or_default().to_string();
    let wire = if openai { Wire::OpenAi } else { Wire::Ollama };
    let violation = if is_chat(&path) && raw.is_object() {
        tool_results::check(&raw, wire).err()
    } else {
        None
    };
    let reply = {
        let mut state = state.lock().unwrap();
        state.requests.push(Recorded {
            method: method.clone(),
            path: path.clone(),
            body,
            raw,
            authorization,
        });
        if let Some(why) = violation {
            // Numbered from 1 among all the requests (show, tags, chat).
            let n = state.requests.len();
            state
                .violations
                .push(format!("request {n} ({method} {path}): {why}"));
            Reply::Status {
                status: 400,
                body: json!({ "error": format!("fake server: {why}") }).to_string(),
            }
        } else {
            reply_to(&mut state, &method, &path, &model)
        }
    };
    let mut stream = stream;
    let reply = if openai { as_openai(reply) } else { reply };
    let _ = write_reply(&mut stream, reply, openai);
}

/// The answer to a request just recorded in `state`.
fn reply_to(state: &mut State, method: &str, path: &str, model: &str) -> Reply {
    let not_found = || Reply::Status {
        status: 404,
        body: json!({"error": format!("model '{model}' not found")}).to_string(),
    };
    match (method, path) {
        ("GET", "/api/tags") => Reply::Status {
            status: 200,
            body: fixture("03-tags.json"),
        },
        ("POST", "/api/show") => match state.models.get(model) {
            Some(show) => Reply::Status {
                status: 200,
                body: show.to_string(),
            },
            None => not_found(),
        },
        ("GET", "/v1/models") => Reply::Status {
            status: 200,
            body: models_body(state.models.iter()),
        },
        ("POST", chat) if is_chat(chat) && !state.models.contains_key(model) => not_found(),
        ("POST", chat) if is_chat(chat) && state.summary.is_some() && is_summary_request(state) => {
            Reply::answer(state.summary.as_deref().unwrap_or_default())
        }
        ("POST", chat) if is_chat(chat) => {
            let reply = state.replies.pop_front().unwrap_or(Reply::Status {
                status: 500,
                body: json!({"error": "fake server: no scripted reply left"}).to_string(),
            });
            let request = &state.requests.last().unwrap().body;
            let prompt = (request["messages"].to_string().len()
                + request.get("tools").map_or(0, |t| t.to_string().len()))
                / 4;
            if state.counting {
                count_prompt(reply, prompt as u64)
            } else {
                reply
            }
        }
        _ => Reply::Status {
            status: 404,
            body: "404 page not found".to_string(),
        },
    }
}

/// Whether `path` is a chat endpoint of either API.
fn is_chat(path: &str) -> bool {
    path == "/api/chat" || path == "/v1/chat/completions"
}

/// A scripted reply as the OpenAI-compatible side sends it: NDJSON lines
/// become SSE events, error bodies OpenAI error objects.
fn as_openai(reply: Reply) -> Reply {
    match reply {
        Reply::Status { status, body } if status != 200 => Reply::Status {
            status,
            body: error_body(&body, status),
        },
        Reply::Delayed { millis, reply } => Reply::Delayed {
            millis,
            reply: Box::new(as_openai(*reply)),
        },
        other @ (Reply::Status { .. } | Reply::Sse { .. }) => other,
        Reply::Stream { lines, split, end } => {
            let (mut calls, mut saw_calls) = (0, false);
            let events = lines
                .iter()
                .flat_map(|line| events_of(line, &mut calls, &mut saw_calls))
                .collect();
            Reply::Stream {
                lines: events,
                split,
                end,
            }
        }
    }
}

/// Whether the last request is `oc`'s summary request.
fn is_summary_request(state: &State) -> bool {
    let request = &state.requests.last().unwrap().body;
    request["messages"][0]["content"]
        .as_str()
        .is_some_and(|s| s.starts_with("You summarise a coding session"))
}

/// `reply` with its final chunk's `prompt_eval_count` set to `prompt`.
fn count_prompt(reply: Reply, prompt: u64) -> Reply {
    match reply {
        Reply::Stream {
            mut lines,
            split,
            end,
        } => {
            if let Some(last) = lines.last_mut()
                && let Ok(mut chunk) = serde_json::from_str::<Value>(last)
                && chunk["done"] == true
            {
                chunk["prompt_eval_count"] = json!(prompt);
                *last = chunk.to_string();
            }
            Reply::Stream { lines, split, end }
        }
        other => other,
    }
}

const DATE: &str = "Date: Sun, 29 Nov 2026 23:57:55 GMT";

/// Writes `reply`: NDJSON lines one per chunk with a newline added, or (with
/// `sse`) events that carry their own line ends.
fn write_reply(stream: &mut TcpStream, reply: Reply, sse: bool) -> std::io::Result<()> {
    match reply {
        Reply::Delayed { millis, reply } => {
            std::thread::sleep(Duration::from_millis(millis));
            write_reply(stream, *reply, sse)
        }
        Reply::Status { status, body } => {
            let reason = match status {
                200 => "OK",
                400 => "Bad Request",
                404 => "Not Found",
                _ => "Internal Server Error",
            };
            write!(
                stream,
                "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=utf-8\r\n{DATE}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )?;
            stream.flush()
        }
        Reply::Sse { events, split, end } => write_reply(
            stream,
            Reply::Stream {
                lines: events,
                split,
                end,
            },
            true,
        ),
        Reply::Stream { lines, split, end } => {
            let (content_type, end_of_line) = if sse {
                ("text/event-stream", "")
            } else {
                ("application/x-ndjson", "\n")
            };
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n{DATE}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
            )?;
            let body: String = lines.iter().map(|l| format!("{l}{end_of_line}")).collect();
            let pieces: Vec<&[u8]> = match split {
                None => lines.iter().map(|l| l.as_bytes()).collect(),
                Some(size) => body.as_bytes().chunks(size).collect(),
            };
            for (i, piece) in pieces.iter().enumerate() {
                if let Some(ms) = std::str::from_utf8(piece)
                    .ok()
                    .and_then(|p| p.strip_prefix("#sleep "))
                {
                    std::thread::sleep(Duration::from_millis(ms.trim().parse().unwrap_or(0)));
                    continue;
                }
                if let Some(gate) = std::str::from_utf8(piece)
                    .ok()
                    .and_then(|p| p.strip_prefix("#wait "))
                {
                    let deadline = std::time::Instant::now() + Duration::from_secs(20);
                    while !std::path::Path::new(gate.trim()).exists()
                        && std::time::Instant::now() < deadline
                    {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    continue;
                }
                let newline: &[u8] = if split.is_none() {
                    end_of_line.as_bytes()
                } else {
                    b""
                };
                write!(stream, "{:x}\r\n", piece.len() + newline.len())?;
                stream.write_all(piece)?;
                stream.write_all(newline)?;
                stream.write_all(b"\r\n")?;
                stream.flush()?;
                if split.is_some() && i % 4 == 0 {
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
            match end {
                End::Clean => stream.write_all(b"0\r\n\r\n")?,
                End::Abrupt => {}
                End::Stall => std::thread::sleep(Duration::from_secs(60)),
            }
            stream.flush()?;
            stream.shutdown(std::net::Shutdown::Both)
        }
    }
}

/// A port on 127.0.0.1 where nothing listens.
pub(crate) fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}
