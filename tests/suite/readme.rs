//! The README and `docs/` say what the tool does: the options page lists
//! exactly the options each command's `--help` shows, the prose documents
//! every option of `export-ft`, the README's command table names every
//! command, and no page names an `oc` option that does not exist.

use std::collections::BTreeSet;
use std::path::Path;

use super::docs::{
    OPTIONS_PAGE, SAME_AS, anchor, code_lines, code_spans, markdown_files, oc_command, prose, read,
    visible_commands,
};
use crate::common::{FakeOllama, TestEnv};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn page(path: &str) -> String {
    read(&Path::new(ROOT).join(path))
}

/// The part of a page from `heading` (a whole line) to the next heading of
/// the same or a higher level.
fn section(text: &str, heading: &str) -> String {
    let start = text
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| *line == heading)
        .map(|(at, _)| at)
        .unwrap_or_else(|| panic!("no heading `{heading}`"));
    let level = heading.chars().take_while(|c| *c == '#').count();
    let rest = &text[start + heading.len()..];
    let end = rest
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .skip(1)
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
    let options = help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| {
            l.split([' ', ',', '[', '='])
                .find(|w| w.starts_with("--"))
                .map(str::to_string)
        });
    // A visible alias is shown as `[alias: --old-name]`.
    let aliases = help
        .lines()
        .filter_map(|l| l.trim().strip_prefix("[alias: "))
        .map(|alias| alias.trim_end_matches(']').to_string());
    options.chain(aliases).collect()
}

/// The long option at the start of `word` (`--think` of `--think[=LEVEL]`).
fn long_option(word: &str) -> Option<String> {
    let name: String = word
        .strip_prefix("--")?
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    starts_well.then(|| format!("--{name}"))
}

