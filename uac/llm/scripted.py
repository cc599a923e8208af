"""The scripted provider: the test double shipped with uac.

It replays canned responses -- from a JSONL file (``UAC_LLM_SCRIPT``) or an
in-memory queue (:meth:`ScriptedProvider.enqueue`) -- and records every request
it received, so tests and demos can run every LLM path without a network.

A script entry is one of:

* a string: the assistant's text;
* ``{"content": "..."}`` or ``{"json": <value>}`` (the value serialised);
* ``{"tool_calls": [{"name": "python", "arguments": {...}}], "content": null}``;
* ``{"error": "transient" | "fatal", "message": "..."}`` to simulate failures;
  ``{"error": "rate_limit", "retry_after": 0.5}`` is an HTTP 429 with ``Retry-After``;
* any of the above with ``"match": "text"``: used only for a request whose
  prompt contains that text (first unused match wins), so order-independent
  scripts are possible; entries without ``match`` are served in order;
* optionally ``"usage": {"prompt_tokens": n, "completion_tokens": m}``
  (otherwise usage is estimated from the text lengths), ``"finish_reason"``
  (e.g. ``"length"`` for a reply cut at the token limit) and ``"reasoning"``
  (what a server returns as ``reasoning_content``);
* ``{"error": "unsupported", "feature": "tools"}`` to simulate an endpoint
  that refuses a request feature.

Instead of a script, a ``handler(request) -> entry`` function can compute replies.

Entries served in order need the calls in order: while any is queued the
provider's ``concurrency_limit`` is 1 (the client then runs one call at a
time).  A handler, or a script whose entries all ``match``, serves any order.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import CapabilityUnsupported, ConfigError, ModelError, RateLimitHit, ScriptExhausted, TransientModelError
from ..fsutil import read_utf8, split_lines
from .types import ChatRequest, ChatResponse, ToolCall, Usage, estimate_tokens

Entry = str | dict[str, Any]


def load_script(path: Path) -> list[Entry]:
    """Read a JSONL script file (one entry per line; blank lines and ``#`` lines skipped)."""
    path = Path(path)
    try:
        lines = split_lines(read_utf8(path))
    except FileNotFoundError:
        raise ConfigError(f"scripted LLM file {path} does not exist.", hint="Check UAC_LLM_SCRIPT.") from None
    except UnicodeDecodeError:
        raise ConfigError(f"scripted LLM file {path} is not UTF-8.") from None
    entries: list[Entry] = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not valid JSON ({exc.msg}).") from None
    return entries


def _prompt_text(request: ChatRequest) -> str:
    return "\n".join(m.content or "" for m in request.messages)


class ScriptedProvider:
    name = "scripted"

    def __init__(
        self,
        entries: Iterable[Entry] = (),
        *,
        handler: Callable[[ChatRequest], Entry] | None = None,
        model: str = "scripted",
    ) -> None:
        self.model = model
        self.handler = handler
        self._queue: list[Entry] = list(entries)
        self._lock = threading.Lock()
        #: every request received, in order
        self.requests: list[ChatRequest] = []

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> "ScriptedProvider":
        return cls(load_script(Path(path)), **kwargs)

    def enqueue(self, *entries: Entry) -> "ScriptedProvider":
        with self._lock:
            self._queue.extend(entries)
        return self

    @property
    def concurrency_limit(self) -> int | None:
        """1 while an entry served in order is queued (see the module doc), else no limit."""
        if self.handler is not None:
            return None
        with self._lock:
            ordered = any(not (isinstance(e, dict) and "match" in e) for e in self._queue)
        return 1 if ordered else None

    @property
    def remaining(self) -> int:
        return len(self._queue)

    def _take(self, request: ChatRequest) -> Entry:
        prompt = _prompt_text(request)
        with self._lock:
            self.requests.append(request)
            if self.handler is not None:
                return self.handler(request)
            for index, entry in enumerate(self._queue):
                if isinstance(entry, dict) and "match" in entry:
                    if entry["match"] in prompt:
                        return self._queue.pop(index)
                    continue
                return self._queue.pop(index)
        raise ScriptExhausted(
            f"the scripted LLM has no response left for request #{len(self.requests)} "
            f"(prompt starts {prompt[:120]!r}).",
            hint="Add entries to the script (UAC_LLM_SCRIPT) or enqueue() more responses.",
        )

    def complete(self, request: ChatRequest) -> ChatResponse:
        entry = self._take(request)
        if isinstance(entry, str):
            entry = {"content": entry}
        if not isinstance(entry, dict):
            raise ConfigError(f"scripted LLM entry {entry!r} must be a string or an object.")
        if "error" in entry:
            message = entry.get("message", f"scripted {entry['error']} error")
            if entry["error"] == "transient":
                raise TransientModelError(message)
            if entry["error"] == "rate_limit":
                wait = entry.get("retry_after")
                raise RateLimitHit(message, retry_after=float(wait) if wait is not None else None)
            if entry["error"] == "unsupported":
                raise CapabilityUnsupported(message, feature=str(entry.get("feature", "tools")))
            raise ModelError(message)
        content = entry.get("content")
        if "json" in entry:
            content = json.dumps(entry["json"], ensure_ascii=False)
        calls = []
        for number, call in enumerate(entry.get("tool_calls") or (), 1):
            arguments = call.get("arguments", {})
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            calls.append(
                ToolCall(
                    id=call.get("id", f"call_{len(self.requests)}_{number}"), name=call["name"], arguments=arguments
                )
            )
        usage_data = entry.get("usage") or {}
        usage = Usage(
            prompt_tokens=int(usage_data.get("prompt_tokens", estimate_tokens(_prompt_text(request)))),
            completion_tokens=int(
                usage_data.get(
                    "completion_tokens",
                    estimate_tokens((content or "") + "".join(c.arguments for c in calls)),
                )
            ),
            calls=1,
        )
        return ChatResponse(
            content=content,
            tool_calls=tuple(calls),
            usage=usage,
            model=self.model,
            finish_reason=entry.get("finish_reason") or ("tool_calls" if calls else "stop"),
            reasoning=entry.get("reasoning"),
        )
