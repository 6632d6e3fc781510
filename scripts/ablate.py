#!/usr/bin/env python3
"""What each heuristic is worth: the benchmarks run with each switched off in
turn (`OC_DISABLE=NAME`), beside the defaults.

The heuristics and what each answers are read from src/heuristics.rs (the
registry `OC_DISABLE` takes its names from).

    scripts/ablate.py localise [--oc BIN] [--out FILE]
        # the localisation benchmark (no model, about 40 s a switch): which
        # code the first request shows, and its tokens, with each off
    scripts/ablate.py real --results FILE [--oc BIN] [--model M]
                      [--switches a,b] [--suite small|repo] [--runs N]
                      [--tasks a,b] [--no-defaults]
        # the real suite with each named switch off (label "off: NAME"),
        # after the defaults (label "defaults"), appended to FILE; needs a
        # running Ollama with the model, minutes a switch
    scripts/ablate.py table [--localise FILE] [--real FILE]...
        # the docs table: for each heuristic, what switching it off did

Prints the table at the end of `localise` and `real` too. A benchmark, not a
test: `cargo build --release` first (the default --oc is
target/release/oc).
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def registry() -> list[tuple[str, str]]:
    """(name, what it answers) for every heuristic, in registry order."""
    text = (ROOT / "src" / "heuristics.rs").read_text()
    rows = re.findall(r'entry\(\s*Heuristic::\w+,\s*"([^"]+)",\s*"([^"]+)"', text)
    if not rows:
        sys.exit("no heuristic found in src/heuristics.rs")
    return rows


def localise(args) -> None:
    rows = {}
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="ablate-"))
    for name in [""] + [n for n, _ in registry()]:
        out = scratch / f"{name or 'defaults'}.json"
        env = dict(os.environ, OC_DISABLE=name)
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "bench-localise.py"), "--oc", args.oc,
             "--suite", "all", "--json", str(out)],
            env=env, check=True, stdout=subprocess.DEVNULL)
        summary = json.loads(out.read_text())["summary"]
        rows[name or "defaults"] = summary
        print(f"{name or 'defaults':18} {summary}", file=sys.stderr)
    pathlib.Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows, []))


def real(args) -> None:
    names = args.switches.split(",") if args.switches else [n for n, _ in registry()]
    known = {n for n, _ in registry()}
    unknown = [n for n in names if n not in known]
    if unknown:
        sys.exit(f"not heuristics: {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    configs = ([] if args.no_defaults else [("defaults", "")]) + [(f"off: {n}", n) for n in names]
    for label, off in configs:
        command = [sys.executable, str(ROOT / "scripts" / "bench-real.py"), "--oc", args.oc,
                   "--suite", args.suite, "--model", args.model, "--runs", str(args.runs),
                   "--with-check", "--label", label, "--results", args.results]
        if args.tasks:
            command += ["--tasks", args.tasks]
        print(f"== {label}", file=sys.stderr, flush=True)
        subprocess.run(command, env=dict(os.environ, OC_DISABLE=off), check=True)
    print(table({}, [args.results]))


def solved_by_label(file: str) -> dict:
    """(suite, model, label) → (tasks solved per run, tasks a run) in one
    results file."""
    groups: dict = {}
    for line in pathlib.Path(file).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            key = (row.get("suite", "small"), row["model"], row.get("label", ""))
            groups.setdefault(key, []).append(row)
    result = {}
    for key, rows in groups.items():
        runs = {r.get("run", 0) for r in rows}
        tasks = len({r["task"] for r in rows})
        result[key] = (sum(r["solved"] for r in rows) / max(len(runs), 1), tasks)
    return result


def table(localised: dict, real_files: list[str]) -> str:
    """The docs table: a row per heuristic; the localisation figures, then
    a column per suite and model of each results file (its run N)."""
    columns = []  # (header, {(label): (solved, tasks)})
    seen: dict = {}
    for file in real_files:
        solved = solved_by_label(file)
        for suite, model in sorted({(s, m) for s, m, _ in solved}):
            seen[(suite, model)] = seen.get((suite, model), 0) + 1
            header = f"{suite} {model.split(':')[-1].upper()}, run {seen[(suite, model)]}"
            cells = {label: got for (s, m, label), got in solved.items() if (s, m) == (suite, model)}
            columns.append((header, cells))
    head = ["heuristic", "answers"]
    if localised:
        head += ["repo hunks shown /18", "repo median tokens", "small median tokens"]
    head += [h for h, _ in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, answers in [("defaults", "(everything on)")] + registry():
        cells = [f"`{name}`" if name != "defaults" else "**defaults**", answers]
        if localised:
            s = localised.get(name)
            cells += [str(s["all_hunks_shown"]), f'{s["median_tokens"]:g}',
                      f'{s["small_median_tokens"]:g}'] if s else ["", "", ""]
        label = "defaults" if name == "defaults" else f"off: {name}"
        for _, got in columns:
            cell = got.get(label)
            cells.append(f"{cell[0]:g}/{cell[1]}" if cell else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    loc = sub.add_parser("localise")
    loc.add_argument("--oc", default=str(ROOT / "target" / "release" / "oc"))
    loc.add_argument("--out", default="ablate-localise.json")
    rl = sub.add_parser("real")
    rl.add_argument("--oc", default=str(ROOT / "target" / "release" / "oc"))
    rl.add_argument("--results", required=True)
    rl.add_argument("--model", default="qwen2.5-coder:1.5b")
    rl.add_argument("--switches", default="")
    rl.add_argument("--suite", default="small", choices=["small", "repo"])
    rl.add_argument("--runs", type=int, default=1)
    rl.add_argument("--tasks", default="")
    rl.add_argument("--no-defaults", action="store_true")
    tb = sub.add_parser("table")
    tb.add_argument("--localise", default="")
    tb.add_argument("--real", action="append", default=[])
    args = parser.parse_args()
    if args.command == "localise":
        localise(args)
    elif args.command == "real":
        real(args)
    else:
        localised = json.loads(pathlib.Path(args.localise).read_text()) if args.localise else {}
        print(table(localised, args.real))


if __name__ == "__main__":
    main()
