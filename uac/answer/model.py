"""What ``ask`` takes and returns."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..fieldjson import fields_json
from ..llm import Usage

if TYPE_CHECKING:
    from ..compile.follow import ViewLag


@dataclass(frozen=True)
class EvidenceItem:
    """One retrieved fact or archive chunk, as shown to the reader."""

    id: str
    channel: str  # facts | archive
    text: str
    score: float
    session_id: str | None
    session_date: str | None
    evidence: tuple[str, ...] = ()
    event_date: str | None = None
    #: the day a superseded fact stopped being true
    invalid_at: str | None = None
    #: facts: whether a record of STATE holds it (None: not known, no STATE to compare)
    in_state: bool | None = None

    def line(self) -> str:
        dates = f"said {self.session_date}" if self.session_date else "undated"
        if self.event_date and self.event_date != self.session_date:
            dates += f"; happened {self.event_date}"
        if self.invalid_at:
            dates += f"; until {self.invalid_at}"
        turns = ", ".join(self.evidence)
        text = self.text.strip().replace("\n", "\n    ")
        gap = " | not in STATE" if self.in_state is False else ""
        return f"- [{self.id} | {dates}{' | turns ' + turns if turns else ''}{gap}] {text}"

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass
class ToolRun:
    """One execution of agent code in the sandbox during answering."""

    code: str
    result: dict[str, Any]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "result": self.result, "seconds": round(self.seconds, 4)}


@dataclass
class StateChannel:
    loading: str
    domains: list[str]
    text: str
    chars: int
    truncated: bool
    records_excluded_as_of: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "loading": self.loading,
            "domains": self.domains,
            "chars": self.chars,
            "tokens_estimate": (self.chars + 3) // 4,
            "truncated": self.truncated,
            "records_excluded_as_of": self.records_excluded_as_of,
        }


@dataclass
class Answer:
    question: str
    answer: str | None
    mode: str  # "llm" | "evidence" (no model configured)
    as_of: _dt.date | None
    state: StateChannel | None
    facts: list[EvidenceItem]
    archive: list[EvidenceItem]
    tool_runs: list[ToolRun] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_seconds: float = 0.0
    steps: int = 0
    message: str | None = None
    context: str | None = None
    iterative: dict[str, Any] | None = None
    #: whether :meth:`to_json` includes the packed context by default (``AskOptions.include_context``)
    include_context: bool = False
    #: every call of this answer (the iterative decider's included); cache hits apart
    usage: Usage | None = None
    #: the answer stopped at the completion limit
    truncated: bool = False
    #: how the reader ran code: native | codeblock | off (after any fallback)
    tool_mode: str | None = None
    #: the reasoning mode that ran: direct | step_by_step (None: no model)
    reasoning: str | None = None
    #: step by step: the whole reply, whose last line is the answer
    reasoning_text: str | None = None
    #: how far the view lags the log (:class:`uac.compile.follow.ViewLag`; ``None``: not measured)
    view_lag: "ViewLag | None" = None

    def to_json(self, *, include_context: bool | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "answer": self.answer,
            "question": self.question,
            "mode": self.mode,
            "as_of": None if self.as_of is None else self.as_of.isoformat(),
            "channels": {
                "state": None if self.state is None else self.state.to_json(),
                "facts": [item.to_json() for item in self.facts],
                "archive": [item.to_json() for item in self.archive],
            },
            "tool_calls": [run.to_json() for run in self.tool_runs],
            "usage": self.usage.report()
            if self.usage is not None
            else {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens},
            "truncated": self.truncated,
            "tool_mode": self.tool_mode,
            "reasoning": self.reasoning,
            "latency_seconds": round(self.latency_seconds, 4),
            "steps": self.steps,
        }
        if self.message:
            data["message"] = self.message
        if self.iterative is not None:
            data["iterative"] = self.iterative
        if self.reasoning_text is not None:
            data["reasoning_text"] = self.reasoning_text
        if self.view_lag is not None:
            data["view"] = self.view_lag.to_json()
        if self.include_context if include_context is None else include_context:
            data["context"] = self.context
        return data
