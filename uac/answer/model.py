"""What ``ask`` takes and returns."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from ..config import AnswerConfig

LOADING_MODES = ("monolithic", "modular", "manifest")
TOOL_MODES = ("native", "codeblock", "off")


@dataclass(frozen=True)
class AskOptions:
    """Per-call answering settings (defaults come from ``[answer]`` in uac.toml)."""

    as_of: _dt.date | None = None
    loading: str = "modular"
    use_state: bool = True
    use_facts: bool = True
    use_archive: bool = True
    state_chars: int = 6_000
    top_facts: int = 20
    top_archive: int = 10
    max_tool_steps: int = 6
    tool_mode: str = "native"
    iterative: bool = False
    iterative_rounds: int = 3
    iterative_queries: int = 2
    include_context: bool = False
    #: extra instructions for the reader (e.g. an answer style), appended to its system prompt
    instructions: str | None = None

    @classmethod
    def from_config(cls, config: AnswerConfig, **overrides: Any) -> "AskOptions":
        base = cls(
            loading=config.loading,
            state_chars=config.state_chars,
            top_facts=config.top_facts,
            top_archive=config.top_archive,
            max_tool_steps=config.max_tool_steps,
            tool_mode=config.tool_mode,
            iterative_rounds=config.iterative_rounds,
            iterative_queries=config.iterative_queries,
        )
        values = {k: v for k, v in overrides.items() if v is not None}
        return cls(**{**base.__dict__, **values})


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

    def line(self) -> str:
        dates = f"said {self.session_date}" if self.session_date else "undated"
        if self.event_date and self.event_date != self.session_date:
            dates += f"; happened {self.event_date}"
        turns = ", ".join(self.evidence)
        text = self.text.strip().replace("\n", "\n    ")
        return f"- [{self.id} | {dates}{' | turns ' + turns if turns else ''}] {text}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "channel": self.channel,
            "text": self.text,
            "score": self.score,
            "session_id": self.session_id,
            "session_date": self.session_date,
            "evidence": list(self.evidence),
            "event_date": self.event_date,
        }


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

    def to_json(self, *, include_context: bool = False) -> dict[str, Any]:
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
            "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens},
            "latency_seconds": round(self.latency_seconds, 4),
            "steps": self.steps,
        }
        if self.message:
            data["message"] = self.message
        if self.iterative is not None:
            data["iterative"] = self.iterative
        if include_context:
            data["context"] = self.context
        return data
