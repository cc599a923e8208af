"""A conversation session and its turns, as uac stores them in the archive.

Every input format (LoCoMo JSON, chat messages, plain transcripts) is read
into these two dataclasses; the archive (``memory/sessions/<id>.json``) is
their JSON form.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ..lookup import find_named


@dataclass(frozen=True)
class Turn:
    turn_id: str
    speaker: str
    text: str
    #: caption of an image shared in this turn, kept as text
    image_caption: str | None = None

    @property
    def full_text(self) -> str:
        """The turn as one string: its text plus ``[image: caption]`` if it shared one."""
        if self.image_caption:
            image = f"[image: {self.image_caption}]"
            return f"{self.text} {image}".strip()
        return self.text

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"turn_id": self.turn_id, "speaker": self.speaker, "text": self.text}
        if self.image_caption:
            data["image_caption"] = self.image_caption
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Turn":
        return cls(
            turn_id=str(data["turn_id"]),
            speaker=str(data["speaker"]),
            text=str(data.get("text", "")),
            image_caption=data.get("image_caption") or None,
        )


@dataclass(frozen=True)
class Session:
    session_id: str
    date: _dt.date
    #: the date-time as written in the input (e.g. "1:56 pm on 8 May, 2023")
    date_text: str
    turns: tuple[Turn, ...]
    #: input format the session was read from (locomo | messages | transcript)
    source: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def speakers(self) -> tuple[str, ...]:
        """Distinct speakers in order of first appearance."""
        seen: dict[str, None] = {}
        for turn in self.turns:
            seen.setdefault(turn.speaker, None)
        return tuple(seen)

    def turn(self, turn_id: str) -> Turn:
        return find_named(self.turns, turn_id, key=lambda turn: turn.turn_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "date": self.date.isoformat(),
            "date_text": self.date_text,
            "speakers": list(self.speakers),
            "source": self.source,
            "meta": dict(self.meta),
            "turns": [t.to_json() for t in self.turns],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Session":
        return cls(
            session_id=str(data["session_id"]),
            date=_dt.date.fromisoformat(str(data["date"])[:10]),
            date_text=str(data.get("date_text") or data["date"]),
            turns=tuple(Turn.from_json(t) for t in data.get("turns") or ()),
            source=str(data.get("source") or ""),
            meta=dict(data.get("meta") or {}),
        )

    def content_hash(self) -> str:
        """sha256 over the session's date and turns (stable across re-reads)."""
        payload = {"date": self.date.isoformat(), "turns": [t.to_json() for t in self.turns]}
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_session_id(date: _dt.date, turns: list[tuple[str, str, str | None]]) -> str:
    """A stable id for a session without one of its own: ``s-`` + 12 hex of its content."""
    payload = {"date": date.isoformat(), "turns": [list(t) for t in turns]}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "s-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
