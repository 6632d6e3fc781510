//! The OpenAI chat-completions wire form, as llama.cpp's `llama-server`,
//! vLLM, SGLang, LM Studio, LiteLLM and Ollama's `/v1` speak it: the body
//! of `POST {base}/chat/completions` built from a [`ChatRequest`], and the
//! streamed `chat.completion.chunk` events read back into [`ChatChunk`]s.
//! Shapes follow the real captures in `fixtures/llama-server/` and
//! `fixtures/ollama/16-*`, `17*-*`.

use serde_json::{Map, Value, json};

use super::chat::{ChatChunk, ChatRequest, ChunkMessage};
use super::message::{FunctionCall, Message, Role, ToolCall};

/// The JSON body of a streamed chat-completions request:
/// `{"model", "messages", "stream": true, "stream_options": {"include_usage": true},
/// "tools"?, "response_format"?, "max_tokens"?, "temperature"?, "top_p"?, "presence_penalty"?,
/// "seed"?, "top_k"?}`. `num_ctx` and `think` have no place here: the
/// server decides the context size, and reasoning is the model's own.
/// `top_k` is not OpenAI's; llama.cpp and vLLM take it, others may refuse
/// it (the client says so).
pub(crate) fn request_body(request: &ChatRequest<'_>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert(
        "messages".into(),
        Value::Array(request.messages.iter().map(wire_message).collect()),
    );
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if !request.tools.is_empty() {
        body.insert("tools".into(), json!(request.tools));
    }
    if let Some(schema) = request.format {
        body.insert(
            "response_format".into(),
            json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}),
        );
    }
    let options = &request.options;
    let optional = [
        ("max_tokens", options.num_predict.map(|n| json!(n))),
        ("temperature", options.temperature.map(|t| json!(t))),
        ("top_p", options.top_p.map(|p| json!(p))),
        (
            "presence_penalty",
            options.presence_penalty.map(|p| json!(p)),
        ),
        ("seed", options.seed.map(|s| json!(s))),
        ("top_k", options.top_k.map(|k| json!(k))),
    ];
    for (name, value) in optional {
        if let Some(value) = value {
            body.insert(name.into(), value);
        }
    }
    Value::Object(body)
}

/// One message in OpenAI's form: assistant calls with `arguments` as a JSON
/// **string** and `type: "function"`; tool results as
/// `{"role": "tool", "tool_call_id", "content"}`; images as `image_url`
/// content parts with `data:` URLs. Thinking is not sent back.
fn wire_message(message: &Message) -> Value {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut out = Map::new();
    out.insert("role".into(), json!(role));
    if message.images.is_empty() {
        out.insert("content".into(), json!(message.content));
    } else {
        let mut parts = vec![json!({"type": "text", "text": message.content})];
        parts.extend(
            message
                .images
                .iter()
                .map(|image| json!({"type": "image_url", "image_url": {"url": data_url(image)}})),
        );
        out.insert("content".into(), Value::Array(parts));
    }
    if !message.tool_calls.is_empty() {
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id.clone().unwrap_or_default(),
                    "type": "function",
                    "function": {
                        "name": call.function.name,
                        "arguments": arguments_text(&call.function.arguments),
                    }
                })
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if message.role == Role::Tool {
        let id = message.tool_call_id.clone().unwrap_or_default();
        out.insert("tool_call_id".into(), json!(id));
    }
    Value::Object(out)
}

/// `arguments` as the JSON text OpenAI expects; a string stays as sent.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        Value::Null => "{}".to_string(),
        other => other.to_string(),
    }
}

/// A `data:` URL for a base64 image, typed by its first bytes (PNG or JPEG,
/// the two forms `--image` sends).
fn data_url(base64: &str) -> String {
    let mime = if base64.starts_with("/9j/") {
        "image/jpeg"
    } else {
        "image/png"
    };
    format!("data:{mime};base64,{base64}")
}

/// Reads the `data:` payloads of one streamed reply. Content and
/// `reasoning_content` deltas pass through as they come; tool calls are
/// assembled **by `index`** (`id` and `function.name` arrive once,
/// `function.arguments` in string fragments) and handed over whole in the
/// final chunk, with the finish reason and the usage.
#[derive(Debug, Default)]
pub(crate) struct ChunkReader {
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    /// llama.cpp's `timings.prompt_ms` and `predicted_ms`, in nanoseconds.
    durations: (Option<u64>, Option<u64>),
}

#[derive(Debug, Default)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

