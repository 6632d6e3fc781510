//! Speed targets of the tools (run with `cargo bench` or `scripts/bench.sh`):
//!
//! - `edit_match::apply` on a 10,000-line file where only the fuzzy stage
//!   matches: median under 20 ms;
//! - `search` over a generated tree of 4,000 files (about 2.4 M lines)
//!   within 1.5× of `rg` on the same query, measured side by side.
//!
//! Prints medians (and min/max) of repeated runs; the machines are shared
//! and noisy, so compare medians and ratios, not single runs.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ollama_code::bench_api::{BenchWorkspace, edit};

fn median(mut samples: Vec<Duration>) -> (Duration, Duration, Duration) {
    samples.sort();
    (
        samples[samples.len() / 2],
        samples[0],
        samples[samples.len() - 1],
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A deterministic pseudo-random generator (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

const WORDS: [&str; 16] = [
    "value", "count", "result", "buffer", "index", "config", "handle", "state", "parse", "render",
    "update", "client", "server", "token", "stream", "error",
];

fn code_line(rng: &mut Lcg, i: usize) -> String {
    let a = WORDS[(rng.next() % 16) as usize];
    let b = WORDS[(rng.next() % 16) as usize];
    let indent = "    ".repeat((rng.next() % 3) as usize + 1);
    format!(
        "{indent}let {a}_{i} = {b}.process({}, \"{a}-{b}\");",
        rng.next() % 1000
    )
}

fn bench_edit() {
    let mut rng = Lcg(7);
    let lines: Vec<String> = (0..10_000).map(|i| code_line(&mut rng, i)).collect();
    let text = lines.join("\n") + "\n";
    // A 5-line block from the middle with a typo in two lines: no exact,
    // trimmed or normalised match, only the fuzzy stage finds it.
    let mut old: Vec<String> = lines[6000..6005].to_vec();
    old[1] = old[1].replace("process", "proces");
    old[3] = old[3].replace("let ", "let mut ");
    let old = old.join("\n");
    let new = "    // replaced\n".repeat(5);
    let mut samples = Vec::new();
    for _ in 0..31 {
        let start = Instant::now();
        let (fuzzy, lines) = edit(&text, &old, &new).unwrap();
        samples.push(start.elapsed());
        assert!(fuzzy, "only the fuzzy stage matches");
        assert_eq!(lines, vec![6001]);
    }
    let (med, min, max) = median(samples);
    println!(
        "edit_match fuzzy, 10,000 lines: median {:.2} ms (min {:.2}, max {:.2}) — target < 20 ms",
        ms(med),
        ms(min),
        ms(max)
    );
}

fn generate_tree(root: &Path) -> usize {
    let mut rng = Lcg(42);
    let mut lines_total = 0;
    for d in 0..40 {
        let dir = root.join(format!("pkg{d:02}/src"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            let lines = 300 + (rng.next() % 600) as usize;
            let text: String = (0..lines).map(|i| code_line(&mut rng, i) + "\n").collect();
            lines_total += lines;
            std::fs::write(dir.join(format!("mod{f:03}.rs")), text).unwrap();
        }
    }
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    lines_total
}

fn bench_search() {
    if Command::new("rg").arg("--version").output().is_err() {
        println!("search: `rg` is not installed (apt-get install ripgrep); skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lines = generate_tree(dir.path());
    let ws = BenchWorkspace::plain(dir.path()).unwrap();
    let pattern = r"token_\d+ = stream";
    let ours_summary = ws.search(pattern);
    let rg_count = || {
        let out = Command::new("rg")
            .args(["--hidden", "--no-require-git", "-n", "-g", "!.git", pattern])
            .arg(dir.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    println!(
        "search: {lines} lines in 4,000 files; {} (rg prints {} lines)",
        ours_summary,
        rg_count()
    );
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..11 {
        let start = Instant::now();
        ws.search(pattern);
        ours.push(start.elapsed());
        let start = Instant::now();
        rg_count();
        theirs.push(start.elapsed());
    }
    let (ours, ours_min, _) = median(ours);
    let (theirs, theirs_min, _) = median(theirs);
    println!(
        "search median {:.1} ms (min {:.1}) vs rg {:.1} ms (min {:.1}): ratio {:.2} — target ≤ 1.5",
        ms(ours),
        ms(ours_min),
        ms(theirs),
        ms(theirs_min),
        ms(ours) / ms(theirs)
    );
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    if wanted("edit") {
        bench_edit();
    }
    if wanted("search") {
        bench_search();
    }
}
