"""The fact: one extracted statement about the user, tied to its evidence.

This is the *folded* view of a fact as readers see it (the log may record a
fact's later supersession on a separate line; the fact log folds those in).
Dates are ISO ``YYYY-MM-DD`` strings on disk and :class:`datetime.date` here;
``event_date`` is a :class:`~uac.dates.Period` (a date with its precision), stored
in its short form (``2023-05-07``, ``2023-05``, ``2022``, ``2023-summer``,
``2023-06-02/2023-06-08``): an exact day is stored as before.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any

from ..dates import Period, parse_period


@dataclass(frozen=True)
class Fact:
    id: str
    text: str
    session_id: str
    session_date: _dt.date | None
    evidence: tuple[str, ...] = ()
    #: who the fact is about / who said it, if known
    speaker: str | None = None
    #: when the described event happened, with its precision, if the text dates it
    #: (may differ from session_date)
    event_date: Period | None = None
    valid_from: _dt.date | None = None
    invalid_at: _dt.date | None = None
    superseded_by: str | None = None
    #: extra fields kept from extraction (e.g. topic hints), never required
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.event_date is not None and not isinstance(self.event_date, Period):
            object.__setattr__(self, "event_date", parse_period(self.event_date))

    def is_valid_at(self, day: _dt.date | None) -> bool:
        """Was this fact in force on ``day`` (``None``: now)?"""
        if day is None:
            return self.invalid_at is None
        start = self.valid_from or self.session_date
        if start is not None and day < start:
            return False
        return self.invalid_at is None or day < self.invalid_at

    def _identity(self) -> dict[str, Any]:
        """The fact's identity and content (not its validity interval), as stored."""
        return {
            "id": self.id,
            "text": self.text,
            "session_id": self.session_id,
            "session_date": _iso(self.session_date),
            "evidence": list(self.evidence),
            "speaker": self.speaker,
            "event_date": _code(self.event_date),
            "valid_from": _iso(self.valid_from),
        }

    def content_checksum(self) -> str:
        """sha256 over the fact's identity and content (not its validity interval)."""
        text = json.dumps(self._identity(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {
            **self._identity(),
            "invalid_at": _iso(self.invalid_at),
            "superseded_by": self.superseded_by,
            "meta": dict(self.meta),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fact":
        return cls(
            id=str(data["id"]),
            text=str(data["text"]),
            session_id=str(data["session_id"]),
            session_date=_parse(data.get("session_date")),
            evidence=tuple(str(e) for e in data.get("evidence") or ()),
            speaker=data.get("speaker"),
            event_date=_period(data.get("event_date")),
            valid_from=_parse(data.get("valid_from")),
            invalid_at=_parse(data.get("invalid_at")),
            superseded_by=data.get("superseded_by"),
            meta=dict(data.get("meta") or {}),
        )

    def replace(self, **changes: Any) -> "Fact":
        return replace(self, **changes)


def _iso(day: _dt.date | None) -> str | None:
    return None if day is None else day.isoformat()


def _code(period: Period | None) -> str | None:
    return None if period is None else period.code


def _period(value: Any) -> Period | None:
    if value in (None, ""):
        return None
    return parse_period(value)


def _parse(text: Any) -> _dt.date | None:
    if text in (None, ""):
        return None
    if isinstance(text, _dt.date):
        return text
    return _dt.date.fromisoformat(str(text)[:10])
