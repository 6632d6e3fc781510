#!/usr/bin/env python3
"""Runs `oc` (or aider) on the small real tasks in bench/tasks/ against a real
model server and prints what it solved.

A benchmark, not a test: it needs a running Ollama with the models (see
../shared/tools/ollama/start.sh or any Ollama), and takes minutes per model.

Each task folder holds `task.json` ({"prompt", "check", "kind", "language"}),
`repo/` (the files the agent starts from, committed to a fresh git repo) and
optionally `check/` (files copied over the workspace before the check runs,
so an agent cannot pass by editing the tests). The check runs with bash in
the workspace; `$OC_ANSWER` is a file holding the agent's final answer. The
task is solved when the check exits 0.

    scripts/bench-real.sh [--model M]... [--runs N] [--seed S] [--tasks a,b]
                          [--label L] [--results FILE] [-- OC_ARGS...]
    scripts/bench-real.sh --summarize FILE     # table of all labels in FILE
"""

import argparse
import json
import os
import pathlib
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TASKS = ROOT / "bench" / "tasks"


def load_tasks(names):
    tasks = []
    for folder in sorted(TASKS.iterdir()):
        if not (folder / "task.json").is_file():
            continue
        if names and folder.name not in names:
            continue
        spec = json.loads((folder / "task.json").read_text())
        spec["name"] = folder.name
        spec["folder"] = folder
        tasks.append(spec)
    if names:
        missing = set(names) - {t["name"] for t in tasks}
        if missing:
            sys.exit(f"no such task: {', '.join(sorted(missing))}")
    return tasks


