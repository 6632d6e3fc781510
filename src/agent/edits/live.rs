//! A whole-file or diff reply as it streams: the prose outside file blocks
//! goes out as it arrives, and a file block is reported by its path and its
//! lines so far, not shown: its text is a change, shown as a diff once it
//! is applied (or refused) when the reply has been read.
//!
//! Blocks are told apart as [`super::blocks::parse`] tells them in the whole
//! reply: a fence (```` ``` ````) or a `<<<<<<< SEARCH` line opens one, and
//! its path comes from the same header rules. A fence that names no file by
//! its first line (a command to run, an example, look-around requests) is
//! prose and streams as such, in its place; if the reply's reading later
//! puts it in a file, its change is shown then.

use super::blocks::{self, fence_open, is_fence_close, is_replace_end, is_search};

/// What a piece of the streamed reply is, for the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Text outside any file block, to show as it came.
    Prose(String),
    /// A file block grew by a line, or closed.
    Block(BlockProgress),
}

/// Where a file block of the reply stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockProgress {
    /// The path the reply gives it, once it says (a header line, the
    /// fence's info string or a comment on its first line).
    pub path: Option<String>,
    /// Its lines so far, the fences not counted.
    pub lines: usize,
    /// Its last line came (or the reply ended inside it).
    pub closed: bool,
}

/// How the open block ends.
#[derive(Debug, Clone, Copy)]
enum Closer {
    /// A fence of at least this many backticks.
    Fence(usize),
    /// A `>>>>>>> REPLACE` line (SEARCH/REPLACE written without a fence).
    Replace,
}

/// The block being streamed.
#[derive(Debug)]
struct OpenBlock {
    /// Where its first line starts in the reply.
    start: usize,
    closer: Closer,
    lines: usize,
    path: Option<String>,
    /// It names no file: it streams as prose.
    prose: bool,
}

/// Splits streamed content into prose and file-block progress.
#[derive(Debug)]
pub(crate) struct LiveBlocks {
    /// The workspace paths in play (see [`blocks::parse`]).
    known: Vec<String>,
    /// The reply so far.
    text: String,
    /// Where the line being received starts.
    line_start: usize,
    /// The prose is out up to here.
    shown_to: usize,
    open: Option<OpenBlock>,
}

impl LiveBlocks {
    /// A splitter for a reply whose blocks may name any of `known`.
    pub(crate) fn new(known: Vec<String>) -> Self {
        LiveBlocks {
            known,
            text: String::new(),
            line_start: 0,
            shown_to: 0,
            open: None,
        }
    }

    /// Takes the next content delta; returns what to show now, in order.
    pub(crate) fn push(&mut self, delta: &str) -> Vec<Piece> {
        self.text.push_str(delta);
        let mut pieces = Vec::new();
        while let Some(newline) = self.text[self.line_start..].find('\n') {
            let end = self.line_start + newline + 1;
            self.complete_line(end, &mut pieces);
            self.line_start = end;
        }
        // A line still coming goes out at once, unless it may open a block.
        let partial = &self.text[self.line_start..];
        if self.open.is_none() && !may_open_block(partial) {
            self.prose_to(self.text.len(), &mut pieces);
        }
        pieces
    }

    /// The reply ended: what is left to show. A block left open ends with
    /// the reply, as [`blocks::parse`] reads it.
    pub(crate) fn finish(&mut self) -> Vec<Piece> {
        let mut pieces = Vec::new();
        match self.open.take() {
            Some(open) if open.prose => self.prose_to(self.text.len(), &mut pieces),
            Some(mut open) => {
                // A last line without its newline: a closing fence, or one
                // more line of the block.
                let last = self.text[self.line_start..].trim_end_matches('\r');
                if !last.trim().is_empty() && !closes(open.closer, last) {
                    open.lines += 1;
                }
                self.close(open, self.text.len(), &mut pieces);
            }
            None => self.prose_to(self.text.len(), &mut pieces),
        }
        pieces
    }

