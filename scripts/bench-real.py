#!/usr/bin/env python3
"""Runs `oc` (or aider) on the real tasks of a suite against a real model
server and prints what it solved.

Suites (`--suite`): `small` (the default) is bench/tasks/, small one- or
two-file tasks; `repo` is bench/repo-tasks/, trimmed copies of real
open-source projects (1,500-6,000 lines, 15+ files) with one injected bug or
one missing feature each, checked by hidden tests (see
bench/repo-tasks/README.md). In the repo suite oc's default --timeout is 7m,
and aider gets no files on its command line (it relies on its repository
map, as its users do on a real project).

A benchmark, not a test: it needs a running Ollama with the models (see
../shared/tools/ollama/start.sh or any Ollama), and takes minutes per model.

Each task folder holds `task.json` ({"prompt", "check", "kind", "language"}),
`repo/` (the files the agent starts from, committed to a fresh git repo) and
optionally `check/` (files copied over the workspace before the check runs,
so an agent cannot pass by editing the tests). The check runs with bash in
the workspace; `$OC_ANSWER` is a file holding the agent's final answer. The
task is solved when the check exits 0. A repo-suite task also has
`solution.diff` (the reference fix, never shown to the agent) and its
task.json records "source", "lines" and "files".

    scripts/bench-real.sh [--suite small|repo] [--model M]... [--runs N]
                          [--seed S] [--tasks a,b] [--label L]
                          [--results FILE] [-- OC_ARGS...]
    scripts/bench-real.sh --summarize FILE     # table of all labels in FILE
    scripts/bench-real.py --suite repo --validate [--tasks a,b]
        # no model: each check must fail on repo/ and pass once
        # solution.diff is applied; sizes within the suite's limits
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
SUITES = {"small": ROOT / "bench" / "tasks", "repo": ROOT / "bench" / "repo-tasks"}
DEFAULT_TIMEOUT = {"small": "10m", "repo": "7m"}
# Size limits of a repo-suite task's repo/ (all files, all lines).
REPO_LINES = (1500, 6000)
REPO_MIN_FILES = 15


def load_tasks(names, suite="small"):
    tasks = []
    for folder in sorted(SUITES[suite].iterdir()):
        if not (folder / "task.json").is_file():
            continue
        if names and folder.name not in names:
            continue
        spec = json.loads((folder / "task.json").read_text())
        spec["name"] = folder.name
        spec["folder"] = folder
        spec["suite"] = suite
        tasks.append(spec)
    if names:
        missing = set(names) - {t["name"] for t in tasks}
        if missing:
            sys.exit(f"no such task: {', '.join(sorted(missing))}")
    return tasks


def git(args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def timeout_seconds(duration):
    """'7m', '90s', '1h30m' or a plain number of seconds, as oc's --timeout
    takes them (a limit for aider's run)."""
    scale = {"ms": 0.001, "s": 1, "": 1, "m": 60, "min": 60, "h": 3600}
    part = r"(\d+(?:\.\d+)?)\s*(ms|min|s|m|h|)\s*"
    if not re.fullmatch(f"\\s*(?:{part})+", duration):
        sys.exit(f"bad duration: {duration}")
    return sum(float(n) * scale[unit] for n, unit in re.findall(part, duration))


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


CHECK_ONLY = {"--attempts", "--fallback-model"}


def without_check_only(oc_args):
    """`oc_args` without the options that need `--check` (`--attempts N`,
    `--fallback-model M`): a task with no check (a question) runs once."""
    kept, skip = [], False
    for arg in oc_args:
        if skip:
            skip = False
        elif arg in CHECK_ONLY:
            skip = True
        elif arg.split("=", 1)[0] not in CHECK_ONLY:
            kept.append(arg)
    return kept


def run_oc(args, task, work, home, answer, model):
    cmd = [args.oc, "run", "--yes", "--output-format", "stream-json", "-o", str(answer),
           "--model", model, "--host", args.host, "--timeout", args.timeout]
    checked = args.with_check and "OC_ANSWER" not in task["check"]
    if checked:
        cmd += ["--check", check_command(task, work)]
    if args.seed is not None:
        cmd += ["--seed", str(args.seed)]
    cmd += (args.oc_args if checked else without_check_only(args.oc_args)) + [task["prompt"]]
    env = dict(os.environ, OC_HOME=str(home), NO_COLOR="1")
    started = time.monotonic()
    # stream-json, read as it comes: the time of the first reply, the first
    # request's prompt tokens, and the result (session.completed) at the end.
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    first_reply = first_prompt = None
    result = {}
    for line in proc.stdout:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("type") == "turn.completed" and first_reply is None:
            first_reply = round(time.monotonic() - started, 1)
            first_prompt = (event.get("usage") or {}).get("prompt_tokens")
        if event.get("type") == "session.completed":
            result = event
    stderr = proc.stderr.read()
    proc.wait()
    seconds = time.monotonic() - started
    usage = result.get("usage") or {}
    return {
        "exit": proc.returncode,
        "status": result.get("status", "?"),
        "turns": result.get("turns", 0),
        "prompt_tokens": usage.get("prompt_tokens", 0),
        "completion_tokens": usage.get("completion_tokens", 0),
        "seconds": round(seconds, 1),
        "first_reply_seconds": first_reply,
        "first_prompt_tokens": first_prompt,
        "speed": result.get("speed") or {},
        "attempts": [tried(a) for a in result.get("attempts") or []],
        "stderr_tail": stderr[-2000:],
    }


def tried(attempt):
    """One entry of the result's `attempts` array, as the summary reads it."""
    usage = attempt.get("usage") or {}
    return {"number": attempt.get("number"), "model": attempt.get("model"),
            "check_passed": attempt.get("check_passed"),
            "exit_reason": attempt.get("exit_reason"),
            "seconds": round((attempt.get("duration_ms") or 0) / 1000, 1),
            "tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)}


def run_aider(args, task, work, home, answer, model):
    # aider is given the files the prompt names, as its users do; in the repo
    # suite none (the prompts name no file): it finds them with its repo map.
    if task["suite"] == "repo":
        named = []
    else:
        named = [p for p in re.findall(r"[\w./-]+\.\w+", task["prompt"])
                 if (work / p).is_file()]
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
                              stdin=subprocess.DEVNULL, timeout=timeout_seconds(args.timeout))
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


def count_tree(root):
    """(lines, files) of every file under root."""
    files = [p for p in pathlib.Path(root).rglob("*") if p.is_file()]
    lines = sum(len(p.read_bytes().splitlines()) for p in files)
    return lines, len(files)


def tree_problems(root):
    """What a task's repo/ must not hold: VCS folders, caches, binaries."""
    problems = []
    for p in sorted(pathlib.Path(root).rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_dir() and (p.name in (".git", "__pycache__", "node_modules")
                           or p.name.endswith(".egg-info")):
            problems.append(f"{rel}/ should not be there")
        elif p.is_file() and (p.suffix in (".pyc", ".pyo") or b"\0" in p.read_bytes()):
            problems.append(f"{rel} is binary")
    return problems


def run_check(task, work, timeout=300):
    """The check on `work` with check/ copied in (as check() does) and an
    empty answer; returns (exit code, output tail)."""
    answer = work.parent / "answer.txt"
    answer.write_text("")
    if (task["folder"] / "check").is_dir():
        shutil.copytree(task["folder"] / "check", work, dirs_exist_ok=True)
    env = dict(os.environ, OC_ANSWER=str(answer))
    try:
        proc = subprocess.run(["bash", "-c", task["check"]], cwd=work, env=env,
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return 124, f"check timed out after {timeout} s"
    return proc.returncode, (proc.stdout + proc.stderr)[-300:]


def validate_task(task):
    """Problems of one task, without a model: the check must fail on repo/ as
    given and pass once solution.diff is applied (repo suite); sizes and
    task.json fields must fit the suite."""
    problems = []
    folder = task["folder"]
    for key in ("prompt", "check", "kind", "language"):
        if not task.get(key):
            problems.append(f"task.json lacks {key!r}")
    lines = files = None
    if task["suite"] == "repo":
        for key in ("source", "lines", "files"):
            if key not in task:
                problems.append(f"task.json lacks {key!r}")
        lines, files = count_tree(folder / "repo")
        if not REPO_LINES[0] <= lines <= REPO_LINES[1]:
            problems.append(f"repo/ has {lines} lines (want {REPO_LINES[0]}-{REPO_LINES[1]})")
        if files < REPO_MIN_FILES:
            problems.append(f"repo/ has {files} files (want {REPO_MIN_FILES} or more)")
        if task.get("lines") != lines or task.get("files") != files:
            problems.append(f"task.json says {task.get('lines')} lines, {task.get('files')} "
                            f"files; repo/ has {lines}, {files}")
        if not any(p.name.lower().startswith(("license", "copying"))
                   for p in (folder / "repo").iterdir()):
            problems.append("repo/ has no LICENSE or COPYING file")
        problems += tree_problems(folder / "repo")
    with tempfile.TemporaryDirectory(prefix="oc-validate-") as tmp:
        work = pathlib.Path(tmp) / "work"
        shutil.copytree(folder / "repo", work)
        code, out = run_check(task, work)
        if code == 0:
            problems.append("the check passes on repo/ as given")
    diff = folder / "solution.diff"
    if task["suite"] == "repo" and not diff.is_file():
        problems.append("no solution.diff")
    elif diff.is_file():
        changed = re.findall(r"^\+\+\+ b/(\S+)", diff.read_text(), flags=re.M)
        for path in changed:
            # The prompts describe the problem, never the file to change.
            if path in task["prompt"] or pathlib.PurePath(path).name in task["prompt"]:
                problems.append(f"the prompt names {path}, which the fix changes")
        with tempfile.TemporaryDirectory(prefix="oc-validate-") as tmp:
            work = pathlib.Path(tmp) / "work"
            shutil.copytree(folder / "repo", work)
            git(["init", "-q"], work)
            applied = subprocess.run(["git", "apply", "--whitespace=nowarn", str(diff.resolve())],
                                     cwd=work, capture_output=True, text=True)
            if applied.returncode != 0:
                problems.append("solution.diff does not apply: "
                                + " ".join(applied.stderr.split())[-200:])
            else:
                code, out = run_check(task, work)
                if code != 0:
                    tail = " ".join(out.split())[-160:]
                    problems.append(f"the check fails with solution.diff applied: {tail}")
    return problems, lines, files


def validate(args):
    tasks = load_tasks(args.tasks.split(",") if args.tasks else [], args.suite)
    bad = 0
    for task in tasks:
        started = time.monotonic()
        problems, lines, files = validate_task(task)
        size = f"{lines:5} lines {files:4} files" if lines is not None else ""
        verdict = "ok" if not problems else "INVALID: " + "; ".join(problems)
        print(f"{task['name']:26} {task.get('kind', '?')[:12]:12} {size:22} "
              f"{time.monotonic() - started:5.1f}s  {verdict}", flush=True)
        bad += bool(problems)
    print(f"\n{len(tasks) - bad} of {len(tasks)} {args.suite}-suite tasks valid")
    return 1 if bad else 0


def bench(args):
    tasks = load_tasks(args.tasks.split(",") if args.tasks else [], args.suite)
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
                    if args.keep:
                        # The run's OC_HOME (sessions, records), for reading later.
                        kept = pathlib.Path(args.keep) / f"{args.label or 'run'}-{model.replace(':', '_')}-{task['name']}-{run}"
                        shutil.rmtree(kept, ignore_errors=True)
                        shutil.copytree(home, kept)
                row.update(task=task["name"], suite=args.suite, model=model, run=run,
                           solved=solved, label=args.label, agent=args.agent, seed=args.seed,
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


def summarize_rows(rows, per_task=False):
    groups = {}
    for row in rows:
        # Rows written before suites existed are the small suite's.
        key = (row.get("suite", "small"), row.get("label", ""), row["model"])
        groups.setdefault(key, []).append(row)
    print(f"{'suite':6} {'label':28} {'model':20} {'solved':>9} {'runs':>5} {'exit 0':>7} "
          f"{'med s':>7} {'prompt tok':>11} {'compl tok':>10} {'med 1st s':>10} {'1st prompt':>11}")
    for (suite, label, model), group in sorted(groups.items()):
        runs = sorted({r["run"] for r in group})
        solved = sum(r["solved"] for r in group)
        per_run = len({r["task"] for r in group})
        firsts = [r["first_reply_seconds"] for r in group if r.get("first_reply_seconds")]
        first_prompts = [r["first_prompt_tokens"] for r in group if r.get("first_prompt_tokens")]
        print(f"{suite:6} {label or '-':28} {model:20} {solved / max(len(runs), 1):5.1f}/{per_run:<3} "
              f"{len(runs):5} {sum(r['exit'] == 0 for r in group):7} "
              f"{statistics.median(r['seconds'] for r in group):7.1f} "
              f"{sum(r['prompt_tokens'] for r in group) // len(group):11} "
              f"{sum(r['completion_tokens'] for r in group) // len(group):10} "
              f"{statistics.median(firsts) if firsts else float('nan'):10.1f} "
              f"{sum(first_prompts) // max(len(first_prompts), 1):11}")
    print("\n(solved: mean tasks solved per run; tokens: mean per task; 1st: the first"
          " reply's seconds from the start and its prompt tokens)")
    summarize_tries(groups)
    if per_task:
        print(f"\n{'suite':6} {'label':28} {'model':20} {'task':26} {'solved':>7} "
              f"{'prompt tok':>11} {'seconds':>8} {'1st s':>6}")
        for (suite, label, model), group in sorted(groups.items()):
            for r in sorted(group, key=lambda r: (r["task"], r["run"])):
                print(f"{suite:6} {label or '-':28} {model:20} {r['task']:26} "
                      f"{'yes' if r['solved'] else 'no':>7} {r['prompt_tokens']:11} "
                      f"{r['seconds']:8.1f} {r.get('first_reply_seconds') or 0:6.1f}")


def summarize_tries(groups):
    """For runs that made tries (`--attempts`, `--fallback-model`): how many
    tasks each try count would have solved. A run's first try is a one-try
    run with the same budget, so "by try 1" is the one-try figure."""
    tried = {key: group for key, group in groups.items()
             if any(r.get("attempts") for r in group)}
    if not tried:
        return
    print(f"\n{'suite':6} {'label':28} {'model':20} {'try':>4} {'passed by':>10} "
          f"{'med s to end of try':>20} {'tokens':>8} {'models'}")
    for (suite, label, model), group in sorted(tried.items()):
        runs = max(len({r["run"] for r in group}), 1)
        most = max(len(r.get("attempts") or []) for r in group)
        for n in range(1, most + 1):
            passed = sum(any(a["check_passed"] for a in (r.get("attempts") or [])[:n])
                         for r in group)
            ends = [sum(a["seconds"] for a in (r.get("attempts") or [])[:n]) for r in group
                    if r.get("attempts")]
            models = sorted({a["model"] for r in group for a in (r.get("attempts") or [])[n - 1:n]})
            tokens = sum(a.get("tokens", 0) for r in group
                         for a in (r.get("attempts") or [])[:n]) // max(len(group), 1)
            print(f"{suite:6} {label or '-':28} {model:20} {n:4} {passed / runs:10.1f} "
                  f"{statistics.median(ends):20.1f} {tokens:8} {', '.join(models)}")
    print("(passed by: mean tasks per run whose check passed in tries 1..n, the"
          " check oc was given; seconds: tries 1..n together; tokens: mean per task"
          " of tries 1..n)")


PUBLIC = ["task", "suite", "model", "label", "agent", "run", "seed", "solved", "exit",
          "status", "turns", "prompt_tokens", "completion_tokens", "seconds",
          "first_reply_seconds", "first_prompt_tokens"]


def write_public(rows, out, build):
    """`rows` as results to keep in the repository: the figures, each try's
    outcome, and `oc`'s arguments with the check (a path here) left out."""
    with open(out, "w") as f:
        for row in rows:
            kept = {k: row[k] for k in PUBLIC if k in row}
            kept["oc_args"] = row.get("oc_args", [])
            kept["attempts"] = [{k: a.get(k) for k in ("number", "model", "check_passed",
                                                       "seconds", "tokens")}
                                for a in row.get("attempts") or []]
            if build:
                kept["build"] = build
            f.write(json.dumps(kept) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append",
                        help="model name (repeatable) [default: qwen2.5-coder:1.5b and :0.5b]")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7, help="--seed for oc (default 7)")
    parser.add_argument("--suite", choices=sorted(SUITES), default="small",
                        help="small: bench/tasks/; repo: bench/repo-tasks/ (default small)")
    parser.add_argument("--tasks", help="comma-separated task names [default: all]")
    parser.add_argument("--label", default="", help="a name for this configuration")
    parser.add_argument("--results", help="append one JSON line per run to FILE")
    parser.add_argument("--host", default=os.environ.get("OLLAMA_HOST", "127.0.0.1:11434"))
    parser.add_argument("--oc", default=str(ROOT / "target" / "release" / "oc"))
    parser.add_argument("--timeout",
                        help="oc --timeout per task (and aider's limit) "
                             "[default: 10m, or 7m for the repo suite]")
    parser.add_argument("--agent", choices=["oc", "aider"], default="oc")
    parser.add_argument("--with-check", action="store_true",
                        help="give the agent the task's check (oc --check, aider --test-cmd); "
                             "question tasks get none")
    parser.add_argument("--aider", default="aider", help="the aider executable")
    parser.add_argument("--summarize", metavar="FILE", help="print the table of FILE and exit")
    parser.add_argument("--validate", action="store_true",
                        help="check the suite's tasks without a model: the check fails on "
                             "repo/ and passes with solution.diff applied (repo suite), "
                             "sizes fit; exit 1 if any task is invalid")
    parser.add_argument("--keep", metavar="DIR",
                        help="copy each run's OC_HOME (sessions, records) to DIR")
    parser.add_argument("--per-task", action="store_true",
                        help="with --summarize: also one line per task and run")
    parser.add_argument("--public", metavar="OUT",
                        help="with --summarize: also write FILE's rows to OUT without what "
                             "names this machine (stderr, diffs, check output, paths), "
                             "for bench/results/")
    parser.add_argument("--build", help="with --public: the build measured (a commit)")
    parser.add_argument("oc_args", nargs="*", help="extra arguments after --")
    args = parser.parse_args()
    if args.summarize:
        rows = [json.loads(line) for line in open(args.summarize) if line.strip()]
        summarize_rows(rows, args.per_task)
        if args.public:
            write_public(rows, args.public, args.build)
        return
    if args.validate:
        sys.exit(validate(args))
    args.timeout = args.timeout or DEFAULT_TIMEOUT[args.suite]
    args.model = args.model or ["qwen2.5-coder:1.5b", "qwen2.5-coder:0.5b"]
    bench(args)


if __name__ == "__main__":
    main()
