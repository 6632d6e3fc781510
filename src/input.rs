//! The prompt: positional words, `-` for stdin, or piped stdin; piped
//! context appended to a given prompt as a delimited block (README "Scripting").

use std::io::{IsTerminal, Read};
use std::sync::mpsc;
use std::time::Duration;

use crate::error::{Error, Result};

/// Largest prompt or piped context accepted, in bytes.
pub(crate) const MAX_STDIN_BYTES: usize = 10 * 1024 * 1024;
/// How long piped stdin may stay silent before a run that already has a
/// prompt goes on without it (`sleep 60 | oc run "…"` must not hang).
pub(crate) const STDIN_FIRST_BYTE_WAIT: Duration = Duration::from_secs(1);

/// Builds the prompt from the positional words and stdin.
///
/// - `-` alone: the whole of stdin is the prompt.
/// - words and a `-` among them: the words, then the whole of stdin in a
///   `<stdin>` block, waiting for it as long as it takes.
/// - words, stdin a terminal: the words.
/// - words, stdin piped: the words, then stdin in a `<stdin>` block, if
///   anything arrives within [`STDIN_FIRST_BYTE_WAIT`].
/// - no words, stdin piped: the whole of stdin.
///
/// Errors (exit 2): no prompt at all, an empty prompt, invalid UTF-8 (with
/// the byte offset), more than [`MAX_STDIN_BYTES`].
pub(crate) fn read_prompt(words: &[String]) -> Result<String> {
    let stdin_is_terminal = std::io::stdin().is_terminal();
    let prompt = match words {
        [dash] if dash == "-" => decode(read_all_stdin()?)?,
        _ if words.iter().any(|w| w == "-") => {
            let prompt: Vec<&str> = words
                .iter()
                .filter(|w| *w != "-")
                .map(String::as_str)
                .collect();
            with_context(&prompt.join(" "), &decode(read_all_stdin()?)?)
        }
        [] if stdin_is_terminal => {
            return Err(Error::Usage(
                "no prompt given: pass it as an argument (`oc run \"fix the tests\"`) or pipe it on stdin"
                    .into(),
            ));
        }
        [] => decode(read_all_stdin()?)?,
        _ => {
            let prompt = words.join(" ");
            if stdin_is_terminal {
                prompt
            } else {
                match read_piped_context(STDIN_FIRST_BYTE_WAIT)? {
                    Some(bytes) => with_context(&prompt, &decode(bytes)?),
                    None => prompt,
                }
            }
        }
    };
    if prompt.trim().is_empty() {
        return Err(Error::Usage(
            "the prompt is empty: say what the agent should do".into(),
        ));
    }
    Ok(prompt)
}

/// `prompt` followed by `context` in a delimited block; an empty context adds
/// nothing.
pub(crate) fn with_context(prompt: &str, context: &str) -> String {
    if context.trim().is_empty() {
        return prompt.to_string();
    }
    let context = context.strip_suffix('\n').unwrap_or(context);
    format!("{prompt}{STDIN_OPEN}{context}{STDIN_CLOSE}")
}

/// The instruction of a prompt built by [`with_context`]: the text before
/// its `<stdin>` block (the whole prompt when it has none).
pub(crate) fn instruction(prompt: &str) -> &str {
    prompt
        .split_once(STDIN_OPEN)
        .map_or(prompt, |(instruction, _)| instruction)
}

/// The piped context of a prompt built by [`with_context`]: the text inside
/// its `<stdin>` block.
pub(crate) fn context(prompt: &str) -> Option<&str> {
    let (_, rest) = prompt.split_once(STDIN_OPEN)?;
    Some(rest.strip_suffix(STDIN_CLOSE).unwrap_or(rest))
}

/// How [`with_context`] opens and closes the piped block.
const STDIN_OPEN: &str = "\n\n<stdin>\n";
const STDIN_CLOSE: &str = "\n</stdin>";

