"""The rule model: a deterministic stand-in model that answers every uac call by rule.

Tests, the model zoo and demos need a model whose *content* is right and
predictable while the *form* of its replies varies (a fake server changes
that); the scripted provider needs every reply written in advance.  The rule
model recognises the kind of each call from the structure uac gives the
request (:func:`.request.call_kind`: the name of the JSON schema the reply must
match, else the reader's answer settings in the system message) and reads its
inputs from the data blocks uac writes into the prompt (:data:`.request.BLOCKS`),
never from the prose around them, so a template may be reworded freely.  One
responder per kind:

========================  ==============================================
``extract``               :mod:`.extract` -- one fact per informative sentence
``route``                 :mod:`.route` -- a keyword table
``compile``               :mod:`.compile_ops` -- operations: a trip or an event per fact
``compile_repair``        :mod:`.compile_ops` -- operations for the facts not addressed yet
``compile_bounded``       :mod:`.compile_files` -- the same records as whole files
``reconcile``             :mod:`.reconcile` -- what a new fact changes, by a few words
``decide``                :mod:`.answer` -- candidates sharing a word
``answer``                :mod:`.answer` -- counts with the python tool
``check``                 :mod:`.check` -- the probes of ``uac doctor --model``
========================  ==============================================

:class:`RuleModel` is a provider like the scripted one
(``UAC_LLM_PROVIDER=rules``, or ``protocol``, its old name).  :func:`respond`
gives the reply before any form is applied (what a fake server dresses up);
:func:`respond_entry` gives it as a :class:`~uac.llm.ScriptedProvider` entry,
for a handler that alters some replies of the rule model.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

from ..types import ChatRequest, ChatResponse, ToolCall, Usage, estimate_tokens
from .answer import respond_answer, respond_decide
from .check import is_check, respond_check
from .compile_files import respond_bounded
from .compile_ops import respond_compile, respond_repair
from .extract import respond_extract
from .reconcile import respond_reconcile
from .reply import Reply
from .request import call_kind
from .route import respond_route

#: kind -> responder; a call whose protocol changes gets a new entry
RESPONDERS: dict[str, Callable[[ChatRequest], Reply]] = {
    "extract": respond_extract,
    "route": respond_route,
    "compile": respond_compile,
    "compile_repair": respond_repair,
    "compile_bounded": respond_bounded,
    "reconcile": respond_reconcile,
    "decide": respond_decide,
    "answer": respond_answer,
    "check": respond_check,
}

UNKNOWN_REPLY = "I cannot tell what this request asks for."


def respond(request: ChatRequest) -> Reply:
    """The rule model's reply to ``request`` (content only, no form)."""
    kind = "check" if is_check(request) else call_kind(request)
    responder = RESPONDERS.get(kind or "")
    if responder is None:
        return Reply(None, text=UNKNOWN_REPLY)
    return responder(request)


def respond_entry(request: ChatRequest) -> dict[str, Any]:
    """The reply as a scripted-provider entry: ``{"json": ...}``, ``{"content": ...}`` or ``{"tool_calls": ...}``."""
    return respond(request).entry()


class RuleModel:
    """A :class:`~uac.llm.client.Provider` answering every uac call by rule."""

    name = "rules"

    def __init__(self, model: str = "rules") -> None:
        self.model = model
        self._lock = threading.Lock()
        #: every request received, with the kind it was recognised as
        self.requests: list[tuple[str | None, ChatRequest]] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        reply = respond(request)
        with self._lock:
            self.requests.append((reply.kind, request))
        calls = tuple(
            ToolCall(id=f"call_{len(self.requests)}_{n}", name=name, arguments=json.dumps(arguments))
            for n, (name, arguments) in enumerate(reply.tool_calls, 1)
        )
        content = reply.content()
        prompt = "\n".join(m.content or "" for m in request.messages)
        usage = Usage(
            prompt_tokens=estimate_tokens(prompt),
            completion_tokens=estimate_tokens((content or "") + "".join(c.arguments for c in calls)),
            calls=1,
        )
        return ChatResponse(
            content=content,
            tool_calls=calls,
            usage=usage,
            model=self.model,
            finish_reason="tool_calls" if calls else "stop",
        )


#: the old name of :class:`RuleModel` (``uac.ProtocolModel``), kept for code that imports it
ProtocolModel = RuleModel


__all__ = ["RESPONDERS", "ProtocolModel", "RuleModel", "Reply", "call_kind", "respond", "respond_entry"]
