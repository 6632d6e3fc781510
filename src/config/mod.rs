//! Settings as layers (docs/configuration.md): defaults ←
//! `OC_HOME/config.json` ← the project's `.ollama-code.json` ← `--config
//! FILE` ← environment ← flags. One all-optional [`Layer`] type: the files
//! are read into it (`file`, `load`), the environment (`env`) and the flags
//! (`flags`) are made into it; [`Settings::resolve`] merges them and
//! applies the defaults (`defaults`). The sandbox and the runtime settings
//! have their own files (`sandbox`, `runtime`).

pub mod defaults;
pub mod env;
pub mod file;
pub mod flags;
pub mod layer;
pub mod load;
pub mod runtime;
pub mod sandbox;
pub mod settings;

pub use defaults::*;
pub use env::{EnvValues, resolve_home};
pub use file::{LoadedFile, MIN_NUM_CTX, load_file, parse_file};
pub use flags::Overrides;
pub use layer::Layer;
pub use runtime::RuntimeSettings;
pub use settings::Settings;

#[cfg(test)]
mod tests;