/// Text from bytes: UTF-8 (a BOM dropped), or UTF-16 when it starts with a
/// UTF-16 BOM (`FF FE` little-endian, `FE FF` big-endian). Invalid text is an
/// error that names the byte offset.
pub(crate) fn decode(bytes: Vec<u8>) -> Result<String> {
    if let Some((rest, little)) = bytes
        .strip_prefix(b"\xFF\xFE")
        .map(|r| (r, true))
        .or_else(|| bytes.strip_prefix(b"\xFE\xFF").map(|r| (r, false)))
    {
        return decode_utf16(rest, little);
    }
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|e| {
        Error::Usage(format!(
            "stdin is not valid UTF-8 (bad byte at offset {}); convert it first, e.g. with `iconv -t UTF-8`",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn decode_utf16(bytes: &[u8], little: bool) -> Result<String> {
    let invalid = |offset: usize| {
        Error::Usage(format!(
            "stdin starts with a UTF-16 byte-order mark but is not valid UTF-16 (bad data at byte offset {offset}); convert it first, e.g. with `iconv -f UTF-16 -t UTF-8`"
        ))
    };
    if bytes.len() % 2 == 1 {
        return Err(invalid(bytes.len() + 1));
    }
    let units = bytes.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut offset = 2;
    for c in char::decode_utf16(units) {
        let c = c.map_err(|_| invalid(offset))?;
        offset += c.len_utf16() * 2;
        text.push(c);
    }
    Ok(text)
}

fn too_big() -> Error {
    Error::Usage(format!(
        "stdin is larger than {} MB; pass a smaller excerpt",
        MAX_STDIN_BYTES / (1024 * 1024)
    ))
}

fn read_all_stdin() -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Usage(format!("cannot read stdin: {e}")))?;
    if bytes.len() > MAX_STDIN_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Reads piped stdin if it starts sending within `wait`; then to its end.
/// `None` when it sent nothing (closed at once, or silent for `wait`).
fn read_piped_context(wait: Duration) -> Result<Option<Vec<u8>>> {
    let (tx, rx) = mpsc::channel::<std::io::Result<Vec<u8>>>();
    // A reader thread, so a pipe that stays silent can be abandoned: it ends
    // with the process.
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => {
                    let _ = tx.send(Ok(Vec::new()));
                    return;
                }
                Ok(n) => {
                    if tx.send(Ok(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
    });
    let first = match rx.recv_timeout(wait) {
        Ok(message) => message.map_err(|e| Error::io("cannot read stdin", e))?,
        Err(_) => {
            crate::ui::print_warning(&format!(
                "stdin is open but sent nothing within {}s; going on without it (add `-` to the prompt words, as in `oc run \"fix these\" -`, to wait for stdin however long it takes)",
                wait.as_secs()
            ));
            return Ok(None);
        }
    };
    if first.is_empty() {
        return Ok(None);
    }
    let mut bytes = first;
    loop {
        match rx.recv() {
            Ok(Ok(chunk)) if chunk.is_empty() => return Ok(Some(bytes)),
            Ok(Ok(chunk)) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > MAX_STDIN_BYTES {
                    return Err(too_big());
                }
            }
            Ok(Err(e)) => return Err(Error::io("cannot read stdin", e)),
            Err(_) => return Ok(Some(bytes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instruction_and_the_context_come_apart() {
        let prompt = with_context("write a commit message", "diff --git a/x b/x\n");
        assert_eq!(instruction(&prompt), "write a commit message");
        assert_eq!(context(&prompt), Some("diff --git a/x b/x"));
        assert_eq!(instruction("fix it"), "fix it");
        assert_eq!(context("fix it"), None);
    }

    #[test]
    fn context_is_appended_as_a_block() {
        assert_eq!(
            with_context("write a message", "diff --git a b\n"),
            "write a message\n\n<stdin>\ndiff --git a b\n</stdin>"
        );
        assert_eq!(with_context("p", "  \n"), "p");
    }

    #[test]
    fn decode_strips_bom_and_names_bad_offsets() {
        assert_eq!(decode(b"\xEF\xBB\xBFhi".to_vec()).unwrap(), "hi");
        let err = decode(b"abc\xffdef".to_vec()).unwrap_err();
        assert!(err.to_string().contains("offset 3"), "{err}");
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("hé ✓".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode(le).unwrap(), "hé ✓");
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("hi".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(decode(be).unwrap(), "hi");
        let err = decode(vec![0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0]).unwrap_err();
        assert!(err.to_string().contains("offset 4"), "{err}");
        assert!(decode(vec![0xFF, 0xFE, b'a']).is_err());
    }
}
