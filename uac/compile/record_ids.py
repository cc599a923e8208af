"""The ids of a working copy's records: the next number per prefix and where each id is.

Records of managed classes carry an ``id`` that uac assigns (``trip-3``) and never
reuses: :class:`RecordIds` hands out the next one per prefix and keeps the
(collection, position) of every id, rebuilt from the records when a change moved them.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator

ID_FIELD = "id"
_ID_NUMBER = re.compile(r"^(?P<prefix>[a-z][a-z0-9_]*)-(?P<n>[0-9]+)$")

#: (collection, position, record) for every record of a managed class
Records = Callable[[], Iterator[tuple[str, int, Any]]]


def id_prefix(class_name: str) -> str:
    """``MedicalCondition`` -> ``medical_condition`` (the prefix of its record ids)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", class_name).lower()


class RecordIds:
    """The next id number per prefix, and the place of every id among ``records()``."""

    def __init__(self, records: Records, next_ids: dict[str, int] | None = None) -> None:
        self._records = records
        #: the next record number per id prefix (ids are never reused)
        self.next: dict[str, int] = dict(next_ids or {})
        self._places: dict[str, tuple[str, int]] | None = None

    def copy(self, records: Records) -> "RecordIds":
        """The same numbers and places, over the records of a copy."""
        twin = RecordIds(records, self.next)
        twin._places = dict(self._places) if self._places is not None else None
        return twin

    def new(self, class_name: str) -> str:
        """A fresh id for a record of ``class_name`` (``trip-4``)."""
        prefix = id_prefix(class_name)
        number = self.next.get(prefix, 1)
        self.next[prefix] = number + 1
        return f"{prefix}-{number}"

    def place(self, ident: str) -> tuple[str, int] | None:
        """(collection, position) of the record with id ``ident``."""
        if self._places is None:
            self._places = {getattr(r, ID_FIELD): (c, p) for c, p, r in self._records()}
        return self._places.get(ident)

    def added(self, ident: str, collection: str, position: int) -> None:
        """A record was appended at ``position`` of ``collection``."""
        if self._places is not None:
            self._places[ident] = (collection, position)

    def stale(self) -> None:
        """Records moved (removed, rebuilt, renumbered): find the places again when asked."""
        self._places = None

    def unnumbered(self) -> list[tuple[str, int, Any]]:
        """Note the highest number per prefix among the records' ids; the records whose id is
        missing or repeats an earlier one's (they need a new one)."""
        seen: set[str] = set()
        fixes: list[tuple[str, int, Any]] = []
        for collection, position, record in self._records():
            ident = getattr(record, ID_FIELD, "")
            match = _ID_NUMBER.match(ident or "")
            if match:
                prefix, number = match.group("prefix"), int(match.group("n"))
                self.next[prefix] = max(self.next.get(prefix, 1), number + 1)
            if not ident or ident in seen:
                fixes.append((collection, position, record))
            else:
                seen.add(ident)
        return fixes


__all__ = ["ID_FIELD", "RecordIds", "id_prefix"]
