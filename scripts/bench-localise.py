#!/usr/bin/env python3
"""Localisation benchmark: which code `oc`'s first request shows, with no model.

For every task of bench/repo-tasks (and, with `--suite small` or `all`,
bench/tasks), `oc run` starts in a fresh git copy of the task's repo/ with
`--check` (`auto` by default), against a scripted model server on 127.0.0.1
that speaks Ollama's wire format (the real /api/tags and /api/show captures
of fixtures/ollama/, and a recorded plain reply to every /api/chat). `oc`
does everything it does before the first request for real: it runs the
check, picks the files (grounding), builds the map and the prompt. The
server keeps the first /api/chat body, and the run stops after one turn.

For a repo task the first request is held against the task's reference fix
(solution.diff): a hunk is *shown* when the original lines it changes (for a
hunk that only adds, the lines around the insertion) appear in the request
verbatim, in one piece; its *definition* is shown when the whole function
or class around it does (Python, found with `ast`; for other languages the
hunk counts). The request's tokens are estimated from its characters
(`--chars-per-token`, calibrated against Ollama's prompt_eval_count for
qwen2.5-coder; see docs/benchmarks.md).

    scripts/bench-localise.py [--oc target/debug/oc] [--suite repo|small|heldout|all]
                              [--check auto|task] [--tasks a,b] [--json FILE] [--stderr]
                              [--floor N] [--max-median-tokens T]
                              [--calibrate http://127.0.0.1:11434]

`--check task` runs the suite's own check (hidden tests included, as
scripts/bench-real.py --with-check does) instead of `--check auto`.
`--floor N` exits 1 when fewer than N repo tasks show every hunk;
`--max-median-tokens T` exits 1 when the median first request is larger.
A small-suite task has no reference fix: its row lists the files shown
(whole, or in parts), so a change that stops showing one is seen.
"""

import argparse
import ast
import importlib.util
import json
import os
import pathlib
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "ollama"
MODEL = "qwen2.5-coder:1.5b"
# Characters per prompt token of qwen2.5-coder's tokenizer on these first
# requests (code, English and JSON), measured against Ollama's
# prompt_eval_count (docs/benchmarks.md).
CHARS_PER_TOKEN = 3.5
# An insertion counts as shown when code this many lines from it is.
INSERT_NEAR = 8

_spec = importlib.util.spec_from_file_location("bench_real", ROOT / "scripts" / "bench-real.py")
bench_real = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_real)


class ScriptedOllama:
    """An Ollama stand-in on 127.0.0.1: real captures for /api/tags and
    /api/show, a recorded plain reply for every /api/chat; keeps the bodies
    of the /api/chat requests."""

    def __init__(self):
        self.requests = []
        reply = (FIXTURES / "05-chat-stream-plain.ndjson").read_bytes().splitlines()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_):
                pass

            def send_json(self, status, text):
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path == "/api/tags":
                    self.send_json(200, (FIXTURES / "03-tags.json").read_text())
                else:
                    self.send_json(404, "404 page not found")

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"null") or {}
                if body.get("model") != MODEL:
                    self.send_json(404, json.dumps({"error": f"model '{body.get('model')}' not found"}))
                elif self.path == "/api/show":
                    self.send_json(200, (FIXTURES / "04-show-qwen2.5-coder-1.5b.json").read_text())
                elif self.path == "/api/chat":
                    owner.requests.append(body)
                    self.send_response(200)
                    self.send_header("Content-Type", "application/x-ndjson")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for line in reply:
                        chunk = line + b"\n"
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_json(404, "404 page not found")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def run_oc(args, server, work, home, extra):
    cmd = [args.oc, "run", "--yes", "--model", MODEL, "--host", server.url,
           "--max-turns", "1", *extra]
    env = dict(os.environ, OC_HOME=str(home), NO_COLOR="1")
    server.requests.clear()
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)


def first_request(args, server, task, work, home):
    """Runs `oc` on `task` in `work` until its first request; returns that
    request's body (or None), oc's stderr and the seconds it took."""
    check = "auto" if args.check == "auto" else bench_real.check_command(task, work)
    started = time.monotonic()
    proc = run_oc(args, server, work, home, ["--check", check, task["prompt"]])
    if proc.returncode == 2 and "found no test command" in proc.stderr:
        # What a user gets then: they run without a check.
        first = proc.stderr.strip().splitlines()[-1]
        proc = run_oc(args, server, work, home, [task["prompt"]])
        proc.stderr = f"{first}\n{proc.stderr}"
    seconds = time.monotonic() - started
    body = server.requests[0] if server.requests else None
    return body, proc.stderr, seconds


