"""One local OpenAI-compatible server for the tests and the benchmarks.

``FakeOpenAIServer`` serves ``POST /v1/chat/completions`` on 127.0.0.1, one
thread per request (like a real server, it answers many requests at once).
What it answers comes from, in this order:

* the ``handler`` given, called with the :class:`Received` request: it returns
  an :class:`Answer` (the model zoo puts the rule model and a profile's forms
  here; a throughput run a text per request, :func:`text_handler`);
* else the plan: :meth:`FakeOpenAIServer.reply` queues the answers in advance
  (a status, a JSON body, a delay); with the plan empty it answers 500.

What a real server refuses or does to requests is set by :class:`Quirks`:
refusing tools, ``json_schema`` or ``json_object`` with the errors vLLM and
llama.cpp send, a 503 or a held answer every Nth request, a 429 with or
without ``Retry-After``, a latency for every request and a stall for some.
Every request is recorded (:attr:`FakeOpenAIServer.received`) with the status
it got, when it began and ended, and the most requests in flight at once
(:attr:`FakeOpenAIServer.peak`).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from uac.llm.types import ChatRequest, Message, ToolCall

_PIECES = re.compile(r"\w+|[^\w\s]+")


@dataclass
class Received:
    """One request as the server got it, and what it answered."""

    number: int
    path: str
    #: the JSON body; ``None`` when it was not JSON
    body: Any
    headers: dict[str, str]
    started: float
    status: int = 0
    finished: float = 0.0
    #: what the handler says the request was (the kind of call for the zoo)
    kind: str | None = None
    note: str = ""

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)


@dataclass
class Answer:
    """What the server sends back: a status and a JSON body, after ``delay`` seconds."""

    status: int
    payload: Any
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    kind: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Quirks:
    """How the server departs from a strict one (the defaults: it does not)."""

    #: refused with a 400 when false, as vLLM without a tool parser does
    tools: bool = True
    #: ``response_format`` types refused with a 400 when false (llama.cpp, older servers)
    json_schema: bool = True
    json_object: bool = True
    #: every ``fail_every``-th request: alternately a 503 and an answer held ``fail_delay`` seconds
    fail_every: int = 0
    fail_delay: float = 0.0
    #: seconds every request waits before it is answered
    latency: float = 0.0
    #: ``refuse(number)``: answer request ``number`` (1-based) with a 429 and that ``Retry-After``
    #: (``-1``: without the header); ``None``: answer it
    refuse: Callable[[int], float | None] | None = None
    #: ``stall(number)``: hold request ``number`` that much longer
    stall: Callable[[int], float] | None = None


def error(status: int, message: str, kind: str = "invalid_request_error", **extra: Any) -> Answer:
    """An answer in the error shape OpenAI-compatible servers use."""
    return Answer(status, {"error": {"message": message, "type": kind, "code": status}}, **extra)


def completion(
    content: str | None = "hello",
    *,
    tool_calls: Any = None,
    prompt_tokens: int = 11,
    completion_tokens: int = 5,
    model: str = "fake-model",
    number: int = 1,
    finish_reason: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A chat completion body.  ``tool_calls``: ``(name, arguments)`` pairs; ``extra``: more
    fields of the message (``reasoning_content`` ...)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{number}_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(tool_calls)
        ]
    message.update(extra or {})
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop")}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
    }


def pieces(text: str) -> int:
    """Words and runs of punctuation: at least what a real tokenizer counts."""
    return len(_PIECES.findall(text))


def to_request(body: dict[str, Any]) -> ChatRequest:
    """A request body as the :class:`~uac.llm.ChatRequest` uac built it from."""
    messages = []
    for raw in body.get("messages") or []:
        calls = tuple(
            ToolCall(c.get("id") or "", (c.get("function") or {}).get("name", ""), (c.get("function") or {}).get("arguments") or "{}")
            for c in raw.get("tool_calls") or ()
        )
        content = raw.get("content")
        if isinstance(content, list):  # content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        messages.append(Message(raw.get("role", "user"), content, tool_calls=calls, tool_call_id=raw.get("tool_call_id"), name=raw.get("name")))
    response_format = body.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}) if response_format.get("type") == "json_schema" else {}
    return ChatRequest(
        messages=tuple(messages),
        json_schema=schema.get("schema"),
        schema_name=schema.get("name", "response"),
        tools=tuple(body.get("tools") or ()),
        max_tokens=body.get("max_tokens"),
    )


def text_handler(responder: Callable[[ChatRequest], str], *, model: str = "fake-model") -> Callable[[Received], Answer]:
    """A handler answering each request with ``responder(request)`` (the body as a
    :class:`~uac.llm.ChatRequest`) as the content; prompt tokens are :func:`pieces`."""

    def handle(received: Received) -> Answer:
        request = to_request(received.body)
        content = responder(request)
        prompt_tokens = sum(pieces(m.content or "") for m in request.messages)
        payload = completion(content, prompt_tokens=prompt_tokens, completion_tokens=len(content) // 4 + 1, model=model, number=received.number)
        return Answer(200, payload)

    return handle


class FakeOpenAIServer:
    #: the model name the server answers as (what a client is configured with)
    model = "fake-model"

    def __init__(self, handler: Callable[[Received], Answer] | None = None, *, quirks: Quirks = Quirks()) -> None:
        self.handler = handler
        self.quirks = quirks
        self.plan: list[Answer] = []
        self.received: list[Received] = []
        self.in_flight = 0
        self.peak = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                answer = server._handle(self.path, self.rfile.read(length), dict(self.headers))
                data = json.dumps(answer.payload).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in answer.headers.items():
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

    def reply(self, payload: Any, status: int = 200, delay: float = 0.0) -> "FakeOpenAIServer":
        """Queue the answer to a later request (the first queued answers the next one)."""
        self.plan.append(Answer(status, payload, delay))
        return self

    def __enter__(self) -> "FakeOpenAIServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- what happened ----------------------------------------------------------------------

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies received, in order."""
        with self._lock:
            return [r.body for r in self.received]

    def count(self, status: int | None = None, *, note: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.received if (status is None or r.status == status) and (note is None or note in r.note))

    # -- one request ------------------------------------------------------------------------

    def _handle(self, path: str, raw: bytes, headers: dict[str, str]) -> Answer:
        with self._lock:
            number = len(self.received) + 1
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = None
            received = Received(number, path, body, headers, time.time())
            self.received.append(received)
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            answer = self._answer(received)
            if answer.delay:
                time.sleep(answer.delay)
            return answer
        finally:
            with self._lock:
                self.in_flight -= 1
                received.status, received.kind, received.note = answer.status, answer.kind, answer.note
                received.finished = time.time()

    def _answer(self, received: Received) -> Answer:
        quirks, number, body = self.quirks, received.number, received.body
        if not isinstance(body, dict):
            return error(400, "body is not JSON")
        wait = quirks.refuse(number) if quirks.refuse else None
        if wait is not None:
            return error(429, "rate limit reached, slow down", "rate_limit_error", headers={} if wait < 0 else {"Retry-After": f"{wait:g}"})
        held = 0.0
        if quirks.fail_every and number % quirks.fail_every == 0:
            if (number // quirks.fail_every) % 2:
                return error(503, "the server is overloaded, try again", "server_error", note="injected 503")
            held = quirks.fail_delay
        refused = self._refused(body)
        if refused is not None:
            return refused
        time.sleep(quirks.latency + (quirks.stall(number) if quirks.stall else 0.0))
        if self.handler is not None:
            answer = self.handler(received)
        else:
            with self._lock:
                answer = self.plan.pop(0) if self.plan else error(500, "no plan", "server_error")
        if held:
            answer.delay += held
            answer.note = "; ".join(n for n in ("injected delay", answer.note) if n)
        return answer

    def _refused(self, body: dict[str, Any]) -> Answer | None:
        quirks = self.quirks
        if body.get("tools") and not quirks.tools:
            return error(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', note="tools refused")
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema" and not quirks.json_schema:
            return error(400, "response_format type 'json_schema' is not supported; use 'json_object' or 'text'", note="json_schema refused")
        if kind == "json_object" and not quirks.json_object:
            return error(400, "response_format type 'json_object' is not supported", note="json_object refused")
        return None


__all__ = ["Answer", "FakeOpenAIServer", "Quirks", "Received", "completion", "error", "pieces", "text_handler", "to_request"]
