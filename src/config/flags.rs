//! The flags' layer, and the flags that are not settings keys.

use std::path::PathBuf;

use super::layer::Layer;

/// What the command line sets: the keys a flag sets, as the top layer, and
/// the flags that are no config key. `cli` fills it from the parsed
/// arguments; `None` and `false` mean "not given".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// `--model`, `--host`, `--provider`, `--base-url`, `--num-ctx`,
    /// `--max-output-tokens`, `--compact-at`, `--max-turns`, `--think`,
    /// the sampling flags, `--text-tools`, `--edit-format`, `--task`,
    /// `--sandbox`, `--network`, `--runtime`, `--opencode-url`.
    pub layer: Layer,
    /// `--no-compact`.
    pub no_compact: bool,
    /// `--yes`: permission mode yolo in code mode.
    pub yes: bool,
    /// `--plan`: `oc run` in plan mode.
    pub plan: bool,
    /// `--allow RULE`, in order.
    pub allow: Vec<String>,
    /// `--deny RULE`, in order.
    pub deny: Vec<String>,
    /// `--system-prompt FILE`.
    pub system_prompt_file: Option<PathBuf>,
    /// `--append-system-prompt TEXT`.
    pub append_system_prompt: Option<String>,
    /// `--add-dir DIR`, in order (after the files' `add_dirs`).
    pub add_dirs: Vec<PathBuf>,
    /// `--allow-read DIR`, in order.
    pub allow_read: Vec<PathBuf>,
}
