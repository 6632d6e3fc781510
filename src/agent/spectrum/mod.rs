//! Spectrum-based fault localisation: when a test check fails, its failing
//! tests run again with a sample of passing ones under a tracer that
//! records which workspace functions each test executed; the functions the
//! failing tests executed and the passing ones did not are the suspects
//! (ranked by [`ochiai`]). A failing test whose traceback ends in its own
//! `assert` names only the test file; this names the function that
//! returned the wrong value.
//!
//! One [`Localiser`] a language (Python now); a check in another language
//! keeps what its traceback or panic names.

mod ochiai;
mod python;
pub(crate) mod suspect;
mod trace;

use std::time::{Duration, Instant};

pub(crate) use suspect::Suspect;
use trace::{Limits, Plan, Spectra};

use super::check::refusal;
use crate::fsutil;
use crate::permissions::rules::Rule;
use crate::tools::{self, Workspace, outline};
use crate::ui::Output;

/// Most suspects returned.
const MAX_SUSPECTS: usize = 10;
/// Suspects named in the note on stderr.
const NAMED: usize = 3;

/// A language's way to trace its failing tests.
struct Localiser {
    /// The language, for the note.
    language: &'static str,
    /// The tracing run for the failing tests a check's output names, when
    /// the check (`command`) runs this language's tests.
    plan: fn(command: &str, output: &str, limits: &Limits) -> Option<Plan>,
}

/// The languages localised; any other check keeps its traceback's places.
const LOCALISERS: [Localiser; 1] = [Localiser {
    language: "Python",
    plan: python::plan,
}];

/// The workspace functions most likely at fault, most suspicious first,
/// for the failed check `command` whose output was `output`. Runs the
/// failing tests again under a tracer, in the workspace, through the
/// sandbox and under the hard and deny `rules` as the check ran, for a few
/// times the check's own time `check_time` at most. `None` when the check
/// runs no tests a localiser knows, or the tracer was refused, failed or
/// ran out of time; says on `out` what it found and how long it took.
pub(crate) async fn localise(
    command: &str,
    output: &str,
    rules: &[Rule],
    workspace: &Workspace,
    check_time: Duration,
    out: &mut dyn Output,
) -> Option<Vec<Suspect>> {
    let limits = Limits::for_check(check_time);
    let (localiser, plan) = LOCALISERS
        .iter()
        .find_map(|l| (l.plan)(command, output, &limits).map(|plan| (l, plan)))?;
    if let Some(reason) = refusal(&plan.command, rules, workspace.root()) {
        out.note(&format!("spectrum: the tracer was not run: {reason}"));
        return None;
    }
    let args = tools::bash::Args {
        command: plan.command,
        timeout_secs: Some(limits.hard_secs),
    };
    let started = Instant::now();
    let (outcome, _) = tools::bash::run_with_status(&args, workspace).await;
    let took = started.elapsed().as_secs_f64();
    let Some(spectra) = Spectra::parse(&outcome.content) else {
        out.note(&format!(
            "spectrum: the {} tracer gave no result ({}, {took:.1} s); skipped",
            localiser.language, outcome.summary
        ));
        return None;
    };
    let suspects = suspects(&spectra, workspace);
    out.note(&note(&spectra, &suspects, took));
    Some(suspects)
}

/// The top of the ranking, with the functions' last lines from their files'
/// outlines.
fn suspects(spectra: &Spectra, workspace: &Workspace) -> Vec<Suspect> {
    let mut outlines: Vec<(String, Vec<outline::Definition>)> = Vec::new();
    ochiai::rank(spectra)
        .into_iter()
        .take(MAX_SUSPECTS)
        .map(|ranked| {
            let function = &spectra.functions[ranked.function];
            let (path, name, line) = (&function.0, &function.1, function.2);
            if !outlines.iter().any(|(p, _)| p == path) {
                let text = fsutil::read_to_string(workspace.root().join(path)).unwrap_or_default();
                let definitions = outline::definitions(path, &text).unwrap_or_default();
                outlines.push((path.clone(), definitions));
            }
            let end_line = outlines
                .iter()
                .find(|(p, _)| p == path)
                .and_then(|(_, defs)| end_line(defs, name, line));
            Suspect {
                path: path.clone(),
                name: name.clone(),
                line,
                end_line,
                score: ranked.score,
            }
        })
        .collect()
}

/// The last line of the definition `name` that starts at `line` (its first
/// decorator or its header).
fn end_line(definitions: &[outline::Definition], name: &str, line: usize) -> Option<usize> {
    let short = name.rsplit('.').next().unwrap_or(name);
    definitions
        .iter()
        .find(|d| d.name == short && (d.start_line == line || d.header_line == line))
        .map(|d| d.end_line)
}

/// One line for stderr: what was traced, in how long, and the top suspects.
fn note(spectra: &Spectra, suspects: &[Suspect], took: f64) -> String {
    let (failed, passed) = spectra.counts();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let traced = format!(
        "spectrum: {failed} failing and {passed} passing test{} traced in {took:.1} s{}",
        plural(passed),
        if spectra.stopped { " (time limit)" } else { "" }
    );
    if suspects.is_empty() {
        return format!("{traced}; no workspace function ran in a failing test");
    }
    let named: Vec<String> = suspects
        .iter()
        .take(NAMED)
        .map(|s| format!("`{}` ({}:{}, {:.2})", s.name, s.path, s.line, s.score))
        .collect();
    format!("{traced}; most suspicious: {}", named.join(", "))
}

#[cfg(test)]
mod tests {
    use super::trace::{Function, TestRun};
    use super::*;

    #[test]
    fn a_suspect_ends_where_its_definition_ends() {
        let text = "class Cart:\n    @property\n    def total(self):\n        return 1\n\n    def add(self, x):\n        pass\n\n\ndef free():\n    return 0\n";
        let definitions = outline::definitions("m.py", text).unwrap();
        // Python's first line of a decorated function is its decorator's.
        assert_eq!(end_line(&definitions, "Cart.total", 2), Some(4));
        assert_eq!(end_line(&definitions, "Cart.add", 6), Some(7));
        assert_eq!(end_line(&definitions, "free", 10), Some(11));
        assert_eq!(end_line(&definitions, "free", 9), None);
        assert_eq!(end_line(&definitions, "f.<locals>.g", 10), None);
    }

    #[test]
    fn the_note_says_what_was_traced_and_names_the_top_suspects() {
        let spectra = Spectra {
            functions: vec![Function("m.py".into(), "f".into(), 1)],
            tests: vec![TestRun {
                id: "t".into(),
                failed: true,
                hits: vec![0],
            }],
            stopped: true,
        };
        let suspect = |name: &str, score| Suspect {
            path: "pkg/m.py".into(),
            name: name.into(),
            line: 3,
            end_line: None,
            score,
        };
        let suspects = [suspect("a", 1.0), suspect("b", 0.5), suspect("c", 0.25)];
        assert_eq!(
            note(&spectra, &suspects[..1], 1.25),
            "spectrum: 1 failing and 0 passing tests traced in 1.2 s (time limit); most suspicious: `a` (pkg/m.py:3, 1.00)"
        );
        assert_eq!(
            note(&spectra, &suspects, 0.5).split("; ").nth(1),
            Some(
                "most suspicious: `a` (pkg/m.py:3, 1.00), `b` (pkg/m.py:3, 0.50), `c` (pkg/m.py:3, 0.25)"
            )
        );
        assert!(
            note(&spectra, &[], 0.5).ends_with("; no workspace function ran in a failing test")
        );
    }
}
