//! Model servers. One seam, [`ModelClient`], over two APIs: Ollama's native
//! one (`/api/chat`, `/api/show`, `/api/tags`) and the OpenAI
//! chat-completions API (llama.cpp, vLLM, SGLang, LM Studio, LiteLLM,
//! Ollama's `/v1`). The loop sends a [`ChatRequest`] and reads
//! [`ChatChunk`]s, whichever server answers. The message types
//! ([`message`]) are Ollama's wire format and are also what sessions and
//! fine-tuning records store; the OpenAI client converts at the seam.

pub(crate) mod chat;
pub(crate) mod fenced;
pub(crate) mod host;
pub(crate) mod http;
pub(crate) mod message;
pub(crate) mod ndjson;
pub(crate) mod ollama;
pub(crate) mod openai;
pub(crate) mod openai_wire;
pub(crate) mod timeouts;

pub(crate) use chat::{ChatChunk, ChatOptions, ChatRequest, FirstByteWait, ModelInfo};
pub(crate) use http::printable;
pub(crate) use message::{Message, Role, ToolCall};
pub(crate) use ollama::{OllamaClient, OllamaStream};
pub(crate) use openai::{OpenAiClient, OpenAiStream};
pub(crate) use timeouts::Timeouts;

use crate::error::Result;

/// The model server of a run.
#[derive(Debug, Clone)]
pub(crate) enum ModelClient {
    Ollama(OllamaClient),
    OpenAi(OpenAiClient),
}

impl ModelClient {
    /// The base URL requests go to, without credentials.
    pub(crate) fn host(&self) -> &str {
        match self {
            ModelClient::Ollama(c) => c.host(),
            ModelClient::OpenAi(c) => c.host(),
        }
    }

    /// What the server says about `model` (capabilities, context, size).
    ///
    /// Errors: unreachable server, missing model (Ollama), an answer that is
    /// not the API's.
    pub(crate) async fn show(&self, model: &str) -> Result<ModelInfo> {
        match self {
            ModelClient::Ollama(c) => c.show(model).await,
            ModelClient::OpenAi(c) => c.show(model).await,
        }
    }

    /// The JSON body [`ModelClient::chat`] posts for `request`: Ollama's
    /// `/api/chat` body, or OpenAI's `/chat/completions` body
    /// ([`openai_wire::request_body`]).
    pub(crate) fn request_body(&self, request: &ChatRequest<'_>) -> serde_json::Value {
        match self {
            ModelClient::Ollama(_) => serde_json::to_value(request).unwrap_or_default(),
            ModelClient::OpenAi(_) => openai_wire::request_body(request),
        }
    }

    /// Sends one streamed chat request; read the reply with
    /// [`ChatStream::next`].
    ///
    /// Errors: as the server's client says (unreachable, model missing,
    /// refused request, [`crate::error::Error::ToolsRejected`]).
    pub(crate) async fn chat(&self, request: &ChatRequest<'_>) -> Result<ChatStream> {
        Ok(match self {
            ModelClient::Ollama(c) => ChatStream::Ollama(c.chat(request).await?),
            ModelClient::OpenAi(c) => ChatStream::OpenAi(c.chat(request).await?),
        })
    }
}

/// One streamed reply, from either server.
#[derive(Debug)]
pub(crate) enum ChatStream {
    Ollama(OllamaStream),
    OpenAi(OpenAiStream),
}

impl ChatStream {
    /// The next chunk; `None` when the body ended (before the final chunk
    /// if none had `done: true`).
    ///
    /// Errors: an error reported inside the stream, a chunk that cannot be
    /// read, a stream that broke off or went silent past its timeout.
    pub(crate) async fn next(&mut self) -> Result<Option<ChatChunk>> {
        match self {
            ChatStream::Ollama(s) => s.next().await,
            ChatStream::OpenAi(s) => s.next().await,
        }
    }
}
