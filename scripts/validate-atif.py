#!/usr/bin/env python3
"""Checks ATIF trajectories (one JSON document a line on stdin, as
`oc export-ft --format atif` writes them) with the pydantic models of the
`atif` package (PyPI), and prints how many passed.

    python3 -m venv .venv && .venv/bin/pip install atif
    oc export-ft --format atif | .venv/bin/python scripts/validate-atif.py

Exits 1 at the first line the models refuse, naming it and why; 2 when the
package is missing.
"""

import json
import sys

try:
    from importlib.metadata import version

    from atif import Trajectory
except ImportError:
    print("the `atif` package is not installed (pip install atif)", file=sys.stderr)
    sys.exit(2)


def main():
    count = 0
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            Trajectory.model_validate(json.loads(line))
        except Exception as error:  # noqa: BLE001 - any refusal is reported
            print(f"line {number}: {error}", file=sys.stderr)
            sys.exit(1)
        count += 1
    print(f"{count} trajectories valid (atif {version('atif')})")


if __name__ == "__main__":
    main()
