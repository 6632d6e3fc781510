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
        substitutions: Vec::new(),
        positional: false,
    };
    match brush_parser::word::parse(source, &Default::default()) {
        Ok(pieces) => {
            word.text = text(&pieces, source, true);
            word.bare = text(&pieces, source, false);
            walk(&pieces, source, &mut word);
        }
        Err(_) => {
            word.text = match shlex::split(source) {
                Some(mut parts) if parts.len() == 1 => parts.remove(0),
                _ => source.to_string(),
            };
            word.bare = word.text.clone();
            let inner = source.trim_matches(|c| c == '"' || c == '`' || c == '$');
            if source.contains(['$', '`']) {
                word.substitutions.push(inner.to_string());
            }
        }
    }
    word
}

/// The text the pieces stand for, quoting removed; expansions as
/// written, or left out when not `expansions`.
fn text(pieces: &[WordPieceWithSource], source: &str, expansions: bool) -> String {
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
            _ if expansions => out.push_str(source_of(piece, source)),
            _ => {}
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

/// Single-level brace expansion as bash does it: `{rm,-rf,x}` is three
/// words, `{.,}env` is `.env env`. Words without a `{a,b}` come back whole.
pub(crate) fn expand_braces(word: &str) -> Vec<String> {
    let Some(open) = word.find('{') else {
        return vec![word.to_string()];
    };
    let Some(close) = word[open..].find('}').map(|c| open + c) else {
        return vec![word.to_string()];
    };
    let inner = &word[open + 1..close];
    if !inner.contains(',') || inner.contains('{') {
        return vec![word.to_string()];
    }
    let (prefix, suffix) = (&word[..open], &word[close + 1..]);
    let mut out = Vec::new();
    for alternative in inner.split(',') {
        for rest in expand_braces(suffix) {
            if out.len() < MAX_BRACE_WORDS {
                out.push(format!("{prefix}{alternative}{rest}"));
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

/// The text of a `$'…'` string: `\xHH`, octal `\NNN`, `\uHHHH` and the
/// usual letter escapes decoded.
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
            Some(d) => out.push(d),
            None => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    out
}
