//! The settings a command runs with: `OC_HOME`, and the configuration
//! resolved from files, the environment and flags, with the warnings met on
//! the way shown.

use std::path::PathBuf;

use crate::cli::{HomeArgs, ServerArgs};
use crate::config::load::{self, Sources};
use crate::config::{EnvValues, Overrides, Settings};
use crate::error::Result;
use crate::ui;
use crate::vocab::Mode;

/// `OC_HOME`, from `--home`, the environment or the default.
///
/// Errors (exit 2): no home can be found, or it is not a directory.
pub(super) fn load_home(args: &HomeArgs) -> Result<PathBuf> {
    load::usable_home(args.home.as_deref(), &EnvValues::from_process())
}

/// Reads the environment and config files, resolves the settings and shows
/// the warnings met on the way.
pub(super) fn load_settings(
    server: &ServerArgs,
    flags: &Overrides,
    mode: Mode,
) -> Result<Settings> {
    let sources = Sources {
        home: server.home.home.as_deref(),
        cwd: server.cwd.as_deref(),
        config: server.config.as_deref(),
    };
    let (warnings, settings) = load::load(sources, flags, mode);
    for warning in &warnings {
        ui::print_warning(warning);
    }
    settings
}
