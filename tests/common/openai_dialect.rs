//! The fake server's OpenAI-compatible side: the same scripted replies,
//! spoken as llama.cpp's `llama-server` speaks them (`fixtures/llama-server/`):
//! server-sent events, one `data:` event per HTTP chunk, tool-call arguments
//! in small string fragments after a first fragment with `id` and name, a
//! usage chunk, then `data: [DONE]`. Requests are recorded in Ollama's shape
//! too, so the loop's tests read them the same way with either provider.

use serde_json::{Value, json};

/// Whether this test process runs the suite against the OpenAI-compatible
/// side (`OC_TEST_PROVIDER=openai`).
pub(crate) fn openai_mode() -> bool {
    std::env::var("OC_TEST_PROVIDER").is_ok_and(|p| p == "openai")
}

const ID: &str = "chatcmpl-cRCjDTYrnU34VGvlIoByFQXd1Zib0c5T";

fn event(choices: Value, extra: Option<(&str, Value)>) -> String {
    let mut body = json!({
        "choices": choices,
        "created": 1795998262,
        "id": ID,
        "model": super::fake_ollama::MODEL,
        "system_fingerprint": "b0-unknown",
        "object": "chat.completion.chunk",
    });
    if let Some((key, value)) = extra {
        body[key] = value;
    }
    format!("data: {body}\n\n")
}

fn delta(delta: Value) -> String {
    event(
        json!([{"finish_reason": null, "index": 0, "delta": delta}]),
        None,
    )
}

/// The SSE events that say what one scripted Ollama NDJSON line says.
/// `calls` counts the tool calls so far (indexes go on across lines).
pub(crate) fn events_of(line: &str, calls: &mut usize, saw_calls: &mut bool) -> Vec<String> {
    // A pause of the script (`#sleep MS`, `#wait PATH`) stays one.
    if line.starts_with('#') {
        return vec![line.to_string()];
    }
    // Each call gets its own id, as real servers give (random ones there).
    let Ok(chunk) = serde_json::from_str::<Value>(line) else {
        // Garbage stays garbage.
        return vec![format!("data: {line}\n\n")];
    };
    if let Some(error) = chunk.get("error") {
        return vec![format!(
            "data: {}\n\n",
            json!({"error": {"message": error, "type": "server_error"}})
        )];
    }
    let mut events = Vec::new();
    let message = &chunk["message"];
    if let Some(thinking) = message["thinking"].as_str().filter(|t| !t.is_empty()) {
        events.push(delta(json!({"reasoning_content": thinking})));
    }
    if let Some(content) = message["content"].as_str().filter(|t| !t.is_empty()) {
        events.push(delta(json!({"content": content})));
    }
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        *saw_calls = true;
        let index = *calls;
        *calls += 1;
        let arguments = match &call["function"]["arguments"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let id = format!("call{index:028}x");
        events.push(delta(json!({"tool_calls": [{
            "index": index, "id": id, "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""}
        }]})));
        let chars: Vec<char> = arguments.chars().collect();
        for piece in chars.chunks(3) {
            let piece: String = piece.iter().collect();
            events.push(delta(json!({"tool_calls": [{
                "index": index, "function": {"arguments": piece}
            }]})));
        }
    }
    if chunk["done"] == true {
        let reason = match chunk["done_reason"].as_str() {
            Some("length") => "length",
            _ if *saw_calls => "tool_calls",
            _ => "stop",
        };
        // llama-server sends its `timings` with the finish reason.
        let millis = |key: &str| chunk[key].as_u64().unwrap_or(0) as f64 / 1e6;
        events.push(event(
            json!([{"finish_reason": reason, "index": 0, "delta": {}}]),
            Some((
                "timings",
                json!({
                    "cache_n": 0,
                    "prompt_n": chunk["prompt_eval_count"],
                    "prompt_ms": millis("prompt_eval_duration"),
                    "predicted_n": chunk["eval_count"],
                    "predicted_ms": millis("eval_duration"),
                }),
            )),
        ));
        events.push(event(
            json!([]),
            Some((
                "usage",
                json!({
                    "prompt_tokens": chunk["prompt_eval_count"],
                    "completion_tokens": chunk["eval_count"],
                    "total_tokens": chunk["prompt_eval_count"].as_u64().unwrap_or(0)
                        + chunk["eval_count"].as_u64().unwrap_or(0),
                }),
            )),
        ));
        events.push("data: [DONE]\n\n".to_string());
    }
    events
}

