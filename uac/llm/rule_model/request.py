"""Reading a request the way uac built it: its schema, its roles and the data blocks it holds.

uac gives every call a structure on purpose, and the rule model reads only that:

* the name of the JSON schema a structured reply must match -- from the request
  (``response_format``), else from the ``<reply_schema>`` block of the system
  message (a server that takes no schema still passes the prompt);
* the roles of the messages: an assistant answer followed by a user message is
  a repair round; ``tool`` messages hold the results of tool calls;
* the tools offered (``python`` for the reader, ``add`` for a probe);
* the data blocks of the prompts: a line ``<name>``, the data, a line
  ``</name>`` (:data:`BLOCKS` lists them).  The prose around them tells a model
  what to do and may be worded in any way; the blocks hold the facts, turns,
  records and questions as uac wrote them, one item per line, in the formats
  of :data:`FACT_LINE` and :data:`TURN_LINE` or as JSON.  Every value in a prompt
  has its tag-like text escaped (:func:`uac.templating.escape_tags`: ``</turns>``
  in a chat turn is written ``<\\/turns>``), so no value ends or opens a block;
  :func:`blocks` gives the lines back as they were.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass
from typing import Any

from ...templating import unescape_tags
from ..types import ChatRequest, Message

#: call kinds, each with a responder
KINDS = ("extract", "reconcile", "route", "compile", "compile_repair", "compile_bounded", "decide", "answer")

#: the data blocks uac writes into prompts: name -> what one of its lines holds
BLOCKS = {
    "reply_schema": "the name of the JSON schema the reply must match (system message)",
    "session": "JSON: the session's id, date and speakers (extraction)",
    "known_facts": "[id] text: facts a new fact may supersede (extraction)",
    "context_turns": "a turn line: earlier turns, for context only (extraction)",
    "turns": "a turn line: the turns to extract from (extraction)",
    "new_fact": "a fact line: one new fact (reconcile; each followed by its earlier_facts)",
    "earlier_facts": "a fact line: the earlier facts about the same thing as the new fact before it",
    "facts": "a fact line: the facts to route or organise (routing, bounded compile); an evidence line (answer)",
    "classes": 'JSON: {"name", "doc", "fields": [{"name", "type", "default"}]} or {"name", "members"}: the domain\'s classes (compile)',
    "collections": "`name: list[Class]` (N records): the domain's collections (compile)",
    "related_records": 'JSON: {"id", "class", field: value, ...}: records the facts may update (compile)',
    "other_domain_records": 'JSON: {"ref": "domain/id", "class", field: value, ...}: other domains\' records a fact may refer to (compile)',
    "revisit": 'JSON: {"record": {"id", "class", ...}, "why"}: records to update or retire (compile)',
    "reference_facts": "a fact line: facts shown for reference (compile)",
    "new_facts": "a fact line: the facts to record (compile)",
    "ended_facts": "- id: how it ended: new facts no longer in force (compile)",
    "shared_facts": "- id: also ... (main is its main domain): new facts whose main domain is another (compile)",
    "problems": "- problem: what uac could not apply of the answer before (compile repair)",
    "state": "the typed state as Python source (answer)",
    "archive": "an evidence line: raw conversation excerpts (answer)",
    "question": "the question (answer, evidence selection)",
    "selected_evidence": "an evidence line: evidence selected in earlier rounds (evidence selection)",
    "candidates": "an evidence line: new candidates to select from (evidence selection)",
    "reader_settings": 'JSON: {"code": "native" | "codeblock" | null, "step_by_step": bool, "refusal": str} (answer system message)',
    "code_result": "the JSON result of the code the model sent (answer, code-block mode)",
}

#: the schema a structured call asks for -> its kind
SCHEMA_KINDS = {
    "facts": "extract",
    "changes": "reconcile",
    "routes": "route",
    "operations": "compile",
    "domains": "compile_bounded",
    "evidence_decision": "decide",
}

_OPEN = re.compile(r"^<(?P<name>[a-z_]+)>$")
_DAY = r"\d{4}-\d{2}-\d{2}"
#: ``[id] (said D; happened D) speaker: text`` -- either day may be missing; ``(D)`` alone is read as said
FACT_LINE = re.compile(
    rf"^\[(?P<id>[^\]]+)\]"
    rf"(?: \((?:(?:said )?(?P<said>{_DAY}))?(?:;? ?happened (?P<happened>{_DAY}))?\))?"
    r"(?: (?P<speaker>[^:\n]{1,60}):)? (?P<text>.*)$"
)
#: ``[turn id] speaker: text``
TURN_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<speaker>[^:\n]{1,80}): (?P<text>.*)$")


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """Every data block of ``text`` in order: (name, its lines, unescaped).  A block opens with
    a line ``<name>`` of :data:`BLOCKS` and closes with the line ``</name>``."""
    out: list[tuple[str, list[str]]] = []
    lines = text.split("\n")
    at = 0
    while at < len(lines):
        found = _OPEN.match(lines[at].strip())
        if found and found["name"] in BLOCKS:
            name, close = found["name"], f"</{found['name']}>"
            end = next((i for i in range(at + 1, len(lines)) if lines[i].strip() == close), None)
            if end is not None:
                out.append((name, [unescape_tags(line) for line in lines[at + 1 : end]]))
                at = end + 1
                continue
        at += 1
    return out


def block(text: str, name: str) -> list[str] | None:
    """The lines of the first ``name`` block of ``text``; ``None`` when it has none."""
    return next((lines for found, lines in blocks(text) if found == name), None)


def block_text(text: str, name: str) -> str:
    """The first ``name`` block of ``text`` as one text ("" when it has none)."""
    return "\n".join(block(text, name) or [])


def block_json(text: str, name: str) -> Any:
    """The JSON value the ``name`` block holds, else ``None``."""
    try:
        return json.loads(block_text(text, name) or "null")
    except json.JSONDecodeError:
        return None


def first_user(request: ChatRequest) -> str:
    """The first user message: the task as uac first put it (repair rounds come later)."""
    for message in request.messages:
        if message.role == "user":
            return message.content or ""
    return ""


def system_text(request: ChatRequest) -> str:
    return "\n".join(m.content or "" for m in request.messages if m.role == "system")


def last_message(request: ChatRequest) -> Message | None:
    return request.messages[-1] if request.messages else None


def reply_schema(request: ChatRequest) -> str | None:
    """The name of the schema the reply must match: the request's, else the system message's block."""
    if request.json_schema is not None:
        return request.schema_name
    named = block_text(system_text(request), "reply_schema").strip()
    return named or None


def call_kind(request: ChatRequest) -> str | None:
    """Which of :data:`KINDS` this request is: the schema its reply must match, else the reader's
    answer settings in the system message."""
    kind = SCHEMA_KINDS.get(reply_schema(request) or "")
    if kind == "compile" and is_repair(request):
        return "compile_repair"
    if kind is not None:
        return kind
    if block(system_text(request), "reader_settings") is not None:
        return "answer"
    return None


def is_repair(request: ChatRequest) -> bool:
    """Does the request end with uac's reply to an answer given before (a user message after an
    assistant message)?"""
    roles = [m.role for m in request.messages]
    return len(roles) > 2 and roles[-1] == "user" and "assistant" in roles[:-1]


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


def fact_lines(lines: list[str] | None) -> list[FactLine]:
    """The fact lines among ``lines`` (a block's)."""
    return [fact for line in lines or [] if (fact := parse_fact_line(line)) is not None]


def turn_lines(lines: list[str] | None) -> list[TurnLine]:
    """The turn lines among ``lines`` (a block's)."""
    out = []
    for line in lines or []:
        match = TURN_LINE.match(line.strip())
        if match:
            out.append(TurnLine(match["id"], match["speaker"].strip(), match["text"].strip()))
    return out


def session_date(prompt: str) -> _dt.date | None:
    """The date of the session an extraction prompt is about (its ``session`` block)."""
    session = block_json(prompt, "session")
    day = session.get("date") if isinstance(session, dict) else None
    try:
        return _dt.date.fromisoformat(day) if isinstance(day, str) else None
    except ValueError:
        return None


__all__ = [
    "BLOCKS",
    "FACT_LINE",
    "KINDS",
    "SCHEMA_KINDS",
    "TURN_LINE",
    "FactLine",
    "TurnLine",
    "block",
    "block_json",
    "block_text",
    "blocks",
    "call_kind",
    "fact_lines",
    "first_user",
    "is_repair",
    "last_message",
    "parse_fact_line",
    "reply_schema",
    "session_date",
    "system_text",
    "turn_lines",
]