def request_text(body):
    """Everything the model reads in a request: the messages' text and
    tool calls, and the tool schemas."""
    parts = []
    for message in body.get("messages", []):
        parts.append(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            parts.append(json.dumps(call.get("function", {})))
    if body.get("tools"):
        parts.append(json.dumps(body["tools"]))
    if body.get("format"):
        parts.append(json.dumps(body["format"]))
    return "\n".join(parts)


def hunks(diff_text):
    """The reference fix's hunks: (path, first, last, inserted, edits):
    the original line numbers (1-based, inclusive) of what a hunk changes,
    or, for a hunk that only adds (`inserted`), the line next to the
    insertion; `edits` are its added and removed lines."""
    found = []
    path = None
    lines = diff_text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- "):
            path = None if line[4:] == "/dev/null" else line[4:].removeprefix("a/")
        head = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if head and path:
            old = int(head.group(1))
            changed = []
            # For an insertion: the last line before it that is not blank,
            # else the first such line after it.
            before = after = None
            inserted = False
            edits = []
            i += 1
            while i < len(lines) and not lines[i].startswith(("@@", "diff ", "--- ")):
                mark, body = lines[i][:1], lines[i][1:]
                if mark in "+-" and mark:
                    edits.append(body)
                if mark == "-":
                    changed.append(old)
                    old += 1
                elif mark == "+":
                    inserted = True
                elif mark in (" ", ""):
                    if body.strip() and not inserted:
                        before = old
                    elif body.strip() and after is None:
                        after = old
                    old += 1
                i += 1
            if changed:
                found.append((path, min(changed), max(changed), False, edits))
            elif inserted and (before or after):
                anchor = before or after
                found.append((path, anchor, anchor, True, edits))
            continue
        i += 1
    return found


def definition_around(source, path, first, last):
    """The innermost Python function or class holding lines first..last:
    (start, end, docstring lines); None when there is none or the file is
    not Python."""
    if not path.endswith(".py"):
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start <= first and node.end_lineno >= last:
                if best is None or node.end_lineno - start < best[1] - best[0]:
                    doc = node.body[0] if node.body else None
                    docstring = set()
                    if (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                            and isinstance(doc.value.value, str)):
                        docstring = set(range(doc.lineno, doc.end_lineno + 1))
                    best = (start, node.end_lineno, docstring)
    return best


def shown(text, source_lines, first, last):
    """Whether original lines first..last appear in `text` in one piece
    (blank lines at either end do not count)."""
    block = [line.rstrip() for line in source_lines[first - 1:last]]
    while block and not block[0].strip():
        block.pop(0)
    while block and not block[-1].strip():
        block.pop()
    return bool(block) and "\n".join(block) in text


def definition_shown(text, source_lines, around):
    """Whether the definition (start, end, docstring lines) is shown whole:
    its lines, in order and close together, with its docstring allowed to
    be cut short (oc shows a long docstring's first line only)."""
    start, end, docstring = around
    wanted = [source_lines[n - 1].strip() for n in range(start, end + 1)
              if n not in docstring and source_lines[n - 1].strip()]
    if not wanted:
        return False
    span = sum(len(line) + 1 for line in source_lines[start - 1:end]) + 400
    at = text.find(wanted[0])
    while at >= 0:
        pos, ok = at, True
        for line in wanted[1:]:
            pos = text.find(line, pos)
            if pos < 0 or pos - at > span:
                ok = False
                break
        if ok:
            return True
        at = text.find(wanted[0], at + 1)
    return False


def docstring_lines(source, path):
    """The line numbers of the Python file's docstrings (module, classes,
    functions)."""
    if not path.endswith(".py"):
        return set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = node.body[0] if node.body else None
            if (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)):
                found.update(range(doc.lineno, doc.end_lineno + 1))
    return found


def is_documentation(path, source, first, last, edits):
    """Whether a hunk only documents: a prose file, lines inside a
    docstring, or comments only."""
    if path.lower().endswith((".md", ".rst", ".txt")):
        return True
    if set(range(first, last + 1)) <= docstring_lines(source, path):
        return True
    return all(e.strip().startswith(("#", "//", "*", "/*")) or not e.strip() for e in edits)


