//! Which rules can run only near their keywords, and the windows they run
//! on. A rule woken by one keyword would otherwise scan the whole text;
//! most rules' matches hold a keyword and span a bounded number of lines,
//! so a search near the keyword's hits finds what the whole scan does.
//!
//! A rule is local when its regex, read as RE2 without Unicode (as
//! `rules::go_regex` compiles it), matches no empty text, every match
//! holds one of its keywords in some case, and no match holds more than a
//! few `\n` (its span, in line breaks). Then a match starts at most span
//! lines before a hit and ends at most span lines after the line it
//! starts on. The rule searches windows of whole lines (each hit's line
//! with span lines before and after, merged), the text before a window
//! kept as context, and takes only matches that start at or before the
//! window's last hit, where the window holds all the match could see: the
//! same leftmost match a whole scan finds (`rules::Rule::search_near`).
//! Any rule the reading cannot vouch for scans the whole text.

use regex_syntax::ParserBuilder;
use regex_syntax::hir::{Class, Hir, HirKind};

/// Strings kept when spelling out what a part of a regex matches; past
/// this the part counts as unknown.
const MAX_SPELLED: usize = 64;

/// Line breaks past which a rule scans the whole text: its windows would
/// cover most of it anyway.
const MAX_SPAN: usize = 16;

/// The span (most `\n` in a match) of the rule with `pattern` and
/// `keywords` (lowercased) when it can run on windows around its
/// keywords' hits (module docs); `None` when it scans the whole text.
pub(crate) fn span(pattern: &str, keywords: &[String]) -> Option<usize> {
    if keywords.is_empty() || keywords.iter().any(String::is_empty) {
        return None;
    }
    let mut parser = ParserBuilder::new();
    let hir = parser
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    if hir.properties().minimum_len().is_none_or(|n| n == 0) || !holds_keyword(&hir, keywords) {
        return None;
    }
    newlines(&hir)
}

/// The most `\n` a match of `hir` can hold; `None`: no bound, or past
/// [`MAX_SPAN`].
fn newlines(hir: &Hir) -> Option<usize> {
    let n = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(lit) => lit.0.iter().filter(|b| **b == b'\n').count(),
        HirKind::Class(Class::Bytes(class)) => {
            let mut ranges = class.ranges().iter();
            usize::from(ranges.any(|r| r.start() <= b'\n' && b'\n' <= r.end()))
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut ranges = class.ranges().iter();
            usize::from(ranges.any(|r| r.start() <= '\n' && '\n' <= r.end()))
        }
        HirKind::Repetition(rep) => match (newlines(&rep.sub)?, rep.max) {
            (0, _) | (_, Some(0)) => 0,
            (n, Some(max)) => n.saturating_mul(usize::try_from(max).ok()?),
            (_, None) => return None,
        },
        HirKind::Capture(cap) => newlines(&cap.sub)?,
        HirKind::Concat(subs) => {
            let mut sum = 0usize;
            for sub in subs {
                sum = sum.saturating_add(newlines(sub)?);
            }
            sum
        }
        HirKind::Alternation(subs) => {
            let mut most = 0;
            for sub in subs {
                most = most.max(newlines(sub)?);
            }
            most
        }
    };
    Some(n).filter(|n| *n <= MAX_SPAN)
}

/// Whether every match of `hir` holds one of `keywords` in some ASCII case
/// (what the keyword prefilter finds).
fn holds_keyword(hir: &Hir, keywords: &[String]) -> bool {
    let all_hold = |strings: &[Vec<u8>]| {
        strings.iter().all(|s| {
            keywords
                .iter()
                .any(|k| s.windows(k.len()).any(|w| w == k.as_bytes()))
        })
    };
    if spelled(hir).is_some_and(|strings| all_hold(&strings)) {
        return true;
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Literal(_) | HirKind::Class(_) => false,
        HirKind::Repetition(rep) => rep.min > 0 && holds_keyword(&rep.sub, keywords),
        HirKind::Capture(cap) => holds_keyword(&cap.sub, keywords),
        HirKind::Alternation(subs) => subs.iter().all(|s| holds_keyword(s, keywords)),
        HirKind::Concat(subs) => {
            if subs.iter().any(|s| holds_keyword(s, keywords)) {
                return true;
            }
            // Runs of parts that can be spelled out, joined: a keyword may
            // straddle two of them.
            let mut run: Option<Vec<Vec<u8>>> = None;
            for sub in subs {
                run = match (run, spelled(sub)) {
                    (_, None) => None,
                    (None, Some(next)) => Some(next),
                    (Some(before), Some(next)) => joined(&before, &next),
                };
                if run.as_deref().is_some_and(all_hold) {
                    return true;
                }
                if run.is_none() {
                    run = spelled(sub);
                }
            }
            false
        }
    }
}

