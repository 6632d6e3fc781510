//! Reading files as text: which files can be read at all, and how bytes
//! that are not UTF-8 are decoded.

use std::path::Path;

/// Text of a file's bytes: UTF-8 as is (a BOM kept), anything else decoded
/// as Latin-1 (windows-1252), which never fails and is right for the usual
/// legacy files. The flag says whether the fallback was used.
pub(crate) fn decode_text(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (std::borrow::Cow::Borrowed(text), false),
        Err(_) => {
            let (text, _, _) = encoding_rs::WINDOWS_1252.decode(bytes);
            (text, true)
        }
    }
}

/// The note shown with text decoded by the [`decode_text`] fallback.
pub(crate) const LATIN1_NOTE: &str =
    "note: the file is not valid UTF-8; it is shown decoded as Latin-1 (windows-1252)";

/// Checks that `real`, when it exists, is a regular file: reading a FIFO
/// would block forever and a device is never a source file. The error
/// completes a sentence that starts with the path.
pub(crate) fn regular_file(real: &Path) -> Result<(), String> {
    match std::fs::metadata(real) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            Err("is not a regular file (a FIFO, socket or device); it cannot be used".into())
        }
        _ => Ok(()),
    }
}
