//! Long docstrings in the parts of a big file: a Python definition shown
//! in parts has a docstring of more than [`LONG_DOCSTRING`] lines cut to
//! its first line and a note that the rest stays. A definition the model
//! sends back with that note gets the docstring back whole. In documented
//! libraries the docstring is often most of a function: every token of it
//! costs time twice, shown and written back.

use std::sync::LazyLock;

use regex::Regex;

/// Docstrings of more lines than this are shortened.
pub(crate) const LONG_DOCSTRING: usize = 6;

/// The note, alone on its line or run into the docstring's text.
static NOTE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\(\d+ more lines of this docstring are not shown").ok());

/// `lines` (a definition, its first line being line `first` of the file)
/// with its docstring at lines `doc` (1-based, inclusive) shortened when
/// it is long: the opening line, the note, the closing quotes.
pub(crate) fn shorten(lines: &[&str], first: usize, doc: (usize, usize)) -> Vec<String> {
    let (start, end) = (doc.0 - first, doc.1 - first);
    let long = end >= start && end - start + 1 > LONG_DOCSTRING && end < lines.len();
    let quotes = lines.get(start).and_then(|l| quote_of(l));
    let (true, Some(quotes)) = (long, quotes) else {
        return lines.iter().map(|l| l.to_string()).collect();
    };
    let indent = lines[start]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect::<String>();
    let mut out: Vec<String> = lines[..=start].iter().map(|l| l.to_string()).collect();
    out.push(format!(
        "{indent}({} more lines of this docstring are not shown; they stay as they are)",
        end - start - 1
    ));
    out.push(format!("{indent}{quotes}"));
    out.extend(lines[end + 1..].iter().map(|l| l.to_string()));
    out
}

/// The model's definition `new` (lines, at the file's indentation, from
/// its `def` line on) with a shortened docstring given back whole from
/// `old_doc` (the docstring's lines as the file has them): when `new`
/// holds the note, or when its docstring is the shown opening line with
/// the note dropped or reworded. A docstring the model rewrote is its own;
/// `new` is unchanged when it holds neither.
pub(crate) fn restore(new: Vec<String>, old_doc: &[&str]) -> Vec<String> {
    if old_doc.is_empty() {
        return new;
    }
    if let Some(header_end) = left_out(&new, old_doc) {
        // The model left the docstring out: it never saw most of it.
        let mut out = new[..=header_end].to_vec();
        out.extend(old_doc.iter().map(|l| l.to_string()));
        out.extend(new[header_end + 1..].iter().cloned());
        return out;
    }
    let Some((opening, closing)) = noted(&new).or_else(|| cut_short(&new, old_doc)) else {
        return new;
    };
    let mut out = new[..opening].to_vec();
    out.extend(old_doc.iter().map(|l| l.to_string()));
    out.extend(new[closing + 1..].iter().cloned());
    out
}

/// The lines that open and close the docstring holding the note (one
/// line when the note was run into it).
fn noted(new: &[String]) -> Option<(usize, usize)> {
    let note = new
        .iter()
        .position(|l| NOTE.as_ref().is_some_and(|re| re.is_match(l)))?;
    let opening = (0..=note).rev().find(|&i| quote_of(&new[i]).is_some())?;
    let quotes = quote_of(&new[opening])?;
    let closes = |i: usize| match i == opening {
        true => new[i].matches(quotes).count() >= 2,
        false => new[i].contains(quotes),
    };
    let closing = (note..new.len()).find(|&i| closes(i))?;
    Some((opening, closing))
}

/// The line ending the header of a definition that has no docstring while
/// the file's is long (so shown shortened): the model left it out.
fn left_out(new: &[String], old_doc: &[&str]) -> Option<usize> {
    if old_doc.len() <= LONG_DOCSTRING {
        return None;
    }
    let header_end = new.iter().position(|l| code_of(l).ends_with(':'))?;
    let first = new[header_end + 1..]
        .iter()
        .find(|l| !l.trim().is_empty())?;
    quote_of(first).is_none().then_some(header_end)
}

/// The docstring of `new` when it is the shortened one without its note:
/// at most three lines whose opening words are those of a long `old_doc`.
fn cut_short(new: &[String], old_doc: &[&str]) -> Option<(usize, usize)> {
    if old_doc.len() <= LONG_DOCSTRING {
        return None;
    }
    let header_end = new.iter().position(|l| code_of(l).ends_with(':'))?;
    let opening = (header_end + 1..new.len()).find(|&i| !new[i].trim().is_empty())?;
    let quotes = quote_of(&new[opening])?;
    let closing = if new[opening].matches(quotes).count() >= 2 {
        opening
    } else {
        (opening + 1..new.len()).find(|&i| new[i].contains(quotes))?
    };
    let words = |line: &str| {
        line.trim()
            .trim_start_matches(['r', 'u', 'R', 'U'])
            .replace(quotes, "")
            .trim()
            .to_string()
    };
    // A docstring whose quotes stand alone is known by its next line.
    let (ours, theirs) = match words(&new[opening]).is_empty() {
        true => (
            new.get(opening + 1).map_or(String::new(), |l| words(l)),
            old_doc.get(1).map_or(String::new(), |l| words(l)),
        ),
        false => (words(&new[opening]), words(old_doc[0])),
    };
    (closing - opening < 4 && !ours.is_empty() && ours == theirs).then_some((opening, closing))
}

/// A line without its trailing comment, trimmed.
fn code_of(line: &str) -> &str {
    line.split(" #").next().unwrap_or_default().trim()
}

/// Whether `line` holds the note that stands for a docstring's hidden
/// lines.
pub(crate) fn holds_note(line: &str) -> bool {
    NOTE.as_ref().is_some_and(|re| re.is_match(line))
}

/// The triple quotes a line holds, if any.
fn quote_of(line: &str) -> Option<&'static str> {
    ["\"\"\"", "'''"].into_iter().find(|q| line.contains(q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn long_docstrings_are_shortened_and_given_back() {
        let text = "def f(x):\n    \"\"\"Add one.\n\n    More.\n    More.\n    More.\n    More.\n    More.\n    \"\"\"\n    return x + 1\n";
        let lines: Vec<&str> = text.lines().collect();
        let short = shorten(&lines, 1, (2, 9));
        assert_eq!(
            short,
            [
                "def f(x):",
                "    \"\"\"Add one.",
                "    (6 more lines of this docstring are not shown; they stay as they are)",
                "    \"\"\"",
                "    return x + 1"
            ]
        );
        // The model changed the body and kept the note: the docstring is back.
        let mut changed = short.clone();
        changed[4] = "    return x + 2".to_string();
        let restored = restore(changed, &lines[1..9]);
        assert_eq!(restored.join("\n") + "\n", text.replace("x + 1", "x + 2"));
        // A short docstring is shown as it is, and the model may drop it.
        assert_eq!(shorten(&lines[..3], 1, (2, 3)).len(), 3);
        let own = vec!["def f(x):".to_string(), "    return x".to_string()];
        assert_eq!(restore(own.clone(), &lines[1..3]), own);
        // The note dropped or reworded: the docstring is still the file's.
        for cut in [
            vec!["    \"\"\"Add one.", "    \"\"\""],
            vec!["    \"\"\"Add one.\"\"\""],
            vec![
                "    \"\"\"Add one.",
                "    (the rest is unchanged)",
                "    \"\"\"",
            ],
        ] {
            let mut reply = vec!["def f(x):".to_string()];
            reply.extend(cut.iter().map(|l| l.to_string()));
            reply.push("    return x + 2".to_string());
            let restored = restore(reply, &lines[1..9]);
            assert_eq!(restored.join("\n") + "\n", text.replace("x + 1", "x + 2"));
        }
        // The note run into the text, a docstring whose quotes stand alone,
        // and one left out: the file's comes back.
        let mut reply = vec!["def f(x):".to_string()];
        reply.push("    \"\"\"Add one. (6 more lines of this docstring are not shown; they stay as they are)\"\"\"".to_string());
        reply.push("    return x + 2".to_string());
        let restored = restore(reply, &lines[1..9]);
        assert_eq!(restored.join("\n") + "\n", text.replace("x + 1", "x + 2"));
        let numpy = [
            "    \"\"\"",
            "    Add one.",
            "",
            "    More.",
            "    More.",
            "    More.",
            "    More.",
            "    \"\"\"",
        ];
        let reply: Vec<String> = [
            "def f(x):",
            "    \"\"\"",
            "    Add one.",
            "    \"\"\"",
            "    return x",
        ]
        .map(String::from)
        .to_vec();
        let restored = restore(reply, &numpy);
        assert_eq!(restored.len(), 10, "{restored:?}");
        let reply: Vec<String> = ["def f(x):", "    return x + 2"].map(String::from).to_vec();
        let restored = restore(reply, &lines[1..9]);
        assert_eq!(restored.join("\n") + "\n", text.replace("x + 1", "x + 2"));
        // A docstring it rewrote, or a short one, is the model's.
        let rewritten: Vec<String> = ["def f(x):", "    \"\"\"Add two.\"\"\"", "    return x + 2"]
            .map(String::from)
            .to_vec();
        assert_eq!(restore(rewritten.clone(), &lines[1..9]), rewritten);
        let short = ["    \"\"\"Add one.", "    More.", "    \"\"\""];
        let reply: Vec<String> = ["def f(x):", "    \"\"\"Add one.\"\"\"", "    return x"]
            .map(String::from)
            .to_vec();
        assert_eq!(restore(reply.clone(), &short), reply);
    }
}
