//! The changes a block makes to a file's lines, and the exact
//! replacements (`old_string`, `new_string`) that make them.

/// A change to the file's lines: lines `start..=end` (1-based; `end` is
/// `start - 1` for an insertion before `start`) become `text`'s lines.
#[derive(Debug, Clone)]
pub(super) struct Change {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) lines: Vec<String>,
}

/// The changes as exact replacements of whole lines: overlapping or
/// touching changes merge; an insertion takes the line before it (or
/// after, at the start) so that every `old_string` is non-empty, and a
/// replacement grows until it is unique in the file.
pub(super) fn to_edits(
    old: &str,
    old_lines: &[&str],
    mut changes: Vec<Change>,
) -> Result<Vec<(String, String)>, String> {
    changes.sort_by_key(|c| (c.start, c.end));
    let ending = if old.contains("\r\n") { "\r\n" } else { "\n" };
    let mut regions: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for change in changes {
        match regions.last_mut() {
            Some((_, end, lines)) if change.start <= *end + 1 => {
                if change.start <= *end {
                    return Err("two definitions of the block change the same lines; send each definition once".into());
                }
                lines.extend(change.lines);
                *end = change.end.max(*end);
            }
            _ => regions.push((change.start, change.end, change.lines)),
        }
    }
    let mut edits = Vec::new();
    for (mut start, mut end, mut lines) in regions {
        let original = |s: usize, e: usize| {
            old_lines[s - 1..e]
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
        };
        if end < start {
            // An insertion: carry the line before it (or the one after).
            if start > 1 {
                start -= 1;
                lines.insert(0, old_lines[start - 1].to_string());
            } else if end < old_lines.len() {
                end += 1;
                lines.push(old_lines[end - 1].to_string());
            } else {
                return Err("the file is empty; send it whole".into());
            }
        }
        let mut old_text = join(
            &original(start, end),
            ending,
            end < old_lines.len() || old.ends_with('\n'),
        );
        while old.matches(old_text.as_str()).count() > 1 && (start > 1 || end < old_lines.len()) {
            if start > 1 {
                start -= 1;
                lines.insert(0, old_lines[start - 1].to_string());
            } else {
                end += 1;
                lines.push(old_lines[end - 1].to_string());
            }
            old_text = join(
                &original(start, end),
                ending,
                end < old_lines.len() || old.ends_with('\n'),
            );
        }
        let new_text = join(&lines, ending, old_text.ends_with('\n'));
        if new_text != old_text {
            edits.push((old_text, new_text));
        }
    }
    Ok(edits)
}

fn join(lines: &[String], ending: &str, trailing: bool) -> String {
    let mut text = lines
        .iter()
        .map(|l| l.trim_end_matches('\r'))
        .collect::<Vec<_>>()
        .join(ending);
    if trailing {
        text.push_str(ending);
    }
    text
}

/// `old` (the text `edits` were made for) with the exact replacements
/// `edits` applied, as `edit_file` applies them.
pub(crate) fn applied(old: &str, edits: &[(String, String)]) -> String {
    (edits.iter()).fold(old.to_string(), |text, (from, to)| {
        text.replacen(from, to, 1)
    })
}
