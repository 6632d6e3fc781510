#!/usr/bin/env python3
"""The job summary and step outputs of the oc action (action.yml).

Reads the sessions of one `oc run` from its OC_HOME (docs/sessions.md: one
`sessions/<id>.json` per try) and writes, in GitHub's Markdown, what a
reviewer of the job needs: the outcome by exit code, the check's result,
the files changed, each try with `--attempts`, and the final answer. Also
writes the step outputs `session-id` and `files-changed` (GitHub's
`name<<DELIMITER` form for many lines).

    summary.py --home DIR --exit-code N --stderr FILE --summary FILE --outputs FILE
"""

import argparse
import json
import pathlib
import re
import secrets

# README "Exit codes", in a few words each.
EXIT_CODES = {
    0: "done",
    1: "the run failed (server error or a broken stream)",
    2: "usage or configuration error",
    3: "model server unreachable, or the model is not on it",
    4: "the model did not finish (turn limit, repeated calls, or no context left)",
    5: "changes were denied: no rule approved them",
    6: "the check still fails",
    7: "the answer did not match the output schema",
    124: "the timeout was reached",
    129: "stopped: its terminal closed (SIGHUP)",
    130: "interrupted (SIGINT)",
    143: "terminated (SIGTERM)",
}


def sessions(home):
    """This run's sessions, oldest first (ids are ULIDs, so names sort by time)."""
    folder = pathlib.Path(home) / "sessions"
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, json.JSONDecodeError):
            continue
    return found


def kept(runs):
    """The try whose work the workspace holds: the last one not set aside."""
    chosen = [s for s in runs if not (s.get("attempt") or {}).get("set_aside")]
    return (chosen or runs or [None])[-1]


def reverted(session):
    """Whether the run's changes were put back (`--on-fail revert`)."""
    return bool(((session or {}).get("checkpoint") or {}).get("undone_at"))


def files_changed(session):
    """The files the workspace holds changed: none when they were put back."""
    if reverted(session):
        return []
    changes = ((session or {}).get("checkpoint") or {}).get("changes") or []
    return [c["path"] for c in changes if "path" in c]


def quoted(name):
    """A file name on one line: one with a control character (a newline in
    a name the model chose) is quoted and escaped, as git quotes it."""
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return json.dumps(name)
    return name


def code(text):
    """`text` as a Markdown code span, whatever backticks it holds."""
    text = quoted(text)
    run = max((len(r) for r in re.findall(r"`+", text)), default=0)
    ticks = "`" * (run + 1)
    pad = " " if run else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(text):
    """A code fence longer than any backtick run in `text`."""
    longest = max((len(r) for r in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def check_words(check):
    if not check:
        return "none given"
    if check.get("passed"):
        return f"{code(check['command'])} passed"
    failing = check.get("failing")
    detail = f", {failing} failing" if failing else ""
    status = check.get("exit_code")
    status = f"exit {status}" if status is not None else "did not finish"
    return f"{code(check['command'])} failed ({status}{detail})"


def tokens(session):
    usage = session.get("usage") or {}
    return usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)


def final_answer(session):
    for message in reversed((session or {}).get("messages") or []):
        if message.get("role") == "assistant" and (message.get("content") or "").strip():
            return message["content"].strip()
    return ""


def cell(text):
    """Text for one table cell: on one line, its `|` escaped."""
    return re.sub(r"[\r\n]+", " ", str(text)).replace("|", "\\|")


def summary(runs, exit_code, stderr_tail):
    meaning = EXIT_CODES.get(exit_code, "see README \"Exit codes\"")
    mark = "✅" if exit_code == 0 else "❌"
    out = [f"### {mark} oc run: exit {exit_code}, {meaning}", ""]
    session = kept(runs)
    if session is None:
        said = stderr_tail.strip() or "(nothing)"
        why = ("oc ended before a run started" if exit_code in (2, 3) else
               "no session was saved (`--no-save` or `--home` in `args`), so there is no more to show")
        out += [f"{why}; what it said:", "", fence(said), said, fence(said)]
        return "\n".join(out) + "\n"
    changed = [c.get("path", "") for c in (session.get("checkpoint") or {}).get("changes") or []]
    put_back = reverted(session)
    out += [
        "| | |",
        "|---|---|",
        f"| task | {cell(session.get('title', ''))} |",
        f"| model | {code(session.get('model', '?'))} |",
        f"| ended | {cell(session.get('exit_detail') or session.get('exit_reason') or session.get('status', '?'))} |",
        f"| check | {cell(check_words(session.get('check')))} |",
        f"| files changed | {cell(', '.join(code(f) for f in changed) or 'none')}"
        f"{' (all put back: --on-fail revert)' if put_back and changed else ''} |",
        f"| turns · tokens | {sum(s.get('turns', 0) for s in runs)} · "
        f"{sum(tokens(s) for s in runs):,} |",
        f"| session | {code(session['id'])} |",
        "",
    ]
    if len(runs) > 1:
        out += ["| try | model | check | turns | tokens | kept |",
                "|---|---|---|---|---|---|"]
        for s in runs:
            number = (s.get("attempt") or {}).get("number", "?")
            out.append(f"| {number} | {code(s.get('model', '?'))} | {cell(check_words(s.get('check')))} "
                       f"| {s.get('turns', 0)} | {tokens(s):,} | {'yes' if s is session else ''} |")
        out.append("")
    answer = final_answer(session)
    if answer:
        shown = answer[-4000:]
        out += ["<details><summary>The model's last answer</summary>", "",
                fence(shown) + "text", shown, fence(shown), "", "</details>"]
    return "\n".join(out) + "\n"


def outputs(runs):
    session = kept(runs)
    delimiter = f"OC_{secrets.token_hex(8)}"
    files = "\n".join(quoted(f) for f in files_changed(session))
    return (f"session-id={(session or {}).get('id', '')}\n"
            f"files-changed<<{delimiter}\n{files}\n{delimiter}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True)
    parser.add_argument("--exit-code", type=int, required=True)
    parser.add_argument("--stderr", required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--outputs", required=True)
    args = parser.parse_args()
    runs = sessions(args.home)
    try:
        tail = pathlib.Path(args.stderr).read_text(errors="replace")[-3000:]
    except OSError:
        tail = ""
    with open(args.summary, "a") as f:
        f.write(summary(runs, args.exit_code, tail))
    with open(args.outputs, "a") as f:
        f.write(outputs(runs))


if __name__ == "__main__":
    main()
