//! What to say about a command line that went wrong, from the commands'
//! own names and options: a word that is no command (`oc undoo`, `oc
//! sessions lst`, or a prompt given without `run`), an option given before
//! its command (`oc -m x run`, `oc --yes "fix it"`), or a misspelt one
//! (`--yse` is one transposition from `--yes`, by optimal string
//! alignment, not clap's similarity, which offers `--seed`).

use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue};

/// The most edits (optimal string alignment) between a misspelt option and
/// the one suggested; a third of the typed name when that is less.
const MOST_EDITS: usize = 2;

/// The usage error for clap's "unexpected argument" `err` on the command
/// line `args` (the program name first), or `None` to leave it to clap.
pub fn unknown_argument(err: &clap::Error, args: &[String]) -> Option<String> {
    let typed = err.get(ContextKind::InvalidArg)?.to_string();
    let mut flag = typed.split('=').next().unwrap_or(&typed).to_string();
    if !flag.starts_with('-') {
        return None;
    }
    // clap reads `-yes` as the flags `-y -e -s` and names the first it does
    // not know: the word as written is what to hint at.
    if let Some(short) = flag.strip_prefix('-').filter(|s| s.chars().count() == 1)
        && !args.contains(&flag)
        && let Some(cluster) = args
            .iter()
            .find(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(short))
    {
        flag = cluster.clone();
    }
    let root = crate::cli::Cli::command();
    let Some((at, name, command)) = named_command(&root, args) else {
        // No command at all: an option of `oc run` given to `oc` (`oc
        // --yes "fix it"`).
        let run = root.find_subcommand("run")?;
        return options_of(run).contains(&flag).then(|| {
            format!("`{flag}` is an option of `oc run` (and other commands), given after the command: `oc run {flag} …`")
        });
    };
    let options = options_of(command);
    if let Some((option, value)) = typed.split_once(char::is_whitespace)
        && options.iter().any(|o| o == option)
    {
        return Some(format!(
            "`{typed}` reached oc as one argument: give `{option}` and its value as two arguments, or as `{option}={}` (in the GitHub Action's `args`, one per line)",
            value.trim()
        ));
    }
    let given_at = args
        .iter()
        .position(|a| a.split('=').next() == Some(flag.as_str()))?;
    if given_at < at && options.contains(&flag) {
        return Some(format!(
            "`{flag}` is an option of `oc {name}` and goes after it: `oc {name} {flag} …`"
        ));
    }
    // `-yes` for `--yes`: a long option written with one dash.
    let word = flag
        .strip_prefix("--")
        .or_else(|| flag.strip_prefix('-').filter(|w| w.chars().count() > 1));
    let closest = word.and_then(|word| closest(word, &options));
    Some(match closest {
        Some(option) => format!(
            "`oc {name}` has no option `{flag}`; did you mean `{option}`? (`oc {name} --help` lists its options)"
        ),
        None => {
            format!("`oc {name}` has no option `{flag}` (`oc {name} --help` lists its options)")
        }
    })
}

/// The usage error for clap's "invalid subcommand" `err` on the command
/// line `args`: the command it is close to (`oc undoo`, `oc sessions
/// lst`), and, for a first word, how to give the words as a prompt (quoted
/// for a shell), with the commands there are.
pub fn not_a_command(err: &clap::Error, args: &[String]) -> String {
    let word = err
        .get(ContextKind::InvalidSubcommand)
        .map(|v| v.to_string())
        .unwrap_or_default();
    let root = crate::cli::Cli::command();
    let (parent, prefix) = match named_command(&root, args) {
        Some((_, name, command)) => (command, format!("oc {name}")),
        None => (&root, "oc".to_string()),
    };
    let commands: Vec<&str> = parent
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .map(|c| c.get_name())
        .collect();
    let close = match err.get(ContextKind::SuggestedSubcommand) {
        Some(ContextValue::String(name)) => Some(name.clone()),
        Some(ContextValue::Strings(names)) => names.first().cloned(),
        _ => None,
    };
    let mean = close.map(|name| format!("did you mean `{prefix} {name}`? "));
    if prefix != "oc" {
        return format!(
            "`{word}` is not a command of `{prefix}`; {}its commands: {}",
            mean.unwrap_or_default(),
            commands.join(", ")
        );
    }
    let at = args.iter().position(|a| *a == word).unwrap_or(1);
    let prompt = shell_quote(&args[at..].join(" "));
    let prompt_hint = format!("to give the agent a prompt, use `oc run {prompt}`");
    let hint = match mean {
        Some(mean) => format!(
            "{mean}{}{}",
            prompt_hint[..1].to_uppercase(),
            &prompt_hint[1..]
        ),
        None => prompt_hint,
    };
    format!(
        "`{word}` is not a command; {hint} (commands: {})",
        commands.join(", ")
    )
}

