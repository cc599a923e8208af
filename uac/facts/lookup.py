"""A few facts of the log by id, without folding it.

The change log names the facts behind each change, and a reader shows their
sentences; folding 100,000 log lines for a page of changes costs seconds.  A
fact id is ``<session id>-f<n>`` and the log head (:mod:`uac.facts.head`) knows
where each committed session's lines end, so :class:`FactLookup` reads only the
lines of the sessions it needs (between the commit before and the session's own
commit), checks each line's checksum as the fold does, and returns the fact
records as the session wrote them: text, session and dates, not the fold's
supersessions (``invalid_at``/``superseded_by`` are those of the line).

A process that has the folded log already (a server, a compile) is answered from
it.  An id that is not a committed fact is not found; one the head knows but
that is not where its id says (a log written by hand) makes the lookup fold the
whole log once, so the answer is always the fold's.
"""

from __future__ import annotations

import bisect
import json
from typing import TYPE_CHECKING, Iterable

from .log import line_checksum
from .model import Fact

if TYPE_CHECKING:
    from .log import FactLog


class FactLookup:
    """Facts of one log by id; found facts are kept for the next call."""

    def __init__(self, log: "FactLog") -> None:
        self.log = log
        self._found: dict[str, Fact] = {}
        self._missing: set[str] = set()
        self._folded: dict[str, Fact] | None = None
        self._data: bytes | None = None
        self._head = None
        self._ends: list[int] = []

    def get(self, ids: Iterable[str]) -> dict[str, Fact]:
        """id -> fact for the ids that are committed facts of the log."""
        wanted = {i for i in ids if i not in self._found and i not in self._missing}
        if wanted:
            self._find(wanted)
        return {i: self._found[i] for i in ids if i in self._found}

    def _find(self, wanted: set[str]) -> None:
        folded = self._folded if self._folded is not None else self._cached_fold()
        if folded is not None:
            self._take(wanted, folded)
            return
        head = self._read_head()
        by_session: dict[str, set[str]] = {}
        for fact_id in wanted:
            if fact_id not in head.fact_ids:
                self._missing.add(fact_id)
                continue
            session_id = fact_id.rsplit("-f", 1)[0]
            if session_id not in head.commit_ends or session_id == fact_id:
                return self._fold(wanted)
            by_session.setdefault(session_id, set()).add(fact_id)
        data = self._bytes()
        for session_id, ids in by_session.items():
            end = head.commit_ends[session_id]
            at = bisect.bisect_left(self._ends, end)
            start = self._ends[at - 1] if at > 0 else 0
            for fact in _facts_in(data[start:end], ids):
                self._found[fact.id] = fact
                ids.discard(fact.id)
            if ids:  # not where its id says: the fold answers
                return self._fold(wanted)

    def _cached_fold(self) -> dict[str, Fact] | None:
        cached = self.log._cache
        if cached is not None and cached[0] == self.log._stamp():
            self._folded = cached[1].facts
            return self._folded
        return None

    def _fold(self, wanted: set[str]) -> None:
        self._folded = self.log.read().facts
        self._take(wanted, self._folded)

    def _take(self, wanted: set[str], facts: dict[str, Fact]) -> None:
        for fact_id in wanted:
            fact = facts.get(fact_id)
            if fact is None:
                self._missing.add(fact_id)
            else:
                self._found[fact_id] = fact

    def _read_head(self):
        if self._head is None:
            self._head = self.log.head()
            self._ends = sorted(self._head.commit_ends.values())
        return self._head

    def _bytes(self) -> bytes:
        if self._data is None:
            self._data = self.log._bytes()[: self._read_head().good_bytes]
        return self._data


def _facts_in(data: bytes, ids: set[str]) -> list[Fact]:
    """The fact records among the lines ``data`` whose id is in ``ids`` (a line whose
    checksum does not match is skipped: the fold would not have committed it)."""
    out = []
    for raw in data.splitlines():
        if not any(i.encode("utf-8") in raw for i in ids):
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("kind") == "fact"
            and record.get("id") in ids
            and record.get("checksum") == line_checksum(record)
        ):
            out.append(Fact.from_json(record))
    return out


__all__ = ["FactLookup"]
