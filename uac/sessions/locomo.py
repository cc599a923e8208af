"""LoCoMo conversations: ``{"sample_id", "conversation": {"speaker_a", "speaker_b",
"session_N_date_time", "session_N": [turns]}, "qa": [...]}`` (a list of them, or one).

This is uac's one reader of the format, for ingest and for evaluation:

* each ``session_N`` list becomes one :class:`~uac.sessions.model.Session`
  dated from ``session_N_date_time`` (there can be more date keys than
  sessions: the turn lists decide); each turn keeps its ``dia_id`` as its turn
  id (ingest takes any text of 1-200 characters: :data:`~uac.names.TURN_ID`);
  a shared image's ``blip_caption`` is kept as text.  Session ids are
  ``<sample_id>_s<N>``.
* :func:`load_locomo` also reads the ``qa`` items into :class:`LocomoQuestion`:
  ``question``, ``answer`` (a string, sometimes an integer; usually absent in
  category 5, which carries ``adversarial_answer``), ``evidence`` (turn ids
  such as ``D1:3``, normalised by :func:`normalize_turn_ids`) and ``category``
  (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ..errors import InputError
from .archive import check_session_id
from .dates import parse_date
from .model import Session, Turn
from .reader import check_turn_size, parse_json, read_text

#: LoCoMo's question categories
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: the categories with a gold answer (5, adversarial, asks about something never said)
LOCOMO_ANSWERABLE = (1, 2, 3, 4)

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_TURN_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def normalize_turn_ids(values: Iterable[Any]) -> tuple[str, ...]:
    """Turn ids in canonical form ``D<session>:<turn>``, in order, deduplicated.

    The LoCoMo release has a few irregular evidence entries (shaped like
    ``"D3:4; D5:1"``, ``"D:2:7"``, ``"D12:05"``, a bare ``"D"``); each id found
    inside an entry is kept, the rest dropped.
    """
    seen: dict[str, None] = {}
    for value in values:
        for match in _TURN_ID.finditer(str(value)):
            seen.setdefault(f"D{int(match.group(1))}:{int(match.group(2))}", None)
    return tuple(seen)


def turn_session_number(turn_id: str) -> int | None:
    """The session number of a LoCoMo turn id (``D3:7`` -> 3), or ``None``."""
    match = _TURN_ID.match(turn_id)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class LocomoQuestion:
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
        return self.category in LOCOMO_ANSWERABLE

    @property
    def category_name(self) -> str:
        return LOCOMO_CATEGORIES.get(self.category, str(self.category))

    @property
    def evidence_sessions(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(n for n in map(turn_session_number, self.evidence) if n is not None))


@dataclass(frozen=True)
class LocomoConversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    questions: tuple[LocomoQuestion, ...] = ()

    @property
    def last_date(self) -> _dt.date:
        """The date of the last session: the question date of every QA item."""
        return max(s.date for s in self.sessions)

    @property
    def turns(self) -> list[tuple[Session, Turn]]:
        """Every turn with its session, in conversation order."""
        return [(s, t) for s in self.sessions for t in s.turns]

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


def session_number(session: Session) -> int:
    """The ``N`` of ``session_N`` a LoCoMo session was read from."""
    return int(session.meta["session_number"])


def looks_like_locomo(value: Any) -> bool:
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(i, dict) and isinstance(i.get("conversation"), dict) for i in items)


def _text(value: Any) -> str | None:
    return None if value is None else str(value).strip()


def _sessions(path: Path, sample: str, conversation: dict[str, Any], date: str | None) -> tuple[Session, ...]:
    numbers = sorted(
        int(m.group(1))
        for key in conversation
        if (m := _SESSION_KEY.fullmatch(key)) and isinstance(conversation[key], list)
    )
    if not numbers:
        raise InputError(f"{path}: conversation {sample!r} has no session_N turn lists.")
    sessions = []
    for number in numbers:
        key = f"session_{number}"
        date_text = str(conversation.get(f"{key}_date_time") or "").strip()
        day = parse_date(date_text) if date_text else None
        if day is None and date:
            day = parse_date(date)
            date_text = date_text or date
        if day is None:
            raise InputError(
                f"{path}: {sample} {key} has no readable date ({key}_date_time = {date_text or 'missing'!r}).",
                hint=f"Add {key}_date_time (e.g. '1:56 pm on 8 May, 2023') to the file, "
                "or give the date with {opt:date} (YYYY-MM-DD).",
            )
        turns = []
        for index, raw in enumerate(conversation[key], 1):
            if not isinstance(raw, dict) or "speaker" not in raw:
                raise InputError(f"{path}: {sample} {key} turn {index} is not an object with a speaker.")
            turn_id = str(raw.get("dia_id") or f"D{number}:{index}")
            text = _text(raw.get("text")) or ""
            check_turn_size(text, path, f"{sample} turn {turn_id}")
            turns.append(Turn(turn_id, str(raw["speaker"]), text, _text(raw.get("blip_caption")) or None))
        if turns:
            sessions.append(
                Session(
                    session_id=f"{sample}_s{number}",
                    date=day,
                    date_text=date_text,
                    turns=tuple(turns),
                    source="locomo",
                    meta={"sample_id": sample, "session_number": number},
                )
            )
    if not sessions:
        raise InputError(f"{path}: conversation {sample!r} has only empty sessions.", hint="Nothing to ingest.")
    return tuple(sessions)


def _questions(path: Path, sample: str, items: Any) -> tuple[LocomoQuestion, ...]:
    if not isinstance(items, list):
        raise InputError(f"{path}: conversation {sample!r} has no 'qa' list.")
    questions = []
    for index, item in enumerate(items):
        where = f"{path}: {sample} qa[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise InputError(f"{where} has no question text.")
        try:
            category = int(item["category"])
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{where} has no integer category (got {item.get('category')!r}).") from None
        if category not in LOCOMO_CATEGORIES:
            raise InputError(f"{where} has category {category}; LoCoMo categories are 1-5.")
        answer = _text(item.get("answer"))
        if answer is None and category in LOCOMO_ANSWERABLE:
            raise InputError(f"{where} (category {category}) has no answer.")
        evidence = item.get("evidence") or []
        if not isinstance(evidence, list):
            raise InputError(f"{where} evidence must be a list of turn ids.")
        questions.append(
            LocomoQuestion(
                qid=f"{sample}:q{index}",
                sample_id=sample,
                index=index,
                question=item["question"].strip(),
                category=category,
                answer=answer,
                evidence=normalize_turn_ids(evidence),
                adversarial_answer=_text(item.get("adversarial_answer")),
            )
        )
    return tuple(questions)


def parse_conversation(
    item: Any,
    path: Path,
    *,
    default_id: str,
    date: str | None = None,
    questions: bool = True,
) -> LocomoConversation:
    """One LoCoMo conversation object.  ``default_id`` is its sample id when it has
    none; ``date`` dates sessions without a readable date; ``questions=False``
    leaves the ``qa`` items unread (ingest needs only the sessions)."""
    if not isinstance(item, dict) or not isinstance(item.get("conversation"), dict):
        raise InputError(f"{path}: {default_id} is not a LoCoMo conversation object (no 'conversation').")
    sample = check_session_id(str(item.get("sample_id") or default_id))
    conversation = item["conversation"]
    return LocomoConversation(
        sample_id=sample,
        speaker_a=str(conversation.get("speaker_a") or "Speaker A"),
        speaker_b=str(conversation.get("speaker_b") or "Speaker B"),
        sessions=_sessions(path, sample, conversation, date),
        questions=_questions(path, sample, item.get("qa", [])) if questions else (),
    )


def _pick(value: Any, path: Path, sample_id: str | None) -> dict[str, Any]:
    items = value if isinstance(value, list) else [value]
    ids = [str(i.get("sample_id", f"#{n}")) for n, i in enumerate(items)]
    if sample_id is not None:
        for item, found in zip(items, ids):
            if found == sample_id:
                return item
        raise InputError(
            f"{path} has no conversation with sample id {sample_id!r}.",
            hint=f"Available: {', '.join(ids)}.",
        )
    if len(items) == 1:
        return items[0]
    raise InputError(
        f"{path} holds {len(items)} LoCoMo conversations.",
        hint=f"Choose one with {{opt:sample_id}}: {', '.join(ids)}.",
    )


def read_locomo(value: Any, path: Path, *, sample_id: str | None = None, date: str | None = None) -> list[Session]:
    """The sessions of one conversation of a parsed LoCoMo value (what ingest reads)."""
    item = _pick(value, path, sample_id)
    default = sample_id or path.stem
    return list(parse_conversation(item, path, default_id=default, date=date, questions=False).sessions)


def load_locomo(path: str | Path, conversations: Iterable[str] | None = None) -> list[LocomoConversation]:
    """The conversations of a LoCoMo file with their QA items: all of them, or
    those whose sample ids are given (in file order).  The file is only read."""
    path = Path(path)
    value = parse_json(read_text(path), path)
    if not looks_like_locomo(value):
        raise InputError(
            f"{path} is not LoCoMo JSON: expected a list of {{'sample_id', 'conversation', 'qa'}} objects."
        )
    items = value if isinstance(value, list) else [value]
    parsed = [parse_conversation(item, path, default_id=f"conv-{n}") for n, item in enumerate(items)]
    if conversations is None:
        return parsed
    wanted = list(dict.fromkeys(conversations))
    known = {c.sample_id: c for c in parsed}
    missing = [w for w in wanted if w not in known]
    if missing:
        raise InputError(f"{path} has no conversation {', '.join(missing)}.", hint=f"Available: {', '.join(known)}.")
    return [c for c in parsed if c.sample_id in wanted]