/// An Ollama error body (`{"error": "text"}`) as an OpenAI one
/// (`{"error": {"message", "type", "param", "code"}}`, capture 17d).
pub(crate) fn error_body(body: &str, status: u16) -> String {
    let text = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|b| b["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.to_string());
    let kind = if status == 404 {
        "not_found_error"
    } else {
        "invalid_request_error"
    };
    json!({"error": {"message": text, "type": kind, "param": null, "code": null}}).to_string()
}

/// `GET /v1/models` for the models the server knows (name and `/api/show`
/// body), shaped like llama.cpp's (capture `ls-02`): `meta.n_ctx` from the
/// model's context length, `architecture.input_modalities` with `image`
/// for a `vision` model.
pub(crate) fn models_body<'a>(models: impl Iterator<Item = (&'a String, &'a Value)>) -> String {
    let data: Vec<Value> = models
        .map(|(name, show)| {
            let context = show["model_info"]["qwen2.context_length"].clone();
            let vision = show["capabilities"]
                .as_array()
                .is_some_and(|c| c.contains(&json!("vision")));
            let inputs = if vision {
                json!(["text", "image"])
            } else {
                json!(["text"])
            };
            json!({"id": name, "object": "model", "created": 1795996080, "owned_by": "llamacpp",
                   "architecture": {"input_modalities": inputs, "output_modalities": ["text"]},
                   "meta": {"n_ctx": context}})
        })
        .collect();
    json!({"object": "list", "data": data}).to_string()
}

/// A chat-completions request body in Ollama's `/api/chat` shape: string
/// arguments parsed, tool results named after their calls, image parts as
/// `images`, `max_tokens` and the sampling fields under `options`.
pub(crate) fn as_ollama_request(body: &Value) -> Value {
    let mut names = std::collections::HashMap::new();
    let mut messages = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        let mut out = json!({"role": message["role"]});
        match &message["content"] {
            Value::Array(parts) => {
                let text: String = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                out["content"] = json!(text);
                let images: Vec<Value> = parts
                    .iter()
                    .filter_map(|p| p["image_url"]["url"].as_str())
                    .map(|url| json!(url.split_once(',').map_or(url, |(_, b64)| b64)))
                    .collect();
                out["images"] = json!(images);
            }
            other => out["content"] = other.clone(),
        }
        if let Some(calls) = message["tool_calls"].as_array() {
            let calls: Vec<Value> = calls
                .iter()
                .map(|call| {
                    let name = call["function"]["name"].clone();
                    if let Some(id) = call["id"].as_str() {
                        names.insert(id.to_string(), name.clone());
                    }
                    let arguments = call["function"]["arguments"]
                        .as_str()
                        .and_then(|a| serde_json::from_str(a).ok())
                        .unwrap_or(Value::Null);
                    json!({"id": call["id"], "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            out["tool_calls"] = json!(calls);
        }
        if let Some(id) = message["tool_call_id"].as_str() {
            out["tool_call_id"] = json!(id);
            out["tool_name"] = names.get(id).cloned().unwrap_or(Value::Null);
        }
        messages.push(out);
    }
    let mut options = json!({});
    for (from, to) in [
        ("max_tokens", "num_predict"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("top_k", "top_k"),
        ("presence_penalty", "presence_penalty"),
        ("seed", "seed"),
    ] {
        if let Some(value) = body.get(from) {
            options[to] = value.clone();
        }
    }
    let mut request = json!({
        "model": body["model"],
        "messages": messages,
        "stream": body["stream"],
        "options": options,
    });
    if let Some(tools) = body.get("tools") {
        request["tools"] = tools.clone();
    }
    if let Some(schema) = body["response_format"]["json_schema"].get("schema") {
        request["format"] = schema.clone();
    }
    request
}
