"""A local OpenAI-compatible endpoint with a configurable latency, for throughput runs.

``FakeEndpoint(responder, latency=1.0)`` serves ``POST /v1/chat/completions``
on 127.0.0.1 from a thread per request (like a real server, it answers many
requests at once).  ``responder(request)`` gets an object with ``messages``
(each with ``role`` and ``content``) and returns the reply's text.  Each
request waits ``latency`` seconds before it is answered.

Bad behaviour on purpose:

* ``refuse(number) -> seconds | None``: answer request ``number`` (1-based)
  with HTTP 429 and that ``Retry-After`` (``-1``: a 429 without the header);
* ``stall(number) -> seconds``: hold request ``number`` that much longer.

It records how many requests were in flight at most (``peak``), every status
it sent and when each request began (``started``, seconds since the epoch).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any, Callable

_PIECES = re.compile(r"\w+|[^\w\s]+")


@dataclass
class Record:
    number: int
    status: int
    started: float
    finished: float


class FakeEndpoint:
    def __init__(
        self,
        responder: Callable[[Any], str],
        *,
        latency: float = 0.0,
        refuse: Callable[[int], float | None] | None = None,
        stall: Callable[[int], float] | None = None,
        model: str = "fake-model",
    ) -> None:
        self.responder = responder
        self.latency = latency
        self.refuse = refuse
        self.stall = stall
        self.model = model
        self.records: list[Record] = []
        self.in_flight = 0
        self.peak = 0
        self._count = 0
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                status, payload, headers = endpoint._handle(body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.request_queue_size = 64
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "FakeEndpoint":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def count(self, status: int | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.records if status is None or r.status == status)

    # -- one request -----------------------------------------------------------------

    def _handle(self, raw: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
        started = time.time()
        with self._lock:
            self._count += 1
            number = self._count
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            wait = self.refuse(number) if self.refuse else None
            if wait is not None:
                headers = {} if wait < 0 else {"Retry-After": f"{wait:g}"}
                self._record(number, 429, started)
                return 429, {"error": {"message": "rate limit reached, slow down", "type": "rate_limit_error", "code": 429}}, headers
            time.sleep(self.latency + (self.stall(number) if self.stall else 0.0))
            body = json.loads(raw or b"{}")
            messages = [SimpleNamespace(role=m.get("role", "user"), content=m.get("content") or "") for m in body.get("messages") or []]
            content = self.responder(SimpleNamespace(messages=messages))
            # words and runs of punctuation: at least what a real tokenizer counts
            prompt_tokens = sum(len(_PIECES.findall(m.content)) for m in messages)
            payload = {
                "id": f"chatcmpl-{number}",
                "object": "chat.completion",
                "created": int(started),
                "model": self.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(content) // 4 + 1,
                          "total_tokens": prompt_tokens + len(content) // 4 + 1},
            }
            self._record(number, 200, started)
            return 200, payload, {}
        finally:
            with self._lock:
                self.in_flight -= 1

    def _record(self, number: int, status: int, started: float) -> None:
        with self._lock:
            self.records.append(Record(number, status, started, time.time()))