    /// The line from `self.line_start` to `end` (its newline included) came.
    fn complete_line(&mut self, end: usize, pieces: &mut Vec<Piece>) {
        let line = self.text[self.line_start..end].trim_end_matches(['\n', '\r']);
        let Some(mut open) = self.open.take() else {
            let closer = match fence_open(line) {
                Some((ticks, _)) => Some(Closer::Fence(ticks)),
                None => is_search(line).then_some(Closer::Replace),
            };
            match closer {
                Some(closer) => {
                    self.prose_to(self.line_start, pieces);
                    self.shown_to = end;
                    self.open = Some(OpenBlock {
                        start: self.line_start,
                        closer,
                        lines: usize::from(matches!(closer, Closer::Replace)),
                        path: None,
                        prose: false,
                    });
                }
                None => self.prose_to(end, pieces),
            }
            return;
        };
        if open.prose {
            let closed = closes(open.closer, line);
            self.prose_to(end, pieces);
            if !closed {
                self.open = Some(open);
            }
            return;
        }
        self.shown_to = end;
        if closes(open.closer, line) {
            if matches!(open.closer, Closer::Replace) {
                open.lines += 1;
            }
            self.close(open, end, pieces);
            return;
        }
        open.lines += 1;
        if open.lines == 1 && matches!(open.closer, Closer::Fence(_)) {
            let search = is_search(line);
            open.path = self.block_ending_at(end).and_then(|b| b.path);
            if open.path.is_none() && !search {
                // No file named: the block is prose, shown from its fence.
                open.prose = true;
                self.shown_to = open.start;
                self.prose_to(end, pieces);
                self.open = Some(open);
                return;
            }
        }
        pieces.push(Piece::Block(BlockProgress {
            path: open.path.clone(),
            lines: open.lines,
            closed: false,
        }));
        self.open = Some(open);
    }

    /// The block `open` ends at `end`: reported closed when the reply's
    /// reading takes it for a file block, else shown as prose.
    fn close(&mut self, open: OpenBlock, end: usize, pieces: &mut Vec<Piece>) {
        match self.block_ending_at(end) {
            Some(block) => {
                self.shown_to = end;
                pieces.push(Piece::Block(BlockProgress {
                    path: block.path.or(open.path),
                    lines: open.lines,
                    closed: true,
                }));
            }
            None => {
                self.shown_to = self.shown_to.min(open.start);
                self.prose_to(end, pieces);
            }
        }
    }

    /// The file block of the reply so far that ends at `end` (a last fence
    /// still open ends with the text), as the whole reply's reading finds it.
    fn block_ending_at(&self, end: usize) -> Option<blocks::FileBlock> {
        blocks::parse(&self.text[..end], &self.known)
            .blocks
            .into_iter()
            .rfind(|b| b.span.end == end)
    }

    /// Shows the prose not yet shown, up to `end`.
    fn prose_to(&mut self, end: usize, pieces: &mut Vec<Piece>) {
        if end > self.shown_to {
            pieces.push(Piece::Prose(self.text[self.shown_to..end].to_string()));
            self.shown_to = end;
        }
    }
}

/// Whether `line` ends a block that `closer` ends.
fn closes(closer: Closer, line: &str) -> bool {
    match closer {
        Closer::Fence(ticks) => is_fence_close(line, ticks),
        Closer::Replace => is_replace_end(line),
    }
}

