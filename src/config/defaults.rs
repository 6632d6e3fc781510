//! The defaults: what a setting is when no layer sets it.

/// Default model.
pub(crate) const DEFAULT_MODEL: &str = "qwen3.5:latest";
/// Default Ollama address.
pub(crate) const DEFAULT_HOST: &str = "http://localhost:11434";
/// Default API root of an OpenAI-compatible server (llama.cpp's
/// `llama-server` listens on port 8080).
pub(crate) const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080/v1";
/// Default name of the environment variable holding the API key of an
/// OpenAI-compatible server.
pub(crate) const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";
/// Default context window in tokens.
pub(crate) const DEFAULT_NUM_CTX: u32 = 32768;
/// Default cap on model requests per run.
pub(crate) const DEFAULT_MAX_TURNS: u32 = 25;
/// Default cap on one reply's tokens: a whole file of a few hundred lines
/// fits; a model that repeats itself stops within minutes, not hours.
pub(crate) const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4096;
/// Default share of the context (percent) past which the conversation is
/// compacted before a request.
pub(crate) const DEFAULT_COMPACT_AT: u8 = 75;
/// Default rounds of `--check`: the first run and two more after feedback.
pub(crate) const DEFAULT_CHECK_ATTEMPTS: u32 = 3;
/// File name of the user config inside `OC_HOME`.
pub(crate) const USER_CONFIG: &str = "config.json";
