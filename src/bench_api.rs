//! What `cargo bench` measures, reachable from outside the crate (every
//! other module is private to it): the sandbox's cost per `bash` call,
//! `edit_file`'s matcher, `search`, the credential scrubber
//! (docs/small-models.md "Benchmarks").
//! Not an API: it changes with the benches.

use std::path::{Path, PathBuf};

use crate::sandbox::prepare::prepare;
use crate::sandbox::reaper;
use crate::sandbox::settings::SandboxSettings;
use crate::sandbox::support::Support;
use crate::tools::{Workspace, bash, edit_match, search};
use crate::vocab::{Network, SandboxMode};

/// A workspace the tools run in.
#[derive(Debug, Clone)]
pub struct BenchWorkspace(Workspace);

impl BenchWorkspace {
    /// The workspace at `dir`, its commands unconfined.
    ///
    /// Errors: `dir` cannot be a workspace.
    pub fn plain(dir: &Path) -> Result<Self, String> {
        Workspace::new(dir)
            .map(BenchWorkspace)
            .map_err(|e| e.to_string())
    }

    /// The same workspace with its commands confined as a run's are
    /// (workspace-write, the network off, the user's credential stores and
    /// `~/.ollama-code` unreadable) by `helper`, the `oc` binary. Returns
    /// it and how many credential stores are kept from reading.
    ///
    /// Errors: this kernel cannot confine both the filesystem and the
    /// network (Landlock ABI 4).
    pub fn confined(&self, helper: PathBuf) -> Result<(Self, usize), String> {
        let support = Support::probe();
        if !(support.filesystem && support.network) {
            return Err("this kernel cannot confine (Landlock with ABI 4 needed)".into());
        }
        let settings = SandboxSettings {
            mode: SandboxMode::WorkspaceWrite,
            required: true,
            network: Network::Off,
            add_dirs: Vec::new(),
            allow_read: Vec::new(),
            home_dir: std::env::var_os("HOME").map(PathBuf::from),
        };
        let oc_home = (settings.home_dir.clone())
            .unwrap_or_default()
            .join(".ollama-code");
        let (sandbox, _) =
            prepare(&settings, self.0.root(), &oc_home, support).map_err(|e| format!("{e:#}"))?;
        let denied = sandbox.reads().denied.len();
        let confined = self.0.clone().confined(sandbox.with_helper(helper));
        Ok((BenchWorkspace(confined), denied))
    }

    /// Runs `command` with the `bash` tool: whether it succeeded, and its
    /// output.
    pub async fn bash(&self, command: &str) -> (bool, String) {
        let args = bash::Args {
            command: command.into(),
            timeout_secs: None,
        };
        let outcome = bash::run(&args, &self.0).await;
        (outcome.ok, outcome.content)
    }

    /// Runs the `search` tool for `pattern` over the workspace: its summary
    /// line (`300 matches for /hit/`).
    pub fn search(&self, pattern: &str) -> String {
        let args = search::Args {
            pattern: pattern.into(),
            path: None,
            glob: None,
            ignore_case: None,
        };
        search::run(&args, &self.0).summary
    }
}

/// Makes this process the subreaper of what it starts, as a run does.
pub fn become_subreaper() {
    reaper::become_subreaper();
}

/// `edit_file`'s matcher replacing `old` with `new` in `text`: whether
/// only the fuzzy stage matched, and the first line of each replaced
/// occurrence (1-based).
///
/// Errors: no match, or more than one.
pub fn edit(text: &str, old: &str, new: &str) -> Result<(bool, Vec<usize>), String> {
    let edit = edit_match::apply(text, old, new, false)?;
    Ok((edit.stage == edit_match::Stage::Fuzzy, edit.lines))
}

/// A tool result scrubbed of credentials as a run scrubs it (no secret
/// files or environment values; the shapes only): how many bytes it lost
/// or gained.
pub fn scrub_credentials(text: &str) -> isize {
    let scrubbed = crate::secrets::Secrets::default().scrub(text);
    scrubbed.len() as isize - text.len() as isize
}
