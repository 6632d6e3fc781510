//! README.md says what the tool does: its option tables list exactly the
//! options `--help` shows, command by command.

use std::collections::BTreeSet;

use crate::common::{FakeOllama, TestEnv};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The part of the README from `heading` to the next heading of the same
/// or a higher level.
fn section(readme: &str, heading: &str) -> String {
    let start = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README has no `{heading}`"));
    let level = heading.chars().take_while(|c| *c == '#').count();
    let rest = &readme[start + heading.len()..];
    let end = rest
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| {
            let hashes = line.chars().take_while(|c| *c == '#').count();
            hashes > 0 && hashes <= level && line.chars().nth(hashes) == Some(' ')
        })
        .map_or(rest.len(), |(at, _)| at);
    rest[..end].to_string()
}

/// The long options `oc ARGS --help` lists.
fn help_options(args: &[&str]) -> BTreeSet<String> {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![]);
    let out = env.oc(&server).args(args).arg("--help").assert().success();
    let help = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    help.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| {
            l.split([' ', ',', '[', '='])
                .find(|w| w.starts_with("--"))
                .map(str::to_string)
        })
        .collect()
}

/// The long options named in the first column of a table's rows.
fn table_options(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| l.starts_with("| `-"))
        .flat_map(|l| {
            let first = l.split(" | ").next().unwrap_or_default();
            first
                .split(['`', ' ', ','])
                .filter(|w| w.starts_with("--"))
                .map(|w| w.split(['[', '=']).next().unwrap_or(w).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_run_options_table_matches_the_help() {
    let readme = readme();
    let table = table_options(&section(&readme, "### Options of `run`, `plan` and `chat`"));
    let mut help = help_options(&["run"]);
    // `--out` is a visible alias of `--output-last-message`.
    help.insert("--out".into());
    let missing: Vec<_> = help.difference(&table).collect();
    let stale: Vec<_> = table.difference(&help).collect();
    assert!(missing.is_empty(), "README lacks: {missing:?}");
    assert!(
        stale.is_empty(),
        "README names options `oc run` does not have: {stale:?}"
    );
}

#[test]
fn the_other_commands_options_are_documented() {
    let readme = readme();
    let others = section(&readme, "### Options of the other commands");
    let finetune = section(&readme, "## Fine-tuning data");
    for (args, text) in [
        (&["sessions", "list"][..], &others),
        (&["sessions", "show"], &others),
        (&["sessions", "rm"], &others),
        (&["models"], &others),
        (&["export-ft"], &finetune),
    ] {
        for option in help_options(args) {
            if option == "--help" || option == "--version" {
                continue;
            }
            let named = text.match_indices(&option).any(|(at, _)| {
                let next = text[at + option.len()..].chars().next();
                !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            });
            assert!(
                named,
                "README does not document `oc {} {option}`",
                args.join(" ")
            );
        }
    }
}
