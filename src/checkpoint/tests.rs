use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use super::*;
use crate::checkpoint::record::StoreKind;

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
    assert_eq!(
        paths,
        [
            "a.txt",
            "build/out.bin",
            "gone.txt",
            "new/deep/b.txt",
            "run.sh"
        ]
    );
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
        "ignored\n",
        "small and ignored: kept"
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

fn take_change_undo(root: &Path, home: &Path, change: impl FnOnce(&Path)) -> CheckpointRecord {
    let checkpoint = Checkpoint::take(root, home).unwrap();
    change(root);
    let record = checkpoint.finish().unwrap();
    let plan = plan(&record, root, false).unwrap();
    assert!(
        plan.refused().is_empty() && plan.blocked().is_empty(),
        "{plan:?}"
    );
    undo(&record, root, &plan).unwrap();
    record
}

/// Regression: with `core.autocrlf` and a clean filter, undo gave back the
/// filtered bytes (LF files came back CRLF, a filter's output instead of
/// the file). The blobs are the bytes as they are.
#[test]
fn git_filters_do_not_change_what_comes_back() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, "seed", "x\n");
    git_init(root);
    for args in [
        ["config", "core.autocrlf", "true"],
        ["config", "filter.up.clean", "tr a-z A-Z"],
    ] {
        git_out(root, &args);
    }
    write(root, ".gitattributes", "*.up filter=up\n*.dat ident\n");
    let files = [
        ("lf.txt", "one\ntwo\n"),
        ("mixed.txt", "a\r\nb\nc\r\n"),
        ("f.up", "hello secret\n"),
        ("id.dat", "$Id$\n"),
    ];
    for (path, text) in files {
        write(root, path, text);
    }
    take_change_undo(root, home.path(), |root| {
        for (path, _) in files {
            write(root, path, "changed\n");
        }
    });
    for (path, text) in files {
        assert_eq!(read(root, path), text, "{path}");
    }
}

/// Regression: outside git, a file that grew past the copy limit during
/// the run was "not covered", and a big file the run created stayed.
#[test]
fn files_that_grow_big_or_are_created_big_are_undone() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, "grow.bin", "small\n");
    let big = "y".repeat(files::MAX_FILE_BYTES as usize * 2);
    let record = take_change_undo(root, home.path(), |root| {
        write(root, "grow.bin", &big);
        write(root, "created.bin", &big);
    });
    assert!(record.not_covered.is_empty(), "{record:?}");
    assert_eq!(read(root, "grow.bin"), "small\n");
    assert!(!root.join("created.bin").exists());
}

/// Regression: a change of mode only was recorded but never undone.
#[test]
fn a_mode_change_alone_is_undone() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    start(root);
    take_change_undo(root, home.path(), |root| {
        let mut mode = std::fs::metadata(root.join("run.sh"))
            .unwrap()
            .permissions();
        mode.set_mode(0o644);
        std::fs::set_permissions(root.join("run.sh"), mode).unwrap();
    });
    let mode = std::fs::metadata(root.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o100, 0o100);
}

/// Regression: a file the run replaced by a folder could never be put
/// back ("Is a directory"), and a folder it replaced by a link looked
/// changed since the run.
#[test]
fn a_file_replaced_by_a_folder_and_a_folder_by_a_link_come_back() {
    let (dir, home, outside) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let root = dir.path();
    write(root, "f", "file\n");
    write(root, "sub/g.txt", "in sub\n");
    write(outside.path(), "g.txt", "outside\n");
    let target = outside.path().to_path_buf();
    take_change_undo(root, home.path(), |root| {
        std::fs::remove_file(root.join("f")).unwrap();
        write(root, "f/x", "in\n");
        std::fs::remove_dir_all(root.join("sub")).unwrap();
        std::os::unix::fs::symlink(&target, root.join("sub")).unwrap();
    });
    assert_eq!(read(root, "f"), "file\n");
    assert!(root.join("sub").symlink_metadata().unwrap().is_dir());
    assert_eq!(read(root, "sub/g.txt"), "in sub\n");
    assert_eq!(read(outside.path(), "g.txt"), "outside\n");
}

