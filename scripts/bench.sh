#!/usr/bin/env bash
# Runs the tool benchmarks (benches/tools.rs) with ripgrep installed for the
# side-by-side search comparison, then the sandbox's cost per bash call
# (benches/sandbox.rs). Quote medians and ratios, not single runs.
# Arguments filter: `scripts/bench.sh search`, `scripts/bench.sh sandbox`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v rg >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep
fi
if [ "$#" -eq 0 ] || [ "$1" != sandbox ]; then
    cargo bench --bench tools -- "$@"
fi
if [ "$#" -eq 0 ] || [ "$1" = sandbox ]; then
    cargo bench --bench sandbox
fi
