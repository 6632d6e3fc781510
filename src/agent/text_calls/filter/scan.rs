//! Scanning the text the filter holds back: where a block ends, what a
//! block holds, and how much of the end may be the start of a marker.

/// `text` without the tags `open` and `close` around it (as it is when
/// it does not end with `close`).
pub(super) fn strip_tags<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    text.strip_prefix(open)
        .unwrap_or(text)
        .strip_suffix(close)
        .unwrap_or(text)
}

/// The end of the run of `<function=` blocks `text` starts with: after
/// the last `</function>` of the run, once it has come.
pub(super) fn function_run_end(text: &str) -> Option<usize> {
    let mut end = text.find("</function>").map(|i| i + "</function>".len());
    while let Some(e) = end {
        let rest = &text[e..];
        let next = rest.trim_start();
        if next.starts_with("<function=") {
            end = rest
                .find("</function>")
                .map(|i| e + i + "</function>".len());
        } else {
            break;
        }
    }
    end
}

/// The end of the JSON value `text` starts with (after whitespace), when it
/// is complete: brackets balanced outside strings.
pub(super) fn balanced_json_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut seen = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                depth += 1;
                seen = true;
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if seen && depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// How many bytes at the end of `text` could be the start of a marker.
pub(super) fn partial_marker_len(text: &str) -> usize {
    let markers = [
        "```",
        "<tool_call>",
        "[tool_call]",
        "<function=",
        "<think>",
        "</think>",
    ];
    let mut keep = 0;
    for marker in markers {
        for len in (1..marker.len()).rev() {
            if text.ends_with(&marker[..len]) {
                keep = keep.max(len);
                break;
            }
        }
    }
    keep
}
