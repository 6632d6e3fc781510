//! Durable file writes, in one place: atomic replacement (a temp file in the
//! same directory, renamed over the target with `tempfile`'s `persist`),
//! private directories for `OC_HOME`, and whole-line appends under a file
//! lock. A leaf: it imports nothing of the crate.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Writes `bytes` to `path` atomically: parent directories created, a temp
/// file in the same directory synced and renamed over the target. The target
/// keeps its permissions when it existed; a new file gets `new_mode` less the
/// umask (0o666 for workspace files, 0o600 for `oc`'s own private files).
///
/// Errors: the directory cannot be created or written, or the rename fails;
/// the target is then unchanged.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], new_mode: u32) -> std::io::Result<()> {
    replace(path, bytes, new_mode, true)
}

/// Like [`write_atomic`] without syncing the file: for many small files
/// written together and made durable at once by [`sync_filesystem`] (one
/// flush instead of one per file).
///
/// Errors: as [`write_atomic`].
pub(crate) fn write_atomic_unsynced(
    path: &Path,
    bytes: &[u8],
    new_mode: u32,
) -> std::io::Result<()> {
    replace(path, bytes, new_mode, false)
}

/// The body of [`write_atomic`]: the temp file synced first when `sync`.
fn replace(path: &Path, bytes: &[u8], new_mode: u32, sync: bool) -> std::io::Result<()> {
    let parent = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(parent)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".oc-tmp-")
        .permissions(std::fs::Permissions::from_mode(new_mode))
        .tempfile_in(parent)?;
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(tmp.path(), meta.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Replaces `path` the way git replaces its index: `PATH.lock` is created
/// exclusively (a git process writing at the same time holds it, and this
/// fails rather than race it), written with `path`'s permissions, synced and
/// renamed over `path`.
///
/// Errors: the lock exists or cannot be made, or the write or rename fails;
/// the lock is removed and `path` is unchanged then.
pub(crate) fn write_through_lock(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut lock_name = path.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock = Path::new(&lock_name);
    let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(lock)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(lock, path));
    if written.is_err() {
        let _ = std::fs::remove_file(lock);
    }
    written
}

/// Reads the regular file at `path` (a link followed) whole, without ever
/// waiting: it is opened non-blocking and refused unless it is a regular
/// file, so a FIFO a command made where `oc` reads (`mkfifo AGENTS.md`)
/// cannot stall the run. For what `oc` reads from a workspace.
///
/// Errors: as [`std::fs::read`], and `InvalidInput` for anything but a
/// regular file (a FIFO, a socket, a device, a folder).
pub(crate) fn read(path: impl AsRef<Path>) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let path = path.as_ref();
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{}` is not a regular file", path.display()),
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read`] as UTF-8 text.
///
/// Errors: as [`read`], and `InvalidData` for bytes that are not UTF-8.
pub(crate) fn read_to_string(path: impl AsRef<Path>) -> std::io::Result<String> {
    String::from_utf8(read(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Flushes the filesystem holding `dir` to disk (`syncfs`).
///
/// Errors: `dir` cannot be opened, or the flush fails.
pub(crate) fn sync_filesystem(dir: &Path) -> std::io::Result<()> {
    let dir = File::open(dir)?;
    nix::unistd::syncfs(&dir).map_err(std::io::Error::from)
}

/// Where a streamed atomic write failed, for the caller's message.
#[derive(Debug)]
pub(crate) enum StreamedWriteError<E> {
    /// The target's directory could not be created.
    CreateDir(std::io::Error),
    /// No temp file could be made in the directory.
    TempFile(std::io::Error),
    /// The caller's writer failed; the target is unchanged.
    Write(E),
    /// The finished temp file could not be renamed over the target.
    Persist(std::io::Error),
}

/// Streams content into `path` atomically: `write` fills a temp file in the
/// target's directory (created if needed), which then replaces the target.
/// For output too large to hold in memory (`oc export-ft --out`).
pub(crate) fn write_atomic_streamed<T, E>(
    path: &Path,
    prefix: &str,
    write: impl FnOnce(&mut File) -> Result<T, E>,
) -> Result<T, StreamedWriteError<E>> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(StreamedWriteError::CreateDir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(prefix)
        .tempfile_in(dir)
        .map_err(StreamedWriteError::TempFile)?;
    let value = write(tmp.as_file_mut()).map_err(StreamedWriteError::Write)?;
    tmp.persist(path)
        .map_err(|e| StreamedWriteError::Persist(e.error))?;
    Ok(value)
}

/// Creates `dir` (and its parents) readable by the owner only, as `OC_HOME`
/// holds code and conversations. An existing directory is left as it is.
pub(crate) fn private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Appends `line` (which should end in `\n`) to `path` under an exclusive
/// file lock, so concurrent writers append whole lines only. A new file gets
/// mode 0o600.
pub(crate) fn append_locked(path: &Path, line: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    file.lock()?;
    let written = file.write_all(line);
    let unlocked = file.unlock();
    written?;
    unlocked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_writes_keep_the_mode_of_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/a.sh");
        write_atomic(&path, b"one\n", 0o600).unwrap();
        assert_eq!(path.metadata().unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&path, b"two\n", 0o600).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
        assert_eq!(path.metadata().unwrap().permissions().mode() & 0o777, 0o755);
    }

    #[test]
    fn a_failed_streamed_write_leaves_the_target_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        std::fs::write(&path, "kept\n").unwrap();
        let result = write_atomic_streamed(&path, ".oc-test-", |file| {
            file.write_all(b"partial")?;
            Err::<(), std::io::Error>(std::io::Error::other("broken record"))
        });
        assert!(matches!(result, Err(StreamedWriteError::Write(_))));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let blocked = dir.path().join("out.jsonl/inner");
        let result = write_atomic_streamed(&blocked, ".oc-test-", |_| Ok::<(), ()>(()));
        assert!(matches!(result, Err(StreamedWriteError::CreateDir(_))));
    }

    #[test]
    fn locked_appends_add_whole_lines_to_a_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        private_dir(&home).unwrap();
        assert_eq!(home.metadata().unwrap().permissions().mode() & 0o777, 0o700);
        let path = home.join("lines.jsonl");
        append_locked(&path, b"1\n").unwrap();
        append_locked(&path, b"2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "1\n2\n");
        assert_eq!(path.metadata().unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn a_write_through_a_lock_keeps_the_mode_and_fails_while_the_lock_is_held() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_through_lock(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(path.metadata().unwrap().permissions().mode() & 0o777, 0o640);
        std::fs::write(dir.path().join("index.lock"), "git is writing").unwrap();
        assert!(write_through_lock(&path, b"newer").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("index.lock")).unwrap(),
            "git is writing",
            "another's lock is left alone"
        );
    }
}
