"""Keeping the search index of imported records in step with the view.

:func:`record_text` writes one imported record as the text the index holds
(collection, field names and values); :func:`sync_record_index` makes the
entries of every domain whose ``state.py`` changed since the index was last
written (see :mod:`uac.index.record_index`) and drops those of domains that
are gone.  ``import-records`` and ``forget`` call it under the project lock
right after they change the view; a search calls it when it finds the index
behind (a compile, a repair, a hand edit), so what a search finds of the
imported records is always what the view holds.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..filestamp import FileStamp
from ..index.record_index import RecordEntry, RecordIndex

if TYPE_CHECKING:
    from ..project import Project

log = logging.getLogger(__name__)

#: the sources an imported record cites start with this
IMPORTED = "record:"
#: fields every record class carries: not part of a record's text
OWN_FIELDS = ("notes", "sources")


def _value_text(value: Any) -> str:
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple, set)):
        return " and ".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value_text(v)}" for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ", ".join(
            f"{f.name.replace('_', ' ').strip()} {_value_text(getattr(value, f.name))}"
            for f in dataclasses.fields(value)
            if f.name not in OWN_FIELDS and getattr(value, f.name) is not None
        )
    if hasattr(value, "name") and hasattr(value, "value") and type(value).__module__ != "builtins":
        return str(value.name).lower()  # an enum member
    return str(value)


def record_text(domain: str, collection: str, record: Any) -> str:
    """``travel.trips: city Kyoto, start date 2023-01-27, companions Ana and Ben``."""
    return f"{domain}.{collection}: {_value_text(record)}"


def imported_entries(domain: str, values: dict[str, Any]) -> list[RecordEntry]:
    """The imported records of one loaded domain (records citing a ``record:`` source)."""
    entries = []
    for collection, value in values.items():
        if not isinstance(value, (list, tuple)):
            continue
        for position, record in enumerate(value):
            if not (dataclasses.is_dataclass(record) and not isinstance(record, type)):
                continue
            source = next(
                (s for s in getattr(record, "sources", ()) or () if isinstance(s, str) and s.startswith(IMPORTED)), None
            )
            if source is None:
                continue
            entries.append(
                RecordEntry(
                    id=f"{domain}.{collection}#{position}",
                    text=record_text(domain, collection, record),
                    domain=domain,
                    collection=collection,
                    position=position,
                    record_type=type(record).__name__,
                    source=source,
                )
            )
    return entries


def record_index(project: "Project") -> RecordIndex:
    """The project's records index; the same object for the life of the project object,
    so what it loaded is kept while the files do not change (a warm server reads nothing)."""
    index = project.kept.get("records")
    if not isinstance(index, RecordIndex):
        index = project.kept["records"] = RecordIndex(project.paths.internal / "index")
    return index


def view_stamps(project: "Project") -> dict[str, list[int]]:
    """Domain -> (size, mtime_ns, inode) of its ``state.py``: a few ``stat`` calls."""
    root = project.paths.domains
    stamps: dict[str, list[int]] = {}
    try:
        listing = sorted(os.scandir(root), key=lambda e: e.name)
    except FileNotFoundError:
        return stamps
    for item in listing:
        if item.name.startswith((".", "_")) or not item.is_dir(follow_symlinks=False):
            continue
        stamp = FileStamp.of(Path(item.path) / "state.py", follow_symlinks=False)
        if stamp.exists:
            stamps[item.name] = stamp.to_json()
    return stamps


def in_step(project: "Project") -> bool:
    """Does the records index match the view as it is on disk?"""
    return record_index(project).stamps() == view_stamps(project)


def sync_record_index(project: "Project") -> int:
    """Bring the records index in step with the view (caller holds the project lock);
    returns how many records were embedded."""
    from ..dialect.problems import CodeRejected
    from ..view import store

    index = record_index(project)
    saved = index.stamps()
    current = view_stamps(project)
    if saved == current:
        return 0
    saved = saved or {}
    kept = [
        e
        for e in (index.entries() if saved else [])
        if e.domain in current and saved.get(e.domain) == current[e.domain]
    ]
    fresh: list[RecordEntry] = []
    for domain in sorted(current):
        if saved.get(domain) == current[domain]:
            continue  # unchanged: its entries (if any) are kept
        try:
            loaded = store.load_domain(project, domain)
        except CodeRejected as exc:  # a broken domain must not break search: indexed once it validates
            log.warning("the records of domain %s are not searchable: %s", domain, exc.message)
            continue
        fresh.extend(imported_entries(domain, loaded.values))
    entries = sorted(kept + fresh, key=lambda e: (e.domain, e.collection, e.position))
    reuse = index.vectors_by_text() if saved else {}
    todo = [e.text for e in entries if e.text not in reuse]
    vectors = _vectors(entries, reuse, todo, index.dim)
    index.write(entries, vectors, current)
    return len(todo)


def _vectors(entries: list[RecordEntry], reuse: dict[str, Any], todo: list[str], dim: int) -> Any:
    import numpy as np

    rows = np.zeros((len(entries), dim), dtype=np.float32)
    if todo:
        from ..index.embeddings import get_embedder

        encoded = get_embedder().encode(todo)
        reuse = {**reuse, **{text: encoded[n] for n, text in enumerate(todo)}}
    for row, entry in enumerate(entries):
        rows[row] = reuse[entry.text]
    return rows


__all__ = ["imported_entries", "in_step", "record_index", "record_text", "sync_record_index", "view_stamps"]
