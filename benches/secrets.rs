//! What scrubbing credentials costs a tool result (run with `cargo bench
//! --bench secrets`): a 1 MB result of ordinary source (this crate's own
//! `src/`, repeated), and 1 MB full of the rules' keywords (every line
//! wakes the generic rule, some hold real-looking tokens). Target: a few
//! milliseconds per MB. The first call, which reads the rules and compiles
//! those it needs, is timed on its own.
//!
//! Prints medians (and min/max) of repeated runs; the machines are shared
//! and noisy, so compare medians, not single runs.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use ollama_code::bench_api::scrub_credentials;

const MB: usize = 1 << 20;

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

/// This crate's sources, repeated to 1 MB (cut at a character boundary).
fn ordinary_source() -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: Vec<_> = ignore::Walk::new(&src)
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .filter(|e| !e.path().starts_with(src.join("secrets")))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    let all: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let mut text = all.repeat(MB / all.len() + 1);
    let mut cut = MB;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text
}

/// 1 MB of lines that name keys, tokens, secrets and services; one line in
/// fifty holds a GitHub token, one in fifty an assignment of a secret.
fn keyword_hits() -> String {
    let mut text = String::with_capacity(MB + 200);
    let mut i = 0usize;
    while text.len() < MB {
        let line = match i % 50 {
            0 => format!("github_token = ghp_R4nd0mL00k1ngT0k3nV4lu3xYz{i:010}\n"),
            25 => format!("export AWS_SECRET_ACCESS_KEY=Zk3pQ9vL2mXw8RtY4bN7cJ1hF6gD0sA{i:07}\n"),
            _ => format!(
                "    let api_key_{i} = auth.access_token(&password, secret_key); // slack stripe aws xoxb sk_live akia ghp_ -----BEGIN\n"
            ),
        };
        text.push_str(&line);
        i += 1;
    }
    text
}

fn bench(name: &str, text: &str) {
    let mut samples = Vec::new();
    let mut change = 0;
    for _ in 0..21 {
        let start = Instant::now();
        change = scrub_credentials(text);
        samples.push(start.elapsed());
    }
    let (med, min, max) = median(samples);
    println!(
        "scrub {name}, {:.2} MB: median {:.2} ms (min {:.2}, max {:.2}), {change:+} bytes — target a few ms per MB",
        text.len() as f64 / MB as f64,
        ms(med),
        ms(min),
        ms(max)
    );
}

fn main() {
    let ordinary = ordinary_source();
    let hits = keyword_hits();
    let start = Instant::now();
    scrub_credentials("api_key = \"x\"");
    println!(
        "first scrub (rules read, the woken ones compiled): {:.2} ms",
        ms(start.elapsed())
    );
    bench("ordinary source", &ordinary);
    bench("keyword hits", &hits);
}
