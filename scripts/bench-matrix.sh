#!/usr/bin/env bash
# The switch matrix behind docs/small-models.md, "Benchmark": every
# configuration of scripts/bench-real.py on both small models, RUNS runs
# each, seed 7, appended to RESULTS (one JSON line per task run), then the
# table.
#
#   scripts/bench-matrix.sh [RESULTS] [RUNS]
#   AIDER=path/to/aider scripts/bench-matrix.sh ...   # also the aider rows
#
# Needs a real Ollama with qwen2.5-coder:1.5b and :0.5b (see
# ../shared/tools/ollama/start.sh or any Ollama); takes hours on a CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS="${1:-bench-results.jsonl}"
RUNS="${2:-2}"
cargo build --release --quiet
OC="$(mktemp -d)/oc"
cp target/release/oc "$OC"   # the binary under test does not change midway

bench() {  # LABEL DISABLE [ARGS...]
    local label="$1" disable="$2"
    shift 2
    OC_DISABLE="$disable" python3 scripts/bench-real.py --oc "$OC" --runs "$RUNS" \
        --label "$label" --results "$RESULTS" "$@"
}

bench "defaults (auto: whole)" ""
bench "defaults + --check" "" --with-check
bench "whole, no grounding" "ground"
bench "diff" "" -- --edit-format diff
bench "defaults, old fixed sampling" "" -- --temperature 1 --top-p 0.95 --top-k 20 --presence-penalty 1.5
bench "tools" "" -- --edit-format tools
bench "tools, no grounding" "ground" -- --edit-format tools
bench "tools, no shape recovery" "shape-recovery" -- --edit-format tools
if [ -n "${AIDER:-}" ]; then
    bench "aider" "" --agent aider --aider "$AIDER"
    bench "aider + --test-cmd" "" --agent aider --aider "$AIDER" --with-check
fi
python3 scripts/bench-real.py --summarize "$RESULTS"