/// Every text `hir` can match, lowercased (ASCII), when they are few;
/// zero-width assertions match the empty text.
fn spelled(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![Vec::new()]),
        HirKind::Literal(lit) => Some(vec![lit.0.to_ascii_lowercase()]),
        HirKind::Class(Class::Bytes(class)) => {
            let bytes = class.ranges().iter().flat_map(|r| r.start()..=r.end());
            one_each(bytes.map(|b| b.to_ascii_lowercase()))
        }
        HirKind::Class(Class::Unicode(class)) => {
            let chars = class.ranges().iter().flat_map(|r| r.start()..=r.end());
            let bytes: Option<Vec<u8>> = chars
                .take(4 * MAX_SPELLED)
                .map(|c| u8::try_from(c).ok().filter(u8::is_ascii))
                .collect();
            one_each(bytes?.into_iter().map(|b| b.to_ascii_lowercase()))
        }
        HirKind::Repetition(rep) => {
            let max = rep.max.filter(|max| *max <= 8)?;
            let sub = spelled(&rep.sub)?;
            let mut times = vec![Vec::new()];
            let mut all = Vec::new();
            for n in 0..=max {
                if n >= rep.min {
                    all.extend(times.iter().cloned());
                }
                if all.len() > MAX_SPELLED {
                    return None;
                }
                if n < max {
                    times = joined(&times, &sub)?;
                }
            }
            Some(all)
        }
        HirKind::Capture(cap) => spelled(&cap.sub),
        HirKind::Concat(subs) => subs
            .iter()
            .try_fold(vec![Vec::new()], |acc, sub| joined(&acc, &spelled(sub)?)),
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(spelled(sub)?);
                if all.len() > MAX_SPELLED {
                    return None;
                }
            }
            Some(all)
        }
    }
}

/// One-byte strings of `bytes`, deduplicated, when few.
fn one_each(bytes: impl Iterator<Item = u8>) -> Option<Vec<Vec<u8>>> {
    let mut all: Vec<Vec<u8>> = Vec::new();
    for b in bytes {
        if !all.iter().any(|s| s[0] == b) {
            all.push(vec![b]);
        }
        if all.len() > MAX_SPELLED {
            return None;
        }
    }
    Some(all)
}

/// Each of `before` followed by each of `after`, when few.
fn joined(before: &[Vec<u8>], after: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if before.len().saturating_mul(after.len()) > MAX_SPELLED {
        return None;
    }
    let joined = before.iter().flat_map(|b| {
        after.iter().map(move |a| {
            let mut s = b.clone();
            s.extend_from_slice(a);
            s
        })
    });
    Some(joined.collect())
}

/// A window: whole lines `start..end` (past the last line's `\n`), and
/// the start of the last keyword hit in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) last_hit: usize,
}

/// Windows of whole lines of `text` around `hits` (offsets, ascending):
/// each hit's line with `around` lines before and after, overlapping or
/// touching windows merged. Each byte is looked at a few times at most,
/// however many hits: a window grows from its end.
pub(crate) fn windows(text: &[u8], hits: &[usize], around: usize) -> Vec<Window> {
    let mut out: Vec<Window> = Vec::new();
    // Just past the line of the hit before.
    let mut line_done = 0;
    for &hit in hits {
        let hit = hit.min(text.len());
        match out.last_mut() {
            Some(last) if hit < line_done => last.last_hit = hit,
            Some(last) if hit < last.end => {
                let between = text[line_done..hit].iter().filter(|&&b| b == b'\n');
                last.end = lines_on(text, last.end, between.count() + 1);
                last.last_hit = hit;
                line_done = line_end(text, hit);
            }
            Some(_) | None => {
                let floor = out.last().map_or(0, |w| w.end);
                let mut start = line_start(text, hit);
                for _ in 0..around {
                    if start <= floor {
                        break;
                    }
                    start = line_start(text, start - 1);
                }
                line_done = line_end(text, hit);
                let end = lines_on(text, line_done, around);
                match out.last_mut() {
                    Some(last) if start <= last.end => {
                        last.end = end;
                        last.last_hit = hit;
                    }
                    Some(_) | None => out.push(Window {
                        start,
                        end,
                        last_hit: hit,
                    }),
                }
            }
        }
    }
    out
}

