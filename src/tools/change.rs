//! A change to one file, computed before anything is written so it can be
//! shown as a diff and approved first; and which files the model has seen.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::outcome::ToolOutcome;
use super::workspace::ResolvedPath;

/// Most diff lines a file change reports back to the model.
pub(crate) const COMPACT_DIFF_LINES: usize = 40;

/// A change to one file, computed before anything is written so that it can
/// be shown (as a diff) and approved first.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileChange {
    pub path: ResolvedPath,
    /// Current text, `None` when the file does not exist yet.
    pub before: Option<String>,
    pub after: String,
    /// What the tool did, e.g. "replaced 1 occurrence".
    pub note: String,
}

impl FileChange {
    /// A unified diff of the change (for prompts and logs).
    pub(crate) fn unified_diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        similar::TextDiff::from_lines(before, &self.after)
            .unified_diff()
            .context_radius(3)
            .header(&self.path.display, &self.path.display)
            .to_string()
    }

    /// The changed lines with one line of context, for the model: hunks
    /// headed `@@ -a,b +c,d @@`, at most [`COMPACT_DIFF_LINES`] lines.
    pub(crate) fn compact_diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        let diff = similar::TextDiff::from_lines(before, &self.after);
        let text = diff.unified_diff().context_radius(1).to_string();
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() <= COMPACT_DIFF_LINES {
            return lines.join("\n");
        }
        format!(
            "{}\n[… {} more diff lines]",
            lines[..COMPACT_DIFF_LINES].join("\n"),
            lines.len() - COMPACT_DIFF_LINES
        )
    }

    /// Lines added and removed.
    pub(crate) fn line_counts(&self) -> (usize, usize) {
        let before = self.before.as_deref().unwrap_or("");
        let diff = similar::TextDiff::from_lines(before, &self.after);
        let mut added = 0;
        let mut removed = 0;
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        (added, removed)
    }

    /// Writes the change atomically (temp file in the same directory, then
    /// rename; the file's permissions kept).
    pub(crate) fn apply(&self) -> ToolOutcome {
        let display = &self.path.display;
        if self.before.as_deref() == Some(self.after.as_str()) {
            let why = match self.note.as_str() {
                "" => "it already has this content",
                note => note,
            };
            return ToolOutcome::ok(
                format!("no change to {display}: {why}"),
                format!("{display}: no change"),
            );
        }
        if let Err(e) = crate::fsutil::write_atomic(&self.path.real, self.after.as_bytes(), 0o666) {
            return ToolOutcome::error(format!("cannot write {display}: {e}"));
        }
        let (added, removed) = self.line_counts();
        let verb = if self.before.is_some() {
            "updated"
        } else {
            "created"
        };
        let summary = format!("{verb} {display} (+{added} -{removed}) {}", self.note)
            .trim_end()
            .to_string();
        let content = match self.before {
            Some(_) => format!("{summary}\n{}", self.compact_diff()),
            None => summary.clone(),
        };
        ToolOutcome {
            ok: true,
            content,
            summary,
            changed: vec![display.clone()],
        }
    }
}

/// What a file was when the model last saw it: its size, modification
/// time and a hash of its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    len: u64,
    modified: Option<SystemTime>,
    hash: u64,
}

impl Fingerprint {
    /// The file as it is now; `None` when it cannot be read.
    fn of(real: &Path) -> Option<Fingerprint> {
        let meta = std::fs::metadata(real).ok()?;
        let bytes = crate::fsutil::read(real).ok()?;
        let mut hasher = DefaultHasher::new();
        bytes.hash(&mut hasher);
        Some(Fingerprint {
            len: meta.len(),
            modified: meta.modified().ok(),
            hash: hasher.finish(),
        })
    }
}

/// What the model has seen of one file in this run.
#[derive(Debug, Clone, Default)]
struct SeenFile {
    /// The file when the model last saw it; `None` when it did not exist
    /// or could not be read.
    print: Option<Fingerprint>,
    /// The text of the file when the run first met it (read, shown or
    /// about to be written); `None` when it did not exist then.
    first: Option<String>,
    /// Line ranges (1-based, inclusive) of the current content the model
    /// has seen, and the file's line count; `None` when it saw it whole.
    part: Option<(Vec<(usize, usize)>, usize)>,
    /// Whether the run created the file (a write found nothing there):
    /// all of it is the model's own.
    created: bool,
}

/// The files a run has read or written (real paths), as they were then.
/// `write_file` refuses to replace an existing file the model has not
/// looked at in this run, seen only in part, or that changed on disk since;
/// the write guards judge a new text against the file as the run first met
/// it (see [`FilesSeen::first_text`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct FilesSeen {
    files: HashMap<PathBuf, SeenFile>,
    /// Edits applied in this run: path, `old_string`, `new_string`.
    edits: Vec<(PathBuf, String, String)>,
}

impl FilesSeen {
    /// Notes that the model has seen the whole current content of `real`.
    pub(crate) fn insert(&mut self, real: &Path) {
        let file = self.entry(real);
        file.print = Fingerprint::of(real);
        file.part = None;
    }

    /// Notes a change the model made to `real`: a whole write shows it the
    /// whole file; an edit leaves what it has not seen unseen.
    pub(crate) fn insert_after_change(&mut self, real: &Path, wrote_whole: bool) {
        let part = match wrote_whole {
            true => None,
            false => self.files.get_mut(real).and_then(|f| f.part.take()),
        };
        self.insert(real);
        self.entry(real).part = part;
    }

