//! The Ochiai ranking of spectrum-based fault localisation: a function
//! executed by every failing test and by few passing ones is the most
//! suspicious. score = failed(f) / sqrt(total_failed × (failed(f) +
//! passed(f))), from Abreu, Zoeteweij and van Gemund, "On the Accuracy of
//! Spectrum-based Fault Localization" (2007).

use super::trace::Spectra;

/// One function's standing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ranked {
    /// Index into [`Spectra::functions`].
    pub function: usize,
    pub score: f64,
    /// Failing tests that executed it.
    pub failed: usize,
    /// Passing tests that executed it.
    pub passed: usize,
}

/// The functions at least one failing test executed, most suspicious
/// first: by score, then by fewer passing tests that executed them, then
/// in the order the tracer first met them. Empty when no test failed.
pub(crate) fn rank(spectra: &Spectra) -> Vec<Ranked> {
    let count = spectra.functions.len();
    let (mut failed, mut passed) = (vec![0usize; count], vec![0usize; count]);
    for test in &spectra.tests {
        let tally = if test.failed {
            &mut failed
        } else {
            &mut passed
        };
        let mut hits = test.hits.clone();
        hits.sort_unstable();
        hits.dedup();
        for hit in hits.into_iter().filter(|&h| h < count) {
            tally[hit] += 1;
        }
    }
    let total_failed = spectra.counts().0;
    let mut ranked: Vec<Ranked> = (0..count)
        .filter(|&f| failed[f] > 0)
        .map(|f| Ranked {
            function: f,
            score: failed[f] as f64 / ((total_failed * (failed[f] + passed[f])) as f64).sqrt(),
            failed: failed[f],
            passed: passed[f],
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.passed.cmp(&b.passed))
            .then(a.function.cmp(&b.function))
    });
    ranked
}

#[cfg(test)]
mod tests {
    use super::super::trace::{Function, TestRun};
    use super::*;

    fn spectra(functions: &[&str], tests: &[(bool, &[usize])]) -> Spectra {
        Spectra {
            functions: functions
                .iter()
                .enumerate()
                .map(|(i, name)| Function("m.py".into(), (*name).into(), i + 1))
                .collect(),
            tests: tests
                .iter()
                .enumerate()
                .map(|(i, (failed, hits))| TestRun {
                    id: format!("t{i}"),
                    failed: *failed,
                    hits: hits.to_vec(),
                })
                .collect(),
            stopped: false,
        }
    }

    fn names(spectra: &Spectra) -> Vec<(String, f64)> {
        rank(spectra)
            .iter()
            .map(|r| {
                let score = (r.score * 1000.0).round() / 1000.0;
                (spectra.functions[r.function].1.clone(), score)
            })
            .collect()
    }

    #[test]
    fn the_function_only_failing_tests_run_ranks_first() {
        // parse: every test; render: both failing and one passing; bug: only the failing.
        let s = spectra(
            &["parse", "render", "bug", "unused"],
            &[
                (true, &[0, 1, 2]),
                (true, &[0, 1, 2, 2]),
                (false, &[0, 1]),
                (false, &[0]),
            ],
        );
        assert_eq!(
            names(&s),
            vec![
                ("bug".to_string(), 1.0),
                ("render".to_string(), 0.816),
                ("parse".to_string(), 0.707),
            ]
        );
    }

    #[test]
    fn ties_go_to_fewer_passing_runs_then_first_met() {
        // a: 1 of 2 failing, no passing: 1/sqrt(2·1) = 0.707.
        // b: 2 of 2 failing, 2 passing: 2/sqrt(2·4) = 0.707, but passed more.
        // c: as a, met later.
        let s = spectra(
            &["b", "a", "c"],
            &[
                (true, &[0, 1]),
                (true, &[0, 2]),
                (false, &[0]),
                (false, &[0]),
            ],
        );
        let order: Vec<String> = names(&s).into_iter().map(|(n, _)| n).collect();
        assert_eq!(order, ["a", "c", "b"]);
    }

    #[test]
    fn nothing_ranks_without_a_failing_test_or_with_bad_indexes() {
        assert!(rank(&spectra(&["f"], &[(false, &[0])])).is_empty());
        let s = spectra(&["f"], &[(true, &[0, 7])]);
        assert_eq!(names(&s), vec![("f".to_string(), 1.0)]);
    }
}
