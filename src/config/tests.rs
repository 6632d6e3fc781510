//! Settings resolved from defaults, files, the environment and flags.

use std::path::{Path, PathBuf};

use super::*;
use crate::config::env::resolve_home;
use crate::config::file::{LoadedFile, parse_file};
use crate::error::{Error, Result};
use crate::permissions::PermissionMode;
use crate::permissions::rules::Action;
use crate::vocab::{Mode, Sampling, Think};
use pretty_assertions::assert_eq;

fn file(json: &str) -> LoadedFile {
    parse_file(Path::new("c.json"), json).unwrap()
}

/// Resolves in code mode with no environment.
fn resolve_files(flags: &Overrides, files: &[LoadedFile]) -> Result<Settings> {
    Settings::resolve(
        flags,
        Mode::Code,
        &EnvValues::default(),
        files,
        PathBuf::new(),
        PathBuf::new(),
    )
}

fn resolve(flags: &Overrides, env: &EnvValues, files: &[LoadedFile]) -> Settings {
    Settings::resolve(
        flags,
        Mode::Code,
        env,
        files,
        PathBuf::from("/w"),
        PathBuf::from("/h"),
    )
    .unwrap()
}

#[test]
fn defaults_apply_when_nothing_is_set() {
    let s = resolve(&Overrides::default(), &EnvValues::default(), &[]);
    assert_eq!(s.model, "qwen3.5:latest");
    assert_eq!(s.host, "http://localhost:11434");
    assert_eq!(s.num_ctx, 32768);
    assert_eq!(s.max_turns, 25);
    assert_eq!(s.think, Think::On);
    assert_eq!(s.sampling, Sampling::default());
    assert_eq!(s.permission_mode, PermissionMode::Normal);
}

