//! The agent's heuristics by name: each guess about what to show a small
//! model, and each recovery path for what small models write, with the
//! failure it answers. `OC_DISABLE` (a comma-separated list of names)
//! switches any of them off, so `scripts/ablate.py` can measure what each is
//! worth; the table of what they were worth is in docs/benchmarks.md, "What
//! each heuristic is worth". Not meant for everyday use.

/// A heuristic that `OC_DISABLE` can switch off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Heuristic {
    /// Reading the files the prompt is about before the first turn.
    Ground,
    /// Recovering text-form calls by their shape: in fences of any label,
    /// written as Python, with a bare tool name, after an echoed tool
    /// response.
    /// Running a failing check's failing tests again under a tracer, to
    /// rank the functions they executed (spectrum-based fault localisation).
    Spectrum,
    /// Showing the definitions the prompt's words match (BM25 over the
    /// repository's definitions) when nothing else points into code.
    Words,
    /// Showing where the prompt's names lead besides their definitions.
    Trails,
    /// Taking a whole-file block that holds only some of a small file's
    /// definitions as a change to those definitions.
    Partial,
    /// Showing, with the refusal, the definitions of a big file that a
    /// block replaced from a guess.
    Reveal,
    /// Cutting long docstrings of a big file's shown parts to one line.
    Docstrings,
    /// Deciding from the prompt's words whether a run asks for an answer;
    /// off, every `oc run` without `--task` is a change.
    Route,
    /// Answering `READ`, `SEARCH` and `LIST` lines (and calls written as
    /// JSON) in the text edit formats, which offer no tools.
    LookAround,
}

/// One row of the registry: a heuristic, its name in `OC_DISABLE`, and the
/// failure it answers.
pub(crate) struct Entry {
    pub heuristic: Heuristic,
    pub name: &'static str,
    pub answers: &'static str,
}

/// Every heuristic, with its name and what it answers.
pub(crate) const REGISTRY: &[Entry] = &[
    entry(
        Heuristic::Ground,
        "ground",
        "models edit files they were never shown",
    ),
    entry(
        Heuristic::Spectrum,
        "spectrum",
        "a failing test that does not name the code to change",
    ),
    entry(
        Heuristic::Words,
        "words",
        "a prompt that names no file or definition",
    ),
    entry(
        Heuristic::Trails,
        "trails",
        "a name whose definition is not where the change goes",
    ),
    entry(
        Heuristic::Partial,
        "partial",
        "a small file sent back with only the changed definitions",
    ),
    entry(
        Heuristic::Reveal,
        "reveal",
        "a big file's definition replaced from a guess",
    ),
    entry(
        Heuristic::Docstrings,
        "docstrings",
        "long docstrings that cost tokens twice",
    ),
    entry(
        Heuristic::Route,
        "route",
        "a question or text task run as a change",
    ),
    entry(
        Heuristic::LookAround,
        "look-around",
        "a model without tools that needs a file it was not shown",
    ),
];

const fn entry(heuristic: Heuristic, name: &'static str, answers: &'static str) -> Entry {
    Entry {
        heuristic,
        name,
        answers,
    }
}

/// Which heuristics are on: all, less those `OC_DISABLE` names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Heuristics {
    /// One bit per [`Heuristic`] switched off, by its place in the enum.
    off: u32,
}

impl Heuristics {
    /// All on.
    pub(crate) const ALL_ON: Heuristics = Heuristics { off: 0 };

    /// Whether `heuristic` is on.
    pub(crate) fn on(self, heuristic: Heuristic) -> bool {
        self.off & bit(heuristic) == 0
    }

    /// The same, with `heuristic` off.
    pub(crate) fn without(self, heuristic: Heuristic) -> Heuristics {
        Heuristics {
            off: self.off | bit(heuristic),
        }
    }

    /// Parses `OC_DISABLE`'s comma-separated list of names (`ground,partial`).
    ///
    /// Errors: a name that is not in [`REGISTRY`], with the known names and
    /// what each answers, one a line.
    pub(crate) fn parse_off(text: &str) -> Result<Heuristics, String> {
        let mut heuristics = Heuristics::ALL_ON;
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let Some(entry) = REGISTRY.iter().find(|e| e.name == name) else {
                let known: Vec<String> = (REGISTRY.iter())
                    .map(|e| format!("  {}: {}", e.name, e.answers))
                    .collect();
                return Err(format!(
                    "`{name}` is not a heuristic; known (each with the failure it answers):\n{}",
                    known.join("\n")
                ));
            };
            heuristics = heuristics.without(entry.heuristic);
        }
        Ok(heuristics)
    }
}

fn bit(heuristic: Heuristic) -> u32 {
    1 << heuristic as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_heuristic_has_one_row_and_one_name() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len(), "a name used twice");
        for (at, entry) in REGISTRY.iter().enumerate() {
            assert_eq!(entry.heuristic as usize, at, "{} out of order", entry.name);
        }
    }

    #[test]
    fn names_switch_off_what_they_name() {
        let off = Heuristics::parse_off("partial, reveal").unwrap();
        assert!(!off.on(Heuristic::Partial) && !off.on(Heuristic::Reveal));
        assert!(off.on(Heuristic::Ground) && off.on(Heuristic::Route));
        assert_eq!(Heuristics::parse_off(" ,").unwrap(), Heuristics::ALL_ON);
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let error = Heuristics::parse_off("ground,splice").unwrap_err();
        assert!(error.contains("`splice` is not a heuristic"), "{error}");
        assert!(error.contains("\n  ground: models edit"), "{error}");
        assert_eq!(error.lines().count(), REGISTRY.len() + 1, "{error}");
    }
}
