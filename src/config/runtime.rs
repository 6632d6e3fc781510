//! The runtime settings (docs/model-servers.md "Runtimes"): `--runtime`, `--opencode-url`
//! over the config keys `runtime`, `opencode_url`.

use super::file::LoadedFile;
use super::layer::Layer;
use crate::client::host::{is_loopback, normalize_host};
use crate::vocab::Runtime;

/// Which loop runs the agent, and where an opencode server is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RuntimeSettings {
    pub runtime: Runtime,
    /// An opencode server to use; without it, oc starts `opencode serve`.
    pub opencode_url: Option<String>,
}

/// The runtime settings of the merged layers.
pub(crate) fn resolve(chosen: &Layer) -> RuntimeSettings {
    RuntimeSettings {
        runtime: chosen.runtime.unwrap_or_default(),
        opencode_url: chosen.opencode_url.clone(),
    }
}

/// Drops an `opencode_url` away from this machine from a project config
/// (it came with the repository: prompts and code must not go elsewhere).
/// Returns the warnings to show.
pub(crate) fn drop_untrusted_opencode(file: &mut LoadedFile) -> Vec<String> {
    let path = file.path.display().to_string();
    match file.config.opencode_url.take() {
        Some(url) if normalize_host(&url).is_ok_and(|u| is_loopback(&u)) => {
            file.config.opencode_url = Some(url);
            Vec::new()
        }
        Some(url) => vec![format!(
            "`{path}` sets `opencode_url` to `{url}`, which is not this machine; it is ignored. Use `--opencode-url` or `OC_HOME/config.json`"
        )],
        None => Vec::new(),
    }
}