def score_repo_task(task, work, text):
    """Per hunk of the reference fix: whether it and its definition are
    shown, and whether it only documents. An insertion is shown when
    two lines in a row within INSERT_NEAR lines of it are: new code has no
    one right place, only a neighbourhood."""
    rows = []
    diff = (task["folder"] / "solution.diff").read_text()
    for path, first, last, inserted, edits in hunks(diff):
        source = (work / path).read_text(errors="replace")
        lines = [line.rstrip() for line in source.splitlines()]
        text_lines = "\n".join(line.rstrip() for line in text.splitlines())
        if inserted:
            near = range(max(first - INSERT_NEAR, 1), min(first + INSERT_NEAR, len(lines)))
            hunk = any(lines[n - 1].strip() and lines[n].strip() and shown(text_lines, lines, n, n + 1)
                       for n in near)
        else:
            hunk = shown(text_lines, lines, first, last)
        around = definition_around(source, path, first, last)
        whole = hunk if around is None else hunk and definition_shown(text_lines, lines, around)
        rows.append({"path": path, "lines": [first, last], "shown": hunk,
                     "documentation": is_documentation(path, source, first, last, edits),
                     "definition": list(around[:2]) if around else None,
                     "definition_shown": whole})
    return rows


def shown_files(stderr):
    """The files oc said it shows, a line each ("showing the model a.py
    (parts): why"), without the reasons."""
    shown = []
    for line in stderr.splitlines():
        if "showing the model " in line and " map of " not in line:
            shown.append(line.split("showing the model ", 1)[1].split(": ", 1)[0].strip())
    return ", ".join(shown)


def run_task(args, server, task):
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp) / "work"
        home = pathlib.Path(tmp) / "home"
        work.mkdir()
        home.mkdir()
        bench_real.prepare(task, work)
        body, stderr, seconds = first_request(args, server, task, work, home)
        row = {"task": task["name"], "suite": task["suite"], "seconds": round(seconds, 1)}
        if body is None:
            row.update(error="no request was made", stderr=stderr[-1500:])
            return row
        text = request_text(body)
        row["chars"] = len(text)
        row["tokens"] = round(len(text) / args.chars_per_token)
        row["files"] = shown_files(stderr)
        if args.stderr:
            row["stderr"] = stderr
        row["check"] = next((line.split("running the check ", 1)[1] for line in stderr.splitlines()
                             if "running the check " in line), None)
        if "found no test command" in stderr:
            row["check"] = "none found"
        if (task["folder"] / "solution.diff").is_file():
            row["hunks"] = score_repo_task(task, work, text)
        if args.calibrate:
            calibrate(args.calibrate, row, body)
        if args.keep:
            out = pathlib.Path(args.keep) / f"{task['name']}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(body, indent=1))
        return row


def calibrate(url, row, body):
    """Sends `body` to a real Ollama at `url` for one token and puts its
    prompt_eval_count (the prompt's real tokens) in `row`."""
    import urllib.request
    body = dict(body, stream=False, options=dict(body.get("options") or {}, num_predict=1))
    request = urllib.request.Request(f"{url}/api/chat", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=900) as response:
        answer = json.load(response)
    row["real_tokens"] = answer.get("prompt_eval_count")
    if row["real_tokens"]:
        row["chars_per_token"] = round(row["chars"] / row["real_tokens"], 2)


def print_row(row):
    if "error" in row:
        print(f"{row['task']:<28} ERROR {row['error']}\n{row['stderr']}")
        return
    mark = ""
    if "hunks" in row:
        code = code_hunks(row)
        hunks_ok = sum(h["shown"] for h in code)
        defs_ok = sum(h["definition_shown"] for h in code)
        docs = len(row["hunks"]) - len(code)
        mark = f"hunks {hunks_ok}/{len(code)}  defs {defs_ok}/{len(code)}"
        mark = ("ok    " if hunks_ok == len(code) else "MISS  ") + mark
        mark += f" +{docs} doc" if docs else ""
    real = f" (real {row['real_tokens']}, {row['chars_per_token']} ch/tok)" if row.get("real_tokens") else ""
    print(f"{row['task']:<28} {mark:<28} {row['tokens']:>6} tok{real} {row['seconds']:>5}s  {row['files']}")
    if row.get("stderr"):
        print("".join(f"    | {line}\n" for line in row["stderr"].splitlines()), end="")


def code_hunks(row):
    """The hunks that change code, not only its documentation."""
    return [h for h in row["hunks"] if not h["documentation"]]


