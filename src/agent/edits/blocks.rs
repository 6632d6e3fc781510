//! Reading file blocks out of a reply, as models write them in the text edit
//! formats: a fenced block with the file's whole new content (`whole`), or
//! SEARCH/REPLACE pairs (`diff`), each headed by its path. The path may be
//! on the line before the fence (`utils.py`, `**utils.py**`, `File: utils.py`,
//! "Here is the fixed `utils.py`:"), in the fence's info string
//! (```` ```python utils.py ````), or in a first-line comment (`# utils.py`).

use std::ops::Range;

/// What a block asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// The file's whole new content.
    Whole(String),
    /// `(search, replace)` pairs, in order.
    Replace(Vec<(String, String)>),
}

/// One file block of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileBlock {
    /// The path as the reply gives it, when it gives one.
    pub path: Option<String>,
    /// Whether the path came from a comment on the block's first line (that
    /// line is then not part of `Whole` content).
    pub path_in_comment: bool,
    /// The fence's language, e.g. `python`; empty when none.
    pub lang: String,
    pub kind: BlockKind,
    /// Where the block (its header line included) is in the reply.
    pub span: Range<usize>,
}

/// A reply split into its prose and its file blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedReply {
    /// The text outside the blocks, trimmed.
    pub prose: String,
    pub blocks: Vec<FileBlock>,
}

/// One line of the reply with its byte range (without the newline).
struct Line<'a> {
    text: &'a str,
    start: usize,
    /// Just past the line's newline (or the end of the reply).
    end: usize,
}

fn lines_of(reply: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut start = 0;
    for piece in reply.split_inclusive('\n') {
        let end = start + piece.len();
        lines.push(Line {
            text: piece.trim_end_matches(['\n', '\r']),
            start,
            end,
        });
        start = end;
    }
    lines
}

/// The backtick run that opens a fence, and its info string.
pub(super) fn fence_open(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start();
    let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
    (ticks >= 3).then(|| (ticks, trimmed[ticks..].trim()))
}

pub(super) fn is_fence_close(line: &str, ticks: usize) -> bool {
    let trimmed = line.trim();
    trimmed.len() >= ticks && trimmed.chars().all(|c| c == '`')
}

pub(super) fn is_search(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("<<<<<") && t.trim_start_matches('<').trim() == "SEARCH"
}

fn is_divider(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 5 && t.chars().all(|c| c == '=')
}

pub(super) fn is_replace_end(line: &str) -> bool {
    let t = line.trim();
    t.starts_with(">>>>>") && t.trim_start_matches('>').trim() == "REPLACE"
}

/// Splits `reply` into prose and file blocks. `known` are the workspace
/// paths in play: a header line that mentions one of them among other words
/// names that file.
pub(crate) fn parse(reply: &str, known: &[String]) -> ParsedReply {
    let lines = lines_of(reply);
    let mut blocks = Vec::new();
    let mut i = 0;
    // The first line after the previous block: headers are not looked for
    // before it.
    let mut floor = 0;
    while i < lines.len() {
        if let Some((ticks, info)) = fence_open(lines[i].text) {
            // A last fence left open (the model stopped without closing
            // it) ends with the reply; a reply cut at the length limit has
            // its blocks refused as cut.
            let close = (i + 1..lines.len())
                .find(|&j| is_fence_close(lines[j].text, ticks))
                .unwrap_or(lines.len());
            let body = &lines[i + 1..close];
            if close == lines.len() {
                let body = trim_blank_end(body);
                if let Some(block) = fenced_block(&lines, i, close - 1, info, body, floor, known)
                    .filter(|_| !body.is_empty())
                {
                    blocks.push(block);
                }
                break;
            }
            let block = fenced_block(&lines, i, close, info, body, floor, known);
            if let Some(block) = block {
                blocks.push(block);
            }
            i = close + 1;
            floor = i;
            continue;
        }
        if is_search(lines[i].text) {
            // SEARCH/REPLACE written without a fence.
            if let Some(end) = unfenced_end(&lines, i) {
                let pairs = replace_pairs(&lines[i..=end]);
                let (path, start) = header(&lines, i, floor, known);
                if !pairs.is_empty() {
                    blocks.push(FileBlock {
                        path,
                        path_in_comment: false,
                        lang: String::new(),
                        kind: BlockKind::Replace(pairs),
                        span: lines[start].start..lines[end].end,
                    });
                }
                i = end + 1;
                floor = i;
                continue;
            }
        }
        i += 1;
    }
    let mut prose = String::new();
    let mut at = 0;
    for block in &blocks {
        prose.push_str(&reply[at..block.span.start]);
        at = block.span.end;
    }
    prose.push_str(&reply[at..]);
    ParsedReply {
        prose: squeeze_blank_lines(prose.trim()),
        blocks,
    }
}

