//! Newline-delimited JSON framing for Ollama's streamed `/api/chat` body.
//!
//! HTTP chunks split the stream anywhere (inside a line, inside a multi-byte
//! character); [`LineBuffer`] reassembles whole lines.

/// Collects bytes and hands out complete lines (without the `\n`, a trailing
/// `\r` removed, blank lines skipped).
#[derive(Debug, Default)]
pub(crate) struct LineBuffer {
    pending: Vec<u8>,
}

impl LineBuffer {
    /// Adds bytes and returns every line they complete, in order.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        let mut rest = bytes;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            self.pending.extend_from_slice(&rest[..pos]);
            let line = std::mem::take(&mut self.pending);
            if let Some(line) = clean(line) {
                lines.push(line);
            }
            rest = &rest[pos + 1..];
        }
        self.pending.extend_from_slice(rest);
        lines
    }

    /// The last line when the stream ended without a final `\n`, if any.
    pub(crate) fn finish(&mut self) -> Option<Vec<u8>> {
        clean(std::mem::take(&mut self.pending))
    }
}

fn clean(mut line: Vec<u8>) -> Option<Vec<u8>> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn split_every(input: &[u8], size: usize) -> Vec<Vec<u8>> {
        let mut buf = LineBuffer::default();
        let mut out = Vec::new();
        for chunk in input.chunks(size) {
            out.extend(buf.push(chunk));
        }
        out.extend(buf.finish());
        out
    }

    #[test]
    fn lines_survive_any_chunk_boundary() {
        let input = "{\"a\":\"héllo ✓\"}\n\n{\"b\":2}\r\n{\"c\":3}".as_bytes();
        let want: Vec<Vec<u8>> = vec![
            "{\"a\":\"héllo ✓\"}".into(),
            b"{\"b\":2}".to_vec(),
            b"{\"c\":3}".to_vec(),
        ];
        for size in 1..=input.len() {
            assert_eq!(split_every(input, size), want, "chunk size {size}");
        }
    }

    #[test]
    fn trailing_newline_leaves_nothing_pending() {
        let mut buf = LineBuffer::default();
        assert_eq!(buf.push(b"{}\n"), vec![b"{}".to_vec()]);
        assert_eq!(buf.finish(), None);
    }
}
