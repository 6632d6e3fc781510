#!/usr/bin/env bash
# Copies a directory to backup/<name>-<date>.
set -euo pipefail

src="${1:-}"
mkdir -p backup
cp -r "$src" "backup/$(basename "$src")-$(date +%F)"
echo "backed up $src"
