//! What the model is told when a block changes definitions of a big file it
//! was never shown: they stay as they are, and (within a budget) they are
//! shown now as the file has them, so the next reply can change them from
//! their real text. Small models guess a definition they were not shown
//! (a whole class for one method, the helper a shown method calls) far
//! more often than they ask to `READ` it.

use super::shown::fence;
use super::splice::Unseen;

/// Most bytes of unseen definitions shown with one refusal: about 600
/// tokens, some 20 seconds of prompt reading for a small model on a CPU.
const SHOW_BUDGET: usize = 2_400;
/// Definitions named in one refusal; the others are counted.
const NAMED: usize = 5;

/// A definition shown with a refusal: which, and its text as the file has
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Revealed {
    pub unseen: Unseen,
    pub text: String,
}

/// The refusal of the `unseen` definitions of `path` (whose text is
/// `text`), for the model; `applied` when the block's other definitions
/// went in; `reveal` to show them (within a budget) rather than only say
/// how to read them. Returns the message and the definitions it shows.
pub(crate) fn refusal(
    path: &str,
    text: &str,
    unseen: &[Unseen],
    applied: bool,
    reveal: bool,
) -> (String, Vec<Revealed>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut revealed = Vec::new();
    let mut used = 0;
    for u in unseen {
        let Some(body) = lines.get(u.start_line.saturating_sub(1)..u.end_line.min(lines.len()))
        else {
            continue;
        };
        let body = body.join("\n");
        if !reveal || used + body.len() > SHOW_BUDGET {
            continue;
        }
        used += body.len();
        revealed.push(Revealed {
            unseen: u.clone(),
            text: format!("{body}\n"),
        });
    }
    let one = unseen.len() == 1;
    let mut message = match unseen {
        [u] => format!(
            "`{}` (lines {}-{} of {path}) was not shown to you, so it cannot be replaced from a guess",
            u.name, u.start_line, u.end_line
        ),
        _ => format!(
            "{} of {path} were not shown to you, so they cannot be replaced from a guess",
            names(unseen)
        ),
    };
    if applied {
        message.push_str("; the block's other definitions were put in");
    }
    let hidden: Vec<&Unseen> = unseen
        .iter()
        .filter(|u| !revealed.iter().any(|r| &r.unseen == *u))
        .collect();
    if revealed.is_empty() {
        message.push_str(&format!(
            ": {}, or send only the definitions you were shown",
            read_line(path, &hidden)
        ));
        return (message, revealed);
    }
    message.push_str(if one {
        ". Here it is as the file has it; to change it, send it again, changed from this text:"
    } else {
        ". Here they are as the file has them; to change one, send it again, changed from this text:"
    });
    for r in &revealed {
        message.push_str(&format!(
            "\n\n{path} lines {}-{} ({})\n{}",
            r.unseen.start_line,
            r.unseen.end_line,
            r.unseen.name,
            fence(path, &r.text)
        ));
    }
    if !hidden.is_empty() {
        message.push_str(&format!(
            "\n\n(Too long to show here: {}; {} to see them.)",
            names(&hidden.iter().map(|u| (*u).clone()).collect::<Vec<_>>()),
            read_line(path, &hidden)
        ));
    }
    (message, revealed)
}

/// `` `a` (lines 1-5), `b` (lines 7-9) ``, five at most and how many more.
fn names(unseen: &[Unseen]) -> String {
    let mut names: Vec<String> = unseen
        .iter()
        .take(NAMED)
        .map(|u| format!("`{}` (lines {}-{})", u.name, u.start_line, u.end_line))
        .collect();
    if unseen.len() > NAMED {
        names.push(format!("{} more", unseen.len() - NAMED));
    }
    names.join(", ")
}

/// `READ path FROM-TO first`, the lines that hold all of `unseen`.
fn read_line(path: &str, unseen: &[&Unseen]) -> String {
    let from = unseen.iter().map(|u| u.start_line).min().unwrap_or(1);
    let to = unseen.iter().map(|u| u.end_line).max().unwrap_or(from);
    format!("READ {path} {from}-{to} first")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn unseen(name: &str, start_line: usize, end_line: usize) -> Unseen {
        Unseen {
            name: name.into(),
            start_line,
            end_line,
        }
    }

    /// A guessed definition is shown as the file has it; several are
    /// named and shown within the budget, the rest are left to a `READ`.
    #[test]
    fn guessed_definitions_are_shown_as_they_are() {
        let text = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
        let (message, revealed) = refusal("m.py", text, &[unseen("b", 5, 6)], true, true);
        assert_eq!(
            message,
            "`b` (lines 5-6 of m.py) was not shown to you, so it cannot be replaced from a guess; the block's other definitions were put in. Here it is as the file has it; to change it, send it again, changed from this text:\n\nm.py lines 5-6 (b)\n```python\ndef b():\n    return 2\n```"
        );
        assert_eq!(revealed.len(), 1);
        assert_eq!(revealed[0].text, "def b():\n    return 2\n");
        let long: String = (0..200).map(|i| format!("    x{i} = {i}\n")).collect();
        let text = format!("def a():\n    return 1\n\n\ndef big():\n{long}");
        let (message, revealed) = refusal(
            "m.py",
            &text,
            &[unseen("a", 1, 2), unseen("big", 5, 205)],
            false,
            true,
        );
        assert_eq!(revealed.len(), 1);
        assert!(
            message.starts_with("`a` (lines 1-2), `big` (lines 5-205) of m.py were not shown"),
            "{message}"
        );
        assert!(
            message.ends_with(
                "(Too long to show here: `big` (lines 5-205); READ m.py 5-205 first to see them.)"
            ),
            "{message}"
        );
        let many: Vec<Unseen> = (1..=8).map(|i| unseen(&format!("f{i}"), i, i)).collect();
        assert_eq!(
            names(&many),
            "`f1` (lines 1-1), `f2` (lines 2-2), `f3` (lines 3-3), `f4` (lines 4-4), `f5` (lines 5-5), 3 more"
        );
        let (message, revealed) = refusal("m.py", &text, &[unseen("big", 5, 205)], false, true);
        assert!(revealed.is_empty());
        assert!(
            message
                .ends_with(": READ m.py 5-205 first, or send only the definitions you were shown"),
            "{message}"
        );
    }
}
