#!/usr/bin/env python3
"""Lines of code outside tests under src/: the lines of every .rs file
that are neither blank nor only a comment (`//`, `///`, `//!`), less the
files that are only tests (`tests.rs`, `*_tests.rs`, files under a
`tests/` folder) and
each `#[cfg(test)]` item (a `mod tests { … }` block, counted to its closing
brace at the start of a line).

    scripts/lines-outside-tests.py [--by-file] [SRC]

Prints the total (and, after it, every line outside tests with blanks and
comments); `--by-file` prints each file's count first, largest last.
"""
import argparse
import pathlib


def outside_tests(text: str) -> tuple[int, int]:
    """(code lines, all lines) of one file outside its test items."""
    lines = text.splitlines()
    count = 0
    code = 0
    skipping = False
    for at, line in enumerate(lines):
        if skipping:
            if line.startswith("}"):
                skipping = False
            continue
        if line.strip() == "#[cfg(test)]":
            nxt = lines[at + 1] if at + 1 < len(lines) else ""
            # A test module opens a block; a test-only item on one line ends.
            skipping = nxt.rstrip().endswith("{") and not nxt.rstrip().endswith("}")
            continue
        count += 1
        if line.strip() and not line.strip().startswith("//"):
            code += 1
    return code, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", default="src")
    parser.add_argument("--by-file", action="store_true")
    args = parser.parse_args()
    rows = []
    for path in sorted(pathlib.Path(args.src).rglob("*.rs")):
        if path.name.endswith("tests.rs") or "tests" in path.parts[:-1]:
            continue
        code, every = outside_tests(path.read_text())
        rows.append((code, every, str(path)))
    if args.by_file:
        for code, _, path in sorted(rows):
            print(f"{code:6} {path}")
    total = sum(code for code, _, _ in rows)
    every = sum(n for _, n, _ in rows)
    print(f"{total} lines of code outside tests ({every} with blanks and comments)")


if __name__ == "__main__":
    main()
