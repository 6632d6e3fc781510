//! The localisation benchmark as a floor: `scripts/bench-localise.py` runs
//! `oc`'s opening (the check first, grounding, the map) on every task of
//! `bench/repo-tasks` against a scripted model, and scores the first
//! request against each task's reference fix (docs/benchmarks.md).

use std::path::Path;

/// Repository tasks whose first request shows every hunk of code the
/// reference fix changes: the figure reached, of 18.
const FLOOR: &str = "17";
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

/// In a small repository the failing test is the task's spec: shown whole
/// (here 100 lines, which a big repository would show in parts), for
/// reference, with the module it tests offered for change; stderr says
/// each file shown and why.
#[test]
fn a_small_repository_shows_its_failing_test_whole() {
    let env = crate::common::TestEnv::new();
    env.write(
        "inventory.py",
        "def restock(stock, item, count):\n    stock[item] = stock.get(item, 0) + count - 1\n    return stock\n",
    );
    let cases: String = (0..30)
        .map(|n| {
            format!(
                "    def test_restock_{n}(self):\n        self.assertEqual(restock({{}}, 'pen', {n}), {{'pen': {n}}})\n\n"
            )
        })
        .collect();
    let test = format!(
        "import unittest\n\nfrom inventory import restock\n\n\nclass RestockTest(unittest.TestCase):\n{cases}\nif __name__ == \"__main__\":\n    unittest.main()\n"
    );
    assert!((90..=150).contains(&test.lines().count()));
    env.write("test_inventory.py", &test);
    let server = crate::common::FakeOllama::start(vec![super::repositories::streamed("Done.")]);
    let out = env
        .oc(&server)
        .env("OC_EDIT_FORMAT", "whole")
        .env("OC_DISABLE", "spectrum")
        .args([
            "run",
            "--yes",
            "--max-turns",
            "1",
            "--check",
            "python3 -m unittest -q",
        ])
        .arg("The tests fail. Fix the code, not the tests.")
        .assert();
    let first = super::repositories::opening(&server);
    assert!(
        first.contains(
            "test_inventory.py (for reference, do not change)\n```python\nimport unittest"
        ),
        "{first}"
    );
    assert!(first.contains("def test_restock_29(self):"), "{first}");
    assert!(!first.contains("too long to show whole"), "{first}");
    assert!(first.contains("You may change: inventory.py."), "{first}");
    let stderr = super::repositories::stderr_of(&out);
    assert!(
        stderr.contains("showing the model inventory.py: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("showing the model test_inventory.py: "),
        "{stderr}"
    );
}
