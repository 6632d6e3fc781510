#!/usr/bin/env bash
# Runs the tool benchmarks (benches/tools.rs) with ripgrep installed for the
# side-by-side search comparison. Quote medians and ratios, not single runs.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v rg >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep
fi
cargo bench --bench tools -- "$@"