/// `text` as one word for a POSIX shell: single-quoted, its own single
/// quotes written `'\''`.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The command named on the line (a subcommand's subcommand too, as in
/// `oc sessions list`): where its name is, its full name, its definition.
fn named_command<'a>(
    root: &'a clap::Command,
    args: &[String],
) -> Option<(usize, String, &'a clap::Command)> {
    let (mut at, mut command) = args
        .iter()
        .enumerate()
        .skip(1)
        .take_while(|(_, a)| *a != "--")
        .find_map(|(i, a)| Some((i, root.find_subcommand(a)?)))?;
    let mut name = command.get_name().to_string();
    while let Some((i, sub)) = args
        .get(at + 1)
        .and_then(|a| Some((at + 1, command.find_subcommand(a)?)))
    {
        name = format!("{name} {}", sub.get_name());
        (at, command) = (i, sub);
    }
    Some((at, name, command))
}

/// Every spelling of the command's visible options: `--long`, `-s` and
/// visible aliases.
fn options_of(command: &clap::Command) -> Vec<String> {
    command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .flat_map(|a| {
            let longs = a
                .get_long()
                .into_iter()
                .chain(a.get_visible_aliases().into_iter().flatten());
            let shorts = a.get_short().into_iter().map(|s| format!("-{s}"));
            longs
                .map(|l| format!("--{l}"))
                .chain(shorts)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The long option fewest edits from `word` (without its dashes), within
/// [`MOST_EDITS`] and a third of its length.
fn closest(word: &str, options: &[String]) -> Option<String> {
    let most = MOST_EDITS.min(word.chars().count().div_ceil(3));
    options
        .iter()
        .filter_map(|o| Some((o.strip_prefix("--")?, o)))
        .map(|(long, o)| (strsim::osa_distance(word, long), o))
        .filter(|(edits, _)| *edits <= most)
        .min_by_key(|(edits, _)| *edits)
        .map(|(_, o)| o.clone())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::unknown_argument;

    fn hint(line: &[&str]) -> Option<String> {
        let args: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        let err = crate::cli::Cli::try_parse_from(&args).unwrap_err();
        unknown_argument(&err, &args)
    }

    #[test]
    fn an_option_before_its_command_is_shown_after_it() {
        for flag in ["-m", "--model"] {
            let said = hint(&["oc", flag, "x", "run", "hi"]).unwrap();
            assert!(said.contains(&format!("`oc run {flag} …`")), "{said}");
        }
    }

    #[test]
    fn a_misspelt_option_gets_the_fewest_edits_away() {
        let said = hint(&["oc", "run", "--yse", "hi"]).unwrap();
        assert!(said.contains("did you mean `--yes`?"), "{said}");
        let said = hint(&["oc", "run", "--modle", "x", "hi"]).unwrap();
        assert!(said.contains("did you mean `--model`?"), "{said}");
        let said = hint(&["oc", "sessions", "list", "--jsno"]).unwrap();
        assert!(
            said.contains("`oc sessions list` has no option `--jsno`; did you mean `--json`?"),
            "{said}"
        );
    }

    #[test]
    fn an_option_and_its_value_in_one_argument_are_told_apart() {
        let said = hint(&["oc", "run", "--temperature 0.1", "hi"]).unwrap();
        assert!(said.contains("`--temperature=0.1`"), "{said}");
    }

    fn not_a_command_said(line: &[&str]) -> String {
        let args: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        let err = crate::cli::Cli::try_parse_from(&args).unwrap_err();
        super::not_a_command(&err, &args)
    }

    #[test]
    fn a_word_that_is_no_command_gets_the_close_one_at_its_level() {
        let said = not_a_command_said(&["oc", "sessions", "lst"]);
        assert!(said.contains("did you mean `oc sessions list`?"), "{said}");
        assert!(!said.contains("prompt"), "{said}");
        let said = not_a_command_said(&["oc", "undoo"]);
        assert!(said.contains("did you mean `oc undo`?"), "{said}");
    }

    #[test]
    fn a_prompt_without_run_is_given_back_whole_and_quoted() {
        let said = not_a_command_said(&["oc", "fix", "the", "failing", "test"]);
        assert!(
            said.contains("use `oc run 'fix the failing test'`"),
            "{said}"
        );
        let said = not_a_command_said(&["oc", "say \"hi\" to $USER's box"]);
        assert!(
            said.contains(r#"`oc run 'say "hi" to $USER'\''s box'`"#),
            "{said}"
        );
    }

    #[test]
    fn an_option_of_run_without_a_command_says_where_it_goes() {
        let said = hint(&["oc", "--yes", "fix it"]).unwrap();
        assert!(said.contains("`oc run --yes …`"), "{said}");
    }

    #[test]
    fn a_long_option_with_one_dash_gets_its_two_dash_form() {
        let said = hint(&["oc", "run", "-yes", "hi"]);
        assert!(said.is_some_and(|s| s.contains("did you mean `--yes`?")));
    }

    #[test]
    fn nothing_close_gets_no_guess() {
        let said = hint(&["oc", "run", "--frobnicate", "hi"]).unwrap();
        assert!(!said.contains("did you mean"), "{said}");
        assert!(said.contains("`oc run --help` lists its options"), "{said}");
    }
}
