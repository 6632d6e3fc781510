//! The sandbox settings (docs/permissions.md "Sandbox"): `--sandbox`, `--network`,
//! `--add-dir` over the config keys `sandbox`, `network`, `add_dirs`, and
//! `--allow-read`; plan
//! mode never writes; a project config may tighten them, never loosen.

use std::path::{Path, PathBuf};

use super::file::LoadedFile;
use super::flags::Overrides;
use super::layer::Layer;
use crate::sandbox::settings::SandboxSettings;
use crate::vocab::{Mode, Network, SandboxMode};

/// The sandbox settings of the merged layers, for a run in `mode`;
/// `add_dirs` are every file's (in merge order), then `--add-dir`. Relative `add_dirs` of a file start at the file's directory;
/// `~/` at `home_dir`.
pub(crate) fn resolve(
    chosen: &Layer,
    files: &[LoadedFile],
    flags: &Overrides,
    mode: Mode,
    home_dir: Option<&Path>,
) -> SandboxSettings {
    let asked: SandboxMode = chosen.sandbox.unwrap_or_default();
    let required = asked == SandboxMode::Required;
    let mode = match (asked, mode) {
        (SandboxMode::Off, _) => SandboxMode::Off,
        (SandboxMode::ReadOnly, _) | (_, Mode::Plan) => SandboxMode::ReadOnly,
        _ => SandboxMode::WorkspaceWrite,
    };
    let network = chosen.network.unwrap_or(if mode == SandboxMode::Off {
        Network::On
    } else {
        Network::Off
    });
    let mut add_dirs = Vec::new();
    for file in files {
        let base = file.path.parent().unwrap_or(Path::new("."));
        for dir in file.config.add_dirs.iter().flatten() {
            add_dirs.push(expand(dir, base, home_dir));
        }
    }
    add_dirs.extend(flags.add_dirs.iter().cloned());
    SandboxSettings {
        mode,
        required,
        network,
        add_dirs,
        allow_read: flags.allow_read.clone(),
        home_dir: home_dir.map(Path::to_path_buf),
    }
}

/// `~/x` under `home_dir`, a relative path under `base`.
fn expand(dir: &Path, base: &Path, home_dir: Option<&Path>) -> PathBuf {
    match (dir.strip_prefix("~"), home_dir) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => base.join(dir),
    }
}

/// Drops what a project config (it came with the repository) may not
/// decide: a sandbox looser than `read-only` or `required`, the network on,
/// more writable directories. Returns the warnings to show.
pub(crate) fn drop_untrusted_sandbox(file: &mut LoadedFile) -> Vec<String> {
    let path = file.path.display().to_string();
    let config = &mut file.config;
    let mut dropped = Vec::new();
    // `workspace-write` is the default: dropped without a word, as it can
    // only loosen what the user's own config says.
    if let Some(mode) = config
        .sandbox
        .take_if(|m| !matches!(m, SandboxMode::ReadOnly | SandboxMode::Required))
        .filter(|m| *m != SandboxMode::WorkspaceWrite)
    {
        dropped.push(format!("`sandbox` {}", mode_name(mode)));
    }
    if config.network.take_if(|n| *n == Network::On).is_some() {
        dropped.push("`network` on".to_string());
    }
    if config.add_dirs.take().is_some() {
        dropped.push("`add_dirs`".to_string());
    }
    dropped
        .into_iter()
        .map(|what| {
            format!(
                "`{path}` sets {what}; a project config may only tighten the sandbox, so it is ignored. Use a flag or `OC_HOME/config.json`"
            )
        })
        .collect()
}

/// The name of a mode as written in flags and files.
pub(crate) fn mode_name(mode: SandboxMode) -> &'static str {
    match mode {
        SandboxMode::WorkspaceWrite => "workspace-write",
        SandboxMode::ReadOnly => "read-only",
        SandboxMode::Off => "off",
        SandboxMode::Required => "required",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::file::parse_file;

    fn file(path: &str, json: &str) -> LoadedFile {
        parse_file(Path::new(path), json).unwrap()
    }

    /// The files' and the flags' layers merged, then resolved.
    fn resolve_with(
        flags: &Overrides,
        files: &[LoadedFile],
        mode: Mode,
        home: Option<&Path>,
    ) -> SandboxSettings {
        let chosen = (files.iter())
            .fold(Layer::default(), |merged, f| merged.merge(&f.config))
            .merge(&flags.layer);
        resolve(&chosen, files, flags, mode, home)
    }

    #[test]
    fn defaults_confine_writes_and_the_network() {
        let s = resolve_with(&Overrides::default(), &[], Mode::Code, None);
        assert_eq!(
            (s.mode, s.required, s.network),
            (SandboxMode::WorkspaceWrite, false, Network::Off)
        );
        let plan = resolve_with(&Overrides::default(), &[], Mode::Plan, None);
        assert_eq!(plan.mode, SandboxMode::ReadOnly);
    }

    #[test]
    fn off_leaves_the_network_on_unless_asked() {
        let off = Overrides {
            layer: Layer {
                sandbox: Some(SandboxMode::Off),
                ..Layer::default()
            },
            ..Overrides::default()
        };
        let s = resolve_with(&off, &[], Mode::Code, None);
        assert_eq!((s.mode, s.network), (SandboxMode::Off, Network::On));
        let files = [file("/u/config.json", r#"{"network": "off"}"#)];
        let s = resolve_with(&off, &files, Mode::Code, None);
        assert_eq!(s.network, Network::Off);
    }

    #[test]
    fn required_is_workspace_write_that_must_hold() {
        let files = [file("/u/config.json", r#"{"sandbox": "required"}"#)];
        let s = resolve_with(&Overrides::default(), &files, Mode::Code, None);
        assert_eq!((s.mode, s.required), (SandboxMode::WorkspaceWrite, true));
        let s = resolve_with(&Overrides::default(), &files, Mode::Plan, None);
        assert_eq!((s.mode, s.required), (SandboxMode::ReadOnly, true));
    }

    #[test]
    fn add_dirs_come_from_files_then_flags() {
        let files = [file(
            "/u/.ollama-code/config.json",
            r#"{"add_dirs": ["~/.cache/go-build", "cache", "/abs"]}"#,
        )];
        let flags = Overrides {
            add_dirs: vec![PathBuf::from("/flag")],
            ..Overrides::default()
        };
        let s = resolve_with(&flags, &files, Mode::Code, Some(Path::new("/home/u")));
        assert_eq!(
            s.add_dirs,
            [
                "/home/u/.cache/go-build",
                "/u/.ollama-code/cache",
                "/abs",
                "/flag"
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn a_project_config_may_only_tighten() {
        let mut loose = file(
            "/p/.ollama-code.json",
            r#"{"sandbox": "off", "network": "on", "add_dirs": ["/"]}"#,
        );
        let warnings = drop_untrusted_sandbox(&mut loose);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].contains("`sandbox` off"), "{warnings:?}");
        assert_eq!(
            (
                loose.config.sandbox,
                loose.config.network,
                &loose.config.add_dirs
            ),
            (None, None, &None)
        );
        let mut strict = file(
            "/p/.ollama-code.json",
            r#"{"sandbox": "required", "network": "off"}"#,
        );
        assert!(drop_untrusted_sandbox(&mut strict).is_empty());
        assert_eq!(strict.config.sandbox, Some(SandboxMode::Required));
        let mut default = file("/p/.ollama-code.json", r#"{"sandbox": "workspace-write"}"#);
        assert!(drop_untrusted_sandbox(&mut default).is_empty());
        assert_eq!(default.config.sandbox, None);
    }
}