/// Whether a line still coming may open a block: it begins (after its
/// indent) with a backtick or `<`, or is nothing but indent so far.
fn may_open_block(partial: &str) -> bool {
    let t = partial.trim_start();
    t.is_empty() || t.starts_with('`') || t.starts_with('<')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        vec!["utils.py".to_string()]
    }

    /// `reply` fed in pieces of `size` characters: the prose as it came,
    /// and the block reports.
    fn feed(reply: &str, size: usize) -> (String, Vec<BlockProgress>) {
        let mut live = LiveBlocks::new(known());
        let mut pieces = Vec::new();
        let chars: Vec<char> = reply.chars().collect();
        for chunk in chars.chunks(size) {
            pieces.extend(live.push(&chunk.iter().collect::<String>()));
        }
        pieces.extend(live.finish());
        let mut prose = String::new();
        let mut progress = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Prose(text) => prose.push_str(&text),
                Piece::Block(p) => progress.push(p),
            }
        }
        (prose, progress)
    }

    #[test]
    fn prose_streams_and_a_block_is_reported_by_path_and_lines() {
        let reply =
            "I fixed the sum.\n\nutils.py\n```python\ndef add(a, b):\n    return a + b\n```\nDone.";
        for size in [1, 3, 7, 1000] {
            let (prose, progress) = feed(reply, size);
            assert_eq!(prose, "I fixed the sum.\n\nutils.py\nDone.", "size {size}");
            assert_eq!(
                progress.last(),
                Some(&BlockProgress {
                    path: Some("utils.py".into()),
                    lines: 2,
                    closed: true
                })
            );
            assert_eq!(progress.len(), 3, "one report a line and one at the close");
        }
    }

    #[test]
    fn prose_goes_out_before_its_line_ends() {
        let mut live = LiveBlocks::new(known());
        assert_eq!(live.push("Here is"), vec![Piece::Prose("Here is".into())]);
        assert_eq!(live.push(" the fix"), vec![Piece::Prose(" the fix".into())]);
        // A line that may open a fence waits for its end.
        assert_eq!(live.push(":\n``"), vec![Piece::Prose(":\n".into())]);
        assert_eq!(live.push("`python utils.py\n"), vec![]);
        let grown = live.push("x = 1\n");
        assert_eq!(
            grown,
            vec![Piece::Block(BlockProgress {
                path: Some("utils.py".into()),
                lines: 1,
                closed: false
            })]
        );
    }

    #[test]
    fn a_path_in_a_first_line_comment_is_found() {
        let (prose, progress) = feed("```python\n# utils.py\nx = 1\n```\n", 5);
        assert_eq!(prose, "");
        assert_eq!(progress[0].path.as_deref(), Some("utils.py"));
        assert!(progress.last().unwrap().closed);
    }

    #[test]
    fn search_replace_without_a_fence_is_a_block() {
        let reply = "utils.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\nok\n";
        let (prose, progress) = feed(reply, 4);
        assert_eq!(prose, "utils.py\nok\n");
        let last = progress.last().unwrap();
        assert_eq!(
            (last.path.as_deref(), last.lines, last.closed),
            (Some("utils.py"), 5, true)
        );
    }

    #[test]
    fn a_fence_that_names_no_file_streams_as_prose_in_its_place() {
        for reply in [
            "First:\n```bash\npytest -q\n```\nutils.py\n```python\nx = 1\n```\nThen:\n```sh\npytest\n```\nDone.",
            "  ```bash\n  pytest -q\n  ```\nutils.py\n```python\nx = 1\n```\nDone.",
            "First I need to see it.\n```\nREAD utils.py\n```\nBye",
        ] {
            for size in [1, 4, 1000] {
                let (prose, progress) = feed(reply, size);
                let without_block = reply.replace("```python\nx = 1\n```\n", "");
                assert_eq!(prose, without_block, "{reply:?} in {size}");
                assert!(
                    progress
                        .iter()
                        .all(|p| p.path.as_deref() == Some("utils.py"))
                );
            }
        }
    }

    #[test]
    fn a_block_left_open_ends_with_the_reply() {
        let (prose, progress) = feed("utils.py\n```python\nx = 1\ny = 2", 3);
        assert_eq!(prose, "utils.py\n");
        let last = progress.last().unwrap();
        assert!(last.closed);
        assert_eq!(last.lines, 2);
        assert_eq!(last.path.as_deref(), Some("utils.py"));
    }

    #[test]
    fn a_closing_fence_without_a_newline_is_not_a_line() {
        let (_, progress) = feed("utils.py\n```python\nx = 1\n```", 4);
        assert_eq!(
            progress.last().map(|p| (p.lines, p.closed)),
            Some((1, true))
        );
    }

    #[test]
    fn inline_code_and_tags_at_a_line_start_wait_only_for_the_line() {
        let (prose, progress) = feed("`add` now adds.\n<b>bold</b>\n", 2);
        assert_eq!(prose, "`add` now adds.\n<b>bold</b>\n");
        assert!(progress.is_empty());
    }
}
