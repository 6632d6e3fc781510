//! The workspace a run's tools are confined to.

use std::path::Path;

use crate::error::{Error, Result};
use crate::tools::Workspace;

/// The workspace the tools are confined to.
///
/// Errors: the directory cannot be used ([`Error::Usage`], exit 2).
pub(crate) fn open_workspace(cwd: &Path) -> Result<Workspace> {
    Workspace::new(cwd).map_err(|e| {
        Error::Usage(format!(
            "cannot use `{}` as the workspace: {e}",
            cwd.display()
        ))
    })
}
