//! What the command reader ([`super::reading`]) must not hand to
//! brush-parser: lines on which its tokenizer takes the process down
//! (hangs while allocating, panics, overflows the stack) instead of
//! failing. Such a line cannot be read, and the hard rules refuse it.

/// How deep brackets (`(`, `{`, `[`, so also `$(…)` and `${…}`) may nest
/// in a line given to the parser: far past any real command, far below
/// where brush-parser's recursion overflows a thread's stack (about 400
/// braces in a 2 MiB stack).
const MAX_NESTING: usize = 64;

/// Why `text` must not be given to brush-parser, whose tokenizer takes the
/// process down on some malformed lines instead of failing: brackets
/// nested past [`MAX_NESTING`] overflow the stack, and a here-document
/// delimiter that is empty or holds an expansion (`<<""`, `<<$(( )`,
/// `<<E$[`) allocates without end or panics (reubeno/brush#1270). `<<`
/// is found with quoting ignored, so `cout << "a"` in a here-document
/// body is fine, and `(( a << $n ))` or `1 << (n)` is refused too.
pub(crate) fn beyond_the_parser(text: &str) -> Option<&'static str> {
    let mut depth: usize = 0;
    for c in text.chars() {
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return Some("its brackets nest more than 64 deep");
        }
    }
    for delimiter in here_delimiters(text) {
        let empty =
            delimiter.is_empty() || delimiter.starts_with("\"\"") || delimiter.starts_with("''");
        if empty || delimiter.contains(['$', '`']) {
            return Some("a here-document's delimiter is empty or holds an expansion");
        }
    }
    None
}

/// The delimiter after each here-document operator in `text`, quoting
/// ignored: a run of `<` splits as the tokenizer splits it, `<<<` first
/// (a here-string), so `<<<<<` ends in a here-document.
fn here_delimiters(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let run = rest[start..].len() - rest[start..].trim_start_matches('<').len();
        rest = &rest[start + run..];
        if run % 3 == 2 {
            let after = rest
                .strip_prefix('-')
                .unwrap_or(rest)
                .trim_start_matches([' ', '\t']);
            let ends = [' ', '\t', '\n', ';', '|', '&', '<', '>', '(', ')'];
            found.extend(after.split(ends).next());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn here_delimiters_split_runs_of_angle_brackets_as_the_tokenizer_does() {
        assert_eq!(here_delimiters("cat <<EOF"), ["EOF"]);
        assert_eq!(here_delimiters("cat <<-'X' | y"), ["'X'"]);
        assert_eq!(here_delimiters("grep a <<< \"$t\""), Vec::<&str>::new());
        assert_eq!(here_delimiters("a <<<<<$x"), ["$x"]);
        assert_eq!(here_delimiters("a <<<< b"), Vec::<&str>::new());
    }
}
