#!/usr/bin/env python3
"""Peak memory of `oc export-ft` on a large finetune.jsonl.

Generates FILE_MB of records (copies of the golden fixture's records with
fresh ids), runs `oc export-ft` once per format on it with the output thrown
away, and prints the peak resident set size of each run (from wait4's
rusage) next to the input size. Memory must not grow with the file.

    cargo build --release
    scripts/bench-export.py [--mb 200] [--oc target/release/oc]
"""

import argparse
import json
import os
import pathlib
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--oc", default=str(ROOT / "target" / "release" / "oc"))
    args = parser.parse_args()
    records = [
        json.loads(line)
        for line in (ROOT / "fixtures" / "finetune" / "records.jsonl").read_text().splitlines()
        if line.strip().endswith("}")
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "finetune.jsonl"
        target = args.mb * 1024 * 1024
        written = 0
        n = 0
        with path.open("w") as f:
            while written < target:
                record = dict(records[n % len(records)])
                record["session_id"] = f"bench-{n:012d}"
                line = json.dumps(record) + "\n"
                f.write(line)
                written += len(line)
                n += 1
        print(f"input: {written / 1e6:.0f} MB, {n} records")
        for fmt in ["openai", "hf", "sharegpt"]:
            started = time.monotonic()
            with open(os.devnull, "w") as sink:
                proc = subprocess.Popen(
                    [args.oc, "export-ft", "--input", str(path), "--format", fmt],
                    stdout=sink,
                    stderr=subprocess.PIPE,
                )
                _, status, usage = os.wait4(proc.pid, 0)
            elapsed = time.monotonic() - started
            summary = proc.stderr.read().decode().splitlines()[0]
            print(
                f"{fmt:9} exit {os.waitstatus_to_exitcode(status)}  peak RSS {usage.ru_maxrss / 1024:.1f} MB"
                f"  {elapsed:.1f} s  ({summary})"
            )


if __name__ == "__main__":
    main()
