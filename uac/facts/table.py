"""A compact, saved digest of the fact log for readers that need only dates.

A search filters its candidates by validity (is the fact in the log, and in
force on the query date?) and the answer pipeline shows event dates; neither
needs the facts themselves.  Folding 100,000 log lines -- parsing and
checksumming every one -- takes seconds, so this module keeps, per fact, its
start (``valid_from``, else ``session_date``), its end (``invalid_at``) and
its ``event_date`` (first and last day of the period) as day ordinals, and who said
it (a search leans towards what the person a question names said), in
``.uac/index/log-table.pack`` (a packed array file, :mod:`uac.packed`, format 4),
together with the identity of the log file, the length and sha256 of the
committed prefix it was folded from.  A table saved by an earlier version (the
``log-table.npz`` of format 2, or a packed table of format 3, without speakers)
is not used: the log is folded again once and the table saved in the current form.

Reading it is:

* the log unchanged since (same size, modification time and inode): load the
  table, milliseconds;
* the log appended to (same inode, longer): check that the old committed
  prefix still hashes to the recorded sha256, fold only the new bytes with
  the log's own parser (:func:`uac.facts.log.parse_log`: the same commit
  rules, torn-tail handling and checksums), save;
* anything else (a rewrite by ``forget``, a restored copy): fold the whole log.

The answers are exactly :meth:`uac.facts.model.Fact.is_valid_at` over the
folded log; ``tests/facts/test_fact_table.py`` checks that.  The file is
derived data: deleting it costs one full fold.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..dates import Period
from ..filestamp import FileStamp
from ..packed import read_pack, text_array, write_pack
from .log import LogState, parse_log

log = logging.getLogger(__name__)

#: the packed layout (``log-table.pack``) with speakers; format 3 was packed
#: without them, format 2 the ``.npz`` file
FORMAT = 4
KIND = "uac-fact-table"
#: the per-fact columns, saved as int32 arrays after the ids, in this order
COLUMNS = ("start", "end", "event", "event_end", "speaker")
#: no date (an open start, or no event date)
NONE = 0
#: no end: the fact has not been superseded
OPEN = 2**31 - 1


def _ordinal(day: _dt.date | None, default: int) -> int:
    return day.toordinal() if day is not None else default


@dataclass
class FactTable:
    """Fact id -> (start, end, event, event_end) day ordinals and the speaker, for the committed log."""

    ids: list[str] = field(default_factory=list)
    #: day ordinals per fact (lists while folding, arrays when loaded)
    start: Any = field(default_factory=list)
    end: Any = field(default_factory=list)
    event: Any = field(default_factory=list)
    event_end: Any = field(default_factory=list)
    #: per fact, its speaker's position in ``speaker_names`` (-1: none)
    speaker: Any = field(default_factory=list)
    speaker_names: list[str] = field(default_factory=list)
    #: (size, mtime_ns, inode) of the log file this table was read from
    stamp: FileStamp = FileStamp.missing()
    #: length and sha256 of the committed prefix folded into the table
    good_bytes: int = 0
    digest: str = ""
    _row: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self._row:
            self._row = {fact_id: row for row, fact_id in enumerate(self.ids)}

    def speaker_of(self, fact_id: str) -> str | None:
        """Who said the fact (the speaker of its turn), if known."""
        row = self._row.get(fact_id)
        if row is None or int(self.speaker[row]) < 0:
            return None
        return self.speaker_names[int(self.speaker[row])]

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._row

    def __len__(self) -> int:
        return len(self.ids)

    def is_valid_at(self, fact_id: str, day: _dt.date | None) -> bool:
        """The fact is in the log and in force on ``day`` (None: now), as
        :meth:`~uac.facts.model.Fact.is_valid_at` decides."""
        row = self._row.get(fact_id)
        if row is None:
            return False
        if day is None:
            return int(self.end[row]) == OPEN
        ordinal = day.toordinal()
        start = int(self.start[row])
        if start != NONE and ordinal < start:
            return False
        return ordinal < int(self.end[row])

    def event_date(self, fact_id: str) -> Period | None:
        row = self._row.get(fact_id)
        if row is None or int(self.event[row]) == NONE:
            return None
        return Period(_dt.date.fromordinal(int(self.event[row])), _dt.date.fromordinal(int(self.event_end[row])))

    def said(self, fact_id: str) -> _dt.date | None:
        """When the fact was said (its ``valid_from``, else its session's date)."""
        row = self._row.get(fact_id)
        if row is None or int(self.start[row]) == NONE:
            return None
        return _dt.date.fromordinal(int(self.start[row]))

    def invalid_at(self, fact_id: str) -> _dt.date | None:
        """The day a superseded fact stopped being true (``None``: in force, or unknown)."""
        row = self._row.get(fact_id)
        if row is None or int(self.end[row]) == OPEN:
            return None
        return _dt.date.fromordinal(int(self.end[row]))

    def happened_in(self, fact_id: str, period: Period) -> bool:
        """The fact's event date overlaps ``period`` (an undated fact: the day it was said)."""
        row = self._row.get(fact_id)
        if row is None:
            return False
        first, last = int(self.event[row]), int(self.event_end[row])
        if first == NONE:
            first = last = int(self.start[row])
            if first == NONE:
                return False
        return first <= period.end.toordinal() and period.start.toordinal() <= last

    # -- folding ------------------------------------------------------------------------

    def _fold(self, state: LogState) -> None:
        """Add the facts and supersessions of ``state`` (a fold of the bytes after ours)."""
        self.start, self.end = list(self.start), list(self.end)
        self.event, self.event_end = list(self.event), list(self.event_end)
        self.speaker = list(self.speaker)
        speaker_number = {name: n for n, name in enumerate(self.speaker_names)}
        for fact in state.facts.values():
            who = -1
            if fact.speaker:
                who = speaker_number.get(fact.speaker, -1)
                if who < 0:
                    who = speaker_number[fact.speaker] = len(self.speaker_names)
                    self.speaker_names.append(fact.speaker)
            row = self._row.get(fact.id)
            values = (
                _ordinal(fact.valid_from or fact.session_date, NONE),
                _ordinal(fact.invalid_at, OPEN),
                _ordinal(fact.event_date.start if fact.event_date else None, NONE),
                _ordinal(fact.event_date.end if fact.event_date else None, NONE),
            )
            if row is None:
                self._row[fact.id] = len(self.ids)
                self.ids.append(fact.id)
                self.start.append(values[0])
                self.end.append(values[1])
                self.event.append(values[2])
                self.event_end.append(values[3])
                self.speaker.append(who)
            else:
                self.start[row], self.end[row], self.event[row], self.event_end[row] = values
                self.speaker[row] = who
        for sup in state.supersessions:
            row = self._row.get(sup.fact_id)
            if row is not None:
                self.end[row] = _ordinal(sup.invalid_at, OPEN)

    # -- on disk ------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        import numpy as np

        write_pack(
            path,
            KIND,
            FORMAT,
            {"ids": text_array(self.ids), **{name: np.array(getattr(self, name), dtype=np.int32) for name in COLUMNS}},
            {
                "stamp": FileStamp(*self.stamp).to_json(),
                "good_bytes": self.good_bytes,
                "digest": self.digest,
                "speaker_names": list(self.speaker_names),
            },
        )

    @classmethod
    def load(cls, path: Path) -> "FactTable | None":
        """The table saved at ``path``, or None (an earlier format: the log is folded
        again, once; the ``.npz`` tables of format 2 lack the speakers, format 3 too)."""
        pack = read_pack(path, KIND, FORMAT)
        if pack is None:
            return None
        try:
            columns: dict[str, Any] = {name: pack[name] for name in COLUMNS}
            return cls(
                ids=json.loads(pack.text("ids")),
                **columns,
                speaker_names=[str(n) for n in pack.meta["speaker_names"]],
                stamp=FileStamp.saved(pack.meta["stamp"]),
                good_bytes=int(pack.meta["good_bytes"]),
                digest=str(pack.meta["digest"]),
            )
        except (ValueError, KeyError, TypeError):
            return None


def read_fact_table(
    log_path: Path, table_path: Path, previous: FactTable | None = None, *, legacy_path: Path | None = None
) -> FactTable:
    """The table of the log at ``log_path``: ``previous`` (what the caller read before)
    while the log keeps its identity, else from ``table_path`` when it is current,
    else brought up to date (and saved).  The caller keeps the table it got: this
    module remembers nothing, so a process serving many projects holds only the
    tables of the projects it keeps open.  A table an earlier version saved at
    ``legacy_path`` is removed when the new one is saved (it lacks the speakers)."""
    log_path = Path(log_path)
    stamp = FileStamp.of(log_path)
    if previous is not None and previous.stamp == stamp and not stamp.is_unreadable:
        return previous
    saved = FactTable.load(table_path)
    if saved is not None and saved.stamp == stamp:
        return saved
    data = b""
    for _attempt in range(5):  # the stamp must describe exactly the bytes folded
        data = log_path.read_bytes() if stamp.exists else b""
        after = FileStamp.of(log_path)
        if after == stamp:
            break
        stamp = after
    else:
        stamp = FileStamp.unreadable()  # a writer kept appending: use this fold once, never reuse it
    table: FactTable | None = None
    # appended to, or copied (another inode): the recorded sha256 of the prefix decides
    if saved is not None and saved.good_bytes <= len(data):
        old = saved.good_bytes
        prefix = hashlib.sha256(data[:old])
        if prefix.hexdigest() == saved.digest:
            tail = parse_log(data[old:], log_path)
            table = saved
            table._fold(tail)
            table.good_bytes = old + tail.good_bytes
            prefix.update(data[old : table.good_bytes])
            table.digest = prefix.hexdigest()
    if table is None:
        state = parse_log(data, log_path)
        table = FactTable()
        table._fold(state)
        table.good_bytes = state.good_bytes
        table.digest = state.digest
    table.stamp = stamp
    if not stamp.is_unreadable:
        _save(table, table_path, legacy_path)
    return table


def _save(table: FactTable, table_path: Path, legacy_path: Path | None) -> None:
    try:
        table.save(table_path)
        if legacy_path is not None:
            legacy_path.unlink(missing_ok=True)
    except OSError as exc:  # a read-only project still answers; it folds again next time
        log.debug("fact table not saved to %s: %s", table_path, exc)