/// The last line of the unfenced SEARCH/REPLACE pairs that start at line
/// `search`: pairs follow each other (blank lines between), and anything
/// else after a `>>>>>>> REPLACE` (prose, the next file's path) ends them.
fn unfenced_end(lines: &[Line<'_>], search: usize) -> Option<usize> {
    let mut end = None;
    let mut j = search;
    while j < lines.len() {
        if is_replace_end(lines[j].text) {
            end = Some(j);
            let next = (j + 1..lines.len()).find(|&k| !lines[k].text.trim().is_empty());
            match next {
                Some(k) if is_search(lines[k].text) => j = k,
                _ => break,
            }
        }
        j += 1;
    }
    end
}

/// `body` without the blank lines at its end.
fn trim_blank_end<'a, 'b>(body: &'b [Line<'a>]) -> &'b [Line<'a>] {
    let end = body
        .iter()
        .rposition(|l| !l.text.trim().is_empty())
        .map_or(0, |i| i + 1);
    &body[..end]
}

/// The block of the fence from line `open` to line `close`, or `None` for a
/// fence that is not a file block (an empty one).
fn fenced_block(
    lines: &[Line<'_>],
    open: usize,
    close: usize,
    info: &str,
    body: &[Line<'_>],
    floor: usize,
    known: &[String],
) -> Option<FileBlock> {
    let mut words = info.split_whitespace();
    let first = words.next().unwrap_or_default();
    let (lang, info_path) = if looks_like_path(first) {
        (String::new(), Some(first))
    } else {
        (first.to_string(), words.find(|w| looks_like_path(w)))
    };
    let (mut path, mut start) = match info_path {
        Some(p) => (Some(clean_path(p)), open),
        None => (None, open),
    };
    if path.is_none() {
        let (found, header_line) = header(lines, open, floor, known);
        if found.is_some() {
            path = found;
            start = header_line;
        }
    }
    if path.is_none() && is_requests(body) {
        // Request lines in a fence (`READ a.py`): not a file, they stay
        // prose for the look-around requests.
        return None;
    }
    let mut path_in_comment = false;
    let mut content_lines = body;
    if path.is_none()
        && let Some(first) = body.first()
        && let Some(p) = comment_path(first.text, known)
            .or_else(|| bare_path(first.text, known))
            .or_else(|| part_header(first.text.trim(), known))
    {
        path = Some(p);
        path_in_comment = true;
        content_lines = &body[1..];
    }
    // A block that opens with its path again and a second fence holds the
    // file inside that fence (the outer fence closed where the inner did).
    if let Some((inner_path, skip)) = inner_fence(content_lines) {
        if path.is_none() {
            path = inner_path;
        }
        path_in_comment = true;
        content_lines = &content_lines[skip..];
    }
    let kind = if body.iter().any(|l| is_search(l.text)) {
        BlockKind::Replace(replace_pairs(body))
    } else {
        let mut content: String = content_lines
            .iter()
            .map(|l| format!("{}\n", l.text))
            .collect();
        if content.trim().is_empty() {
            content.clear();
        }
        BlockKind::Whole(content)
    };
    if matches!(&kind, BlockKind::Replace(pairs) if pairs.is_empty()) {
        return None;
    }
    Some(FileBlock {
        path,
        path_in_comment,
        lang,
        kind,
        span: lines[start].start..lines[close].end,
    })
}

/// The path on the header line above line `at` (the nearest non-empty line,
/// at most two up, not above `floor`) and that line's index; `(None, at)`
/// when there is none.
fn header(
    lines: &[Line<'_>],
    at: usize,
    floor: usize,
    known: &[String],
) -> (Option<String>, usize) {
    let mut j = at;
    let mut blank = 0;
    while j > floor {
        j -= 1;
        let text = lines[j].text.trim();
        if text.is_empty() {
            blank += 1;
            if blank > 1 {
                break;
            }
            continue;
        }
        return match path_in_line(text, known) {
            Some(path) => (Some(path), j),
            None => (None, at),
        };
    }
    (None, at)
}

/// A path a header line gives: the line itself once decorations are gone
/// (`**utils.py**`, `### File: src/a.rs:`), or a word of it that names a
/// known file ("Here is the fixed `utils.py`:").
fn path_in_line(line: &str, known: &[String]) -> Option<String> {
    let stripped = line.trim_start_matches(['#', '*', '-', '>', ' ']).trim();
    let stripped = ["File:", "file:", "Filename:", "filename:", "Path:", "path:"]
        .iter()
        .find_map(|p| stripped.strip_prefix(p))
        .unwrap_or(stripped)
        .trim();
    let whole = clean_path(stripped);
    // A known file's name may hold spaces (`my notes.md`): the whole line
    // names it, not its last word.
    if names_known(&whole, known)
        || (!whole.contains(char::is_whitespace) && looks_like_path(&whole))
    {
        return Some(whole);
    }
    let mut named: Vec<String> = stripped
        .split_whitespace()
        .map(clean_path)
        .filter(|word| looks_like_path(word) && names_known(word, known))
        .collect();
    named.dedup();
    // A line naming two files heads neither.
    match named.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// A path in a comment on a block's first line: `# utils.py`,
/// `// src/sum.js`, `<!-- index.html -->`, `-- q.sql`.
fn comment_path(line: &str, known: &[String]) -> Option<String> {
    let t = line.trim();
    let rest = ["#", "//", "--", "/*", "<!--", ";"]
        .iter()
        .find_map(|c| t.strip_prefix(c))?
        .trim()
        .trim_end_matches("*/")
        .trim_end_matches("-->")
        .trim();
    let rest = rest
        .strip_prefix("File:")
        .or_else(|| rest.strip_prefix("file:"))
        .unwrap_or(rest)
        .trim();
    bare_path(rest, known).or_else(|| part_header(rest, known))
}

/// The header of a part as the model was shown it, written back inside
/// the fence: `utils.py lines 10-20 (area)`, `utils.py: lines 10-20`.
fn part_header(text: &str, known: &[String]) -> Option<String> {
    let (first, rest) = text.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    if !(rest.starts_with("line") || rest.starts_with('(')) {
        return None;
    }
    bare_path(first.trim_end_matches([':', ',']), known)
}

/// A known path alone on a block's first line: the header written inside
/// the fence.
fn bare_path(line: &str, known: &[String]) -> Option<String> {
    let path = clean_path(line.trim());
    let one_word = !path.contains(char::is_whitespace) && looks_like_path(&path);
    ((one_word || path.contains(' ')) && names_known(&path, known)).then_some(path)
}

/// Whether every line of a fence's body is a look-around request line
/// (`READ path`, `SEARCH text`, `LIST folder`).
fn is_requests(body: &[Line<'_>]) -> bool {
    let mut lines = body
        .iter()
        .map(|l| l.text.trim())
        .filter(|t| !t.is_empty())
        .peekable();
    lines.peek().is_some() && lines.all(super::lookaround::is_request_line)
}

/// A block's first lines that repeat a header and open a second fence:
/// ```` ```python ```` alone, or a path line and then the fence. Returns
/// the path (when there is one) and how many lines to skip.
fn inner_fence(body: &[Line<'_>]) -> Option<(Option<String>, usize)> {
    let first = body.first()?.text.trim();
    if fence_open(first)
        .is_some_and(|(ticks, info)| ticks == 3 && !info.contains(char::is_whitespace))
        && body.len() > 1
    {
        return Some((None, 1));
    }
    let second = body.get(1)?.text.trim();
    let path = clean_path(first.trim_start_matches(['#', '*', ' ']));
    let opens = fence_open(second).is_some_and(|(ticks, _)| ticks == 3);
    (opens && looks_like_path(&path) && !path.contains(char::is_whitespace))
        .then_some((Some(path), 2))
}

/// Whether `word` is one of the `known` paths, or the unique tail of one.
fn names_known(word: &str, known: &[String]) -> bool {
    let suffix = format!("/{word}");
    known.iter().any(|k| k == word || k.ends_with(&suffix))
}

/// `word` without markdown and punctuation around it.
fn clean_path(word: &str) -> String {
    word.trim_matches(|c: char| {
        matches!(
            c,
            '`' | '*' | '"' | '\'' | ':' | ',' | '(' | ')' | '[' | ']'
        )
    })
    .trim_end_matches('.')
    .trim_start_matches("./")
    .to_string()
}

/// A relative path with a file extension: `utils.py`, `src/a.rs`,
/// `.github/workflows/ci.yml`, `Makefile` is not (no extension).
fn looks_like_path(word: &str) -> bool {
    let word = word.trim_start_matches("./");
    let Some((stem, ext)) = word.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && !stem.ends_with('/')
        && (1..=10).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}

/// The SEARCH/REPLACE pairs in `lines`; an unfinished pair is dropped.
fn replace_pairs(lines: &[Line<'_>]) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_search(lines[i].text) {
            i += 1;
            continue;
        }
        let Some(div) = (i + 1..lines.len()).find(|&j| is_divider(lines[j].text)) else {
            break;
        };
        let Some(end) = (div + 1..lines.len()).find(|&j| is_replace_end(lines[j].text)) else {
            break;
        };
        let join = |part: &[Line<'_>]| -> String {
            part.iter().map(|l| format!("{}\n", l.text)).collect()
        };
        pairs.push((join(&lines[i + 1..div]), join(&lines[div + 1..end])));
        i = end + 1;
    }
    pairs
}

/// `text` with runs of blank lines made one.
fn squeeze_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn known() -> Vec<String> {
        vec![
            "utils.py".into(),
            "src/sum.js".into(),
            "test_utils.py".into(),
        ]
    }

    fn whole(path: Option<&str>, content: &str) -> (Option<String>, BlockKind) {
        (
            path.map(str::to_string),
            BlockKind::Whole(content.to_string()),
        )
    }

    fn shape(reply: &str) -> (String, Vec<(Option<String>, BlockKind)>) {
        let parsed = parse(reply, &known());
        let blocks = parsed
            .blocks
            .into_iter()
            .map(|b| (b.path, b.kind))
            .collect();
        (parsed.prose, blocks)
    }

    #[test]
    fn paths_before_in_and_inside_the_fence() {
        let body = "def f():\n    return 1\n";
        for reply in [
            "utils.py\n```python\ndef f():\n    return 1\n```",
            "**utils.py**\n\n```python\ndef f():\n    return 1\n```",
            "### File: utils.py\n```\ndef f():\n    return 1\n```",
            "Here is the fixed `utils.py`:\n```python\ndef f():\n    return 1\n```",
            "```python utils.py\ndef f():\n    return 1\n```",
            "```utils.py\ndef f():\n    return 1\n```",
            "```python\n# utils.py\ndef f():\n    return 1\n```",
            // A shown part's header echoed in the fence (seen on the 1.5B
            // model, and written into the file as a comment).
            "```python\n# utils.py lines 3-4 (f)\ndef f():\n    return 1\n```",
            "```python\n    # utils.py: lines 3-4\ndef f():\n    return 1\n```",
            "```python\nutils.py lines 3-4 (f)\ndef f():\n    return 1\n```",
        ] {
            let (prose, blocks) = shape(reply);
            assert_eq!(blocks, [whole(Some("utils.py"), body)], "{reply}");
            assert_eq!(prose, "", "{reply}");
        }
        let (prose, blocks) = shape("The fix:\n```python\nx = 1\n```\nDone.");
        assert_eq!(blocks, [whole(None, "x = 1\n")]);
        assert_eq!(prose, "The fix:\nDone.");
    }

    #[test]
    fn unfenced_search_replace_for_two_files_are_two_blocks() {
        let pair = |old: &str, new: &str| {
            format!("<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n")
        };
        let reply = format!(
            "utils.py\n{}\n{}\nAlso:\n\nsrc/sum.js\n{}That is all.",
            pair("a = 1", "a = 2"),
            pair("b = 1", "b = 2"),
            pair("c = 1", "c = 2")
        );
        let (prose, blocks) = shape(&reply);
        let paths: Vec<_> = blocks.iter().map(|(p, _)| p.as_deref()).collect();
        assert_eq!(paths, [Some("utils.py"), Some("src/sum.js")]);
        let BlockKind::Replace(first) = &blocks[0].1 else {
            panic!("{blocks:?}")
        };
        assert_eq!(first.len(), 2, "pairs one after another are one block");
        assert_eq!(prose, "Also:\n\nThat is all.");
    }

    #[test]
    fn a_known_name_with_a_space_is_one_path() {
        let known = vec!["docs/my notes.md".to_string(), "notes.md".to_string()];
        for reply in [
            "docs/my notes.md\n```\nhi\n```",
            "`docs/my notes.md`\n```\nhi\n```",
            "**\"docs/my notes.md\"**\n```\nhi\n```",
            "```\n<!-- docs/my notes.md -->\nhi\n```",
        ] {
            let parsed = parse(reply, &known);
            assert_eq!(
                parsed.blocks[0].path.as_deref(),
                Some("docs/my notes.md"),
                "{reply}"
            );
        }
    }

    #[test]
    fn several_files_and_prose_between() {
        let reply = "First:\n\nutils.py\n```python\na = 1\n```\n\nThen\n\nsrc/sum.js\n```js\nb = 2;\n```\nThat is all.";
        let (prose, blocks) = shape(reply);
        assert_eq!(
            blocks,
            [
                whole(Some("utils.py"), "a = 1\n"),
                whole(Some("src/sum.js"), "b = 2;\n")
            ]
        );
        assert_eq!(prose, "First:\n\nThen\n\nThat is all.");
    }

    #[test]
    fn search_replace_blocks_fenced_or_not() {
        let fenced = "utils.py\n```python\n<<<<<<< SEARCH\n    return items[-n - 1:]\n=======\n    return items[-n:]\n>>>>>>> REPLACE\n```";
        let bare = "utils.py\n<<<<<<< SEARCH\n    return items[-n - 1:]\n=======\n    return items[-n:]\n>>>>>>> REPLACE\n";
        for reply in [fenced, bare] {
            let (_, blocks) = shape(reply);
            assert_eq!(
                blocks,
                [(
                    Some("utils.py".to_string()),
                    BlockKind::Replace(vec![(
                        "    return items[-n - 1:]\n".to_string(),
                        "    return items[-n:]\n".to_string()
                    )])
                )],
                "{reply}"
            );
        }
    }

    #[test]
    fn prose_with_paths_is_not_a_header_and_a_last_open_fence_ends_with_the_reply() {
        let (_, blocks) = shape("I changed utils.py and test_utils.py as follows:\n```\nx\n```");
        assert_eq!(blocks, [whole(None, "x\n")]);
        let (prose, blocks) = shape("utils.py\n```python\nx = 1\n\n");
        assert_eq!(blocks, [whole(Some("utils.py"), "x = 1\n")]);
        assert_eq!(prose, "");
        let (prose, blocks) = shape("Here it is:\n```python\n\n");
        assert!(blocks.is_empty());
        assert_eq!(prose, "Here it is:\n```python");
    }

    /// Seen on the 1.5B model: request lines inside a fence, and a block
    /// whose path is its first line inside the fence.
    #[test]
    fn fenced_requests_and_a_path_inside_the_fence() {
        let parsed = parse("```\nREAD utils.py\nSEARCH compare\n```", &known());
        assert!(parsed.blocks.is_empty());
        assert!(parsed.prose.contains("READ utils.py"), "{}", parsed.prose);
        let parsed = parse("```\n utils.py\ndef f():\n    return 1\n```", &known());
        assert_eq!(parsed.blocks.len(), 1);
        assert_eq!(parsed.blocks[0].path.as_deref(), Some("utils.py"));
        assert_eq!(
            parsed.blocks[0].kind,
            BlockKind::Whole("def f():\n    return 1\n".into())
        );
    }
}
