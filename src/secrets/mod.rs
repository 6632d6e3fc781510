//! Secrets, in one leaf module that imports nothing else of the crate:
//! which files hold them (`files`: `.env` and its variants, a hard rule),
//! the values scrubbed from every tool result (`scrub`: the workspace's
//! secret files and this process's secret-looking environment), and the
//! shapes of credentials (`shapes`: gitleaks' rules and oc's own, run by
//! `rules`, and `NAME=value` lines whose name says secret) scrubbed from
//! every tool result and redacted from fine-tuning records.

pub(crate) mod files;
mod local;
pub(crate) mod rules;
pub(crate) mod scrub;
pub(crate) mod shapes;

pub(crate) use files::{is_secret_env_file, is_secret_env_name};
pub(crate) use scrub::{REDACTED, Secrets};
