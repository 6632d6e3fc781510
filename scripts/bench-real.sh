#!/usr/bin/env bash
# The real-model benchmark: runs oc on bench/tasks/ against a real Ollama.
# See scripts/bench-real.py --help. Builds the release binary first.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/bench-real.py "$@"
