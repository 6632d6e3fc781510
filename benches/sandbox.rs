//! What the sandbox adds to a command (run with `cargo bench --bench
//! sandbox` or `scripts/bench.sh sandbox`): 100 `bash "true"` calls through
//! the bash tool without the sandbox and with it (`workspace-write`,
//! network off, the user's credential stores kept from reading: the `oc
//! sandbox-exec` helper, Landlock, then bash), both
//! with `oc` as the subreaper sweeping after each call as in a run.
//! Target: under 5 ms added per call (median against median).
//!
//! The machines are shared and noisy: the two series are interleaved, and
//! medians and their difference are what to quote. It runs without the
//! `LD_LIBRARY_PATH` that `cargo bench` sets, as users run `oc`.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ollama_code::bench_api::{BenchWorkspace, become_subreaper};

const CALLS: usize = 100;

fn median(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
    )
}

/// `cargo bench` sets `LD_LIBRARY_PATH` to its own folders, which makes
/// every dynamic program (the helper and bash) search them first: about a
/// millisecond per call that no user pays. Runs this bench again without it.
fn without_cargo_library_path() {
    if std::env::var_os("LD_LIBRARY_PATH").is_none() {
        return;
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(std::env::args_os().skip(1))
        .env_remove("LD_LIBRARY_PATH")
        .status()
        .unwrap();
    std::process::exit(status.code().unwrap_or(1));
}

fn main() {
    without_cargo_library_path();
    become_subreaper();
    let dir = tempfile::tempdir().unwrap();
    let plain = BenchWorkspace::plain(dir.path()).unwrap();
    // The user's credential stores and a default OC_HOME's records are kept
    // from reading, as in a run.
    let (confined, denied) = plain
        .confined(PathBuf::from(env!("CARGO_BIN_EXE_oc")))
        .unwrap_or_else(|why| panic!("{why}: nothing to measure"));
    println!("credential stores kept from reading: {denied}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = |ws: &BenchWorkspace| {
        let start = Instant::now();
        let (ok, output) = runtime.block_on(ws.bash("true"));
        assert!(ok, "{output}");
        start.elapsed()
    };
    // Warm the page cache for both binaries.
    call(&plain);
    call(&confined);
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..CALLS {
        without.push(call(&plain));
        with.push(call(&confined));
    }
    let (w_med, w_min, w_max) = median(without);
    let (s_med, s_min, s_max) = median(with);
    println!(
        "bash \"true\" ×{CALLS}, no sandbox: median {w_med:.2} ms (min {w_min:.2}, max {w_max:.2})"
    );
    println!(
        "bash \"true\" ×{CALLS}, sandbox:    median {s_med:.2} ms (min {s_min:.2}, max {s_max:.2})"
    );
    println!(
        "added by the sandbox: {:.2} ms per call (median − median) — target < 5 ms",
        s_med - w_med
    );
}
