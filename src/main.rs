//! The `oc` binary: parse, run, map the outcome to an exit code in one place.

use clap::Parser;

fn main() {
    let cli = match ollama_code::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // Scripts that asked for JSON get the error as JSON too.
            if err.use_stderr() && wants_json() {
                ollama_code::ui::json::write_line(&ollama_code::protocol::Event::Error {
                    schema_version: ollama_code::protocol::SCHEMA_VERSION,
                    message: err.to_string().trim(),
                    exit_code: Some(2),
                });
            }
            err.exit();
        }
    };
    let code = match ollama_code::run(cli) {
        Ok(status) => status.code(),
        Err(err) => {
            ollama_code::ui::print_error(&err);
            ollama_code::exit_status_of(&err).code()
        }
    };
    std::process::exit(code);
}

/// Whether the command line asks for `--output-format json|stream-json`.
fn wants_json() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().enumerate().any(|(i, a)| {
        let value = match a.strip_prefix("--output-format=") {
            Some(v) => Some(v),
            None if a == "--output-format" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        matches!(value, Some("json" | "stream-json"))
    })
}
