//! The localisation benchmark as a floor: `scripts/bench-localise.py` runs
//! `oc`'s opening (the check first, grounding, the map) on every task of
//! `bench/repo-tasks` against a scripted model, and scores the first
//! request against each task's reference fix (docs/benchmarks.md).

use std::path::Path;

/// Repository tasks whose first request shows every hunk of code the
/// reference fix changes: the figure reached, of 18.
const FLOOR: &str = "15";
/// The repository tasks' median first request, in tokens, at most.
const MAX_MEDIAN_TOKENS: &str = "2500";

#[test]
fn the_first_request_shows_the_code_the_repository_tasks_change() {
    // The scripted model speaks Ollama's wire; once is enough.
    if crate::common::ollama_wire_only() {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench-localise.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .args(["--oc", env!("CARGO_BIN_EXE_oc")])
        .args(["--floor", FLOOR, "--max-median-tokens", MAX_MEDIAN_TOKENS])
        .output()
        .unwrap();
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains("every code hunk shown in"), "{report}");
}
