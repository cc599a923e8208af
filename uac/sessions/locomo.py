"""LoCoMo conversations: ``{"sample_id", "conversation": {"speaker_a", "speaker_b",
"session_N_date_time", "session_N": [turns]}}`` (a list of them, or one).

Each ``session_N`` list becomes one session dated from ``session_N_date_time``;
each turn keeps its ``dia_id`` as its turn id; a shared image's ``blip_caption``
is kept as text.  Session ids are ``<sample_id>_s<N>``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import InputError
from .archive import check_session_id
from .dates import parse_date
from .model import Session, Turn
from .reader import check_turn_size

_SESSION_KEY = re.compile(r"^session_(\d+)$")


def looks_like_locomo(value: Any) -> bool:
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(i, dict) and isinstance(i.get("conversation"), dict) for i in items)


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
    item = _pick(value, path, sample_id)
    sample = check_session_id(str(item.get("sample_id") or sample_id or path.stem))
    conversation = item["conversation"]
    numbers = sorted(
        int(m.group(1)) for key in conversation if (m := _SESSION_KEY.match(key)) and isinstance(conversation[key], list)
    )
    if not numbers:
        raise InputError(f"{path}: conversation {sample!r} has no session_N turn lists.")
    sessions = []
    for number in numbers:
        key = f"session_{number}"
        raw_turns = conversation[key]
        date_text = str(conversation.get(f"{key}_date_time") or "").strip()
        day = parse_date(date_text) if date_text else None
        if day is None and date:
            day = parse_date(date)
            date_text = date_text or date
        if day is None:
            raise InputError(
                f"{path}: {sample} {key} has no readable date "
                f"({key}_date_time = {date_text or 'missing'!r}).",
                hint="Add the date to the file or give it with {opt:date} (YYYY-MM-DD).",
            )
        turns = []
        for index, raw in enumerate(raw_turns, 1):
            if not isinstance(raw, dict) or "speaker" not in raw:
                raise InputError(f"{path}: {sample} {key} turn {index} is not an object with a speaker.")
            turn_id = str(raw.get("dia_id") or f"D{number}:{index}")
            text = str(raw.get("text") or "").strip()
            caption = raw.get("blip_caption")
            check_turn_size(text, path, f"{sample} turn {turn_id}")
            turns.append(Turn(turn_id, str(raw["speaker"]), text, str(caption).strip() if caption else None))
        if not turns:
            continue
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
    return sessions