def summarize(rows):
    repo = [r for r in rows if "hunks" in r]
    whole = sum(all(h["shown"] for h in code_hunks(r)) for r in repo)
    defs = sum(all(h["definition_shown"] for h in code_hunks(r)) for r in repo)
    strict = sum(all(h["shown"] for h in r["hunks"]) for r in repo)
    tokens = [r["tokens"] for r in repo if "tokens" in r]
    small = [r["tokens"] for r in rows if "tokens" in r and "hunks" not in r]
    ratios = [r["chars_per_token"] for r in rows if r.get("chars_per_token")]
    if ratios:
        print(f"calibration: a median {statistics.median(ratios)} characters per real prompt token "
              f"over {len(ratios)} requests")
    summary = {"repo_tasks": len(repo), "all_hunks_shown": whole, "all_definitions_shown": defs,
               "all_hunks_shown_documentation_too": strict,
               "median_tokens": statistics.median(tokens) if tokens else None,
               "max_tokens": max(tokens) if tokens else None,
               "small_median_tokens": statistics.median(small) if small else None}
    if repo:
        print(f"\nrepo tasks: every code hunk shown in {whole}/{len(repo)} (documentation too: "
              f"{strict}), every definition whole in {defs}/{len(repo)}; first request median {summary['median_tokens']} tokens "
              f"(max {summary['max_tokens']})")
    if small:
        print(f"small tasks: first request median {summary['small_median_tokens']} tokens")
    return summary


def positive(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oc", default=str(ROOT / "target" / "debug" / "oc"),
                        help="the oc binary to measure (default: target/debug/oc)")
    parser.add_argument("--suite", choices=["repo", "small", "heldout", "all"], default="repo",
                        help="bench/repo-tasks, bench/tasks, bench/heldout-tasks, or repo and small")
    parser.add_argument("--check", choices=["auto", "task"], default="auto",
                        help="--check auto (default), or the task's own check command")
    parser.add_argument("--tasks", help="comma-separated task names")
    parser.add_argument("--chars-per-token", type=positive, default=CHARS_PER_TOKEN,
                        help=f"characters per prompt token for the estimate (default {CHARS_PER_TOKEN})")
    parser.add_argument("--json", help="write the rows and the summary here")
    parser.add_argument("--keep", help="keep each first request body in this folder")
    parser.add_argument("--stderr", action="store_true",
                        help="print oc's stderr under each task (what it shows and why)")
    parser.add_argument("--calibrate", metavar="URL",
                        help="also send each first request to this real Ollama for its token count")
    parser.add_argument("--floor", type=int, help="fail below this many repo tasks fully shown")
    parser.add_argument("--max-median-tokens", type=int,
                        help="fail when the repo tasks' median first request is larger")
    args = parser.parse_args()
    if not os.access(args.oc, os.X_OK) or os.path.isdir(args.oc):
        parser.error(f"--oc {args.oc}: not an executable file; build it with `cargo build` or pass its path")
    if args.keep and pathlib.Path(args.keep).exists() and not pathlib.Path(args.keep).is_dir():
        parser.error(f"--keep {args.keep}: exists and is not a folder")
    names = set(args.tasks.split(",")) if args.tasks else None
    suites = ["repo", "small"] if args.suite == "all" else [args.suite]
    bench_real.SUITES.setdefault("heldout", ROOT / "bench" / "heldout-tasks")
    tasks = []
    for suite in suites:
        wanted = names and {n for n in names if (bench_real.SUITES[suite] / n).is_dir()}
        if names and not wanted:
            continue
        tasks += bench_real.load_tasks(wanted, suite)
    unknown = sorted((names or set()) - {t["name"] for t in tasks})
    if unknown:
        parser.error(f"no such task in --suite {args.suite}: {', '.join(unknown)}")
    server = ScriptedOllama()
    started = time.monotonic()
    rows = []
    for task in tasks:
        row = run_task(args, server, task)
        print_row(row)
        rows.append(row)
    summary = summarize(rows)
    print(f"({len(rows)} tasks in {time.monotonic() - started:.0f} s, --check {args.check})")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    failed = [r["task"] for r in rows if "error" in r]
    if failed:
        sys.exit(f"no first request for: {', '.join(failed)}")
    if args.floor is not None and summary["all_hunks_shown"] < args.floor:
        sys.exit(f"below the floor: {summary['all_hunks_shown']} < {args.floor} tasks fully shown")
    if args.max_median_tokens is not None and (summary["median_tokens"] or 0) > args.max_median_tokens:
        sys.exit(f"median first request {summary['median_tokens']} > {args.max_median_tokens} tokens")


if __name__ == "__main__":
    main()