/// Regression: after the run, a folder swapped for a link to elsewhere
/// made `--force` write and delete outside the workspace.
#[test]
fn undo_never_goes_through_a_link_the_run_did_not_make() {
    let (dir, home, outside) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let root = dir.path();
    write(root, "sub/f.txt", "original\n");
    let checkpoint = Checkpoint::take(root, home.path()).unwrap();
    write(root, "sub/f.txt", "by the run\n");
    write(root, "sub/new.txt", "new\n");
    let record = checkpoint.finish().unwrap();
    std::fs::rename(root.join("sub"), root.join("sub.bak")).unwrap();
    write(outside.path(), "f.txt", "precious\n");
    write(outside.path(), "new.txt", "mine\n");
    std::os::unix::fs::symlink(outside.path(), root.join("sub")).unwrap();
    let forced = plan(&record, root, true).unwrap();
    assert_eq!(forced.blocked(), ["sub/f.txt", "sub/new.txt"]);
    undo(&record, root, &forced).unwrap();
    assert_eq!(read(outside.path(), "f.txt"), "precious\n");
    assert_eq!(read(outside.path(), "new.txt"), "mine\n");
}

/// Regression: a dry run listed files whose old content git had pruned;
/// the undo then stopped half way. Now nothing is put back.
#[test]
fn pruned_objects_stop_the_undo_before_it_starts() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, "a.txt", "a\n");
    write(root, "b.txt", "b\n");
    let checkpoint = Checkpoint::take(root, home.path()).unwrap();
    write(root, "a.txt", "A\n");
    write(root, "b.txt", "B\n");
    let record = checkpoint.finish().unwrap();
    let a = record.changes[0].before.clone().unwrap();
    let copy = home
        .path()
        .join("checkpoints/objects")
        .join(&a.id[..2])
        .join(&a.id[2..]);
    std::fs::remove_file(copy).unwrap();
    let err = plan(&record, root, false).unwrap_err();
    assert!(err.contains("no longer in the store"), "{err}");
    assert_eq!(read(root, "b.txt"), "B\n");
}

/// Regressions (second attack): a file ignored when the run began and
/// covered at its end (its `.gitignore` line gone, or renamed out of an
/// ignored name) was taken for one the run made, and undo removed it; a
/// name starting with `"` was unquoted by git; a 0600 file came back 0644.
/// Since ignored files are kept: the rename is undone (old name back, new
/// name gone) and the `.env` is covered.
#[test]
fn files_older_than_the_checkpoint_are_never_removed() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, ".gitignore", ".env\n*.db\n");
    write(root, ".env", "TOKEN=1\n");
    write(root, "local.db", "data\n");
    write(root, "\"x", "quoted name\n");
    write(root, "x", "plain name\n");
    write(root, "secret.key", "key\n");
    std::fs::set_permissions(
        root.join("secret.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    git_init(root);
    let record = take_change_undo(root, home.path(), |root| {
        write(root, ".gitignore", "build/\n");
        std::fs::rename(root.join("local.db"), root.join("local.sqlite")).unwrap();
        write(root, "x", "changed\n");
        std::fs::remove_file(root.join("secret.key")).unwrap();
    });
    assert_eq!(read(root, ".env"), "TOKEN=1\n");
    assert_eq!(read(root, "local.db"), "data\n");
    assert!(!root.join("local.sqlite").exists());
    assert_eq!(read(root, "\"x"), "quoted name\n");
    assert_eq!(read(root, "x"), "plain name\n");
    let mode = std::fs::metadata(root.join("secret.key"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(record.not_covered.is_empty(), "{record:?}");
}

/// A workspace below the repository's top (`oc run` in `pkg/`): git reads
/// the paths it is given from the top, so they must still find the files.
#[test]
fn a_workspace_in_a_subdirectory_of_a_repository_is_put_back() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let workspace = dir.path().join("pkg");
    start(&workspace);
    git_init(dir.path());
    undo_all(&workspace, home.path(), StoreKind::Git);
}

/// Outside git the walker's own rules (`.gitignore`, `.ignore`) say what
/// is ignored: those files are kept too, and a rename is undone whole.
#[test]
fn ignored_files_and_renames_outside_git_are_undone() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, ".gitignore", "build/\n*.log\n");
    write(root, "a.txt", "a\n");
    write(root, "build/deep/out.bin", "built\n");
    write(root, "run.log", "log\n");
    write(root, ".env", "TOKEN=1\n");
    let record = take_change_undo(root, home.path(), |root| {
        std::fs::remove_dir_all(root.join("build")).unwrap();
        std::fs::remove_file(root.join("run.log")).unwrap();
        std::fs::rename(root.join("a.txt"), root.join("b.txt")).unwrap();
        write(root, "made.log", "new and ignored\n");
    });
    assert!(record.not_covered.is_empty(), "{record:?}");
    assert_eq!(read(root, "a.txt"), "a\n");
    assert!(!root.join("b.txt").exists());
    assert_eq!(read(root, "build/deep/out.bin"), "built\n");
    assert_eq!(read(root, "run.log"), "log\n");
    assert_eq!(
        read(root, "made.log"),
        "new and ignored\n",
        "ignored files the run made stay"
    );
}

