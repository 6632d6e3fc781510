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
    for name in [""] + [n for n, _ in registry()]:
        out = pathlib.Path(f"/tmp/ablate-localise-{name or 'defaults'}.json")
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


def solved_by_label(files: list[str]) -> dict:
    """(suite, model, label) → (tasks solved per run, tasks a run, median s)."""
    groups: dict = {}
    for file in files:
        for line in pathlib.Path(file).read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                key = (row.get("suite", "small"), row["model"], row.get("label", ""))
                groups.setdefault(key, []).append(row)
    result = {}
    for key, rows in groups.items():
        runs = {r.get("run", 0) for r in rows}
        tasks = len({r["task"] for r in rows})
        seconds = sorted(r.get("seconds", 0) for r in rows)
        median = seconds[len(seconds) // 2] if seconds else 0
        result[key] = (sum(r["solved"] for r in rows) / max(len(runs), 1), tasks, median)
    return result


def table(localised: dict, real_files: list[str]) -> str:
    solved = solved_by_label(real_files) if real_files else {}
    columns = sorted({(suite, model) for suite, model, _ in solved})
    head = ["heuristic", "answers"]
    if localised:
        head += ["repo hunks shown /18", "repo median tokens", "small median tokens"]
    head += [f"{suite} {model.split(':')[-1]} solved" for suite, model in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, answers in [("defaults", "(everything on)")] + registry():
        cells = [f"`{name}`" if name != "defaults" else "**defaults**", answers]
        if localised:
            s = localised.get(name)
            cells += [str(s["all_hunks_shown"]), str(s["median_tokens"]),
                      str(s["small_median_tokens"])] if s else ["", "", ""]
        label = "defaults" if name == "defaults" else f"off: {name}"
        for suite, model in columns:
            got = solved.get((suite, model, label))
            cells.append(f"{got[0]:g}/{got[1]}" if got else "")
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
