#!/usr/bin/env bash
# What a run's checkpoint (docs/sessions.md, "Undo") costs at start-up:
# `oc run` against a closed port (it exits 3 right after checkpointing) in a tree
# of FILES files of about 10 KB, as a plain folder (copies under OC_HOME:
# first run, then with the copies already kept) and as a git repository,
# beside `--no-save` (no checkpoint). Prints the median of RUNS runs each.
#     scripts/bench-checkpoint.sh [FILES] [RUNS]     # default 2000 5
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-2000}
runs=${2:-5}
cargo build --release --quiet
oc="$PWD/target/release/oc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plain"
python3 - "$tmp/plain" "$files" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
for i in range(n):
    d = os.path.join(root, f"pkg{i % 40}", f"mod{i % 7}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i}.py"), "w") as f:
        f.write("".join(f"def f{i}_{j}(x):\n    return x + {random.random()}\n" for j in range(200)))
PY
cp -r "$tmp/plain" "$tmp/git"
git -C "$tmp/git" init -q
git -C "$tmp/git" add -A
git -C "$tmp/git" -c user.name=b -c user.email=b@b commit -qm start

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_run() { # DIR HOME FRESH [ARGS...]
    local dir=$1 home=$2 fresh=$3; shift 3
    for _ in $(seq "$runs"); do
        [ "$fresh" = fresh ] && rm -rf "$home"
        local start end
        start=$(date +%s%N)
        (cd "$dir" && OC_HOME="$home" OLLAMA_HOST=127.0.0.1:9 "$oc" run "$@" x >/dev/null 2>&1) || true
        end=$(date +%s%N)
        echo $(((end - start) / 1000000))
    done | median
}
echo "$files files, $(du -sh "$tmp/plain" | cut -f1); median of $runs runs, ms"
echo "plain, no checkpoint (--no-save): $(time_run "$tmp/plain" "$tmp/home" fresh --no-save)"
echo "plain, first checkpoint:          $(time_run "$tmp/plain" "$tmp/home" fresh)"
echo "plain, copies already kept:       $(time_run "$tmp/plain" "$tmp/home" kept)"
echo "git, no checkpoint (--no-save):   $(time_run "$tmp/git" "$tmp/home" fresh --no-save)"
echo "git, checkpoint:                  $(time_run "$tmp/git" "$tmp/home" fresh)"
