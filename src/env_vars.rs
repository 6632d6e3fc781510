//! Names of the environment variables `oc` reads, in one place.
//!
//! Precedence (docs/configuration.md): flags beat environment, which beats the project
//! config, which beats the user config, which beats the defaults.

/// Directory holding `config.json`, `sessions/` and `finetune.jsonl`
/// (default `~/.ollama-code`).
pub(crate) const OC_HOME: &str = "OC_HOME";
/// Model name, e.g. `qwen2.5-coder:1.5b`.
pub(crate) const OC_MODEL: &str = "OC_MODEL";
/// Ollama server address in any form Ollama accepts: `host`, `host:port`,
/// `http://host:port`.
pub(crate) const OLLAMA_HOST: &str = "OLLAMA_HOST";
/// Model server API: `ollama` or `openai` (as `--provider`).
pub(crate) const OC_PROVIDER: &str = "OC_PROVIDER";
/// API root of an OpenAI-compatible server, e.g. `http://127.0.0.1:8080/v1`
/// (as `--base-url`; the name OpenAI's own clients read).
pub(crate) const OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";
/// Any non-empty value turns colour off (<https://no-color.org>).
pub(crate) const NO_COLOR: &str = "NO_COLOR";
/// Edit format: `tools`, `whole`, `diff` or `auto` (as `--edit-format`).
pub(crate) const OC_EDIT_FORMAT: &str = "OC_EDIT_FORMAT";
/// Heuristics to switch off, comma-separated names from the registry in
/// `heuristics.rs` (`ground`, `partial`, …): for measuring what each one is
/// worth (docs/small-models.md).
pub(crate) const OC_DISABLE: &str = "OC_DISABLE";
/// Home directory, used for the default `OC_HOME`.
pub(crate) const HOME: &str = "HOME";
/// Tests only: `none` pretends the kernel has no Landlock, `no-network`
/// that its Landlock cannot confine the network (docs/permissions.md "Sandbox").
pub(crate) const OC_TEST_LANDLOCK: &str = "OC_TEST_LANDLOCK";
