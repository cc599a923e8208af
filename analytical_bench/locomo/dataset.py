"""Reading a LoCoMo file: conversations, their sessions and turns, and the QA items.

The release is a JSON list of ``{sample_id, conversation, qa, ...}`` objects.
``conversation`` holds ``speaker_a``/``speaker_b``, ``session_N`` turn lists
and ``session_N_date_time`` strings (there can be more date keys than
sessions: the turn lists decide).  A ``qa`` item has ``question``, ``answer``
(a string, sometimes an integer; usually absent in category 5, which carries
``adversarial_answer``), ``evidence`` (turn ids such as ``D1:3``) and
``category`` (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial).

The file is only read, never copied: every run points at it by path.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from uac.errors import InputError
from uac.sessions.dates import parse_date

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ANSWERABLE = (1, 2, 3, 4)

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_TURN_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def normalize_turn_ids(values: Iterable[Any]) -> tuple[str, ...]:
    """Evidence turn ids in canonical form ``D<session>:<turn>``, in order, deduplicated.

    The release has a few irregular entries (shaped like ``"D3:4; D5:1"``,
    ``"D:2:7"``, ``"D12:05"``, a bare ``"D"``); each id found inside an entry is kept, the
    rest dropped.
    """
    seen: dict[str, None] = {}
    for value in values:
        for match in _TURN_ID.finditer(str(value)):
            seen.setdefault(f"D{int(match.group(1))}:{int(match.group(2))}", None)
    return tuple(seen)


def session_of(turn_id: str) -> int | None:
    """The session number of a turn id (``D3:7`` -> 3)."""
    match = _TURN_ID.match(turn_id)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class LocomoTurn:
    dia_id: str
    speaker: str
    text: str
    image_caption: str | None = None

    @property
    def full_text(self) -> str:
        if self.image_caption:
            return f"{self.text} [shares an image: {self.image_caption}]".strip()
        return self.text


@dataclass(frozen=True)
class LocomoSession:
    number: int
    date: _dt.date
    date_text: str
    turns: tuple[LocomoTurn, ...]


@dataclass(frozen=True)
class Question:
    qid: str
    sample_id: str
    index: int
    question: str
    category: int
    #: the gold answer as text (integers stringified); ``None`` for most category-5 items
    answer: str | None
    evidence: tuple[str, ...]
    adversarial_answer: str | None = None

    @property
    def answerable(self) -> bool:
        return self.category in ANSWERABLE

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, str(self.category))

    @property
    def evidence_sessions(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(n for n in map(session_of, self.evidence) if n is not None))


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[LocomoSession, ...]
    questions: tuple[Question, ...]

    @property
    def last_date(self) -> _dt.date:
        """The date of the last session: the question date of every QA item."""
        return max(s.date for s in self.sessions)

    @property
    def turns(self) -> list[tuple[LocomoSession, LocomoTurn]]:
        return [(s, t) for s in self.sessions for t in s.turns]

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return str(value).strip()


def _sessions(path: Path, sample_id: str, conversation: dict[str, Any]) -> tuple[LocomoSession, ...]:
    numbers = sorted(
        int(m.group(1)) for key, value in conversation.items() if (m := _SESSION_KEY.match(key)) and isinstance(value, list)
    )
    sessions = []
    for number in numbers:
        key = f"session_{number}"
        date_text = str(conversation.get(f"{key}_date_time") or "").strip()
        day = parse_date(date_text) if date_text else None
        if day is None:
            raise InputError(
                f"{path}: {sample_id} {key} has no readable date ({key}_date_time = {date_text or 'missing'!r}).",
                hint="Each session_N needs a session_N_date_time such as '1:56 pm on 8 May, 2023'.",
            )
        turns = []
        for position, raw in enumerate(conversation[key], 1):
            if not isinstance(raw, dict) or "speaker" not in raw:
                raise InputError(f"{path}: {sample_id} {key} turn {position} is not an object with a speaker.")
            caption = _text(raw.get("blip_caption"))
            turns.append(
                LocomoTurn(
                    dia_id=str(raw.get("dia_id") or f"D{number}:{position}"),
                    speaker=str(raw["speaker"]),
                    text=_text(raw.get("text")) or "",
                    image_caption=caption or None,
                )
            )
        if turns:
            sessions.append(LocomoSession(number, day, date_text, tuple(turns)))
    if not sessions:
        raise InputError(f"{path}: conversation {sample_id!r} has no non-empty session_N turn lists.")
    return tuple(sessions)


def _questions(path: Path, sample_id: str, items: Any) -> tuple[Question, ...]:
    if not isinstance(items, list):
        raise InputError(f"{path}: conversation {sample_id!r} has no 'qa' list.")
    questions = []
    for index, item in enumerate(items):
        where = f"{path}: {sample_id} qa[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise InputError(f"{where} has no question text.")
        try:
            category = int(item.get("category"))
        except (TypeError, ValueError):
            raise InputError(f"{where} has no integer category (got {item.get('category')!r}).") from None
        if category not in CATEGORY_NAMES:
            raise InputError(f"{where} has category {category}; LoCoMo categories are 1-5.")
        answer = _text(item.get("answer"))
        if answer is None and category in ANSWERABLE:
            raise InputError(f"{where} (category {category}) has no answer.")
        evidence = item.get("evidence") or []
        if not isinstance(evidence, list):
            raise InputError(f"{where} evidence must be a list of turn ids.")
        questions.append(
            Question(
                qid=f"{sample_id}:q{index}",
                sample_id=sample_id,
                index=index,
                question=item["question"].strip(),
                category=category,
                answer=answer,
                evidence=normalize_turn_ids(evidence),
                adversarial_answer=_text(item.get("adversarial_answer")),
            )
        )
    return tuple(questions)


def parse_conversation(path: Path, item: Any, position: int) -> Conversation:
    if not isinstance(item, dict) or not isinstance(item.get("conversation"), dict):
        raise InputError(f"{path}: item {position} is not a LoCoMo conversation object (no 'conversation').")
    sample_id = str(item.get("sample_id") or f"conv-{position}")
    conversation = item["conversation"]
    return Conversation(
        sample_id=sample_id,
        speaker_a=str(conversation.get("speaker_a") or "Speaker A"),
        speaker_b=str(conversation.get("speaker_b") or "Speaker B"),
        sessions=_sessions(path, sample_id, conversation),
        questions=_questions(path, sample_id, item.get("qa", [])),
    )


def load_locomo(path: str | Path, conversations: Iterable[str] | None = None) -> list[Conversation]:
    """The conversations of a LoCoMo file (all, or those whose sample ids are given, in file order)."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise InputError(f"LoCoMo file {path} does not exist.", hint="Pass --data PATH/locomo10.json.") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path} is not a UTF-8 JSON file: {exc}.") from None
    items = raw if isinstance(raw, list) else [raw]
    parsed = [parse_conversation(path, item, n) for n, item in enumerate(items)]
    if conversations is None:
        return parsed
    wanted = list(dict.fromkeys(conversations))
    known = {c.sample_id: c for c in parsed}
    missing = [w for w in wanted if w not in known]
    if missing:
        raise InputError(
            f"{path} has no conversation {', '.join(missing)}.",
            hint=f"Available: {', '.join(known)}.",
        )
    return [c for c in parsed if c.sample_id in wanted]
