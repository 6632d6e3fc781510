//! One shell word as bash reads it, for the command reader
//! ([`super::reading`]): its text with quoting removed, the command
//! substitutions inside it, brace expansion, and a command's words put back
//! into one line for rules to match.

use brush_parser::word::{WordPiece, WordPieceWithSource};

/// Most words one brace expansion may produce.
const MAX_BRACE_WORDS: usize = 64;

/// A word taken apart (brush-parser's word grammar).
pub(crate) struct Word {
    /// The text it stands for with its quoting removed: `.e""nv` and
    /// `.\env` are `.env`, `$'\x2drf'` is `-rf`. Expansions keep their
    /// source text (`$HOME`, `$(pwd)`).
    pub text: String,
    /// The same with every expansion empty (`.e$()nv`, `.e${X}nv` are
    /// `.env`): what is left of a name whatever the expansions give.
    pub bare: String,
    /// The same with every expansion a `*` glob (`.e${x:-n}v` is `.e*v`):
    /// every name it may come to.
    pub pattern: String,
    /// The command lines it substitutes (`$(…)`, `` `…` ``), also inside
    /// double quotes, parameter expansions (`${x:-$(…)}`) and arithmetic
    /// (`$((…))`, `$[…]`).
    pub substitutions: Vec<String>,
    /// Whether it expands a positional parameter (`$@`, `$*`, `$1`,
    /// `${1}`, `${@:2}`): inside a function, words its callers pass.
    pub positional: bool,
}

/// Takes `source` (a word as written) apart. A word brush-parser cannot
/// read is taken whole, and looked into as a command of its own.
pub(crate) fn read(source: &str) -> Word {
    let mut word = Word {
        text: String::new(),
        bare: String::new(),
        pattern: String::new(),
        substitutions: Vec::new(),
        positional: false,
    };
    match brush_parser::word::parse(source, &Default::default()) {
        Ok(pieces) => {
            word.text = text(&pieces, source, None);
            word.bare = text(&pieces, source, Some(""));
            word.pattern = text(&pieces, source, Some("*"));
            walk(&pieces, source, &mut word);
        }
        Err(_) => {
            word.text = match shlex::split(source) {
                Some(mut parts) if parts.len() == 1 => parts.remove(0),
                _ => source.to_string(),
            };
            word.bare = word.text.clone();
            word.pattern = word.text.clone();
            let inner = source.trim_matches(|c| c == '"' || c == '`' || c == '$');
            if source.contains(['$', '`']) {
                word.substitutions.push(inner.to_string());
            }
        }
    }
    word
}

/// The text the pieces stand for, quoting removed; expansions as
/// written, or each as `expansions` says.
fn text(pieces: &[WordPieceWithSource], source: &str, expansions: Option<&str>) -> String {
    let mut out = String::new();
    for piece in pieces {
        match &piece.piece {
            WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => out.push_str(s),
            WordPiece::AnsiCQuotedText(s) => out.push_str(&ansi_c(s)),
            WordPiece::EscapeSequence(s) => out.push_str(s.strip_prefix('\\').unwrap_or(s)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                out.push_str(&text(inner, source, expansions))
            }
            _ => out.push_str(expansions.unwrap_or(source_of(piece, source))),
        }
    }
    out
}

/// Finds the substitutions and positional parameters in `pieces`.
fn walk(pieces: &[WordPieceWithSource], source: &str, word: &mut Word) {
    for piece in pieces {
        match &piece.piece {
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                word.substitutions.push(s.clone());
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => walk(inner, source, word),
            WordPiece::ParameterExpansion(_) | WordPiece::ArithmeticExpression(_) => {
                let written = source_of(piece, source);
                word.positional |= is_positional(written);
                // What the expansion holds (`${x:-$(…)}`, `$((0$(…)))`) is
                // read as a word of its own: its leading `$` taken off, so
                // the same piece is not met again.
                let inner = read(&written[1.min(written.len())..]);
                word.substitutions.extend(inner.substitutions);
                word.positional |= inner.positional;
            }
            WordPiece::Text(s) if s.contains("$[") => {
                // `$[…]`, bash's old arithmetic, is text to the word grammar.
                let inner = read(&s.replace("$[", "("));
                word.substitutions.extend(inner.substitutions);
            }
            _ => {}
        }
    }
}

/// The source text of one piece.
fn source_of<'a>(piece: &WordPieceWithSource, source: &'a str) -> &'a str {
    source
        .get(piece.start_index..piece.end_index)
        .unwrap_or_default()
}

/// Whether an expansion as written names a positional parameter.
fn is_positional(written: &str) -> bool {
    let after = written.trim_start_matches('$').trim_start_matches('{');
    after.starts_with(|c: char| c.is_ascii_digit() || c == '@' || c == '*')
}

