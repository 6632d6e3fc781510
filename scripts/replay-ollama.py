#!/usr/bin/env python3
"""A stand-in Ollama server that replays recorded /api/chat streams.

For trying `oc` where no Ollama runs (and for demos). It is a recording,
not a model: whatever the prompt, the answers are the ones recorded. It
answers GET /api/tags and POST /api/show from the real captures in
fixtures/ollama/, and each POST /api/chat with the NDJSON file given on the
command line for that request of the conversation (the first file for a
conversation's first request, the second for its next, ...; the last file
for any later one), one line per HTTP chunk, exactly as Ollama frames its
streams, so it serves run after run until stopped. A conversation is
known by its first two messages; a request no longer than the one before
it starts the conversation over. Every request body is appended to --log
as one JSON line.

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
    try:
        replies = [pathlib.Path(p).read_bytes().splitlines() for p in args.replies]
    except OSError as e:
        sys.exit(f"replay-ollama.py: cannot read a reply file: {e}")
    # Per conversation (its first two messages): requests served so far and
    # the length of the last one.
    conversations = {}

    def reply_for(messages):
        key = json.dumps(messages[:2], sort_keys=True)
        served, length = conversations.get(key, (0, -1))
        if len(messages) <= length:
            served = 0
        conversations[key] = (served + 1, len(messages))
        return replies[min(served, len(replies) - 1)]

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
            length = int(self.headers.get("Content-Length", 0) or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"null")
            except (json.JSONDecodeError, UnicodeDecodeError):
                body = None
            if not isinstance(body, dict):
                self.send_json(400, json.dumps({"error": "the request body is not a JSON object"}))
                return
            if args.log:
                with open(args.log, "a") as log:
                    log.write(json.dumps({"path": self.path, "body": body}) + "\n")
            model = body.get("model")
            if model != MODEL:
                self.send_json(404, json.dumps({"error": f"model '{model}' not found"}))
            elif self.path == "/api/show":
                self.send_json(200, (FIXTURES / "04-show-qwen2.5-coder-1.5b.json").read_text())
            elif self.path == "/api/chat" and isinstance(body.get("messages"), list):
                lines = reply_for(body["messages"])
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

    try:
        server = HTTPServer(("127.0.0.1", args.port), Handler)
    except OSError as e:
        sys.exit(f"replay-ollama.py: cannot listen on 127.0.0.1:{args.port}: {e.strerror}; "
                 f"pick another --port")
    print(f"replay server on http://127.0.0.1:{args.port}: a recording, not a model; "
          f"{len(replies)} recorded replies for {MODEL}, whatever the prompt "
          f"(stop it with Ctrl-C or kill)", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
