//! One layer of settings: every key optional. The config files
//! (`OC_HOME/config.json`, the project's `.ollama-code.json`, `--config
//! FILE`) are read into one each, the environment and the flags are made
//! into one each, and the layers are merged in that order, each key of a
//! later layer over the same key of an earlier one (docs/configuration.md).
//! Defaults apply where no layer sets a key (`config::settings`).
//!
//! A new setting is one line here: its file key, merge and the unknown-key
//! suggestions follow from it.

use std::path::PathBuf;

use serde::Deserialize;

use crate::permissions::rules::Action;
use crate::vocab::{EditFormat, Network, Provider, Runtime, SandboxMode, Task, TextTools, Think};

/// Declares [`Layer`] from its keys: each an `Option` of its type.
macro_rules! layer {
    ($( $(#[$doc:meta])* $key:ident: $ty:ty, )*) => {
        /// One layer of settings, every key optional: a config file as
        /// written (unknown keys produce a warning, not an error), the
        /// environment, or the flags.
        #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
        pub struct Layer {
            $( $(#[$doc])* pub $key: Option<$ty>, )*
        }

        impl Layer {
            /// The keys, as a config file writes them.
            pub const KEYS: &[&str] = &[$(stringify!($key)),*];

            /// `over` on top of `self`: each key `over` sets replaces this
            /// layer's. (`permissions` and `add_dirs` are also read file by
            /// file, each relative to its file: see `config::settings`.)
            pub fn merge(mut self, over: &Layer) -> Layer {
                $( if over.$key.is_some() { self.$key.clone_from(&over.$key); } )*
                self
            }
        }
    };
}

layer! {
    model: String,
    /// Models for the next tries of `--attempts`, in order.
    fallback_models: Vec<String>,
    host: String,
    /// `ollama` or `openai`.
    provider: Provider,
    /// An OpenAI-compatible API root, e.g. `http://127.0.0.1:8080/v1`.
    base_url: String,
    /// The name of the environment variable holding the API key.
    api_key_env: String,
    num_ctx: u32,
    max_output_tokens: u32,
    compact_at: u32,
    max_turns: u32,
    think: Think,
    temperature: f64,
    top_p: f64,
    top_k: u32,
    presence_penalty: f64,
    seed: i64,
    permissions: FilePermissions,
    connect_timeout_secs: u64,
    first_byte_timeout_secs: u64,
    idle_timeout_secs: u64,
    text_tools: TextTools,
    edit_format: EditFormat,
    /// `auto`, `change` or `answer`.
    task: Task,
    check_attempts: u32,
    /// `workspace-write`, `read-only`, `off` or `required`.
    sandbox: SandboxMode,
    /// `on` or `off`.
    network: Network,
    /// More directories sandboxed commands may write.
    add_dirs: Vec<PathBuf>,
    /// `native` or `opencode`.
    runtime: Runtime,
    /// The opencode server of the `opencode` runtime.
    opencode_url: String,
}

/// The `permissions` section of a config file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FilePermissions {
    /// `[{"action": "allow" | "ask" | "deny", "rule": "TOOL(PATTERN)"}]`
    #[serde(default)]
    pub rules: Vec<FileRule>,
}

/// One entry of `permissions.rules`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FileRule {
    pub action: Action,
    pub rule: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/configuration.md shows every key in its example file, so a new
    /// key is documented where users look for it.
    #[test]
    fn every_key_is_in_the_documented_example() {
        let page = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/configuration.md"
        ))
        .unwrap();
        let example = page
            .split("```json")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .unwrap();
        let parsed: Layer = serde_json::from_str(example).unwrap();
        let missing: Vec<&str> = (Layer::KEYS.iter())
            .filter(|key| !example.contains(&format!("\"{key}\":")))
            .copied()
            .collect();
        assert!(
            missing.is_empty(),
            "keys missing from docs/configuration.md's example: {missing:?}"
        );
        assert!(parsed.model.is_some());
    }

    #[test]
    fn a_later_layer_wins_key_by_key() {
        let user = Layer {
            model: Some("user".into()),
            num_ctx: Some(1000),
            ..Layer::default()
        };
        let flags = Layer {
            model: Some("flag".into()),
            ..Layer::default()
        };
        let merged = user.merge(&flags);
        assert_eq!(merged.model.as_deref(), Some("flag"));
        assert_eq!(merged.num_ctx, Some(1000));
    }
}