def git(args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def prepare(task, work):
    shutil.copytree(task["folder"] / "repo", work, dirs_exist_ok=True)
    git(["init", "-q"], work)
    git(["-c", "user.name=bench", "-c", "user.email=bench@localhost", "add", "-A"], work)
    git(["-c", "user.name=bench", "-c", "user.email=bench@localhost",
         "commit", "-qm", "start"], work)


def check_command(task, work):
    """The task's check as a command `oc --check` can run: on a fresh scratch
    copy of the workspace with the hidden check files added, so the agent
    gets the check's verdict and output without seeing or changing the check
    files. (No `rm -rf`: oc's hard rules refuse it.)"""
    hidden = task["folder"] / "check"
    overlay = f" && cp -r {shlex.quote(str(hidden))}/. ." if hidden.is_dir() else ""
    return (f"scratch=$(mktemp -d) && cp -r . \"$scratch\" && cd \"$scratch\"{overlay}"
            f" && OC_ANSWER=/dev/null {task['check']}")


def run_oc(args, task, work, home, answer, model):
    cmd = [args.oc, "run", "--yes", "--output-format", "json", "-o", str(answer),
           "--model", model, "--host", args.host, "--timeout", args.timeout]
    if args.with_check and "OC_ANSWER" not in task["check"]:
        cmd += ["--check", check_command(task, work)]
    if args.seed is not None:
        cmd += ["--seed", str(args.seed)]
    cmd += args.oc_args + [task["prompt"]]
    env = dict(os.environ, OC_HOME=str(home), NO_COLOR="1")
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    result = {}
    for line in reversed(proc.stdout.splitlines()):
        try:
            result = json.loads(line)
            break
        except json.JSONDecodeError:
            continue
    usage = result.get("usage") or {}
    return {
        "exit": proc.returncode,
        "status": result.get("status", "?"),
        "turns": result.get("turns", 0),
        "prompt_tokens": usage.get("prompt_tokens", 0),
        "completion_tokens": usage.get("completion_tokens", 0),
        "seconds": round(seconds, 1),
        "stderr_tail": proc.stderr[-2000:],
    }


def run_aider(args, task, work, home, answer, model):
    # aider is given the files the prompt names, as its users do.
    named = [p for p in re.findall(r"[\w./-]+\.\w+", task["prompt"]) if (work / p).is_file()]
    cmd = [args.aider, "--model", f"ollama_chat/{model}", "--yes-always",
           "--no-auto-commits", "--no-check-update", "--no-show-model-warnings",
           "--no-pretty", "--no-stream", "--analytics-disable", "--map-tokens", "1024",
           "--message", task["prompt"], *named]
    if args.with_check and "OC_ANSWER" not in task["check"]:
        cmd += ["--test-cmd", check_command(task, work), "--auto-test"]
    cmd += args.oc_args
    env = dict(os.environ, OLLAMA_API_BASE=f"http://{args.host.removeprefix('http://')}",
               HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True")
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=600)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = 124, e.stdout or "", e.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    seconds = time.monotonic() - started
    answer.write_text(out)
    def count(text, k):
        return int(float(text) * (1000 if k else 1))
    tokens = [(count(a, ak), count(b, bk)) for a, ak, b, bk in
              re.findall(r"Tokens: ([\d.]+)(k?) sent, ([\d.]+)(k?) received", out)]
    return {
        "exit": code,
        "status": "aider",
        "turns": len(tokens),
        "prompt_tokens": sum(t[0] for t in tokens),
        "completion_tokens": sum(t[1] for t in tokens),
        "seconds": round(seconds, 1),
        "stderr_tail": (err + out)[-2000:],
    }


def check(task, work, answer):
    if (task["folder"] / "check").is_dir():
        shutil.copytree(task["folder"] / "check", work, dirs_exist_ok=True)
    env = dict(os.environ, OC_ANSWER=str(answer))
    proc = subprocess.run(["bash", "-c", task["check"]], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    return proc.returncode == 0, (proc.stdout + proc.stderr)[-500:]


def bench(args):
    tasks = load_tasks(args.tasks.split(",") if args.tasks else [])
    runner = run_aider if args.agent == "aider" else run_oc
    rows = []
    print(f"{'task':26} {'model':20} run  solved exit turns  prompt  compl  seconds")
    for model in args.model:
        for run in range(1, args.runs + 1):
            for task in tasks:
                with tempfile.TemporaryDirectory(prefix="oc-bench-") as tmp:
                    tmp = pathlib.Path(tmp)
                    work, home = tmp / "work", tmp / "home"
                    work.mkdir()
                    home.mkdir()
                    answer = tmp / "answer.txt"
                    answer.write_text("")
                    prepare(task, work)
                    row = runner(args, task, work, home, answer, model)
                    # What the agent changed, before the check's files go in.
                    git(["add", "-A"], work)
                    diff = subprocess.run(["git", "diff", "--cached", "--stat"], cwd=work,
                                          capture_output=True, text=True).stdout
                    solved, check_out = check(task, work, answer)
                    row["answer"] = answer.read_text(errors="replace")[:600]
                row.update(task=task["name"], model=model, run=run, solved=solved,
                           label=args.label, agent=args.agent, seed=args.seed,
                           oc_args=args.oc_args, check_tail=check_out, diff=diff[-500:])
                rows.append(row)
                print(f"{task['name']:26} {model:20} {run:3}  {'yes' if solved else 'no':6} "
                      f"{row['exit']:4} {row['turns']:5} {row['prompt_tokens']:7} "
                      f"{row['completion_tokens']:6} {row['seconds']:8}", flush=True)
                if args.results:
                    with open(args.results, "a") as f:
                        f.write(json.dumps(row) + "\n")
    print()
    summarize_rows(rows)


def summarize_rows(rows):
    groups = {}
    for row in rows:
        groups.setdefault((row.get("label", ""), row["model"]), []).append(row)
    print(f"{'label':28} {'model':20} {'solved':>9} {'runs':>5} {'exit 0':>7} "
          f"{'med s':>7} {'prompt tok':>11} {'compl tok':>10}")
    for (label, model), group in sorted(groups.items()):
        runs = sorted({r["run"] for r in group})
        solved = sum(r["solved"] for r in group)
        per_run = len({r["task"] for r in group})
        print(f"{label or '-':28} {model:20} {solved / max(len(runs), 1):5.1f}/{per_run:<3} "
              f"{len(runs):5} {sum(r['exit'] == 0 for r in group):7} "
              f"{statistics.median(r['seconds'] for r in group):7.1f} "
              f"{sum(r['prompt_tokens'] for r in group) // len(group):11} "
              f"{sum(r['completion_tokens'] for r in group) // len(group):10}")
    print("\n(solved: mean tasks solved per run; tokens: mean per task)")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append",
                        help="model name (repeatable) [default: qwen2.5-coder:1.5b and :0.5b]")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7, help="--seed for oc (default 7)")
    parser.add_argument("--tasks", help="comma-separated task names [default: all]")
    parser.add_argument("--label", default="", help="a name for this configuration")
    parser.add_argument("--results", help="append one JSON line per run to FILE")
    parser.add_argument("--host", default=os.environ.get("OLLAMA_HOST", "127.0.0.1:11434"))
    parser.add_argument("--oc", default=str(ROOT / "target" / "release" / "oc"))
    parser.add_argument("--timeout", default="10m", help="oc --timeout per task")
    parser.add_argument("--agent", choices=["oc", "aider"], default="oc")
    parser.add_argument("--with-check", action="store_true",
                        help="give the agent the task's check (oc --check, aider --test-cmd); "
                             "question tasks get none")
    parser.add_argument("--aider", default="aider", help="the aider executable")
    parser.add_argument("--summarize", metavar="FILE", help="print the table of FILE and exit")
    parser.add_argument("oc_args", nargs="*", help="extra arguments after --")
    args = parser.parse_args()
    if args.summarize:
        rows = [json.loads(line) for line in open(args.summarize) if line.strip()]
        summarize_rows(rows)
        return
    args.model = args.model or ["qwen2.5-coder:1.5b", "qwen2.5-coder:0.5b"]
    bench(args)


if __name__ == "__main__":
    main()