#[test]
fn flags_beat_env_beat_project_beat_user() {
    let user = file(r#"{"model":"user","host":"user-host","num_ctx":1000,"top_k":5}"#);
    let project = file(r#"{"model":"project","host":"project-host","num_ctx":2000}"#);
    let env = EnvValues {
        model: Some("env".into()),
        host: Some("env-host".into()),
        ..EnvValues::default()
    };
    let flags = Overrides {
        layer: Layer {
            model: Some("flag".into()),
            ..Layer::default()
        },
        ..Overrides::default()
    };
    let files = [user, project];
    let s = resolve(&flags, &env, &files);
    assert_eq!(s.model, "flag");
    assert_eq!(s.host, "http://env-host:11434");
    assert_eq!(s.num_ctx, 2000);
    assert_eq!(s.sampling.top_k, Some(5));
    let s = resolve(&Overrides::default(), &env, &files);
    assert_eq!(s.model, "env");
    let s = resolve(&Overrides::default(), &EnvValues::default(), &files);
    assert_eq!(s.model, "project");
    assert_eq!(s.host, "http://project-host:11434");
}

#[test]
fn plan_mode_defaults_think_off_and_is_read_only() {
    let flags = Overrides {
        plan: true,
        yes: true,
        ..Overrides::default()
    };
    let s = resolve(&flags, &EnvValues::default(), &[]);
    assert_eq!(s.mode, Mode::Plan);
    assert_eq!(s.think, Think::Off);
    assert_eq!(s.permission_mode, PermissionMode::Plan);
}

#[test]
fn yes_means_yolo_in_code_mode() {
    let flags = Overrides {
        yes: true,
        ..Overrides::default()
    };
    assert_eq!(
        resolve(&flags, &EnvValues::default(), &[]).permission_mode,
        PermissionMode::Yolo
    );
}

#[test]
fn sampling_values_are_checked() {
    for flags in [
        Overrides {
            layer: Layer {
                temperature: Some(f64::NAN),
                ..Layer::default()
            },
            ..Overrides::default()
        },
        Overrides {
            layer: Layer {
                temperature: Some(-1.0),
                ..Layer::default()
            },
            ..Overrides::default()
        },
        Overrides {
            layer: Layer {
                top_p: Some(-3.0),
                ..Layer::default()
            },
            ..Overrides::default()
        },
        Overrides {
            layer: Layer {
                top_p: Some(1.5),
                ..Layer::default()
            },
            ..Overrides::default()
        },
        Overrides {
            layer: Layer {
                presence_penalty: Some(f64::INFINITY),
                ..Layer::default()
            },
            ..Overrides::default()
        },
    ] {
        let result = resolve_files(&flags, &[]);
        assert!(matches!(result, Err(Error::Usage(_))), "{flags:?}");
    }
}

#[test]
fn rules_come_from_files_then_flags() {
    let f = file(
        r#"{"permissions": {"rules": [{"action": "deny", "rule": "write(src/**)"}, {"action": "ask", "rule": "bash(git push*)"}]}}"#,
    );
    let flags = Overrides {
        allow: vec!["bash(cargo test*)".into()],
        deny: vec!["read(secrets/)".into()],
        ..Overrides::default()
    };
    let s = resolve(&flags, &EnvValues::default(), &[f]);
    let rules: Vec<(Action, &str)> = s
        .rules
        .iter()
        .map(|r| (r.action, r.text.as_str()))
        .collect();
    assert_eq!(
        rules,
        [
            (Action::Deny, "write(src/**)"),
            (Action::Ask, "bash(git push*)"),
            (Action::Allow, "bash(cargo test*)"),
            (Action::Deny, "read(secrets/)"),
        ]
    );
    let bad = Overrides {
        allow: vec!["shell(ls)".into()],
        ..Overrides::default()
    };
    let err = resolve_files(&bad, &[]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("--allow: invalid rule `shell(ls)`"),
        "{err}"
    );
    let f = file(r#"{"permissions": {"rules": [{"action": "allow", "rule": "bash("}]}}"#);
    let err = resolve_files(&Overrides::default(), &[f]).unwrap_err();
    assert!(
        err.to_string()
            .contains("config file `c.json`: invalid rule `bash(`"),
        "{err}"
    );
    assert!(
        parse_file(
            Path::new("x"),
            r#"{"permissions": {"rules": [{"action": "maybe", "rule": "bash"}]}}"#
        )
        .is_err()
    );
}

#[test]
fn out_of_range_file_values_are_usage_errors() {
    let f = file(r#"{"max_turns":0}"#);
    let err = resolve_files(&Overrides::default(), &[f]).unwrap_err();
    assert!(err.to_string().contains("max_turns"), "{err}");
}

#[test]
fn home_prefers_flag_then_env_then_home_dir() {
    let env = EnvValues {
        oc_home: Some("/env-home".into()),
        home_dir: Some("/home/me".into()),
        ..EnvValues::default()
    };
    assert_eq!(
        resolve_home(Some(Path::new("/flag")), &env).unwrap(),
        PathBuf::from("/flag")
    );
    assert_eq!(
        resolve_home(None, &env).unwrap(),
        PathBuf::from("/env-home")
    );
    let env = EnvValues {
        home_dir: Some("/home/me".into()),
        ..EnvValues::default()
    };
    assert_eq!(
        resolve_home(None, &env).unwrap(),
        PathBuf::from("/home/me/.ollama-code")
    );
    assert!(resolve_home(None, &EnvValues::default()).is_err());
}

#[test]
fn a_bad_word_in_the_environment_names_the_variable_and_the_words() {
    let bad = |env: EnvValues| {
        resolve_files_with_env(&Overrides::default(), &env)
            .unwrap_err()
            .to_string()
    };
    let provider = bad(EnvValues {
        provider: Some("bogus".into()),
        ..EnvValues::default()
    });
    assert!(
        provider.contains("OC_PROVIDER: `bogus` is not a provider; use ollama or openai"),
        "{provider}"
    );
    let format = bad(EnvValues {
        edit_format: Some("bogus".into()),
        ..EnvValues::default()
    });
    assert!(
        format.contains(
            "OC_EDIT_FORMAT: `bogus` is not an edit format; use tools, whole, diff or auto"
        ),
        "{format}"
    );
}

fn resolve_files_with_env(flags: &Overrides, env: &EnvValues) -> Result<Settings> {
    Settings::resolve(flags, Mode::Code, env, &[], PathBuf::new(), PathBuf::new())
}
