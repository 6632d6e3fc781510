//! What a run is for, settled before the first request: a change to the
//! files, or an answer (a commit message, an explanation, a review, a
//! summary, a question). An answer gets a protocol that asks for the answer
//! itself: the files are shown for reference, nothing is offered to write,
//! and no nudge tells the model to "make the change".
//!
//! `--task` (config `task`) decides when set; `oc chat` and `oc plan` are
//! answers; otherwise the instruction's words decide (stdin is context, not
//! instruction): a clause that starts with a verb of change ("fix", "add",
//! "rename") and is not about a text product makes it a change; a text
//! product ("a commit message", "a summary", "a review"), an instruction
//! that starts like an answer ("explain", "what", "tell me") or a question
//! mark makes it an answer; anything else is a change, as before.

use crate::input;
use crate::ui::Output;
use crate::vocab::{Mode, Task};

/// Verbs that start an instruction to change files.
const CHANGE_VERBS: &[&str] = &[
    "accept",
    "add",
    "allow",
    "annotate",
    "append",
    "apply",
    "avoid",
    "batch",
    "bump",
    "cache",
    "catch",
    "change",
    "clarify",
    "clean",
    "configure",
    "convert",
    "correct",
    "create",
    "delete",
    "deprecate",
    "disable",
    "document",
    "drop",
    "edit",
    "emit",
    "enable",
    "escape",
    "expose",
    "extract",
    "fix",
    "format",
    "generate",
    "handle",
    "harden",
    "hide",
    "ignore",
    "implement",
    "improve",
    "inline",
    "insert",
    "install",
    "introduce",
    "limit",
    "localize",
    "log",
    "make",
    "migrate",
    "modify",
    "move",
    "normalize",
    "optimize",
    "parallelize",
    "pin",
    "port",
    "prevent",
    "raise",
    "reduce",
    "refactor",
    "register",
    "reject",
    "remove",
    "rename",
    "replace",
    "resolve",
    "restore",
    "restructure",
    "retry",
    "return",
    "revert",
    "rework",
    "rewrite",
    "sanitize",
    "set",
    "shorten",
    "simplify",
    "skip",
    "sort",
    "speed",
    "split",
    "store",
    "strip",
    "support",
    "switch",
    "throw",
    "translate",
    "tweak",
    "unify",
    "update",
    "upgrade",
    "use",
    "validate",
    "wrap",
    "write",
];

/// Words that, at the start of an instruction, ask for an answer.
const ANSWER_LEADS: &[&str] = &[
    "what",
    "what's",
    "which",
    "where",
    "why",
    "how",
    "how's",
    "where's",
    "who",
    "when",
    "whose",
    "is",
    "are",
    "does",
    "do",
    "did",
    "can",
    "could",
    "should",
    "would",
    "will",
    "explain",
    "describe",
    "summarize",
    "summarise",
    "review",
    "tell",
    "walk",
    "list",
    "show",
    "count",
    "find",
    "give",
    "name",
    "compare",
    "suggest",
    "analyze",
    "analyse",
    "evaluate",
    "assess",
    "critique",
    "answer",
    "print",
    "output",
    "rate",
    "grade",
    "check",
    "verify",
    "estimate",
    "audit",
    "spot",
    "sketch",
    "identify",
    "outline",
    "draft",
    "propose",
    "say",
];

/// Text products: an instruction about one of these asks for text, not a
/// change ("write a commit message for this diff").
const PRODUCTS: &[&str] = &[
    "commit message",
    "commit msg",
    "commit title",
    "pr description",
    "pr title",
    "pull request description",
    "pull request title",
    "release notes",
    "release note",
    "changelog entry",
    "summary",
    "explanation",
    "review",
    "code review",
    "description of",
    "overview",
    "report",
    "a plan",
    "an answer",
    "make a list",
    "json",
];

/// Verbs that begin questions and text tasks ("show me …", "list the
/// functions …") as often as changes to what a program does ("show a
/// spinner while it loads", "print the sum at the end"): [`behaviour`]
/// tells them apart.
const EITHER_WAY: &[&str] = &[
    "check",
    "say",
    "count",
    "describe",
    "display",
    "report",
    "tell",
    "do",
    "explain",
    "give",
    "list",
    "name",
    "output",
    "print",
    "show",
    "summarize",
    "summarise",
    "verify",
];

