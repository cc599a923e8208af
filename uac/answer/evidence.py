"""FACTS and ARCHIVE channel retrieval for answering (hybrid search underneath)."""

from __future__ import annotations

import datetime as _dt
from typing import Any, Callable

from ..context import MemoryContext
from ..dates import Period
from ..recall import search
from .model import EvidenceItem


def _get(hit: Any, name: str) -> Any:
    return hit.get(name) if isinstance(hit, dict) else getattr(hit, name, None)


def _iso(value: Any) -> str | None:
    """A date as ISO; a period (an event date) as its label: an exact day in ISO,
    anything else as people say it ("the week before 9 June 2023", "2022")."""
    if value is None:
        return None
    if isinstance(value, Period):
        return value.label()
    return value.isoformat() if isinstance(value, _dt.date) else str(value)


class EvidenceRetriever:
    """Searches one channel and decorates fact hits with their event dates."""

    def __init__(self, ctx: MemoryContext, as_of: _dt.date | None) -> None:
        self.ctx = ctx
        self.as_of = as_of
        self._event_dates: dict[str, str | None] | None = None
        self.queries: list[tuple[str, str]] = []

    def _event_date(self, fact_id: str) -> str | None:
        if self._event_dates is None:
            self._event_dates = {}
        if fact_id not in self._event_dates:
            self._event_dates[fact_id] = _iso(self.ctx.fact_table().event_date(fact_id))
        return self._event_dates[fact_id]

    def search(self, query: str, channel: str, k: int) -> list[EvidenceItem]:
        if k <= 0:
            return []
        self.queries.append((query, channel))
        hits = search(self.ctx, query, k=k, channel=channel, as_of=self.as_of)
        items = []
        for hit in hits:
            hit_channel = _get(hit, "channel")
            item_id = str(_get(hit, "id"))
            items.append(
                EvidenceItem(
                    id=item_id,
                    channel=hit_channel,
                    text=_get(hit, "text"),
                    score=float(_get(hit, "score") or 0.0),
                    session_id=_get(hit, "session_id"),
                    session_date=_iso(_get(hit, "session_date")),
                    evidence=tuple(_get(hit, "evidence") or ()),
                    event_date=self._event_date(item_id) if hit_channel == "facts" else None,
                    invalid_at=_get(hit, "invalid_at"),
                )
            )
        return items


SearchFn = Callable[[str, str, int], list[EvidenceItem]]
