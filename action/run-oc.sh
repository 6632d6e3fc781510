#!/usr/bin/env bash
# Runs `oc run` for the action (action.yml) from its inputs, writes the job
# summary and the step's outputs, and exits 0 whatever oc's exit code (the
# action's last step fails the job by it, after the artifacts are uploaded).
#
# Environment: INPUT_* (the action's inputs, multi-line ones one item per
# line), OC_ACTION_PATH, RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY;
# OC_BIN (default `oc`) for the binary.
set -euo pipefail

oc_bin="${OC_BIN:-oc}"
home="$(mktemp -d "$RUNNER_TEMP/oc-home.XXXXXX")"
stdout_file="$home/stdout"
stderr_file="$home/stderr.log"

# One item per non-blank line of $1, trimmed.
lines() {
    local line
    while IFS= read -r line; do
        line="${line#"${line%%[![:space:]]*}"}"
        line="${line%"${line##*[![:space:]]}"}"
        [ -n "$line" ] && printf '%s\n' "$line"
    done <<< "$1"
    return 0
}

args=(run --output-format "${INPUT_OUTPUT_FORMAT:-text}" --model "$INPUT_MODEL")
[ -n "${INPUT_TIMEOUT:-}" ] && args+=(--timeout "$INPUT_TIMEOUT")
[ -n "${INPUT_MAX_TURNS:-}" ] && args+=(--max-turns "$INPUT_MAX_TURNS")
[ -n "${INPUT_CHECK:-}" ] && args+=(--check "$INPUT_CHECK")
[ -n "${INPUT_ATTEMPTS:-}" ] && [ "$INPUT_ATTEMPTS" != 1 ] && args+=(--attempts "$INPUT_ATTEMPTS")
[ -n "${INPUT_ON_FAIL:-}" ] && args+=(--on-fail "$INPUT_ON_FAIL")
[ -n "${INPUT_HOST:-}" ] && args+=(--host "$INPUT_HOST")
[ -n "${INPUT_BASE_URL:-}" ] && args+=(--base-url "$INPUT_BASE_URL")
while IFS= read -r model; do args+=(--fallback-model "$model"); done < <(lines "${INPUT_FALLBACK_MODELS:-}")
allowed=0
while IFS= read -r rule; do args+=(--allow "$rule"); allowed=1; done < <(lines "${INPUT_ALLOW:-}")
[ "$allowed" = 1 ] || args+=(--yes)
while IFS= read -r rule; do args+=(--deny "$rule"); done < <(lines "${INPUT_DENY:-}")
while IFS= read -r arg; do args+=("$arg"); done < <(lines "${INPUT_ARGS:-}")
args+=(-- "$INPUT_PROMPT")

echo "oc: $oc_bin run … (OC_HOME $home)"
# stdout and stderr go to the log as they come, and to files for the summary.
exec 4> >(tee "$stderr_file" >&2)
stderr_tee=$!
set +e
OC_HOME="$home" "$oc_bin" "${args[@]}" < /dev/null 2>&4 | tee "$stdout_file"
code=${PIPESTATUS[0]}
set -e
exec 4>&-
wait "$stderr_tee" 2>/dev/null || true

python3 "$OC_ACTION_PATH/action/summary.py" --home "$home" --exit-code "$code" \
    --stderr "$stderr_file" --summary "${GITHUB_STEP_SUMMARY:-/dev/null}" \
    --outputs "${GITHUB_OUTPUT:-/dev/null}"
{
    echo "exit-code=$code"
    echo "stdout-file=$stdout_file"
    echo "home=$home"
} >> "${GITHUB_OUTPUT:-/dev/null}"