/// Words that say a clause is about what a program does when it runs, or
/// where its text goes, rather than about what the reader is to be told:
/// a time or condition ("while it loads", "when the file is missing"), a
/// place in the program's output or docs ("in the footer", "in the
/// README", "in the --help output"), a replacement or a default.
const BEHAVIOUR: &[&str] = &[
    "when",
    "whenever",
    "if",
    "unless",
    "so that",
    "so they",
    "so it",
    "while",
    "during",
    "after",
    "before",
    "until",
    "once",
    "each time",
    "every time",
    "at the end",
    "at the start",
    "at startup",
    "on startup",
    "on exit",
    "instead of",
    "by default",
    "a default",
    "readme",
    "--help",
    "help text",
    "help output",
    "usage",
    "footer",
    "header",
    "status bar",
    "the log",
    "output",
    "error message",
    "the user",
    "a comment",
    "docstring",
];

/// Words that, after a subject, say how a program is to behave: "the CLI
/// should print each rule", "the closing fence must be as long": a wish
/// for a change, unless the clause starts like a question ("what should
/// I name it").
const WISHES: &[&str] = &["should", "must", "ought to", "needs to", "has to"];

/// Openings that wish for a change in so many words ("would be nice if the
/// CLI printed a hint").
const WISH_OPENINGS: &[&str] = &[
    "would be nice if",
    "would be great if",
    "would be better if",
    "it'd be nice if",
    "it'd be great if",
];

/// Words before an article that make it part of a phrase of the answer's
/// form ("in a sentence", "as a table"), not the thing given.
const PREPOSITIONS: &[&str] = &[
    "in", "as", "with", "for", "of", "on", "to", "into", "from", "by", "at",
];

/// Verbs that follow a question word in a question ("when should …", "if
/// it is …" aside).
const AUXILIARIES: &[&str] = &[
    "do", "does", "did", "is", "are", "was", "were", "should", "can", "could", "would", "will",
];

/// Verbs after "do not" that keep the files as they are ("do not change
/// anything, just explain …"): an instruction about the run, not a rule
/// for the program.
const KEEPING: &[&str] = &[
    "change", "edit", "modify", "touch", "write", "alter", "update",
];

/// Words right after an either-way verb that ask for an answer: "show
/// me", "check whether", "verify that".
const ASKING: &[&str] = &[
    "me", "us", "you", "whether", "if", "that", "how", "what", "why", "which",
];

/// Words that lead into a clause's verb and are skipped ("please fix",
/// "then add", "now rename", "hi fix"); a prompt of nothing else is a
/// greeting, answered as a chat is.
const LEAD_INS: &[&str] = &[
    "please", "then", "and", "now", "also", "just", "so", "kindly", "hi", "hello", "hey", "thanks",
];

/// Polite openings before the verb ("can you fix", "would you please
/// add"): the verb after them decides.
const POLITE: &[&str] = &[
    "would you mind ",
    "do you mind ",
    "can you ",
    "could you ",
    "would you ",
    "will you ",
];

/// Verbs that make a text product rather than change a file: "write a
/// commit message" is an answer, "add a changelog entry" a change.
const PRODUCING_VERBS: &[&str] = &[
    "write", "generate", "create", "make", "draft", "compose", "prepare", "produce", "give",
];

/// The task of a run: an answer in chat and plan mode; `asked` unless it
/// is `Auto`; otherwise from the words of `prompt`'s instruction (the
/// prompt without its `<stdin>` block), or a change when `by_words` is off
/// (`OC_DISABLE=route`).
pub(crate) fn decide(asked: Task, mode: Mode, prompt: &str, by_words: bool) -> Task {
    match (asked, mode) {
        (_, Mode::Chat | Mode::Plan) => Task::Answer,
        (Task::Change | Task::Answer, _) => asked,
        (Task::Auto, Mode::Code) if !by_words => Task::Change,
        (Task::Auto, Mode::Code) => from_words(input::instruction(prompt)),
    }
}

/// Change or answer, from an instruction's words.
fn from_words(instruction: &str) -> Task {
    let lower = instruction.to_lowercase();
    let clauses = clauses(&lower);
    let product = |clause: &str| PRODUCTS.iter().any(|p| has_phrase(clause, p));
    let changes = |c: &str| {
        (starts_with_any(c, CHANGE_VERBS)
            && (!product(c) || writes_into_file(c) || !starts_with_any(c, PRODUCING_VERBS)))
            || (starts_with_any(c, EITHER_WAY) && behaviour(c))
            || wishes(c)
    };
    if clauses.iter().any(|c| changes(c)) {
        return Task::Change;
    }
    if clauses.iter().all(|c| words(c).next().is_none()) {
        return Task::Answer;
    }
    let asks = clauses
        .iter()
        .any(|c| product(c) || starts_with_any(c, ANSWER_LEADS));
    // "… to NOTES.md" puts text into a file when the clause makes text
    // ("summarize … into CHANGELOG.md"), not when it only points at one
    // ("suggest improvements to foo.py").
    let makes_text = |c: &str| {
        product(c)
            || starts_with_any(c, PRODUCING_VERBS)
            || starts_with_any(c, &["summarize", "summarise", "save", "put", "record"])
    };
    let writes_file = clauses.iter().any(|c| writes_into_file(c) && makes_text(c));
    if (asks || lower.trim_end().ends_with('?')) && !writes_file {
        Task::Answer
    } else {
        Task::Change
    }
}

