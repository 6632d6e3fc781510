//! Degenerate generation: small models fall into loops, writing the same
//! line or block of lines again and again until the context is full (more
//! than 5,600 tokens, over 8 minutes, were seen from a 1.5B model). The
//! detector watches the reply as it streams and says when its tail repeats
//! itself; it stays quiet for legitimately repetitive text: a table of
//! distinct rows, similar test cases, a few closing braces.

/// Consecutive copies of one meaningful line that count as a loop.
const SAME_LINE: usize = 12;
/// Consecutive copies of one trivial line (`}`, `)`, blank) that count.
const SAME_TRIVIAL_LINE: usize = 40;
/// Consecutive copies of a block of lines that count as a loop.
const SAME_BLOCK: usize = 6;
/// Longest block looked for, in lines.
const MAX_BLOCK_LINES: usize = 20;
/// A repeated block must hold at least this many characters, so that short
/// legitimate patterns (`else:` / `pass`) are not taken for loops.
const MIN_BLOCK_CHARS: usize = 40;
/// Within a line, a span of at most this many characters repeated
/// [`SAME_SPAN`] times counts (`abcabcabc…` with no line breaks).
const MAX_SPAN: usize = 40;
const SAME_SPAN: usize = 16;

/// Watches one reply's content.
#[derive(Debug, Default)]
pub(crate) struct RepetitionDetector {
    text: String,
    /// Byte offsets where each complete line starts.
    line_starts: Vec<usize>,
}

impl RepetitionDetector {
    /// Adds a delta. Returns `Some(offset)` once the text repeats itself:
    /// the byte offset where the repetition began (what came before it is
    /// worth keeping).
    pub(crate) fn push(&mut self, delta: &str) -> Option<usize> {
        let before = self.text.len();
        self.text.push_str(delta);
        if self.line_starts.is_empty() {
            self.line_starts.push(0);
        }
        let mut new_line = false;
        for (i, c) in delta.char_indices() {
            if c == '\n' {
                self.line_starts.push(before + i + 1);
                new_line = true;
            }
        }
        let lines = if new_line {
            self.repeated_lines()
        } else {
            None
        };
        lines.or_else(|| self.repeated_span())
    }

    /// The complete lines, as `(start, text)` without their newline.
    fn lines(&self) -> Vec<(usize, &str)> {
        self.line_starts
            .windows(2)
            .map(|w| (w[0], self.text[w[0]..w[1]].trim_end_matches(['\n', '\r'])))
            .collect()
    }

    /// A block of 1 to [`MAX_BLOCK_LINES`] lines repeated at the end of the
    /// complete lines.
    fn repeated_lines(&self) -> Option<usize> {
        let lines = self.lines();
        for size in 1..=MAX_BLOCK_LINES {
            let block = lines.len().checked_sub(size)?;
            let tail: Vec<&str> = lines[block..].iter().map(|(_, l)| l.trim_end()).collect();
            let chars: usize = tail.iter().map(|l| l.trim().len()).sum();
            let needed = match size {
                1 if chars <= 3 => SAME_TRIVIAL_LINE,
                1 => SAME_LINE,
                _ if chars < MIN_BLOCK_CHARS => continue,
                _ => SAME_BLOCK,
            };
            let mut copies = 1;
            let mut start = block;
            while start >= size
                && lines[start - size..start]
                    .iter()
                    .map(|(_, l)| l.trim_end())
                    .eq(tail.iter().copied())
            {
                copies += 1;
                start -= size;
                if copies >= needed {
                    // Keep the first copy: it may be meant.
                    return Some(lines[start + size].0);
                }
            }
        }
        None
    }

    /// A short span repeated within the last (unfinished) line.
    fn repeated_span(&self) -> Option<usize> {
        let line_start = self.line_starts.last().copied().unwrap_or(0);
        let line = &self.text[line_start..];
        if line.len() < MAX_SPAN * SAME_SPAN / 2 {
            return None;
        }
        let bytes = line.as_bytes();
        for span in 1..=MAX_SPAN {
            let needed = span * SAME_SPAN.max(80 / span);
            if bytes.len() < needed {
                continue;
            }
            let tail = &bytes[bytes.len() - needed..];
            if tail.iter().enumerate().all(|(i, b)| *b == tail[i % span]) {
                let mut start = line_start + line.len() - needed + span;
                while !self.text.is_char_boundary(start) {
                    start += 1;
                }
                return Some(start);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(text: &str, size: usize) -> Option<usize> {
        let mut detector = RepetitionDetector::default();
        let chars: Vec<char> = text.chars().collect();
        chars
            .chunks(size)
            .find_map(|piece| detector.push(&piece.iter().collect::<String>()))
    }

    #[test]
    fn loops_are_caught_early_and_cut_after_the_first_copy() {
        let head = "Here is the fix:\n";
        let looped = format!("{head}{}", "    assert add(1, 2) == 3\n".repeat(200));
        let cut = feed(&looped, 5).unwrap();
        assert_eq!(&looped[..cut], format!("{head}    assert add(1, 2) == 3\n"));
        let block = "def f():\n    return helper(1)\n\n";
        let looped = format!("{head}{}", block.repeat(50));
        let cut = feed(&looped, 7).unwrap();
        assert!(looped[..cut].starts_with(&format!("{head}{block}")));
        assert!(cut <= head.len() + 2 * block.len(), "{}", &looped[..cut]);
        assert!(
            feed(&"ha".repeat(500), 3).is_some(),
            "a loop within one line"
        );
    }

    #[test]
    fn legitimate_repetition_is_left_alone() {
        let table: String = (0..200)
            .map(|i| format!("| {i} | item {i} | {} |\n", i * 3))
            .collect();
        assert_eq!(feed(&table, 11), None, "a table of distinct rows");
        let cases: String = (0..60)
            .map(|i| format!("def test_case_{i}():\n    assert f({i}) == {}\n\n", i + 1))
            .collect();
        assert_eq!(feed(&cases, 13), None, "similar test cases");
        let braces = format!("{}{}", "{\n".repeat(10), "}\n".repeat(10));
        assert_eq!(feed(&braces, 2), None, "closing braces");
        assert_eq!(feed(&"x = 0\n".repeat(8), 4), None, "a few equal lines");
        assert_eq!(feed(&"-".repeat(300), 10), None, "a rule line");
    }
}