/// Every outermost `$(…)`, `<(…)`, `>(…)` and `` `…` `` in `text`, found by bracket
/// counting with quotes ignored: where bash evaluates text regardless of
/// its quotes (arithmetic, array subscripts, here-document bodies), and
/// where reading too much only refuses more.
pub(crate) fn raw_substitutions(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'$' && bytes.get(i + 1..i + 3) == Some(b"((") {
            i += 3; // arithmetic: what it holds is scanned as it comes
        } else if matches!((bytes[i], bytes[i + 1]), (b'$' | b'<' | b'>', b'(')) {
            let start = i + 2;
            let (mut depth, mut j) = (1, start);
            while j < bytes.len() && depth > 0 {
                match bytes[j] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            let end = if depth == 0 { j - 1 } else { j };
            if let Some(inner) = text.get(start..end).filter(|i| !i.trim().is_empty()) {
                found.push(inner.to_string());
            }
            // What it holds is read when it is read as a script.
            i = j;
        } else if bytes[i] == b'`' {
            match text[i + 1..].find('`') {
                Some(close) => {
                    found.push(text[i + 1..i + 1 + close].to_string());
                    i += close + 2;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    found
}

/// A simple command as one line of text, for matching against rules: words
/// that need quoting are quoted, so `echo "a b"` is not `echo a b`.
pub(crate) fn command_text(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain =
                !w.is_empty() && !w.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"');
            match shlex::try_quote(w) {
                Ok(quoted) if !plain => quoted.into_owned(),
                _ => w.clone(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Brace expansion as bash does it: `{rm,-rf,x}` is three words,
/// `{.,}env` is `.env env`, nested (`{{rm,x},-rf}`) and sequences
/// (`{a..c}`, `{1..3}`) too. At most [`MAX_BRACE_WORDS`] words come back,
/// and the work stays as small: a word that would give more is cut there.
/// Words without a brace to expand come back whole.
pub(crate) fn expand_braces(word: &str) -> Vec<String> {
    let Some((open, close)) = first_brace(word) else {
        return vec![word.to_string()];
    };
    let (prefix, inner, suffix) = (&word[..open], &word[open + 1..close], &word[close + 1..]);
    let alternatives = match sequence(inner) {
        Some(items) => items,
        None => top_level_commas(inner)
            .into_iter()
            .map(String::from)
            .collect(),
    };
    let rests = expand_braces(suffix);
    let mut out = Vec::new();
    'all: for alternative in alternatives {
        for head in expand_braces(&format!("{prefix}{alternative}")) {
            for rest in &rests {
                if out.len() >= MAX_BRACE_WORDS {
                    break 'all;
                }
                out.push(format!("{head}{rest}"));
            }
        }
    }
    // Bash joins the alternatives of a whole-word brace into separate words;
    // with a prefix or suffix each result is still one word.
    if prefix.is_empty() && suffix.is_empty() {
        out
    } else {
        out.into_iter().filter(|w| !w.is_empty()).collect()
    }
}

/// The first `{…}` that expands (holds a top-level comma or is a
/// sequence), by the byte offsets of its braces.
fn first_brace(word: &str) -> Option<(usize, usize)> {
    let bytes = word.as_bytes();
    for open in (0..bytes.len()).filter(|&i| bytes[i] == b'{') {
        let mut depth = 0;
        for (at, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        let inner = &word[open + 1..at];
                        if top_level_commas(inner).len() > 1 || sequence(inner).is_some() {
                            return Some((open, at));
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// `inner` split at its commas outside nested braces.
fn top_level_commas(inner: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
}

/// The items of a sequence `a..c` or `1..3` (step ignored), at most
/// [`MAX_BRACE_WORDS`].
fn sequence(inner: &str) -> Option<Vec<String>> {
    let mut ends = inner.split("..");
    let (from, to) = (ends.next()?, ends.next()?);
    let numbers = from.parse::<i64>().ok().zip(to.parse::<i64>().ok());
    let items: Vec<String> = match numbers {
        Some((a, b)) if a <= b => (a..=b)
            .take(MAX_BRACE_WORDS)
            .map(|n| n.to_string())
            .collect(),
        Some((a, b)) => (b..=a)
            .rev()
            .take(MAX_BRACE_WORDS)
            .map(|n| n.to_string())
            .collect(),
        None => {
            let (a, b) = (single_char(from)?, single_char(to)?);
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            (lo..=hi).take(MAX_BRACE_WORDS).map(String::from).collect()
        }
    };
    Some(items)
}

fn single_char(text: &str) -> Option<char> {
    let mut chars = text.chars();
    chars.next().filter(|_| chars.next().is_none())
}

/// The text of a `$'…'` string: `\xHH`, octal `\NNN`, `\uHHHH` and the
/// usual letter escapes decoded, up to a NUL, where bash ends it.
fn ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let mut number = |radix: u32, max: usize, first: Option<char>| {
            let mut digits: String = first.into_iter().collect();
            while digits.len() < max && chars.peek().is_some_and(|d| d.is_digit(radix)) {
                digits.extend(chars.next());
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            'x' => number(16, 2, None),
            'u' => number(16, 4, None),
            'U' => number(16, 8, None),
            '0'..='7' => number(8, 3, Some(e)),
            _ => None,
        };
        match decoded {
            // bash ends the string at a NUL: `$'rm\x00-x'` is `rm`.
            Some('\0') => break,
            Some(d) => out.push(d),
            None => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    out
}
