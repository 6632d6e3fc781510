//! A change to one file, computed before anything is written so it can be
//! shown as a diff and approved first; and which files the model has seen.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::outcome::ToolOutcome;
use super::workspace::ResolvedPath;

/// Most diff lines a file change reports back to the model.
pub const COMPACT_DIFF_LINES: usize = 40;

/// A change to one file, computed before anything is written so that it can
/// be shown (as a diff) and approved first.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    pub path: ResolvedPath,
    /// Current text, `None` when the file does not exist yet.
    pub before: Option<String>,
    pub after: String,
    /// What the tool did, e.g. "replaced 1 occurrence".
    pub note: String,
}

impl FileChange {
    /// A unified diff of the change (for prompts and logs).
    pub fn unified_diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        similar::TextDiff::from_lines(before, &self.after)
            .unified_diff()
            .context_radius(3)
            .header(&self.path.display, &self.path.display)
            .to_string()
    }

    /// The changed lines with one line of context, for the model: hunks
    /// headed `@@ -a,b +c,d @@`, at most [`COMPACT_DIFF_LINES`] lines.
    pub fn compact_diff(&self) -> String {
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
    pub fn line_counts(&self) -> (usize, usize) {
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
    pub fn apply(&self) -> ToolOutcome {
        let display = &self.path.display;
        if self.before.as_deref() == Some(self.after.as_str()) {
            return ToolOutcome::ok(
                format!("no change: {display} already has this content"),
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
        let bytes = std::fs::read(real).ok()?;
        let mut hasher = DefaultHasher::new();
        bytes.hash(&mut hasher);
        Some(Fingerprint {
            len: meta.len(),
            modified: meta.modified().ok(),
            hash: hasher.finish(),
        })
    }
}

/// The files a run has read or written (real paths), as they were then.
/// `write_file` refuses to replace an existing file the model has not
/// looked at in this run, or one that changed on disk since.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    files: HashMap<PathBuf, Option<Fingerprint>>,
}

impl Seen {
    /// Notes that the model has seen the current content of `real`.
    pub fn insert(&mut self, real: &Path) {
        self.files.insert(real.to_path_buf(), Fingerprint::of(real));
    }

    /// Whether the model has seen `real` in this run.
    pub fn contains(&self, real: &Path) -> bool {
        self.files.contains_key(real)
    }

    /// Whether `real`, seen in this run, has changed on disk since (another
    /// process, a formatter, the user). False for a file not seen.
    pub fn changed_since(&self, real: &Path) -> bool {
        match self.files.get(real) {
            Some(Some(seen)) => Fingerprint::of(real).is_none_or(|now| {
                now.len != seen.len || now.hash != seen.hash || now.modified != seen.modified
            }),
            Some(None) => real.exists(),
            None => false,
        }
    }
}
