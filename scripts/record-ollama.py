#!/usr/bin/env python3
"""A recording proxy for a real Ollama: point `oc --host` at it, and every
`/api/chat` exchange is saved as a fixture pair, the exact request body
(`NN-<name>.request.json`) and the exact streamed response body
(`NN-<name>.ndjson`). Other paths are passed through unrecorded.

    scripts/record-ollama.py --upstream 127.0.0.1:11434 --port 11600 \\
        --out fixtures/ollama/real-model --name whole-off-by-one
    oc run --host 127.0.0.1:11600 -m qwen2.5-coder:1.5b ...

For capturing what real models send; not used by the tests.
"""

import argparse
import http.client
import http.server
import pathlib
import threading


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", default="127.0.0.1:11434")
    parser.add_argument("--port", type=int, default=11600)
    parser.add_argument("--out", required=True, help="folder for the fixtures")
    parser.add_argument("--name", required=True, help="name part of the fixture files")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    counter = {"n": 0}
    lock = threading.Lock()

    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self.forward(b"")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            self.forward(self.rfile.read(length))

        def forward(self, body):
            host, port = args.upstream.split(":")
            upstream = http.client.HTTPConnection(host, int(port), timeout=3600)
            upstream.request(self.command, self.path, body=body or None,
                             headers={"Content-Type": "application/json"})
            response = upstream.getresponse()
            record = self.path == "/api/chat"
            if record:
                with lock:
                    counter["n"] += 1
                    stem = out / f"{counter['n']:02d}-{args.name}"
                stem.with_suffix(".request.json").write_bytes(body)
                sink = open(stem.with_suffix(".ndjson"), "wb")
            self.send_response(response.status)
            self.send_header("Content-Type", response.getheader("Content-Type", "application/json"))
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            while chunk := response.read1(65536):
                if record:
                    sink.write(chunk)
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            if record:
                sink.close()

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Proxy)
    print(f"recording /api/chat from http://127.0.0.1:{args.port} into {out}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
