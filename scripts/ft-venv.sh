#!/usr/bin/env bash
# Makes target/ft-venv: a Python venv with the trainers' packages the
# fine-tuning export tests check against (`atif` for ATIF, `jinja2` for the
# hf chat template). Does nothing when it is already made. The tests run
# this themselves when the venv is missing; needs python3 with venv and
# PyPI access.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/ft-venv
[ -f "$venv/.ready" ] && exit 0
rm -rf "$venv"
python3 -m venv "$venv" 2>/dev/null || {
    echo "scripts/ft-venv.sh: python3 cannot make a venv: install python3-venv (Debian, Ubuntu) and run it again" >&2
    exit 1
}
"$venv/bin/pip" install -q atif==1.8.0 jinja2==3.1.6
touch "$venv/.ready"