/// Says that a code run was taken as an answer: a warning when the
/// prompt's verb asks for either (`show a spinner while it loads` is a
/// change, `show the routes` an answer) and the words did not settle it,
/// so that a change request never ends as an answer unsaid. Returns that
/// warning, for the json result, the session and the record
/// (`task_warning`).
pub(crate) fn say_answer(asked: Task, prompt: &str, out: &mut dyn Output) -> Option<String> {
    let lead = (asked == Task::Auto)
        .then(|| either_way_lead(prompt))
        .flatten();
    match lead {
        Some(verb) => {
            let warning = format!(
                "the prompt was taken as asking for an answer (\"{verb} …\" can ask for an answer or a change): files are shown for reference and none changes; if you meant a change, run again with `--task change`"
            );
            out.warn(&warning);
            Some(warning)
        }
        None if asked == Task::Answer => {
            out.note("the run is an answer (`task`: answer): files are shown for reference and none changes");
            None
        }
        None => {
            out.note("the prompt asks for an answer: files are shown for reference and none changes (`--task change` to edit)");
            None
        }
    }
}

/// Says that a run taken as an answer got replies that would change
/// `files` (none was changed), and returns the warning; `None` when there
/// are none.
pub(crate) fn say_withheld(files: &[String], out: &mut dyn Output) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let warning = format!(
        "the run was taken as an answer, but the model's reply changes {}: nothing was written; if you meant a change, run again with `--task change`",
        files.join(", ")
    );
    out.warn(&warning);
    Some(warning)
}

/// The either-way verb ([`EITHER_WAY`]) an instruction taken as an answer
/// starts a clause with, when nothing else in that clause asks ("show me",
/// a question mark, a text product): the route was a guess, and a change
/// may have been meant.
pub(crate) fn either_way_lead(prompt: &str) -> Option<String> {
    let lower = input::instruction(prompt).to_lowercase();
    if lower.trim_end().ends_with('?') {
        return None;
    }
    let clauses = clauses(&lower);
    // "do not change any file; explain …": the prompt says no change.
    let keeps = clauses.iter().any(|c| {
        let mut words = words(c);
        words.next().is_some_and(|verb| keeps_files(verb, words))
    });
    if keeps {
        return None;
    }
    clauses.into_iter().find_map(|clause| {
        let mut words = words(&clause);
        let verb = words.next()?;
        let asking = words.next().is_some_and(|w| ASKING.contains(&w));
        let product = PRODUCTS.iter().any(|p| has_phrase(&clause, p));
        (EITHER_WAY.contains(&verb) && !asking && !product).then(|| verb.to_string())
    })
}

/// Whether a clause says how the program should behave: a subject, then
/// one of [`WISHES`] ("the CLI should print …"), in a clause that does not
/// start like a question or an answer ("what should …", "explain why it
/// should …").
fn wishes(clause: &str) -> bool {
    if WISH_OPENINGS.iter().any(|w| has_phrase(clause, w)) {
        return true;
    }
    // "when --explain is passed, it should …" is a condition; "when
    // should I …" a question.
    let mut words = clause.split_whitespace();
    let condition = matches!(words.next(), Some("when" | "if"))
        && words.next().is_some_and(|w| !AUXILIARIES.contains(&w));
    (condition || !starts_with_any(clause, ANSWER_LEADS))
        && !starts_with_any(clause, &["i", "we", "you"])
        && WISHES
            .iter()
            .any(|w| has_phrase(clause, w) && !clause.starts_with(w))
}

