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
# Written first, so that the artifact is uploaded however the run ends.
{
    echo "stdout-file=$stdout_file"
    echo "home=$home"
} >> "${GITHUB_OUTPUT:-/dev/null}"

# A cancelled job sends SIGINT or SIGTERM to every process of the step: oc
# saves its session and exits (130, 143), and this script goes on to write
# the summary and the exit code instead of dying with it.
trap 'echo "oc: stopping: the job was cancelled" >&2' INT TERM

# One value with the blanks around it removed.
trim() {
    local value="$1"
    value="${value#"${value%%[![:space:]]*}"}"
    printf '%s' "${value%"${value##*[![:space:]]}"}"
}

# One item per non-blank line of $1, trimmed.
lines() {
    local line
    while IFS= read -r line; do
        line="$(trim "$line")"
        [ -n "$line" ] && printf '%s\n' "$line"
    done <<< "$1"
    return 0
}

format="$(trim "${INPUT_OUTPUT_FORMAT:-}")"
timeout="$(trim "${INPUT_TIMEOUT:-}")"
max_turns="$(trim "${INPUT_MAX_TURNS:-}")"
attempts="$(trim "${INPUT_ATTEMPTS:-}")"
on_fail="$(trim "${INPUT_ON_FAIL:-}")"
host="$(trim "${INPUT_HOST:-}")"
base_url="$(trim "${INPUT_BASE_URL:-}")"
args=(run --output-format "${format:-text}" --model "$(trim "$INPUT_MODEL")")
[ -n "$timeout" ] && args+=(--timeout "$timeout")
[ -n "$max_turns" ] && args+=(--max-turns "$max_turns")
[ -n "${INPUT_CHECK:-}" ] && args+=(--check "$INPUT_CHECK")
[ -n "$attempts" ] && [ "$attempts" != 1 ] && args+=(--attempts "$attempts")
[ -n "$on_fail" ] && args+=(--on-fail "$on_fail")
[ -n "$host" ] && args+=(--host "$host")
[ -n "$base_url" ] && args+=(--base-url "$base_url")
while IFS= read -r model; do args+=(--fallback-model "$model"); done < <(lines "${INPUT_FALLBACK_MODELS:-}")
allowed=0
while IFS= read -r rule; do args+=(--allow "$rule"); allowed=1; done < <(lines "${INPUT_ALLOW:-}")
[ "$allowed" = 1 ] || args+=(--yes)
while IFS= read -r rule; do args+=(--deny "$rule"); done < <(lines "${INPUT_DENY:-}")
# An option an input sets once may not come again in `args`: oc would
# refuse it without naming the input.
declare -A set_by=([--output-format]=output-format [--model]=model [-m]=model)
[ -n "$timeout" ] && set_by[--timeout]=timeout
[ -n "$max_turns" ] && set_by[--max-turns]=max-turns
[ -n "${INPUT_CHECK:-}" ] && set_by[--check]=check
[ -n "$attempts" ] && [ "$attempts" != 1 ] && set_by[--attempts]=attempts
[ -n "$on_fail" ] && set_by[--on-fail]=on-fail
[ -n "$host" ] && set_by[--host]=host
[ -n "$base_url" ] && set_by[--base-url]=base-url
twice=""
while IFS= read -r arg; do
    name="${arg%%=*}"
    if [ -n "${set_by[$name]:-}" ]; then
        twice="oc: error: \`$name\` is set by the input \`${set_by[$name]}\` and again in \`args\`; give it in one place"
    fi
    args+=("$arg")
done < <(lines "${INPUT_ARGS:-}")
args+=(-- "$INPUT_PROMPT")

echo "oc: $oc_bin run … (OC_HOME $home)"
# stdout and stderr go to the log as they come, and to files for the
# summary. What the model writes must not act as a workflow command
# (`::error::`, `::add-mask::`) on the runner: commands are off meanwhile.
commands_off="oc-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
echo "::stop-commands::$commands_off"
exec 4> >(tee "$stderr_file" >&2)
stderr_tee=$!
set +e
if [ -n "$twice" ]; then
    echo "$twice" >&4
    code=2
else
    OC_HOME="$home" "$oc_bin" "${args[@]}" < /dev/null 2>&4 | tee "$stdout_file"
    code=${PIPESTATUS[0]}
fi
set -e
exec 4>&-
wait "$stderr_tee" 2>/dev/null || true
echo "::$commands_off::"

python3 "$OC_ACTION_PATH/action/summary.py" --home "$home" --exit-code "$code" \
    --stderr "$stderr_file" --summary "${GITHUB_STEP_SUMMARY:-/dev/null}" \
    --outputs "${GITHUB_OUTPUT:-/dev/null}"
echo "exit-code=$code" >> "${GITHUB_OUTPUT:-/dev/null}"
