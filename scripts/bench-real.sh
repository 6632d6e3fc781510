#!/usr/bin/env bash
# The real-model benchmark: runs oc on bench/tasks/ (--suite small, the
# default) or bench/repo-tasks/ (--suite repo) against a real Ollama.
# See scripts/bench-real.py --help. Builds the release binary first, except
# for --validate and --summarize, which run no agent.
set -euo pipefail
cd "$(dirname "$0")/.."
case " $* " in
  *" --validate "*|*" --summarize "*|*" --summarize="*) ;;
  *) cargo build --release --quiet ;;
esac
exec python3 scripts/bench-real.py "$@"
