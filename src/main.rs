//! The `oc` binary: parse, run, map the outcome to an exit code in one place.

use clap::Parser;

fn main() {
    ollama_code::sandbox_exec_if_asked();
    if let Some(message) = non_utf8_argument() {
        let err = anyhow::Error::new(ollama_code::error::Error::Usage(message));
        if wants_json() {
            ollama_code::write_error(&format!("{err:#}"), Some(2));
        }
        ollama_code::print_error(&err);
        std::process::exit(ollama_code::exit_status_of(&err).code());
    }
    let cli = match ollama_code::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if err.kind() == clap::error::ErrorKind::InvalidSubcommand => {
            let args: Vec<String> = std::env::args().collect();
            let message = ollama_code::cli_hints::not_a_command(&err, &args);
            let err = anyhow::Error::new(ollama_code::error::Error::Usage(message));
            if wants_json() {
                ollama_code::write_error(&format!("{err:#}"), Some(2));
            }
            ollama_code::print_error(&err);
            std::process::exit(2);
        }
        Err(err)
            if err.kind() == clap::error::ErrorKind::UnknownArgument
                && let Some(hint) = ollama_code::cli_hints::unknown_argument(
                    &err,
                    &std::env::args().collect::<Vec<_>>(),
                ) =>
        {
            let err = anyhow::Error::new(ollama_code::error::Error::Usage(hint));
            if wants_json() {
                ollama_code::write_error(&format!("{err:#}"), Some(2));
            }
            ollama_code::print_error(&err);
            std::process::exit(2);
        }
        Err(err) => {
            // Scripts that asked for JSON get the error as JSON too.
            if err.use_stderr() && wants_json() {
                // The message alone, as other errors give it: without
                // clap's `error: ` and its usage and help lines.
                let text = err.to_string();
                let first = text.split("\n\n").next().unwrap_or_default();
                let message = first.trim().trim_start_matches("error: ");
                ollama_code::write_error(message, Some(2));
            }
            err.exit();
        }
    };
    let code = match ollama_code::run(cli) {
        Ok(status) => status.code(),
        Err(err) => {
            ollama_code::print_error(&err);
            ollama_code::exit_status_of(&err).code()
        }
    };
    std::process::exit(code);
}

/// Whether the command line asks for `--output-format json|stream-json`.
/// Reads the arguments as OS strings: an argument that is not UTF-8 must
/// not panic here (clap reports it).
fn wants_json() -> bool {
    // After `--` every word is the prompt's.
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--")
        .collect();
    args.iter().enumerate().any(|(i, a)| {
        let value = match a.strip_prefix("--output-format=") {
            Some(v) => Some(v),
            None if a == "--output-format" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        matches!(value, Some("json" | "stream-json"))
    })
}

/// The first argument that is not valid UTF-8, described: which argument,
/// the bad byte and its offset, and what to do.
fn non_utf8_argument() -> Option<String> {
    std::env::args_os()
        .enumerate()
        .skip(1)
        .find_map(|(n, arg)| {
            let bytes = arg.as_encoded_bytes();
            let error = std::str::from_utf8(bytes).err()?;
            let at = error.valid_up_to();
            Some(format!(
                "argument {n} (`{}`) is not valid UTF-8: byte 0x{:02X} at offset {at}; pass text in UTF-8 (for other encodings, convert first, e.g. with `iconv -t UTF-8`)",
                arg.to_string_lossy(),
                bytes[at]
            ))
        })
}
