"""Reading uac's own prompts back: what the rule model's responders see.

Everything here parses the text uac renders from ``uac/prompts/*.j2``: the
kind of call, the turns of an extraction window, fact lines, the question and
the channels of an answer.  The rule model recognises a call from the
request alone (the prompt text, and the JSON schema name when the endpoint
passes it), so it works behind an HTTP server as well as in process.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from ...fsutil import split_lines
from ..types import ChatRequest, Message

#: call kinds, each with a responder
KINDS = ("extract", "reconcile", "route", "compile", "compile_repair", "compile_bounded", "decide", "answer")

#: how each kind's prompt begins (the first user message; the system message for answers)
_OPENINGS = (
    ("extract", re.compile(r"Extract every individual fact from this conversation excerpt")),
    ("reconcile", re.compile(r"Decide what each new fact changes among the earlier facts")),
    ("route", re.compile(r"Route each fact below to (?:one life domain|the life domains)")),
    ("compile", re.compile(r'You maintain the "[^"\n]+" domain of [^\n]*memory: typed records')),
    ("compile_bounded", re.compile(r"Organize the user's facts below into typed Python code")),
    ("decide", re.compile(r"You select evidence from a user's memory")),
)
_ANSWER_OPENING = re.compile(r"You answer questions about ")
#: a later user message of a compile batch: uac sends back what it could not apply
_COMPILE_REPAIR = re.compile(r"uac applied \d+ of your operations\. These problems remain:")
_SCHEMA_KINDS = {
    "facts": "extract",
    "changes": "reconcile",
    "routes": "route",
    "operations": "compile",
    "domains": "compile_bounded",
    "evidence_decision": "decide",
}

_DAY = r"\d{4}-\d{2}-\d{2}"
#: ``[id] (said D; happened D) speaker: text`` -- either day may be missing; ``(D)`` alone is read as said
FACT_LINE = re.compile(
    rf"^\[(?P<id>[^\]]+)\]"
    rf"(?: \((?:(?:said )?(?P<said>{_DAY}))?(?:;? ?happened (?P<happened>{_DAY}))?\))?"
    r"(?: (?P<speaker>[^:\n]{1,60}):)? (?P<text>.*)$"
)
TURN_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<speaker>[^:\n]{1,80}): (?P<text>.*)$")


def first_user(request: ChatRequest) -> str:
    """The first user message: the task as uac first put it (repair rounds come later)."""
    for message in request.messages:
        if message.role == "user":
            return message.content or ""
    return ""


def system_text(request: ChatRequest) -> str:
    return "\n".join(m.content or "" for m in request.messages if m.role == "system")


def call_kind(request: ChatRequest) -> str | None:
    """Which of :data:`KINDS` this request is, from how its prompt begins (or its schema name)."""
    opening = first_user(request).lstrip()
    for kind, pattern in _OPENINGS:
        if pattern.match(opening):
            if kind == "compile" and is_compile_repair(request):
                return "compile_repair"
            return kind
    if _ANSWER_OPENING.match(system_text(request).lstrip()):
        return "answer"
    if request.json_schema is not None:
        return _SCHEMA_KINDS.get(request.schema_name)
    return None


def is_compile_repair(request: ChatRequest) -> bool:
    """Is the last message uac's list of problems with the operations answered before?"""
    last = last_message(request)
    return (
        last is not None
        and last.role == "user"
        and len(request.messages) > 2
        and bool(_COMPILE_REPAIR.match((last.content or "").lstrip()))
    )


@dataclass(frozen=True)
class TurnLine:
    turn_id: str
    speaker: str
    text: str


@dataclass(frozen=True)
class FactLine:
    fact_id: str
    #: when it was said (the session's day)
    said: _dt.date | None
    #: when it happened, where the extractor resolved another day
    happened: _dt.date | None
    speaker: str | None
    text: str

    @property
    def day(self) -> _dt.date | None:
        """The day the fact is about: when it happened, else when it was said."""
        return self.happened or self.said


def parse_fact_line(line: str) -> FactLine | None:
    match = FACT_LINE.match(line.strip())
    if not match:
        return None
    said = _dt.date.fromisoformat(match["said"]) if match["said"] else None
    happened = _dt.date.fromisoformat(match["happened"]) if match["happened"] else None
    return FactLine(match["id"], said, happened, (match["speaker"] or "").strip() or None, match["text"].strip())


def section(text: str, heading: str, *, stop: tuple[str, ...] = ("\n\n",)) -> str:
    """The text after ``heading`` up to the first of ``stop`` (or the end)."""
    at = text.find(heading)
    if at < 0:
        return ""
    rest = text[at + len(heading) :]
    ends = [rest.find(s, 1) for s in stop if rest.find(s, 1) > 0]
    return rest[: min(ends)] if ends else rest


def session_date(prompt: str) -> _dt.date | None:
    match = re.search(r"dated (\d{4}-\d{2}-\d{2})", prompt)
    return _dt.date.fromisoformat(match.group(1)) if match else None


def turn_lines(prompt: str) -> list[TurnLine]:
    block = section(prompt, "Turns to extract from:", stop=("\nAnswer with JSON",))
    out = []
    for line in split_lines(block):
        match = TURN_LINE.match(line.strip())
        if match:
            out.append(TurnLine(match["id"], match["speaker"].strip(), match["text"].strip()))
    return out


def fact_lines(prompt: str, heading: str, *, stop: tuple[str, ...] = ("\nAnswer with JSON",)) -> list[FactLine]:
    """The fact lines after ``heading`` (the rest of the heading's own line is skipped) up to ``stop``."""
    block = section(prompt, heading, stop=stop)
    return [fact for line in split_lines(block)[1:] if (fact := parse_fact_line(line)) is not None]


def last_message(request: ChatRequest) -> Message | None:
    return request.messages[-1] if request.messages else None


__all__ = [
    "FactLine",
    "KINDS",
    "TurnLine",
    "call_kind",
    "fact_lines",
    "first_user",
    "is_compile_repair",
    "last_message",
    "parse_fact_line",
    "section",
    "session_date",
    "system_text",
    "turn_lines",
]