    /// Notes that the model has seen lines `from..=to` of `real`, a file of
    /// `total` lines (a window of `read_file`). Windows add up: a file read
    /// to its end in parts counts as seen whole.
    pub(crate) fn insert_lines(&mut self, real: &Path, from: usize, to: usize, total: usize) {
        let now = Fingerprint::of(real);
        let file = self.entry(real);
        let unchanged = file.print.is_some() && file.print == now;
        let mut ranges = match &file.part {
            None if unchanged => return,
            Some((ranges, _)) if unchanged => ranges.clone(),
            _ => Vec::new(),
        };
        ranges.push((from, to));
        ranges.sort_unstable();
        let mut covered = 0;
        for &(a, b) in &ranges {
            if a > covered + 1 {
                break;
            }
            covered = covered.max(b);
        }
        file.print = now;
        file.part = (covered < total).then_some((ranges, total));
    }

    /// Notes the text of `real` before the run changes it, when the run has
    /// not met the file yet (`None`: the file does not exist yet, so all of
    /// it will be the model's own).
    pub(crate) fn note_before(&mut self, real: &Path, before: Option<&str>) {
        if !self.files.contains_key(real) {
            let first = before.map(str::to_string);
            self.files.insert(
                real.to_path_buf(),
                SeenFile {
                    created: first.is_none(),
                    first,
                    ..SeenFile::default()
                },
            );
        }
    }

    /// Notes an edit applied to `real`, so that the same edit sent again
    /// is known as already applied.
    pub(crate) fn note_edit(&mut self, real: &Path, old: &str, new: &str) {
        self.edits
            .push((real.to_path_buf(), old.to_string(), new.to_string()));
    }

    /// Whether this run already applied the edit `old` → `new` to `real`.
    pub(crate) fn applied(&self, real: &Path, old: &str, new: &str) -> bool {
        self.edits
            .iter()
            .any(|(path, o, n)| path == real && o == old && n == new)
    }

    /// Whether the model has seen `real` in this run.
    pub(crate) fn contains(&self, real: &Path) -> bool {
        self.files.get(real).is_some_and(|f| f.print.is_some())
    }

    /// The text of `real` when the run first met it; `None` when the run
    /// has not met it or it did not exist then.
    pub(crate) fn first_text(&self, real: &Path) -> Option<&str> {
        self.files.get(real)?.first.as_deref()
    }

    /// Whether this run created `real`: it did not exist when the run
    /// first wrote it, so cutting it down takes nothing that was there.
    pub(crate) fn created(&self, real: &Path) -> bool {
        self.files.get(real).is_some_and(|f| f.created)
    }

    /// For a file seen only in part: how many of its lines the model has
    /// seen, and how many it has.
    pub(crate) fn partly(&self, real: &Path) -> Option<(usize, usize)> {
        let (ranges, total) = self.files.get(real)?.part.as_ref()?;
        let mut lines = vec![false; *total];
        for &(a, b) in ranges {
            for seen in lines
                .iter_mut()
                .take(b.min(*total))
                .skip(a.saturating_sub(1))
            {
                *seen = true;
            }
        }
        Some((lines.iter().filter(|s| **s).count(), *total))
    }

    /// Whether `real`, seen in this run, has changed on disk since (another
    /// process, a formatter, the user). False for a file not seen.
    pub(crate) fn changed_since(&self, real: &Path) -> bool {
        match self.files.get(real) {
            Some(SeenFile {
                print: Some(seen), ..
            }) => Fingerprint::of(real).is_none_or(|now| {
                now.len != seen.len || now.hash != seen.hash || now.modified != seen.modified
            }),
            _ => false,
        }
    }

    /// The entry of `real`, made (with the file's current text as its first
    /// text) when the run meets it for the first time.
    fn entry(&mut self, real: &Path) -> &mut SeenFile {
        self.files
            .entry(real.to_path_buf())
            .or_insert_with(|| SeenFile {
                first: crate::fsutil::read(real)
                    .ok()
                    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
                ..SeenFile::default()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_add_up_to_a_file_seen_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "a\nb\nc\nd\n").unwrap();
        let mut seen = FilesSeen::default();
        seen.insert_lines(&file, 1, 2, 4);
        assert_eq!(seen.partly(&file), Some((2, 4)));
        seen.insert_lines(&file, 4, 4, 4);
        assert_eq!(seen.partly(&file), Some((3, 4)));
        seen.insert_lines(&file, 3, 3, 4);
        assert_eq!(seen.partly(&file), None, "read to its end in parts");
        // The run's first text stays what it first met.
        std::fs::write(&file, "x\n").unwrap();
        seen.insert(&file);
        assert_eq!(seen.first_text(&file), Some("a\nb\nc\nd\n"));
    }

    #[test]
    fn a_file_the_run_creates_has_no_first_text() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("new.txt");
        let mut seen = FilesSeen::default();
        seen.note_before(&file, None);
        assert!(!seen.contains(&file));
        std::fs::write(&file, "mine\n").unwrap();
        seen.insert_after_change(&file, true);
        assert!(seen.contains(&file));
        assert_eq!(seen.first_text(&file), None);
        assert!(seen.created(&file));
    }
}
