//! The environment's layer: the variables `oc` reads (names in
//! `env_vars`), and `OC_HOME`.

use std::path::{Path, PathBuf};

use super::layer::Layer;
use crate::env_vars;
use crate::error::{Error, Result};

/// Environment values `oc` reads (names in [`crate::env_vars`]). Empty values
/// count as unset.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EnvValues {
    pub model: Option<String>,
    pub host: Option<String>,
    /// `OC_PROVIDER`, as given.
    pub provider: Option<String>,
    /// `OPENAI_BASE_URL`.
    pub base_url: Option<String>,
    pub oc_home: Option<PathBuf>,
    pub home_dir: Option<PathBuf>,
    /// `OC_DISABLE`, as given.
    pub disable: Option<String>,
    /// `OC_EDIT_FORMAT`, as given.
    pub edit_format: Option<String>,
}

impl EnvValues {
    /// Reads the process environment.
    pub(crate) fn from_process() -> Self {
        // A value that is not UTF-8 is read with its bad bytes replaced,
        // so it fails the value's own check (not silently dropped); paths
        // are taken as they are.
        let get = |name: &str| {
            std::env::var_os(name)
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|v| !v.trim().is_empty())
        };
        let path = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        EnvValues {
            model: get(env_vars::OC_MODEL),
            host: get(env_vars::OLLAMA_HOST),
            provider: get(env_vars::OC_PROVIDER),
            base_url: get(env_vars::OPENAI_BASE_URL),
            oc_home: path(env_vars::OC_HOME),
            home_dir: path(env_vars::HOME),
            disable: get(env_vars::OC_DISABLE),
            edit_format: get(env_vars::OC_EDIT_FORMAT),
        }
    }
}

/// Where `oc` keeps config, sessions and finetune.jsonl: `--home`, else
/// `OC_HOME`, else `~/.ollama-code`.
pub(crate) fn resolve_home(flag: Option<&Path>, env: &EnvValues) -> Result<PathBuf> {
    if let Some(dir) = flag.or(env.oc_home.as_deref()) {
        return Ok(dir.to_path_buf());
    }
    match &env.home_dir {
        Some(home) => Ok(home.join(".ollama-code")),
        None => Err(Error::Usage(
            "cannot find a home directory for `~/.ollama-code`: set `OC_HOME` or pass `--home DIR`"
                .into(),
        )),
    }
}

impl EnvValues {
    /// The environment as a layer. `OC_PROVIDER` and `OC_EDIT_FORMAT` are
    /// read only where `flags` does not set the key already, so a bad
    /// value that a flag overrides is no error.
    ///
    /// Errors: `OC_PROVIDER` or `OC_EDIT_FORMAT` names no value
    /// ([`Error::Usage`]).
    pub(crate) fn layer(&self, flags: &Layer) -> Result<Layer> {
        // Read only where no flag sets the key: a bad value a flag
        // overrides is no error.
        let provider = match flags.provider {
            None => word(
                self.provider.as_deref(),
                env_vars::OC_PROVIDER,
                "a provider",
            )?,
            Some(_) => None,
        };
        let edit_format = match flags.edit_format {
            None => word(
                self.edit_format.as_deref(),
                env_vars::OC_EDIT_FORMAT,
                "an edit format",
            )?,
            Some(_) => None,
        };
        Ok(Layer {
            model: self.model.clone(),
            host: self.host.clone(),
            base_url: self.base_url.clone(),
            provider,
            edit_format,
            ..Layer::default()
        })
    }
}

/// The value `text` of the variable `name` names, one of `T`'s words in
/// any case (`None` when unset).
///
/// Errors: no word of `T` ([`Error::Usage`] naming the variable and the
/// words, e.g. "use ollama or openai").
fn word<T: clap::ValueEnum>(text: Option<&str>, name: &str, what: &str) -> Result<Option<T>> {
    let Some(text) = text else {
        return Ok(None);
    };
    T::from_str(text, true).map(Some).map_err(|_| {
        let words: Vec<String> = (T::value_variants().iter())
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        let (last, rest) = words
            .split_last()
            .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
        Error::Usage(format!(
            "{name}: `{text}` is not {what}; use {} or {last}",
            rest.join(", ")
        ))
    })
}
