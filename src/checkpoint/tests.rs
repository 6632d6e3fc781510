use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use super::*;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn git_init(root: &Path) {
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "start",
        ],
    ] {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .status()
            .unwrap();
        assert!(ok.success());
    }
}

fn git_out(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Changes a run might make: an edit, a new file in a new folder, a
/// removal, an executable bit dropped by a rewrite.
fn change_everything(root: &Path) {
    write(root, "a.txt", "changed\n");
    write(root, "new/deep/b.txt", "created\n");
    std::fs::remove_file(root.join("gone.txt")).unwrap();
    std::fs::remove_file(root.join("run.sh")).unwrap();
    write(root, "run.sh", "echo changed\n");
}

fn start(root: &Path) {
    write(root, "a.txt", "original\n");
    write(root, "gone.txt", "keep me\n");
    write(root, "run.sh", "echo hi\n");
    let mut mode = std::fs::metadata(root.join("run.sh"))
        .unwrap()
        .permissions();
    mode.set_mode(0o755);
    std::fs::set_permissions(root.join("run.sh"), mode).unwrap();
    write(root, ".gitignore", "build/\n");
    write(root, "build/out.bin", "ignored\n");
}

fn undo_all(root: &Path, home: &Path, expected_store: StoreKind) {
    let checkpoint = Checkpoint::take(root, home).unwrap();
    change_everything(root);
    write(root, "build/out.bin", "rebuilt\n");
    let record = checkpoint.finish().unwrap();
    assert_eq!(record.store, expected_store);
    let paths: Vec<&str> = record.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "gone.txt", "new/deep/b.txt", "run.sh"]);
    let plan = plan(&record, root, false).unwrap();
    assert!(plan.refused().is_empty(), "{plan:?}");
    undo(&record, root, &plan).unwrap();
    assert_eq!(read(root, "a.txt"), "original\n");
    assert_eq!(read(root, "gone.txt"), "keep me\n");
    assert_eq!(read(root, "run.sh"), "echo hi\n");
    let mode = std::fs::metadata(root.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o100, 0o100, "executable again");
    assert!(!root.join("new").exists(), "created folders go too");
    assert_eq!(
        read(root, "build/out.bin"),
        "rebuilt\n",
        "ignored: not covered"
    );
    // Undone twice: everything is as before, nothing to do.
    let again = super::plan(&record, root, false).unwrap();
    assert!(again.steps.iter().all(|s| matches!(s, Step::Unchanged(_))));
}

#[test]
fn a_plain_folder_is_put_back_from_copies() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    start(dir.path());
    undo_all(dir.path(), home.path(), StoreKind::Files);
    assert!(home.path().join("checkpoints/objects").is_dir());
}

#[test]
fn a_git_work_tree_is_put_back_from_objects_without_touching_the_index() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    start(dir.path());
    git_init(dir.path());
    write(dir.path(), "staged.txt", "staged\n");
    Command::new("git")
        .args(["add", "staged.txt"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    let status_before = git_out(dir.path(), &["status", "--porcelain"]);
    let refs_before = git_out(dir.path(), &["show-ref"]);
    undo_all(dir.path(), home.path(), StoreKind::Git);
    assert_eq!(
        git_out(dir.path(), &["status", "--porcelain"]),
        status_before
    );
    assert_eq!(git_out(dir.path(), &["show-ref"]), refs_before);
    assert_eq!(git_out(dir.path(), &["stash", "list"]), "");
    assert!(
        !home.path().join("checkpoints").exists(),
        "no copies outside git"
    );
}

#[test]
fn a_file_changed_after_the_run_is_refused_unless_forced() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(dir.path(), "a.txt", "original\n");
    let checkpoint = Checkpoint::take(dir.path(), home.path()).unwrap();
    write(dir.path(), "a.txt", "by the run\n");
    let record = checkpoint.finish().unwrap();
    write(dir.path(), "a.txt", "by the user afterwards\n");
    let plan = super::plan(&record, dir.path(), false).unwrap();
    assert_eq!(plan.refused(), ["a.txt"]);
    undo(&record, dir.path(), &plan).unwrap();
    assert_eq!(read(dir.path(), "a.txt"), "by the user afterwards\n");
    let forced = super::plan(&record, dir.path(), true).unwrap();
    assert_eq!(forced.steps, [Step::Restore("a.txt".into())]);
    undo(&record, dir.path(), &forced).unwrap();
    assert_eq!(read(dir.path(), "a.txt"), "original\n");
}

#[test]
fn big_files_outside_git_are_listed_as_not_covered() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let big = "x".repeat(files::MAX_FILE_BYTES as usize + 1);
    write(dir.path(), "big.dat", &big);
    let checkpoint = Checkpoint::take(dir.path(), home.path()).unwrap();
    write(dir.path(), "big.dat", "small now\n");
    let record = checkpoint.finish().unwrap();
    assert!(record.changes.is_empty(), "{record:?}");
    assert_eq!(record.not_covered, ["big.dat"]);
}
