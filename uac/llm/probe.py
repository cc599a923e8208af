"""Probing an endpoint: a few tiny real calls that show what it supports.

``uac doctor PROJECT --model`` runs :func:`probe_endpoint`: a plain reply, a
``json_schema`` reply, a ``json_object`` reply, a tool call, and one prompt as
long as uac's longest to see whether the server reads all of it.  The
findings are remembered for the endpoint (:mod:`.capabilities`), so the
fallbacks apply from the next call on without a refusal first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import ModelError
from .capabilities import JSON_MODES
from .limits import CUT_RATIO, count_prompt_pieces
from .structured import parse_structured, strip_reasoning
from .toolcalls import text_tool_calls
from .types import ChatRequest, Message

_CHECK_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}
_ADD_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two whole numbers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
}
#: the probe prompts (the rule model answers them too)
PLAIN_PROMPT = "Reply with the single word: ok"
JSON_PROMPT = 'Reply with this JSON and nothing else: {"ok": true}'
TOOL_PROMPT = "Use the add tool to add 2 and 3."
_FILLER = (
    "The garden behind the old library has twelve apple trees, a narrow gravel path, three wooden benches "
    "and a small pond where children feed the ducks on quiet Sunday mornings. "
)


@dataclass
class Probe:
    name: str
    ok: bool
    detail: str
    seconds: float = 0.0


@dataclass
class EndpointReport:
    endpoint: str
    model: str
    probes: list[Probe] = field(default_factory=list)
    served_model: str | None = None
    json_mode: str | None = None
    tools: str | None = None  # native | text | none
    context_sent: int | None = None
    context_reported: int | None = None
    reasoning: bool = False

    @property
    def reachable(self) -> bool:
        return bool(self.probes) and self.probes[0].ok

    @property
    def context_cut(self) -> bool:
        """Did the long prompt come back cut (or refused as too long)?"""
        if not self.context_sent or self.context_reported is None:
            return False
        return self.context_reported < CUT_RATIO * self.context_sent

    def to_json(self) -> dict[str, Any]:
        return {
            "endpoint": self.endpoint,
            "model": self.model,
            "served_model": self.served_model,
            "reachable": self.reachable,
            "json_mode": self.json_mode,
            "tools": self.tools,
            "reasoning": self.reasoning,
            "context": {"sent_at_least": self.context_sent, "reported": self.context_reported, "cut": self.context_cut},
            "probes": [
                {"name": p.name, "ok": p.ok, "detail": p.detail, "seconds": round(p.seconds, 3)} for p in self.probes
            ],
        }


def _request(text: str, **kwargs: Any) -> ChatRequest:
    return ChatRequest(messages=(Message("user", text),), temperature=0.0, purpose="check", **kwargs)


class _Prober:
    """Sends one probe after another to a provider, each answer or failure noted in the report."""

    def __init__(self, provider: Any, timeout: float | None) -> None:
        self.provider = provider
        self.timeout = timeout
        self.report = EndpointReport(provider.base_url, provider.model)
        #: probe name -> the refusal's message
        self.refused: dict[str, str] = {}

    def call(self, name: str, request: ChatRequest, rung: str = "none") -> tuple[Any, float]:
        from .openai_provider import _Refused

        provider, report = self.provider, self.report
        kwargs = provider._kwargs(request, rung)
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout
        started = time.perf_counter()
        try:
            response = provider._response(provider._send(kwargs), fallbacks=0)
        except _Refused as refusal:
            self.refused[name] = refusal.message
            report.probes.append(
                Probe(
                    name,
                    False,
                    f"refused (HTTP {refusal.status}): {refusal.message[:160]}",
                    time.perf_counter() - started,
                )
            )
            return None, 0.0
        except ModelError as exc:
            report.probes.append(Probe(name, False, f"failed: {exc.message[:200]}", time.perf_counter() - started))
            return None, 0.0
        if response.reasoning or "<think>" in (response.content or ""):
            report.reasoning = True
        return response, time.perf_counter() - started

    def plain(self) -> bool:
        plain, seconds = self.call("plain reply", _request(PLAIN_PROMPT, max_tokens=16))
        if plain is None:
            return False
        self.report.served_model = plain.model
        self.report.probes.append(
            Probe("plain reply", True, f"answered {strip_reasoning(plain.content)[:40]!r}", seconds)
        )
        return True

    def json_modes(self) -> None:
        report = self.report
        accepted: list[str] = []
        for rung, label in (("schema", "json_schema"), ("object", "json_object")):
            request = _request(JSON_PROMPT, json_schema=_CHECK_SCHEMA, schema_name="check", max_tokens=64)
            response, seconds = self.call(label, request, rung)
            if response is None:
                continue
            try:
                parse_structured(response.content, _CHECK_SCHEMA)
            except ModelError as exc:
                report.probes.append(
                    Probe(
                        label,
                        True,
                        f"accepted, but the reply did not read as the JSON asked for ({exc.message[:80]})",
                        seconds,
                    )
                )
            else:
                report.probes.append(Probe(label, True, "accepted and answered with valid JSON", seconds))
            accepted.append(rung)
        report.json_mode = accepted[0] if accepted else "none"

    def tools(self) -> None:
        report = self.report
        tools, seconds = self.call("tool call", _request(TOOL_PROMPT, tools=(_ADD_TOOL,), max_tokens=128))
        if tools is None:
            report.tools = "none"
        elif tools.tool_calls:
            report.tools = "native"
            report.probes.append(Probe("tool call", True, f"native call of {tools.tool_calls[0].name!r}", seconds))
        elif text_tool_calls(tools.content):
            report.tools = "text"
            report.probes.append(Probe("tool call", True, "accepted; the call came as text (uac runs it)", seconds))
        else:
            report.tools = "native"
            report.probes.append(
                Probe("tool call", True, "accepted; the model answered without calling the tool", seconds)
            )

    def long_prompt(self, context_chars: int) -> None:
        report = self.report
        filler = (_FILLER * (context_chars // len(_FILLER) + 1))[:context_chars]
        text = filler + "\n\n" + PLAIN_PROMPT
        report.context_sent = count_prompt_pieces([text])
        long, seconds = self.call("long prompt", _request(text, max_tokens=8))
        if long is None and "long prompt" in self.refused:
            report.context_reported = 0  # refused as too long: as good as cut
            report.probes[
                -1
            ].detail += " (a prompt as long as uac's longest does not fit: raise the server's context window)"
        elif long is not None:
            report.context_reported = long.usage.prompt_tokens or None
            if report.context_reported is None:
                detail = f"answered; the endpoint reports no usage, so a cut prompt cannot be seen (sent at least {report.context_sent:,} tokens)"
            elif report.context_cut:
                detail = (
                    f"CUT: the endpoint read {report.context_reported:,} of at least {report.context_sent:,} tokens: "
                    "raise its context window (Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx; llama.cpp: --ctx-size; "
                    "vLLM: --max-model-len)"
                )
            else:
                detail = (
                    f"read in full ({report.context_reported:,} tokens reported, at least {report.context_sent:,} sent)"
                )
            report.probes.append(Probe("long prompt", not report.context_cut, detail, seconds))


def probe_endpoint(provider: Any, *, context_chars: int = 28_000, timeout: float | None = None) -> EndpointReport:
    """Probe an :class:`~uac.llm.openai_provider.OpenAIProvider` (see the module docstring)."""
    prober = _Prober(provider, timeout)
    report = prober.report
    if not prober.plain():
        return report
    prober.json_modes()
    prober.tools()
    prober.long_prompt(context_chars)
    provider.store.update(
        provider.base_url,
        provider.model,
        json_mode=report.json_mode if report.json_mode in JSON_MODES else None,
        tools=report.tools != "none",
        context_tokens=report.context_reported or None,
        context_cut=report.context_cut if report.context_reported is not None else None,
    )
    return report


__all__ = ["JSON_PROMPT", "PLAIN_PROMPT", "TOOL_PROMPT", "EndpointReport", "Probe", "probe_endpoint"]
