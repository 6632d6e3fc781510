//! Context bookkeeping: capping what a tool result may add to the
//! conversation.

/// Largest tool result sent to the model, in bytes (about 8,000 tokens at
/// 4 characters a token). The head and tail are kept.
pub const TOOL_OUTPUT_CAP: usize = 32 * 1024;

/// `text` itself when it fits in `cap` bytes; else its head and tail with the
/// omitted size stated between them. Cuts only at character boundaries.
pub fn cap_output(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_string();
    }
    let half = cap / 2;
    let mut head_end = half;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - half;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    format!(
        "{}\n[… {} bytes omitted …]\n{}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched_and_long_text_keeps_both_ends() {
        assert_eq!(cap_output("abc", 10), "abc");
        let text = format!("{}{}", "é".repeat(100), "z".repeat(100));
        let capped = cap_output(&text, 50);
        assert!(capped.starts_with("éé"));
        assert!(capped.ends_with("zz"));
        assert!(capped.contains("bytes omitted"));
    }
}
