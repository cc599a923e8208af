"""A local OpenAI-compatible server that behaves like the servers people run.

``ZooServer(profile)`` serves ``POST /v1/chat/completions`` on 127.0.0.1.  It
turns the request body into a :class:`uac.llm.ChatRequest`, asks the protocol
model (:func:`uac.llm.rule_model.respond`) for the content, and gives the reply
the form and the limits of its :class:`~tests.zoo.profiles.Profile`.  Every
request is recorded with the status it got.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from uac.llm.rule_model import respond
from uac.llm.types import ChatRequest, Message, ToolCall

from .profiles import Profile, dress_json, dress_text, sloppy_data, tokens, tool_call_text


@dataclass
class Served:
    status: int
    body: dict[str, Any]
    kind: str | None = None
    note: str = ""


def to_request(body: dict[str, Any]) -> ChatRequest:
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


def cut_to_context(request: ChatRequest, limit_tokens: int) -> ChatRequest:
    """The request as a server with a small context window reads it: the start is gone."""
    budget = limit_tokens * 4
    kept: list[Message] = []
    for message in reversed(request.messages):
        text = message.content or ""
        if len(text) <= budget:
            kept.append(message)
            budget -= len(text)
            continue
        if budget > 0:
            kept.append(Message(message.role, text[len(text) - budget :], message.tool_calls, message.tool_call_id, message.name))
        break
    return ChatRequest(tuple(reversed(kept)), request.json_schema, request.schema_name, request.tools, request.temperature, request.max_tokens)


def _error(status: int, message: str, kind: str = "invalid_request_error") -> tuple[int, dict[str, Any]]:
    return status, {"error": {"message": message, "type": kind, "code": status}}


class ZooServer:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.served: list[Served] = []
        self._count = 0
        self._lock = threading.Lock()
        zoo = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    status, payload, delay = (*_error(400, "body is not JSON"), 0.0)
                else:
                    status, payload, delay = zoo.handle(body)
                if delay:
                    time.sleep(delay)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def model(self) -> str:
        return f"zoo-{self.profile.name}"

    def __enter__(self) -> "ZooServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- one request ---------------------------------------------------------------------

    def _record(self, status: int, body: dict[str, Any], kind: str | None = None, note: str = "") -> None:
        with self._lock:
            self.served.append(Served(status, body, kind, note))

    def handle(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
        profile = self.profile
        with self._lock:
            self._count += 1
            number = self._count
        if profile.fail_every and number % profile.fail_every == 0:
            if (number // profile.fail_every) % 2:
                self._record(503, body, note="injected 503")
                return (*_error(503, "the server is overloaded, try again", "server_error"), 0.0)
            return 200, self._complete(body, number, note="injected delay"), profile.fail_delay
        if body.get("tools") and not profile.tools:
            self._record(400, body, note="tools refused")
            return (*_error(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'), 0.0)
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema" and not profile.json_schema:
            self._record(400, body, note="json_schema refused")
            return (*_error(400, "response_format type 'json_schema' is not supported; use 'json_object' or 'text'"), 0.0)
        if kind == "json_object" and not profile.json_object:
            self._record(400, body, note="json_object refused")
            return (*_error(400, "response_format type 'json_object' is not supported"), 0.0)
        return 200, self._complete(body, number), 0.0

    def _complete(self, body: dict[str, Any], number: int, *, note: str = "") -> dict[str, Any]:
        profile = self.profile
        request = to_request(body)
        prompt_text = "".join((m.content or "") + "".join(c.arguments for c in m.tool_calls) for m in request.messages)
        prompt_tokens = tokens(prompt_text)
        if profile.context_tokens and prompt_tokens > profile.context_tokens:
            request = cut_to_context(request, profile.context_tokens)
            prompt_tokens = profile.context_tokens
            note = (note + "; " if note else "") + "prompt cut to the context window"
        reply = respond(request)
        content: str | None = reply.content()
        reasoning = None
        tool_calls: list[dict[str, Any]] = []
        first_prompt = next((m.content or "" for m in request.messages if m.role == "user"), "")
        if reply.tool_calls:
            if profile.sloppy:
                content = tool_call_text(*reply.tool_calls[0])
            else:
                content = None
                tool_calls = [
                    {"id": f"call_{number}_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                    for i, (name, args) in enumerate(reply.tool_calls)
                ]
        elif profile.sloppy and reply.data is not None:
            content, reasoning = dress_json(sloppy_data(reply.kind, reply.data, first_prompt), number)
        elif profile.sloppy and content:
            content = dress_text(content)
        finish = "tool_calls" if tool_calls else "stop"
        limits = [x for x in (profile.completion_limit, body.get("max_tokens")) if x]
        if content and limits and tokens(content) > min(limits):
            content = content[: min(limits) * 4]
            finish = "length"
            note = (note + "; " if note else "") + "completion cut at the limit"
        self._record(200, body, reply.kind, note)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        if reasoning:
            message["reasoning_content"] = reasoning
        completion_tokens = tokens((content or "") + "".join(c["function"]["arguments"] for c in tool_calls))
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
        }

    # -- what happened --------------------------------------------------------------------

    def count(self, *, status: int | None = None, note: str | None = None) -> int:
        with self._lock:
            return sum(
                1 for s in self.served if (status is None or s.status == status) and (note is None or note in s.note)
            )