/// An ignored folder past the walk's cap is recorded as present: its loss
/// is named, not undone; left alone, it is not named. A file moved out of
/// it is named, not removed; a kept file renamed is still undone.
#[test]
fn an_ignored_folder_past_the_cap_is_named_when_it_goes() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, ".gitignore", "node_modules/\n");
    write(root, "a.txt", "a\n");
    git_init(root);
    for n in 0..=ignored::MAX_FOLDER_FILES {
        write(root, &format!("node_modules/p{}/f{n}.js", n % 10), "x\n");
    }
    let kept = Checkpoint::take(root, home.path()).unwrap();
    assert_eq!(kept.finish().unwrap().not_covered, Vec::<String>::new());
    std::fs::rename(root.join("node_modules/p0/f0.js"), root.join("f0.js")).unwrap();
    std::fs::rename(root.join("a.txt"), root.join("b.txt")).unwrap();
    let record = kept.finish().unwrap();
    assert_eq!(record.not_covered, ["f0.js"]);
    let paths: Vec<&str> = record.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "b.txt"]);
    std::fs::remove_dir_all(root.join("node_modules")).unwrap();
    let record = kept.finish().unwrap();
    assert_eq!(record.not_covered, ["f0.js", "node_modules/"]);
}

/// A rename of a file whose content the checkpoint did not keep (over the
/// copy limit outside git, or ignored past the budget) is named, and the
/// new name never removed: it holds the only copy.
#[test]
fn a_file_not_kept_and_renamed_is_never_removed() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, ".gitignore", "*.log\n");
    let big = "z".repeat(files::MAX_FILE_BYTES as usize + 1);
    write(root, "big.dat", &big);
    write(root, "huge.log", &big);
    let record = take_change_undo(root, home.path(), |root| {
        std::fs::rename(root.join("big.dat"), root.join("moved.dat")).unwrap();
        std::fs::rename(root.join("huge.log"), root.join("huge.txt")).unwrap();
    });
    assert_eq!(read(root, "moved.dat"), big);
    assert_eq!(read(root, "huge.txt"), big);
    assert_eq!(
        record.not_covered,
        ["big.dat", "huge.log", "huge.txt", "moved.dat"]
    );
}

/// A session written before the index and the ignored files were kept
/// still reads, and undoes.
#[test]
fn an_older_record_without_the_new_fields_still_reads() {
    let old = r#"{"store":"git","location":"/x/.git","changes":[{"path":"a.txt","before":null,"after":{"id":"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391","mode":420}}]}"#;
    let record: CheckpointRecord = serde_json::from_str(old).unwrap();
    assert_eq!(record.index, None);
    assert!(record.not_covered.is_empty());
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "seed", "x\n");
    git_init(dir.path());
    write(dir.path(), "a.txt", "");
    let plan = plan(&record, dir.path(), false).unwrap();
    assert_eq!(plan.steps, [Step::Remove("a.txt".into())]);
    assert_eq!(plan.index, IndexStep::Nothing);
}

/// An ignored file not kept that the run leaves alone is not named, even
/// when the run un-ignores it; one it changes is.
#[test]
fn an_ignored_file_not_kept_is_named_only_when_it_changes() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    write(root, ".gitignore", "*.log\n");
    let big = "q".repeat(ignored::MAX_KEPT_FILE_BYTES as usize + 1);
    write(root, "left.log", &big);
    write(root, "changed.log", &big);
    git_init(root);
    let record = take_change_undo(root, home.path(), |root| {
        write(root, ".gitignore", "");
        write(root, "changed.log", "short\n");
    });
    assert_eq!(record.not_covered, ["changed.log"]);
    assert_eq!(read(root, "left.log"), big);
    assert_eq!(read(root, "changed.log"), "short\n");
}

/// Regression: a FIFO a command made where git reads (`mkfifo
/// .gitignore`) held the checkpoint's `git ls-files` and the run with it
/// past `--timeout`, for good. Every git `oc` runs has a deadline.
#[test]
fn a_git_held_by_a_fifo_is_stopped_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git_init(dir.path());
    let status = Command::new("mkfifo")
        .arg(dir.path().join(".gitignore"))
        .status()
        .unwrap();
    assert!(status.success());
    let started = std::time::Instant::now();
    let err = super::git::git_within(
        dir.path(),
        &["ls-files", "--others", "--exclude-standard"],
        &[],
        std::time::Duration::from_secs(1),
    )
    .unwrap_err();
    assert!(err.contains("did not finish within 1 s"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}