/// A clause's words, the lead-ins ("please", "then") left out.
fn words(clause: &str) -> impl Iterator<Item = &str> + Clone {
    (clause.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-')))
        .filter(|w| !w.is_empty() && !LEAD_INS.contains(w))
}

/// Whether a clause that starts with an either-way verb ([`EITHER_WAY`])
/// asks for a change to what the program does ([`BEHAVIOUR`]) rather
/// than for an answer ([`ASKING`] right after the verb).
fn behaviour(clause: &str) -> bool {
    let mut words = words(clause);
    let verb = words.next().unwrap_or_default();
    if verb == "do" || verb == "don't" {
        // "do not retry on 4xx", "don't show the banner": a rule for the
        // program, unless it keeps files as they are ("do not change …").
        let negated = verb == "don't" || words.clone().next() == Some("not");
        if negated {
            return !keeps_files(verb, words);
        }
    }
    let after_verb: Vec<&str> = words.clone().collect();
    let asking = words.next().is_some_and(|w| ASKING.contains(&w));
    if verb == "give" && !asking && gives_to_a_thing(&after_verb) {
        return true;
    }
    // The markers after the verb: "output the report … instead of …".
    let after = clause
        .find(verb)
        .map_or(clause, |at| &clause[at + verb.len()..]);
    !asking && BEHAVIOUR.iter().any(|b| has_phrase(after, b))
}

/// Whether the words after "give" give a thing something ("give every
/// button an aria-label", "give the pool a configurable size"): a noun
/// phrase, then an article that no preposition leads ("give a summary in
/// a sentence" gives the reader a summary).
fn gives_to_a_thing(after: &[&str]) -> bool {
    let Some((first, rest)) = after.split_first() else {
        return false;
    };
    if matches!(*first, "a" | "an") {
        return false;
    }
    rest.iter().enumerate().any(|(at, w)| {
        let before = if at == 0 { *first } else { rest[at - 1] };
        matches!(*w, "a" | "an") && !PREPOSITIONS.contains(&before)
    })
}

/// Whether a clause that starts with `verb` (the rest in `words`) keeps
/// the files as they are: "do not change …", "don't edit …".
fn keeps_files<'w>(verb: &str, mut words: impl Iterator<Item = &'w str>) -> bool {
    let next = match verb {
        "do" => words.next(),
        "don't" => Some("not"),
        _ => None,
    };
    next == Some("not") && words.next().is_some_and(|w| KEEPING.contains(&w))
}

/// The instruction's clauses: sentences (a `.`, `!`, `?`, `:` or `,`
/// before a space or the end, not the dot of `notes.txt`) and lines, split
/// again at " and " and " then ".
fn clauses(lower: &str) -> Vec<String> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut chars = lower.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends = match c {
            '\n' | ';' => true,
            '.' | '!' | '?' | ':' | ',' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if ends {
            sentences.push(&lower[start..at]);
            start = at + c.len_utf8();
        }
    }
    sentences.push(&lower[start..]);
    sentences
        .into_iter()
        .flat_map(|s| s.split(" and "))
        .flat_map(|s| s.split(" then "))
        .map(|s| without_politeness(s.trim()).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A clause without its polite opening and the lead-ins around it
/// ("please can you fix", "hello can you fix" → "fix").
fn without_politeness(clause: &str) -> &str {
    let clause = without_lead_ins(clause);
    let rest = POLITE
        .iter()
        .find_map(|p| clause.strip_prefix(p))
        .unwrap_or(clause);
    without_lead_ins(rest)
}

/// A clause without the [`LEAD_INS`] words it opens with.
fn without_lead_ins(mut clause: &str) -> &str {
    while let Some(rest) = (clause.split_once(' '))
        .filter(|(word, _)| LEAD_INS.contains(word))
        .map(|(_, rest)| rest.trim_start())
    {
        clause = rest;
    }
    clause
}

/// Whether the clause's first word (after lead-ins such as "please") is one
/// of `words`.
fn starts_with_any(clause: &str, words: &[&str]) -> bool {
    let mut tokens = clause
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty());
    let first = tokens.find(|w| !LEAD_INS.contains(w));
    // "would you mind converting …": the verb as a gerund.
    let stem = |w: &str| -> Option<String> {
        let base = w.strip_suffix("ing")?;
        [base.to_string(), format!("{base}e")]
            .into_iter()
            .find(|b| b.len() > 2 && words.contains(&b.as_str()))
    };
    first.is_some_and(|w| words.contains(&w) || stem(w).is_some())
}

/// Whether `phrase` occurs in `text` as whole words (not inside a name
/// such as `is_email` or a path such as `config.json`).
fn has_phrase(text: &str, phrase: &str) -> bool {
    let in_word = |c: char| c.is_alphanumeric() || "_.-/".contains(c);
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        !before.is_some_and(in_word) && !after.is_some_and(|c| in_word(c) && c != '.')
    })
}

/// Whether a clause puts its text into a file: "… to NOTES.md", "… into
/// CHANGELOG.md", "… as notes.txt", "… in a file".
fn writes_into_file(clause: &str) -> bool {
    let words: Vec<&str> = clause.split_whitespace().collect();
    let file_like = |w: &str| {
        let w = w.trim_matches(|c: char| "`'\",:()".contains(c));
        w.rsplit_once('.')
            .is_some_and(|(stem, ext)| !stem.is_empty() && (1..=5).contains(&ext.len()))
    };
    words.windows(2).any(|pair| {
        matches!(pair[0], "to" | "into" | "as") && file_like(pair[1])
            || pair[0] == "to" && pair[1] == "file"
    }) || has_phrase(clause, "in a file")
        || has_phrase(clause, "to a file")
}

#[cfg(test)]
#[path = "route_tests.rs"]
mod tests;