impl ChunkReader {
    /// Reads one event's data (a `chat.completion.chunk` object). Returns
    /// the text deltas it carries, if any.
    ///
    /// Errors: the text of an `error` object sent inside the stream, or a
    /// payload that is not JSON.
    pub(crate) fn read(&mut self, data: &str) -> Result<Option<ChatChunk>, String> {
        let event: Value = serde_json::from_str(data).map_err(|e| {
            let excerpt: String = data.chars().take(200).collect();
            format!("an event that is not a chat chunk ({e}): {excerpt}")
        })?;
        if let Some(error) = event.get("error").filter(|e| !e.is_null()) {
            return Err(error_text(error));
        }
        self.read_usage(&event);
        let Some(choice) = event["choices"].as_array().and_then(|c| c.first()) else {
            return Ok(None);
        };
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_string());
        }
        let delta = &choice["delta"];
        for fragment in delta["tool_calls"].as_array().into_iter().flatten() {
            self.add_fragment(fragment);
        }
        let text = |key: &str| {
            delta[key]
                .as_str()
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        let content = text("content");
        let thinking = text("reasoning_content").or_else(|| text("reasoning"));
        if content.is_none() && thinking.is_none() {
            return Ok(None);
        }
        Ok(Some(ChatChunk {
            message: Some(ChunkMessage {
                content,
                thinking,
                tool_calls: None,
            }),
            ..ChatChunk::default()
        }))
    }

    /// Whether a `finish_reason` arrived: the reply is complete even if the
    /// body ends without `data: [DONE]`.
    pub(crate) fn finished(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// The final chunk (`done: true`): the assembled tool calls, the finish
    /// reason as `done_reason` (`length` marks a reply cut at `max_tokens`),
    /// and the token counts when the server sent them.
    pub(crate) fn finish(&mut self) -> ChatChunk {
        let mut ids = std::collections::HashSet::new();
        let calls: Vec<ToolCall> = std::mem::take(&mut self.calls)
            .into_iter()
            .map(|call| ToolCall {
                // A repeated id would answer two calls with one result: the
                // loop gives the second its own.
                id: call.id.filter(|id| ids.insert(id.clone())),
                function: FunctionCall {
                    index: u32::try_from(call.index).ok(),
                    arguments: serde_json::from_str(&call.arguments)
                        .unwrap_or(Value::String(call.arguments)),
                    name: call.name,
                },
                recovered: None,
            })
            .collect();
        ChatChunk {
            message: (!calls.is_empty()).then(|| ChunkMessage {
                content: None,
                thinking: None,
                tool_calls: Some(calls),
            }),
            done: true,
            done_reason: self.finish_reason.clone(),
            prompt_eval_count: self.prompt_tokens,
            eval_count: self.completion_tokens,
            prompt_eval_duration: self.durations.0,
            eval_duration: self.durations.1,
            error: None,
        }
    }

    fn add_fragment(&mut self, fragment: &Value) {
        let index = fragment["index"]
            .as_u64()
            .unwrap_or(self.calls.len() as u64);
        let position = match self.calls.iter().position(|c| c.index == index) {
            Some(position) => position,
            None => {
                self.calls.push(PartialCall {
                    index,
                    ..PartialCall::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if let Some(id) = fragment["id"].as_str().filter(|id| !id.is_empty()) {
            call.id = Some(id.to_string());
        }
        let function = &fragment["function"];
        if let Some(name) = function["name"].as_str() {
            call.name.push_str(name);
        }
        match &function["arguments"] {
            Value::String(text) => call.arguments.push_str(text),
            Value::Null => {}
            // A server that sends the arguments as an object at once.
            whole => call.arguments = whole.to_string(),
        }
    }

    /// `usage` of the last chunk (with `stream_options.include_usage`), or
    /// llama.cpp's `timings` (`cache_n + prompt_n` prompt tokens,
    /// `predicted_n` generated) when there is no usage.
    fn read_usage(&mut self, event: &Value) {
        let timings = &event["timings"];
        let nanos = |key: &str| timings[key].as_f64().map(|ms| (ms * 1e6) as u64);
        if let (Some(prompt), Some(predicted)) = (nanos("prompt_ms"), nanos("predicted_ms")) {
            self.durations = (Some(prompt), Some(predicted));
        }
        let usage = &event["usage"];
        if let Some(prompt) = usage["prompt_tokens"].as_u64() {
            self.prompt_tokens = Some(prompt);
            self.completion_tokens = usage["completion_tokens"].as_u64();
            return;
        }
        if self.prompt_tokens.is_none()
            && let Some(evaluated) = timings["prompt_n"].as_u64()
        {
            self.prompt_tokens = Some(evaluated + timings["cache_n"].as_u64().unwrap_or(0));
            self.completion_tokens = timings["predicted_n"].as_u64();
        }
    }
}

/// The message of an OpenAI error object (`{"message", "type", …}`) or of a
/// plain error string.
pub(crate) fn error_text(error: &Value) -> String {
    error["message"]
        .as_str()
        .or_else(|| error.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::chat::ChatOptions;
    use crate::vocab::Sampling;
    use pretty_assertions::assert_eq;

    fn read_fixture(text: &str) -> (Vec<ChatChunk>, ChatChunk) {
        let mut reader = ChunkReader::default();
        let mut deltas = Vec::new();
        for line in text.lines() {
            let Some(data) = line.strip_prefix("data: ") else {
                continue;
            };
            if data == "[DONE]" {
                break;
            }
            deltas.extend(reader.read(data).unwrap());
        }
        assert!(reader.finished());
        (deltas, reader.finish())
    }

    #[test]
    fn llama_server_arguments_in_fragments_are_assembled_by_index() {
        let (deltas, last) = read_fixture(include_str!(
            "../../fixtures/llama-server/ls-06-chat-stream-tool-call.sse"
        ));
        assert!(deltas.is_empty(), "{deltas:?}");
        let calls = last.message.unwrap().tool_calls.unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(
            calls[0].id.as_deref(),
            Some("XczvrLnIbdAgAIa9Va6vxfNjUXbDTbHB")
        );
        assert_eq!(calls[0].function.name, "read_file");
        assert_eq!(calls[0].function.arguments, json!({"path": "src/main.rs"}));
        assert_eq!(last.done_reason.as_deref(), Some("tool_calls"));
        // No usage without include_usage: llama.cpp's timings count instead.
        assert_eq!(last.prompt_eval_count, Some(285));
        assert_eq!(last.eval_count, Some(27));
    }

    #[test]
    fn ollama_v1_whole_call_and_usage_chunk() {
        let (_, last) = read_fixture(include_str!(
            "../../fixtures/ollama/16-openai-chat-stream-tools.sse"
        ));
        let calls = last.message.unwrap().tool_calls.unwrap();
        assert_eq!(calls[0].function.arguments, json!({"path": "src/main.rs"}));
        let (deltas, last) = read_fixture(include_str!(
            "../../fixtures/ollama/17b-openai-chat-stream-plain-usage.sse"
        ));
        let text: String = deltas
            .iter()
            .filter_map(|c| c.message.as_ref()?.content.clone())
            .collect();
        assert!(text.ends_with("}\n```"), "{text}");
        assert_eq!(
            (last.prompt_eval_count, last.eval_count),
            (Some(49), Some(30))
        );
        assert_eq!(last.done_reason.as_deref(), Some("stop"));
    }

    #[test]
    fn reasoning_content_is_thinking_and_two_calls_keep_their_order() {
        let mut reader = ChunkReader::default();
        let chunk = reader
            .read(r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}"#)
            .unwrap()
            .unwrap();
        assert_eq!(chunk.message.unwrap().thinking.as_deref(), Some("hmm"));
        for data in [
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"list_files","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"x\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
        ] {
            assert!(reader.read(data).unwrap().is_none());
        }
        let last = reader.finish();
        let calls = last.message.unwrap().tool_calls.unwrap();
        assert_eq!(calls[0].function.arguments, json!({"path": "x"}));
        assert_eq!(calls[1].function.name, "list_files");
        assert_eq!(last.done_reason.as_deref(), Some("length"));
    }

    #[test]
    fn an_error_object_inside_the_stream_is_an_error() {
        let mut reader = ChunkReader::default();
        let error = reader
            .read(r#"{"error":{"message":"the model crashed","type":"server_error"}}"#)
            .unwrap_err();
        assert_eq!(error, "the model crashed");
        assert!(
            reader
                .read("not json")
                .unwrap_err()
                .contains("not a chat chunk")
        );
    }

    #[test]
    fn request_body_has_string_arguments_tool_ids_and_image_parts() {
        let call = ToolCall {
            id: Some("call_1".into()),
            ..ToolCall::new("read_file", json!({"path": "a.py"}))
        };
        let messages = [
            Message::text(Role::System, "sys"),
            Message {
                images: vec!["iVBORw0KGgo".into()],
                ..Message::text(Role::User, "look")
            },
            Message {
                tool_calls: vec![call],
                thinking: Some("private".into()),
                ..Message::text(Role::Assistant, "")
            },
            Message::tool_result("read_file", "call_1", "print(1)"),
        ];
        let request = ChatRequest {
            model: "m",
            messages: &messages,
            tools: &[json!({"type": "function"})],
            stream: true,
            think: None,
            options: ChatOptions {
                num_predict: Some(512),
                ..ChatOptions::new(
                    8192,
                    &Sampling {
                        temperature: Some(0.0),
                        seed: Some(7),
                        ..Sampling::default()
                    },
                )
            },
            format: None,
            first_byte: None,
        };
        assert_eq!(
            request_body(&request),
            json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": [
                        {"type": "text", "text": "look"},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo"}}
                    ]},
                    {"role": "assistant", "content": "", "tool_calls": [
                        {"id": "call_1", "type": "function",
                         "function": {"name": "read_file", "arguments": "{\"path\":\"a.py\"}"}}
                    ]},
                    {"role": "tool", "content": "print(1)", "tool_call_id": "call_1"}
                ],
                "stream": true,
                "stream_options": {"include_usage": true},
                "tools": [{"type": "function"}],
                "max_tokens": 512,
                "temperature": 0.0,
                "seed": 7
            })
        );
    }
}
