//! What sandboxed commands may not read: the user's credential stores and
//! `oc`'s own sessions and records (docs/permissions.md "Sandbox"). Landlock only grants,
//! so "everything but these" is said as the largest folders and files that
//! hold none of them ([`readable_roots`]).

use std::path::{Path, PathBuf};

/// The paths commands may not read (credential stores, `oc`'s records)
/// and those readable inside them (`--allow-read`), real paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Reads {
    pub denied: Vec<PathBuf>,
    pub allowed: Vec<PathBuf>,
}

/// Credential stores, relative to the home directory.
pub(crate) const CREDENTIAL_STORES: [&str; 15] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".pypirc",
    ".docker/config.json",
    ".config/gh",
    ".config/gcloud",
    ".config/hub",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

/// What `oc` keeps in `OC_HOME` that commands may not read: other runs'
/// conversations, records and file copies.
pub(crate) const OC_HOME_RECORDS: [&str; 3] = ["sessions", "finetune.jsonl", "checkpoints"];

/// The paths commands may not read: the credential stores under `home`
/// and `oc`'s records under `oc_home`, those that exist, as real paths. A store that holds the workspace is left readable (`oc` run
/// inside it reads its files anyway).
pub(crate) fn credential_stores(
    home: Option<&Path>,
    oc_home: &Path,
    workspace: &Path,
) -> Vec<PathBuf> {
    let stores = home
        .into_iter()
        .flat_map(|home| CREDENTIAL_STORES.iter().map(move |s| home.join(s)))
        .chain(OC_HOME_RECORDS.iter().map(|r| oc_home.join(r)));
    // A store may be a link (`~/.aws -> dotfiles/aws`): its real path is
    // the one kept from reading, the link is named for the messages.
    let mut found: Vec<PathBuf> = stores
        .filter_map(|p| {
            let real = p.canonicalize().ok()?;
            Some([p, real])
        })
        .flatten()
        .filter(|p| !workspace.starts_with(p))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The largest paths beneath `root` that hold none of `denied`: `root`
/// itself when none is beneath it; else, walking down towards each denied
/// path, every other entry of the directories on the way. A symbolic link
/// on the way is left out when it names a denied path, one inside it or
/// one holding it (Landlock would grant what it names).
pub(crate) fn readable_roots(root: &Path, denied: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(root, root.is_symlink(), denied, &mut out);
    out
}

/// `is_link` comes from the directory entry's type, so that entries cost
/// no `stat` (this runs before every confined command).
fn collect(path: &Path, is_link: bool, denied: &[PathBuf], out: &mut Vec<PathBuf>) {
    if denied.iter().any(|d| d == path) {
        return;
    }
    if is_link {
        let names_denied = path.canonicalize().is_ok_and(|real| {
            denied
                .iter()
                .any(|d| real.starts_with(d) || d.starts_with(&real))
        });
        if !names_denied {
            out.push(path.to_path_buf());
        }
        return;
    }
    if !denied.iter().any(|d| d.starts_with(path)) {
        out.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        let is_link = match entry.file_type() {
            Ok(kind) => kind.is_symlink(),
            Err(_) => entry.path().is_symlink(),
        };
        collect(&entry.path(), is_link, denied, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_but_the_denied_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for p in [
            "home/.ssh",
            "home/.config/gh",
            "home/.config/git",
            "home/src",
            "etc",
        ] {
            std::fs::create_dir_all(root.join(p)).unwrap();
        }
        std::fs::write(root.join("home/.bashrc"), "").unwrap();
        std::os::unix::fs::symlink(root.join("home/.ssh"), root.join("home/keys")).unwrap();
        std::os::unix::fs::symlink(root.join("etc"), root.join("home/etc-link")).unwrap();
        let denied = [root.join("home/.ssh"), root.join("home/.config/gh")];
        let mut got = readable_roots(&root, &denied);
        got.sort();
        let mut want = vec![
            root.join("etc"),
            root.join("home/.bashrc"),
            root.join("home/.config/git"),
            root.join("home/etc-link"),
            root.join("home/src"),
        ];
        want.sort();
        assert_eq!(got, want);
        assert_eq!(readable_roots(&root, &[]), vec![root.clone()]);
    }

    #[test]
    fn stores_that_exist_and_do_not_hold_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(home.join(".config/gh")).unwrap();
        std::fs::create_dir_all(home.join(".oc/sessions")).unwrap();
        std::fs::write(home.join(".oc/config.json"), "{}").unwrap();
        std::fs::create_dir_all(home.join("work")).unwrap();
        let stores = credential_stores(Some(&home), &home.join(".oc"), &home.join("work"));
        assert_eq!(
            stores,
            [
                home.join(".config/gh"),
                home.join(".oc/sessions"),
                home.join(".ssh")
            ]
        );
        let inside = credential_stores(Some(&home), &home.join(".oc"), &home.join(".ssh/keys"));
        assert!(!inside.contains(&home.join(".ssh")));
    }
}
