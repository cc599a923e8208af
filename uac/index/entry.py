"""One indexed document (a fact or an archive chunk) as the indexes store it."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any

from ..fieldjson import fields_json


@dataclass
class Entry:
    id: str
    text: str
    index_text: str
    session_id: str
    session_date: str | None
    evidence: list[str]
    checksum: str = ""

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Entry":
        return cls(
            id=data["id"],
            text=data["text"],
            index_text=data.get("index_text") or data["text"],
            session_id=data["session_id"],
            session_date=data.get("session_date"),
            evidence=list(data.get("evidence") or ()),
            checksum=data.get("checksum") or "",
        )

    @property
    def date_ordinal(self) -> int:
        return _dt.date.fromisoformat(self.session_date).toordinal() if self.session_date else 0
