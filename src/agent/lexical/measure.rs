//! How well the prompt's words find the code to change, on
//! `bench/repo-tasks`: for each task, the rank (among definitions outside
//! tests) of the first definition its reference fix changes, and the time
//! the index and the query take. Run it with
//! `cargo test --release --lib lexical -- --ignored --nocapture`.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use super::bm25::Weights;
use super::{CHOICES, Choices, Hit, index, rank, ranked};
use crate::tools::outline::{self, Kind};
use crate::tools::walk;

/// The definitions a change to a file touches, by path and first line.
type Targets = BTreeSet<(String, usize)>;

/// The old lines a diff removes and the old lines after which it adds,
/// by file.
fn changed_lines(diff: &str) -> Vec<(String, Vec<usize>, Vec<usize>)> {
    let mut files: Vec<(String, Vec<usize>, Vec<usize>)> = Vec::new();
    let mut old = 0;
    let mut in_hunk = false;
    for line in diff.lines() {
        if line.starts_with("diff --git") {
            in_hunk = false;
        } else if !in_hunk && let Some(path) = line.strip_prefix("+++ b/") {
            files.push((path.to_string(), Vec::new(), Vec::new()));
        } else if let Some(range) = line.strip_prefix("@@ -") {
            in_hunk = true;
            old = range
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
        } else if in_hunk && let Some((_, removed, added)) = files.last_mut() {
            match line.chars().next() {
                Some('-') => {
                    removed.push(old);
                    old += 1;
                }
                Some('+') => added.push(old.saturating_sub(1).max(1)),
                Some('\\') => {}
                _ => old += 1,
            }
        }
    }
    files
}

/// The definitions the reference fix changes: for a removed line, the
/// innermost definition around it; for added lines, the innermost one
/// around the line before them and the nearest one ending before them
/// (the definition the new code goes next to).
fn targets(repo: &Path, diff: &str) -> Targets {
    let mut found = Targets::new();
    for (path, removed, added) in changed_lines(diff) {
        let text = std::fs::read_to_string(repo.join(&path)).unwrap_or_default();
        let Some(defs) = outline::definitions(&path, &text) else {
            continue;
        };
        let defs: Vec<_> = defs.into_iter().filter(|d| d.kind != Kind::Value).collect();
        let around = |n: usize| {
            defs.iter()
                .filter(|d| (d.start_line..=d.end_line).contains(&n))
                .max_by_key(|d| d.start_line)
        };
        for n in &removed {
            found.extend(around(*n).map(|d| (path.clone(), d.start_line)));
        }
        for n in &added {
            found.extend(around(*n).map(|d| (path.clone(), d.start_line)));
            let before = defs
                .iter()
                .filter(|d| d.end_line <= *n)
                .max_by_key(|d| (d.end_line, d.start_line));
            found.extend(before.map(|d| (path.clone(), d.start_line)));
        }
    }
    found
}

fn files_of(repo: &Path) -> Vec<String> {
    walk::files_under(repo)
        .into_iter()
        .filter_map(|p| {
            p.strip_prefix(repo)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .collect()
}

/// One task of `bench/repo-tasks`.
struct Task {
    name: String,
    repo: std::path::PathBuf,
    prompt: String,
    wanted: Targets,
    files: Vec<String>,
}

fn tasks() -> Vec<Task> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/repo-tasks");
    let mut tasks: Vec<Task> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|dir| dir.join("task.json").exists())
        .map(|dir| {
            let repo = dir.join("repo");
            let task: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("task.json")).unwrap())
                    .unwrap();
            let diff = std::fs::read_to_string(dir.join("solution.diff")).unwrap();
            Task {
                name: dir.file_name().unwrap().to_string_lossy().to_string(),
                prompt: task["prompt"].as_str().unwrap().to_string(),
                wanted: targets(&repo, &diff),
                files: files_of(&repo),
                repo,
            }
        })
        .collect();
    tasks.sort_by(|a, b| a.name.cmp(&b.name));
    tasks
}

/// The 0-based rank among definitions outside tests of the first one
/// `wanted` holds.
fn rank_of(hits: &[Hit], wanted: &Targets) -> Option<usize> {
    hits.iter()
        .filter(|h| !h.test)
        .position(|h| wanted.contains(&(h.path.clone(), h.line)))
}

/// The choices measured against the defaults: each variant undoes one.
fn variants() -> Vec<(&'static str, Choices)> {
    let d = CHOICES;
    let flat = Choices {
        weights: Weights {
            field: [1.0; 5],
            b: [0.75; 5],
            k1: 1.2,
        },
        ..d
    };
    let without = |field: usize| {
        let mut c = d;
        c.weights.field[field] = 0.0;
        c
    };
    let mut name3 = d;
    name3.weights.field[0] = 3.0;
    vec![
        ("defaults", d),
        ("one field (plain BM25)", flat),
        (
            "code words weigh as plain ones",
            Choices {
                code_weight: 1.0,
                ..d
            },
        ),
        (
            "named tests' words left out",
            Choices {
                named_test_weight: 0.0,
                ..d
            },
        ),
        (
            "named tests' words at 0.3",
            Choices {
                named_test_weight: 0.3,
                ..d
            },
        ),
        ("no name field", without(0)),
        ("name field at 3", name3),
        (
            "k1 = 2",
            Choices {
                weights: Weights {
                    k1: 2.0,
                    ..d.weights
                },
                ..d
            },
        ),
        ("no container field", without(1)),
        ("no signature field", without(2)),
        ("no docstring field", without(3)),
        ("no body field", without(4)),
    ]
}

#[test]
#[ignore = "a measurement: prints a table for bench/repo-tasks"]
#[allow(clippy::print_stdout)]
fn lexical_ranks_the_reference_fixes_of_the_repo_tasks() {
    let tasks = tasks();
    println!("| task | rank | first changed definition | top 3 | ms |");
    println!("|---|---|---|---|---|");
    for task in &tasks {
        let mut best = Duration::MAX;
        let mut hits = Vec::new();
        for _ in 0..3 {
            let started = Instant::now();
            hits = rank(&task.prompt, &task.repo, &task.files);
            best = best.min(started.elapsed());
        }
        let sources: Vec<&Hit> = hits.iter().filter(|h| !h.test).collect();
        let found = rank_of(&hits, &task.wanted);
        let rank = found.map_or("-".to_string(), |i| (i + 1).to_string());
        let first = found.map_or_else(
            || format!("not found: {:?}", task.wanted),
            |i| sources[i].name.clone(),
        );
        let top: Vec<&str> = sources.iter().take(3).map(|h| h.name.as_str()).collect();
        println!(
            "| {} | {rank} | {first} | {} | {:.1} |",
            task.name,
            top.join(", "),
            best.as_secs_f64() * 1000.0
        );
    }
    println!("\n| variant | rank <= 3 | rank <= 10 | ranks |\n|---|---|---|---|");
    for (label, choices) in variants() {
        let ranks: Vec<Option<usize>> = tasks
            .iter()
            .map(|t| {
                let hits = ranked(&t.prompt, index(&t.repo, &t.files), &choices);
                rank_of(&hits, &t.wanted)
            })
            .collect();
        let within = |n: usize| ranks.iter().filter(|r| r.is_some_and(|i| i < n)).count();
        let shown: Vec<String> = ranks
            .iter()
            .map(|r| r.map_or("-".to_string(), |i| (i + 1).to_string()))
            .collect();
        println!(
            "| {label} | {} | {} | {} |",
            within(3),
            within(10),
            shown.join(" ")
        );
    }
}
