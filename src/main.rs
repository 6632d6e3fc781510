//! The `oc` binary: parse, run, map the outcome to an exit code in one place.

use clap::Parser;

fn main() {
    let cli = ollama_code::cli::Cli::parse();
    let code = match ollama_code::run(cli) {
        Ok(status) => status.code(),
        Err(err) => {
            ollama_code::ui::print_error(&err);
            ollama_code::exit_status_of(&err).code()
        }
    };
    std::process::exit(code);
}
