//! Which files hold secrets: `.env` files and their variants. Nothing reads,
//! lists, searches or scrubs past them (a hard rule, docs/permissions.md); the walker,
//! the hard rules and the secret scrubber all ask here. A leaf: it imports
//! nothing of the crate.

use std::path::Path;

/// Whether a file name is a secret environment file: `.env`, `.env.local`,
/// `.env.production`, `prod.env`, direnv's `.envrc`… Templates (`.env.example`, `.env.sample`,
/// `.env.template`, `.env.dist`) are not secret.
pub(crate) fn is_secret_env_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(is_secret_env_name)
}

/// Whether a bare file name (no directory) is a secret environment file; see
/// [`is_secret_env_file`].
pub(crate) fn is_secret_env_name(name: &str) -> bool {
    let mut lower = name.to_ascii_lowercase();
    // Backups and editor copies hold the same secrets: `.env~`, `.env.bak`.
    for suffix in ["~", ".bak", ".swp", ".orig", ".old", ".save", ".backup"] {
        if let Some(stem) = lower.strip_suffix(suffix) {
            lower = stem.to_string();
        }
    }
    // direnv's `.envrc` exports the same kind of values (`export
    // DATABASE_URL=…`).
    let is_env = lower == ".env"
        || lower == ".envrc"
        || lower.starts_with(".envrc.")
        || lower.starts_with(".env.")
        || lower.starts_with(".env-")
        || lower.starts_with(".env_")
        || lower.ends_with(".env");
    let is_template = [".example", ".sample", ".template", ".dist"]
        .iter()
        .any(|suffix| lower.ends_with(suffix));
    is_env && !is_template
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_env_files() {
        for name in [
            ".env",
            ".env.local",
            ".env.production",
            "prod.env",
            "config/.env",
            ".ENV",
            ".env~",
            ".env.local.bak",
            ".env-local",
            ".env_prod",
            ".envrc",
            ".envrc.local",
        ] {
            assert!(is_secret_env_file(Path::new(name)), "{name}");
        }
        for name in [
            ".env.example",
            ".env.sample",
            ".env.template",
            ".flaskenv",
            "env.rs",
            "environment.md",
        ] {
            assert!(!is_secret_env_file(Path::new(name)), "{name}");
        }
    }
}
