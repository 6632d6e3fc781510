#!/usr/bin/env bash
# What the ignored files add to a run's checkpoint (docs/sessions.md,
# "Undo"): `oc run` against a closed port (it checkpoints, fails to reach
# the server, and records what changed) in a git repository of 200 tracked
# files with, ignored, a `node_modules/` of BIG files, SMALL small files in
# `logs/` and `__pycache__/` folders, and a `.env`; beside `--no-save` (no
# checkpoint). Prints the median of RUNS runs each, in ms.
#     scripts/bench-checkpoint-ignored.sh [BIG] [SMALL] [RUNS]   # 20000 300 9
# OC=path/to/oc runs that binary instead of building a release one (to
# compare two builds).
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-20000}
small=${2:-300}
runs=${3:-9}
if [ -z "${OC:-}" ]; then
    cargo build --release --quiet
    OC="$PWD/target/release/oc"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo="$tmp/repo"
mkdir -p "$repo"
python3 - "$repo" "$big" "$small" <<'PY'
import os, sys
root, big, small = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def put(rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
put(".gitignore", "node_modules/\n__pycache__/\n*.log\n.env\n")
for i in range(200):
    put(f"src/m{i % 10}/f{i}.py", f"def f{i}():\n    return {i}\n" * 20)
for i in range(big):
    put(f"node_modules/p{i % 200}/lib/f{i}.js", f"module.exports = {i};\n" * 10)
for i in range(small):
    if i % 2:
        put(f"logs/run{i}.log", f"line {i}\n" * 50)
    else:
        put(f"src/m{i % 10}/__pycache__/f{i}.pyc", f"pyc {i}\n" * 50)
put(".env", "TOKEN=secret\n")
PY
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=b -c user.email=b@b commit -qm start

# Wall time and CPU time (user + system, oc and the git it runs: steadier
# than wall time on a busy machine), medians in ms.
time_run() { # ARGS...
    python3 - "$repo" "$tmp/home" "$OC" "$runs" "$@" <<'PY'
import os, resource, shutil, statistics, subprocess, sys, time
repo, home, oc, runs, args = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
env = dict(os.environ, OC_HOME=home, OLLAMA_HOST="127.0.0.1:9")
walls, cpus = [], []
for _ in range(runs):
    shutil.rmtree(home, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([oc, "run", *args, "x"], cwd=repo, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls.append((time.monotonic() - start) * 1000)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
print(f"wall {statistics.median(walls):.0f}, cpu {statistics.median(cpus):.0f}")
PY
}
echo "200 tracked files; ignored: $big in node_modules/, $small small, a .env; median of $runs runs, ms"
echo "no checkpoint (--no-save): $(time_run --no-save)"
echo "checkpoint:                $(time_run)"
