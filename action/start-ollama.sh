#!/usr/bin/env bash
# Starts Ollama on the runner for the action (action.yml) when no model
# server was given: installs it with Ollama's own install script if it is
# not on PATH, serves it on 127.0.0.1:11434 with its models in
# ~/.ollama/models (the folder the action caches), and pulls every model in
# OC_MODELS (one per line; pulling a cached model only checks it).
#
# Environment: OC_MODELS, RUNNER_TEMP, GITHUB_ENV.
set -euo pipefail

if ! command -v ollama >/dev/null 2>&1; then
    echo "oc: installing Ollama (https://ollama.com/install.sh)"
    curl --proto '=https' --tlsv1.2 -fsSL https://ollama.com/install.sh | sh
    # The install script may start a system service with its own model
    # folder: stop it, so the cached folder below is the one served.
    if command -v systemctl >/dev/null 2>&1; then
        sudo systemctl stop ollama 2>/dev/null || true
    fi
fi

if ! curl -fs http://127.0.0.1:11434/api/version >/dev/null 2>&1; then
    mkdir -p "$HOME/.ollama/models"
    OLLAMA_MODELS="$HOME/.ollama/models" OLLAMA_HOST=127.0.0.1:11434 \
        nohup ollama serve > "$RUNNER_TEMP/ollama.log" 2>&1 &
    for _ in $(seq 120); do
        curl -fs http://127.0.0.1:11434/api/version >/dev/null 2>&1 && break
        sleep 0.5
    done
    curl -fs http://127.0.0.1:11434/api/version >/dev/null 2>&1 || {
        echo "::error title=Ollama::ollama serve did not answer within 60 s; its log follows"
        cat "$RUNNER_TEMP/ollama.log"
        exit 1
    }
fi
echo "OLLAMA_HOST=127.0.0.1:11434" >> "$GITHUB_ENV"

while IFS= read -r model; do
    model="${model#"${model%%[![:space:]]*}"}"
    model="${model%"${model##*[![:space:]]}"}"
    [ -n "$model" ] || continue
    echo "oc: pulling $model"
    OLLAMA_HOST=127.0.0.1:11434 ollama pull "$model"
done <<< "$OC_MODELS"
