#!/usr/bin/env bash
# The real-model lane: starts a real model server (scripts/local-model.sh,
# llama.cpp + Qwen2.5-Coder) unless OC_REAL_MODEL_URL already names one, then
# runs tests/real_model.rs against it and prints a line per task.
#
#   scripts/real-model-check.sh [--model 1.5b|0.5b] [--port 8080]
#   OC_REAL_MODEL_URL=http://127.0.0.1:11434/v1 scripts/real-model-check.sh   # any server
#
# Not part of CI: it needs a real model and takes minutes on a CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=1.5b
PORT=8080
while [ $# -gt 0 ]; do
    case "$1" in
        --model) SIZE="$2"; shift 2 ;;
        --port) PORT="$2"; shift 2 ;;
        *) echo "real-model-check.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "${OC_REAL_MODEL_URL:-}" ]; then
    scripts/local-model.sh --model "$SIZE" --port "$PORT" >/dev/null
    export OC_REAL_MODEL_URL="http://127.0.0.1:$PORT/v1"
fi
export OC_REAL_MODEL="${OC_REAL_MODEL:-qwen2.5-coder:$SIZE}"
cargo test --test real_model -- --nocapture