/// The long options named in the first column of a table's rows.
fn table_options(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| l.starts_with("| `-"))
        .flat_map(|l| {
            let first = l.split(" | ").next().unwrap_or_default();
            first
                .split(['`', ' ', ','])
                .filter_map(long_option)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_options_page_lists_what_each_commands_help_shows() {
    let options = page(OPTIONS_PAGE);
    let oc = oc_command();
    let commands = visible_commands(&oc);
    assert!(commands.len() >= 10, "{commands:?}");
    for (name, _) in commands {
        let title = format!("oc {}", name.join(" "));
        let mut text = section(&options, &format!("## `{title}`"));
        // `plan` and `chat` point at `run`'s tables.
        if let Some(same) = text.lines().find(|l| l.starts_with(SAME_AS)) {
            let target = same.split("](#").nth(1).unwrap().trim_end_matches(").");
            let other = visible_commands(&oc)
                .into_iter()
                .map(|(n, _)| format!("oc {}", n.join(" ")))
                .find(|t| anchor(t) == target)
                .unwrap_or_else(|| panic!("{title}: `{same}` points nowhere"));
            text = section(&options, &format!("## `{other}`"));
        }
        let listed = table_options(&text);
        let args: Vec<&str> = name.iter().map(String::as_str).collect();
        let mut help = help_options(&args);
        if ["run", "plan", "chat"].contains(&args[0]) {
            // `--out` is a visible alias of `--output-last-message`.
            help.insert("--out".into());
        }
        let missing: Vec<_> = help.difference(&listed).collect();
        let stale: Vec<_> = listed.difference(&help).collect();
        assert!(
            missing.is_empty(),
            "{OPTIONS_PAGE}: `{title}` lacks {missing:?}"
        );
        assert!(
            stale.is_empty(),
            "{OPTIONS_PAGE} names options `{title}` does not have: {stale:?}"
        );
    }
}

/// The fine-tuning page explains every option of `export-ft` in its
/// prose, not only in the generated reference.
#[test]
fn the_fine_tuning_page_documents_every_export_option() {
    let text = page("docs/fine-tuning.md");
    for option in help_options(&["export-ft"]) {
        if option == "--help" || option == "--version" {
            continue;
        }
        let named = text.match_indices(&option).any(|(at, _)| {
            let next = text[at + option.len()..].chars().next();
            !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        assert!(
            named,
            "docs/fine-tuning.md does not document `oc export-ft {option}`"
        );
    }
}

#[test]
fn the_readme_command_table_names_every_command() {
    let commands = section(&page("README.md"), "## Commands");
    let oc = oc_command();
    for (name, _) in visible_commands(&oc)
        .into_iter()
        .filter(|(n, _)| n.len() == 1)
    {
        let row = format!("| `oc {}", name[0]);
        assert!(
            commands.lines().any(|l| l.starts_with(&row)),
            "README's Commands table has no row for `oc {}`",
            name[0]
        );
    }
}

/// Options of other programs that a page names in code spans of their
/// own, page by page: llama-server's, git's and other programs' in the
/// permission rules, the benchmark script's and aider's, the test
/// harness's.
const OTHER_PROGRAMS: &[(&str, &[&str])] = &[
    ("ARCHITECTURE.md", &["--nocapture"]),
    (
        "docs/benchmarks.md",
        &[
            "--calibrate",
            "--stderr",
            "--summarize",
            "--suite",
            "--with-check",
        ],
    ),
    ("docs/model-servers.md", &["--alias", "--jinja"]),
    (
        "docs/permissions.md",
        &[
            "--attr-source",
            "--bare",
            "--checkpoint-action",
            "--color",
            "--config-env",
            "--e",
            "--ev",
            "--exec",
            "--exec-path",
            "--expr",
            "--filter",
            "--frozen",
            "--git-dir",
            "--list-cmds",
            "--locked",
            "--loglevel",
            "--message",
            "--namespace",
            "--no-advice",
            "--no-lazy-fetch",
            "--no-optional-locks",
            "--no-pager",
            "--no-replace-objects",
            "--offline",
            "--open-files-in-pager",
            "--output",
            "--prefix",
            "--receive-pack",
            "--registry",
            "--upload-pack",
            "--work-tree",
            "--workspace",
        ],
    ),
    ("docs/small-models.md", &["--suite", "--test-cmd"]),
];

/// The long options a markdown page names for `oc`: in code spans that
/// start with an option or with `oc `, and in code lines that run `oc`.
fn oc_options_named(markdown: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut take = |command: &str| {
        for part in command.split(['|', ';', '&']) {
            let words: Vec<&str> = part
                .split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'))
                .collect();
            if words.first() == Some(&"oc") {
                found.extend(words.iter().filter_map(|w| long_option(w)));
            }
        }
    };
    for line in code_lines(markdown) {
        let line = line.split(" #").next().unwrap_or_default();
        take(line);
    }
    for span in code_spans(&prose(markdown)) {
        if span.starts_with("--") {
            take(&format!("oc {span}"));
        } else {
            take(&span);
        }
    }
    found
}

/// Every `--option` the README and the pages name for `oc` is one that
/// some command takes (a long name or an alias, `--weight-failed-turns`
/// included): a renamed or removed option cannot linger in the prose.
#[test]
fn every_option_the_pages_name_exists() {
    let oc = oc_command();
    let mut known = BTreeSet::new();
    for (_, command) in visible_commands(&oc) {
        for arg in command.get_arguments() {
            known.extend(arg.get_long().map(|l| format!("--{l}")));
            for alias in arg.get_all_aliases().unwrap_or_default() {
                known.insert(format!("--{alias}"));
            }
        }
    }
    let mut unknown = Vec::new();
    for file in markdown_files() {
        let name = file.strip_prefix(ROOT).unwrap().display().to_string();
        let others = OTHER_PROGRAMS
            .iter()
            .find(|(page, _)| *page == name)
            .map_or(&[][..], |(_, options)| *options);
        for option in oc_options_named(&read(&file)) {
            if !known.contains(&option) && !others.contains(&option.as_str()) {
                unknown.push(format!("{name}: {option}"));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "options no `oc` command has:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn options_are_found_where_the_pages_name_them() {
    let text = "Run `oc run --yes --check CMD` or `--think[=LEVEL]`; not `rm --force`.\n\n\
                ```sh\nOC_MODEL=m oc plan --max-turns 3 \"x\" | jq --raw   # --nope\n\
                scripts/local-model.sh --port 8081\n```\n";
    let found: Vec<String> = oc_options_named(text).into_iter().collect();
    assert_eq!(
        found,
        ["--check", "--max-turns", "--think", "--yes"].map(String::from)
    );
}

/// A new user learns from the set-up section where runs are kept and how
/// to keep none, and what it says holds: a run leaves its session and
/// record in `OC_HOME`, and `--no-save` leaves neither.
#[test]
fn readme_says_where_runs_are_kept_and_it_is_so() {
    let readme = page("README.md");
    let kept = section(&readme, "### No model server yet");
    for words in [
        "`OC_HOME`",
        "`~/.ollama-code`",
        "`sessions/<id>.json`",
        "`finetune.jsonl`",
        "`--no-save`",
    ] {
        assert!(kept.contains(words), "README's set-up never says {words}");
    }
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        crate::common::Reply::answer("One."),
        crate::common::Reply::answer("Two."),
    ]);
    env.oc(&server)
        .args(["run", "--task", "answer", "say one"])
        .assert()
        .success();
    let sessions = || std::fs::read_dir(env.home.path().join("sessions")).map_or(0, |d| d.count());
    let records = || {
        std::fs::read_to_string(env.home.path().join("finetune.jsonl"))
            .map_or(0, |t| t.lines().count())
    };
    assert_eq!((sessions(), records()), (1, 1));
    env.oc(&server)
        .args(["run", "--task", "answer", "--no-save", "say two"])
        .assert()
        .success();
    assert_eq!((sessions(), records()), (1, 1));
    let help = env
        .oc(&server)
        .args(["run", "--task", "answer", "--help"])
        .assert()
        .success();
    let help = String::from_utf8_lossy(&help.get_output().stdout).to_string();
    assert!(help.contains("[default: ~/.ollama-code]"), "{help}");
}
