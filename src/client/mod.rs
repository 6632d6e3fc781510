//! Model servers. Ollama's native API (`/api/chat`, `/api/show`, `/api/tags`)
//! is the one spoken today; the message types ([`message`]) are its wire
//! format and are also what sessions and fine-tuning records store.

pub mod fenced;
pub mod host;
pub mod message;
pub mod ndjson;
pub mod ollama;
pub mod timeouts;

pub use message::{FunctionCall, Message, Role, ToolCall};
pub use ollama::{ChatChunk, ChatOptions, ChatRequest, ChatStream, ModelInfo, OllamaClient};
pub use timeouts::Timeouts;
