#!/usr/bin/env python3
"""A stand-in Ollama server that replays recorded /api/chat streams.

For trying `oc` where no Ollama runs (and for demos). It is a recording,
not a model: whatever the prompt, the answers are the ones recorded. It
answers GET /api/tags and POST /api/show from the real captures in
fixtures/ollama/, and each POST /api/chat with the NDJSON file given on the
command line for that turn of the conversation (the first file when the
request holds no assistant message yet, the second after one, ...; the
last file for any later turn), one line per HTTP chunk, exactly as Ollama
frames its streams, so it serves run after run until stopped. Every
request body is appended to --log as one JSON line.

    scripts/replay-ollama.py --port 11500 \
        fixtures/ollama/07-chat-stream-tool-call.ndjson \
        fixtures/ollama/08-chat-stream-after-tool-result.ndjson
    OLLAMA_HOST=127.0.0.1:11500 oc run --model qwen2.5-coder:1.5b "…"

Only the model `qwen2.5-coder:1.5b` exists on it (and only that one is
listed). It listens on 127.0.0.1 only, until interrupted.
"""

import argparse
import json
import pathlib
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "ollama"
MODEL = "qwen2.5-coder:1.5b"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--log", help="append each request body here as JSON lines")
    parser.add_argument("replies", nargs="+", help="NDJSON files, one per /api/chat request")
    args = parser.parse_args()
    replies = [pathlib.Path(p).read_bytes().splitlines() for p in args.replies]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def send_json(self, status, body):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

        def do_GET(self):
            if self.path == "/api/tags":
                tags = json.loads((FIXTURES / "03-tags.json").read_text())
                tags["models"] = [m for m in tags["models"] if m.get("name") == MODEL]
                self.send_json(200, json.dumps(tags))
            else:
                self.send_json(404, "404 page not found")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"null")
            if args.log:
                with open(args.log, "a") as log:
                    log.write(json.dumps({"path": self.path, "body": body}) + "\n")
            model = (body or {}).get("model")
            if model != MODEL:
                self.send_json(404, json.dumps({"error": f"model '{model}' not found"}))
            elif self.path == "/api/show":
                self.send_json(200, (FIXTURES / "04-show-qwen2.5-coder-1.5b.json").read_text())
            elif self.path == "/api/chat":
                turn = sum(m.get("role") == "assistant" for m in body.get("messages") or [])
                lines = replies[min(turn, len(replies) - 1)]
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Connection", "close")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for line in lines:
                    chunk = line + b"\n"
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.close_connection = True
            else:
                self.send_json(404, "404 page not found")

    server = HTTPServer(("127.0.0.1", args.port), Handler)
    print(f"replay server on http://127.0.0.1:{args.port}: a recording, not a model; "
          f"{len(replies)} recorded replies for {MODEL}, whatever the prompt "
          f"(stop it with Ctrl-C or kill)", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