/// `end` (a line's start) moved on by `lines` lines, at most to the end.
fn lines_on(text: &[u8], mut end: usize, lines: usize) -> usize {
    for _ in 0..lines {
        if end >= text.len() {
            break;
        }
        end = line_end(text, end);
    }
    end
}

/// The start of the line holding `at`.
fn line_start(text: &[u8], at: usize) -> usize {
    text[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// Just past the `\n` that ends the line holding `at`, or the text's end.
fn line_end(text: &[u8], at: usize) -> usize {
    text[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at + i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    /// What a rule must be to run near its keywords, and its span.
    #[test]
    fn which_patterns_are_local() {
        let table: [(&str, &[&str], Option<usize>); 15] = [
            (
                r"(?i)[\w.-]{0,50}?(?:token|secret)[ =]+([a-z0-9]{16})",
                &["token", "secret"],
                Some(0),
            ),
            (
                r"\b((?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z2-7]{16})\b",
                &["a3t", "akia", "asia"],
                Some(0),
            ),
            (r"(?i)xox[bp]-[0-9]{10}", &["xoxb", "xoxp"], Some(0)),
            (r"(?i)xox[bp]-[0-9]{10}", &["xoxb"], None),
            (r"ghp_[0-9a-zA-Z]{36}", &["ghp_"], Some(0)),
            (r"[a-z]{3}_[0-9a-zA-Z]{36}", &["ghp_"], None),
            (
                r"key\s{0,3}=\s{0,2}([a-z0-9]{16,})(?:\s|$)",
                &["key"],
                Some(6),
            ),
            (r"key\s*=\s*([a-z0-9]{16})", &["key"], None),
            (r"-----BEGIN[^-]*-----", &["-----begin"], None),
            (r"key.{0,10}x", &["key"], Some(0)),
            (r"(?s)key.{0,10}x", &["key"], Some(10)),
            (r"(?s)key.{0,20}x", &["key"], None),
            (r"^key[a-z]+$", &["key"], Some(0)),
            (
                r"(?i)x(?:passw(?:or)?d|tok(?:en)?)",
                &["passwd", "password", "tok"],
                Some(0),
            ),
            (r"key\n\n", &["key"], Some(2)),
        ];
        for (pattern, keywords, wanted) in table {
            assert_eq!(span(pattern, &words(keywords)), wanted, "{pattern}");
        }
        assert_eq!(span("key", &[]), None, "no keywords: runs on every text");
        assert_eq!(span("(?:key)?", &words(&["key"])), None, "empty match");
    }

    #[test]
    fn windows_are_whole_lines_merged() {
        let text = b"a\nb key\nc\nd\ne\nf key\ng";
        let spans = |hits: &[usize], around| {
            let windows = windows(text, hits, around).into_iter();
            windows
                .map(|w| (w.start, w.end, w.last_hit))
                .collect::<Vec<_>>()
        };
        assert_eq!(spans(&[4], 0), [(2, 8, 4)]);
        assert_eq!(spans(&[4], 1), [(0, 10, 4)]);
        assert_eq!(spans(&[4, 16], 1), [(0, 10, 4), (12, 21, 16)]);
        assert_eq!(spans(&[4, 16], 2), [(0, 21, 16)]);
        assert_eq!(spans(&[4, 5, 6], 0), [(2, 8, 6)]);
        assert_eq!(spans(&[4, 8, 10, 16], 1), [(0, 21, 16)]);
        assert_eq!(spans(&[4, 8, 12], 0), [(2, 10, 8), (12, 14, 12)]);
        assert_eq!(spans(&[4, 12], 0), [(2, 8, 4), (12, 14, 12)]);
        assert_eq!(spans(&[0, 20], 3), [(0, 21, 20)]);
    }
}
