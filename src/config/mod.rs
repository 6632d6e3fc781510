//! Settings as layers (docs/configuration.md): defaults ←
//! `OC_HOME/config.json` ← the project's `.ollama-code.json` ← `--config
//! FILE` ← environment ← flags. One all-optional [`Layer`] type: the files
//! are read into it (`file`, `load`), the environment (`env`) and the flags
//! (`flags`) are made into it; [`Settings::resolve`] merges them and
//! applies the defaults (`defaults`). The sandbox and the runtime settings
//! have their own files (`sandbox`, `runtime`).

pub(crate) mod defaults;
pub(crate) mod env;
pub(crate) mod file;
pub(crate) mod flags;
pub(crate) mod layer;
pub(crate) mod load;
pub(crate) mod runtime;
pub(crate) mod sandbox;
pub(crate) mod settings;

pub(crate) use defaults::*;
pub(crate) use env::EnvValues;
pub(crate) use flags::Overrides;
pub(crate) use layer::Layer;
pub(crate) use settings::Settings;

#[cfg(test)]
mod tests;
