"""The fake model server of the Python tests, as a process the VS Code e2e tests drive.

Prints one JSON line `{"url": ".../v1", "control": "http://127.0.0.1:N"}` and serves
until stdin closes. The control server takes:
  POST /script  {"replies": [{"text": "...", "thinking": "...", "inputTokens": 11}]}
                `"pieces": [...]` streams the text in those pieces; `"paced": true` streams
                one event per permit given with /release (a slow reply, driven by the test)
  POST /fault   {"stall": true, "after": 3}   (the next request streams 3 events, then stalls)
  POST /reset                                   (drop queued replies and faults)
  POST /release {"events": 3}                   (a paced reply streams 3 more events)
  POST /models  {"models": ["a", "b"]}          (what GET /v1/models lists)
  POST /reviewers {"correctness": ["...", ...]} (each code reviewer's replies, in order:
                they run in parallel; tests/support/review_model.py; /reset ends it)
  GET  /requests                                (every request body received so far)
  GET  /headers                                 (every request's headers, lower-case names)
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault, Reply
from tests.support.review_model import Reviewers


def reply_from(data: dict[str, Any]) -> Reply:
    """A scripted reply from its JSON form."""
    return Reply(
        text=data.get("pieces") or data.get("text", ""),
        paced=bool(data.get("paced")),
        thinking=data.get("thinking", ""),
        input_tokens=int(data.get("inputTokens", 11)),
        output_tokens=int(data.get("outputTokens", 7)),
    )


def control_handler(fake: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    """The control endpoints, bound to one fake server."""

    class Control(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/headers":
                self._send([r.headers for r in fake.requests])
            else:
                self._send([r.body for r in fake.requests])

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            body = json.loads(raw or b"{}")
            if self.path == "/script":
                fake.script(*(reply_from(r) for r in body["replies"]))
            elif self.path == "/reset":
                with fake._lock:
                    fake.replies.clear()
                    fake.faults.clear()
                    fake.permits = threading.Semaphore(0)
                    fake.responder = None
            elif self.path == "/release":
                fake.release(int(body.get("events", 1)))
            elif self.path == "/models":
                fake.listed_models = [str(m) for m in body["models"]]
            elif self.path == "/reviewers":
                Reviewers(fake, {str(k): [str(r) for r in v] for k, v in body.items()})
            elif self.path == "/fault":
                fault = Fault(stall=bool(body.get("stall")), after=int(body.get("after", 0)))
                fake.fail_next(fault)
            self._send({"ok": True, "queued": len(fake.replies)})

    return Control


def main() -> None:
    """Serve until stdin closes."""
    fake = FakeModelServer().start()
    control = ThreadingHTTPServer(("127.0.0.1", 0), control_handler(fake))
    control.daemon_threads = True
    threading.Thread(target=control.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{control.server_address[1]}"
    print(json.dumps({"url": fake.openai_url, "control": url}), flush=True)
    sys.stdin.read()
    control.shutdown()
    fake.stop()


if __name__ == "__main__":
    main()
