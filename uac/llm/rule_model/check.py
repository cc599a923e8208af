"""The responder for the endpoint probes of ``uac doctor --model`` (:mod:`uac.llm.probe`)."""

from __future__ import annotations

from ..probe import JSON_PROMPT, PLAIN_PROMPT, TOOL_PROMPT
from ..types import ChatRequest
from .reply import Reply
from .request import first_user


def is_check(request: ChatRequest) -> bool:
    text = first_user(request).strip()
    return text in (JSON_PROMPT, TOOL_PROMPT) or text.endswith(PLAIN_PROMPT)


def respond_check(request: ChatRequest) -> Reply:
    text = first_user(request).strip()
    if text == JSON_PROMPT:
        return Reply("check", {"ok": True})
    if text == TOOL_PROMPT and any((t.get("function") or {}).get("name") == "add" for t in request.tools):
        return Reply("check", tool_calls=[("add", {"a": 2, "b": 3})])
    if text == TOOL_PROMPT:
        return Reply("check", text="5")
    return Reply("check", text="ok")


__all__ = ["is_check", "respond_check"]
