"""The LLM extractor: a jinja2 prompt per window of turns, JSON-schema output.

Sessions longer than one prompt are cut into windows of whole turns (by
characters, never truncating a turn); each window after the first repeats a
few earlier turns as context that may not be cited.  The model's output is
validated (evidence must be turn ids of the window, dates ISO, ``supersedes``
an id shown in the prompt or the text of one); invalid output gets one repair
round with the validation messages, then a :class:`~uac.errors.ModelError`
naming the window.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any, Sequence

from ..errors import ModelError
from ..facts.model import Fact
from ..llm import LLMClient, Message, system, user
from ..sessions.model import Session, Turn
from ..templating import render_prompt
from .base import ExtractedFact

FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "string"}},
                    "event_date": {"type": ["string", "null"]},
                    "supersedes": {"type": ["string", "null"]},
                    "speaker": {"type": ["string", "null"]},
                },
                "required": ["text", "evidence", "event_date", "supersedes", "speaker"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Window:
    index: int
    turns: tuple[Turn, ...]
    context: tuple[Turn, ...]

    def describe(self, session: Session) -> str:
        return f"session {session.session_id} window {self.index + 1} (turns {self.turns[0].turn_id}..{self.turns[-1].turn_id})"


def make_windows(turns: Sequence[Turn], *, max_chars: int, context_turns: int) -> list[Window]:
    """Whole turns packed into windows of at most ``max_chars`` (a longer single turn gets its own)."""
    windows: list[Window] = []
    current: list[Turn] = []
    size = 0
    start = 0
    for position, turn in enumerate(turns):
        length = len(turn.speaker) + len(turn.full_text) + 16
        if current and size + length > max_chars:
            windows.append(Window(len(windows), tuple(current), tuple(turns[max(0, start - context_turns) : start])))
            current, size, start = [], 0, position
        current.append(turn)
        size += length
    if current:
        windows.append(Window(len(windows), tuple(current), tuple(turns[max(0, start - context_turns) : start])))
    return windows


def validate(value: Any, allowed: set[str], known: Sequence[Fact]) -> tuple[list[ExtractedFact], list[str]]:
    """Parse the model's JSON into facts; returns (facts, problems)."""
    problems: list[str] = []
    if not isinstance(value, dict) or not isinstance(value.get("facts"), list):
        return [], ['the answer must be an object {"facts": [...]}']
    known_ids = {f.id for f in known}
    by_text = {" ".join(f.text.lower().split()): f.id for f in known}
    facts: list[ExtractedFact] = []
    for number, item in enumerate(value["facts"], 1):
        where = f"facts[{number - 1}]"
        if not isinstance(item, dict):
            problems.append(f"{where} is not an object")
            continue
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{where}.text must be a non-empty string")
            continue
        evidence = item.get("evidence")
        if not isinstance(evidence, list) or not evidence or not all(isinstance(e, str) for e in evidence):
            problems.append(f"{where}.evidence must be a non-empty list of turn ids")
            continue
        unknown = [e for e in evidence if e not in allowed]
        if unknown:
            problems.append(f"{where}.evidence has ids that are not turns of this excerpt: {', '.join(unknown)}")
            continue
        event_date = None
        raw_date = item.get("event_date")
        if raw_date not in (None, ""):
            try:
                event_date = _dt.date.fromisoformat(str(raw_date)[:10])
            except ValueError:
                problems.append(f"{where}.event_date {raw_date!r} is not a YYYY-MM-DD date")
                continue
        supersedes = item.get("supersedes")
        if supersedes not in (None, ""):
            key = str(supersedes)
            if key not in known_ids:
                match = by_text.get(" ".join(key.lower().split()))
                if match is None:
                    problems.append(f"{where}.supersedes {key!r} is neither the id nor the text of a known fact")
                    continue
                key = match
            supersedes = key
        else:
            supersedes = None
        speaker = item.get("speaker")
        facts.append(
            ExtractedFact(
                text=" ".join(text.split()),
                evidence=tuple(dict.fromkeys(evidence)),
                speaker=str(speaker) if speaker else None,
                event_date=event_date,
                supersedes=supersedes,
                meta={"extractor": "llm"},
            )
        )
    return facts, problems


class LLMExtractor:
    name = "llm"

    def __init__(self, client: LLMClient, *, window_chars: int = 12_000, context_turns: int = 3, known_facts: int = 60) -> None:
        self.client = client
        self.window_chars = window_chars
        self.context_turns = context_turns
        self.known_facts = known_facts

    def extract(self, session: Session, known: Sequence[Fact] = ()) -> list[ExtractedFact]:
        shown = list(known)[-self.known_facts :] if self.known_facts else []
        out: list[ExtractedFact] = []
        for window in make_windows(session.turns, max_chars=self.window_chars, context_turns=self.context_turns):
            out.extend(self._window(session, window, shown))
        return out

    def _window(self, session: Session, window: Window, known: list[Fact]) -> list[ExtractedFact]:
        prompt = render_prompt(
            "extract_facts.j2",
            session_id=session.session_id,
            session_date=session.date.isoformat(),
            date_text=session.date_text,
            speakers=list(session.speakers),
            known=known,
            context=list(window.context),
            turns=list(window.turns),
        )
        messages: list[Message] = [system(render_prompt("system_json.j2", schema_name="facts")), user(prompt)]
        allowed = {t.turn_id for t in window.turns}
        purpose = f"extract {window.describe(session)}"
        problems: list[str] = []
        for attempt in range(2):
            response = self.client.chat(messages, json_schema=FACTS_SCHEMA, schema_name="facts", purpose=purpose)
            try:
                value = response.json()
            except ModelError as exc:
                value, problems = None, [f"the answer is not JSON: {exc.message}"]
            else:
                facts, problems = validate(value, allowed, known)
                if not problems:
                    return facts
            if attempt == 0:
                messages = messages + [
                    Message("assistant", response.content or ""),
                    user(render_prompt("extract_repair.j2", problems=problems, allowed=sorted(allowed))),
                ]
        raise ModelError(
            f"fact extraction for {window.describe(session)} returned invalid output twice: "
            + "; ".join(problems[:5])
            + ".",
            hint="Try a stronger model, or the rules extractor ({opt:extractor} rules).",
        )
