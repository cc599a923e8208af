"""A channel's corpus file and what its lines hold: ids, rows, entries.

``.uac/index/<channel>.jsonl`` holds one entry per line; an id written again
(an upsert) holds its current entry in its last line.  :class:`CorpusRows`
keeps the corpus table (:mod:`uac.index.corpus`: ids, dates, sessions and
evidence per line) of the file as it was last read, maps each id to the row
of its current entry, and parses entries only when they are asked for.

Everything computed from the rows elsewhere (BM25, the dense search's mask)
compares :attr:`CorpusRows.generation`, which changes whenever the rows do.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Sequence

from ..errors import StoreError
from ..failpoints import crash_point
from ..filestamp import FileStamp
from ..fsutil import atomic_write_text, make_private_dirs, open_nofollow, open_regular
from .corpus import CorpusTable, read_corpus_table, worth_saving
from .digests import record_append, record_file
from .entry import Entry
from .flat import KEEP_BYTES

log = logging.getLogger(__name__)


class CorpusRows:
    """The corpus file of one channel, as last read."""

    def __init__(self, channel: str, path: Path) -> None:
        self.channel = channel
        self.path = Path(path)
        self.table = CorpusTable()
        #: the id of every line of the corpus file, in file order (an id may repeat after an upsert)
        self.line_ids: list[str] = []
        #: id -> the line that holds its current entry (the last one with that id)
        self.row_of: dict[str, int] = {}
        #: entry ids in corpus order (first appearance)
        self.order: list[str] = []
        #: the stamp of the corpus file as read (None before the first load)
        self.stamp: FileStamp | None = None
        #: the corpus file ends in a torn line (a crash mid-append); cut off before the next append
        self.torn = False
        #: changes whenever the rows change (what was computed from them is then stale)
        self.generation = 0
        self._entries: dict[str, Entry] | None = None
        self._parsed: dict[str, Entry] = {}
        #: the whole corpus file as loaded, when it is small (entries are then parsed from memory)
        self._bytes: bytes | None = None

    @property
    def table_path(self) -> Path:
        return self.path.with_name(f"{self.channel}.corpus.pack")

    @staticmethod
    def legacy_path(path: Path) -> Path:
        """Where an earlier version saved the table now at ``path`` (``.npz``)."""
        return path.with_suffix(".npz")

    def file_stamp(self) -> FileStamp:
        """The stamp of the corpus file now."""
        return FileStamp.of(self.path)

    def refresh(self) -> None:
        """Reload the corpus if another process (or object) changed it."""
        if self.file_stamp() != self.stamp:
            self.load()

    def load(self) -> None:
        """Read the corpus table (ids, dates, sessions, evidence per line); the entries
        themselves are parsed when asked for.  Text after the last newline is a line
        torn by a crash mid-append: it is left out and :attr:`torn` set (the next
        append cuts it off first).  The corpus must be a regular file inside the
        project (never a link out of it)."""
        if self.path.exists() or self.path.is_symlink():
            # .uac/index/<channel>.jsonl: the project root is three levels up
            os.close(open_regular(self.path.parent.parent.parent, self.path))
        self.table = read_corpus_table(self.path, self.table_path, self.legacy_path(self.table_path))
        self.stamp = self.table.stamp if not self.table.stamp.is_unreadable else self.file_stamp()
        self.torn = self.stamp.size > int(self.table.offsets[-1])
        self.line_ids = self.table.ids
        self._entries = None
        self._parsed = {}
        self._bytes = None
        self._reindex()

    def _reindex(self) -> None:
        self.row_of = {entry_id: row for row, entry_id in enumerate(self.line_ids)}
        self.order = list(self.row_of) if len(self.row_of) == len(self.line_ids) else list(dict.fromkeys(self.line_ids))
        self.generation += 1

    @property
    def entries(self) -> dict[str, Entry]:
        """Every entry by id, in corpus order (parses the whole corpus file once)."""
        if self._entries is None:
            self._entries = {entry_id: self.entry(entry_id) for entry_id in self.order}
        return self._entries

    def __len__(self) -> int:
        return len(self.order)

    def entry(self, entry_id: str) -> Entry:
        """One entry (KeyError if the corpus has none with this id)."""
        if self._entries is not None:
            return self._entries[entry_id]
        cached = self._parsed.get(entry_id)
        if cached is not None:
            return cached
        row = self.row_of[entry_id]
        raw = self._line(row)
        try:
            entry = Entry.from_json(json.loads(raw))
        except (ValueError, KeyError) as exc:
            raise StoreError(
                f"{self.path}:{row + 1} is damaged ({exc}).",
                hint="{do:repair}.",
            ) from None
        self._parsed[entry_id] = entry
        return entry

    def _line(self, row: int) -> bytes:
        """The bytes of corpus line ``row``.  A small corpus is read whole by the first
        entry asked for (if the file is still the one loaded) and kept: a warm search
        reads no file."""
        start, end = int(self.table.offsets[row]), int(self.table.offsets[row + 1])
        if self._bytes is None and self.stamp is not None and 0 <= self.stamp.size <= KEEP_BYTES:
            with open(self.path, "rb") as handle:
                st = os.fstat(handle.fileno())
                if FileStamp.of_stat(st) == self.stamp:
                    data = handle.read()
                    if len(data) == st.st_size:
                        self._bytes = data
        if self._bytes is not None:
            return self._bytes[start:end]
        with open(self.path, "rb") as handle:
            handle.seek(start)
            return handle.read(end - start)

    def has(self, entry_id: str) -> bool:
        return entry_id in self.row_of

    # -- writing (callers hold the project lock) -------------------------------------------

    def append(self, entries: Sequence[Entry]) -> None:
        """Append ``entries`` to the corpus file (cutting a torn last line off first) and
        take them into the rows."""
        make_private_dirs(self.path.parent)
        text = "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in entries).encode("utf-8")
        with os.fdopen(open_nofollow(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "wb") as handle:
            if self.torn:  # cut off the line a crash left half-written; appends follow the last whole line
                handle.truncate(int(self.table.offsets[-1]))
            offset = os.fstat(handle.fileno()).st_size
            half = len(text) // 2
            handle.write(text[:half])
            handle.flush()
            crash_point(f"index:{self.channel}-corpus")  # leaves a torn last line
            handle.write(text[half:])
        record_append(self.path, offset, text)
        self._appended(text, offset)

    def _appended(self, text: bytes, offset: int) -> None:
        """Take the lines just appended at ``offset`` into the loaded table (what
        :meth:`load` would read, without reading the file again).  The table is
        saved only when enough lines have built up since it was last
        (:func:`~uac.index.corpus.worth_saving`); until then whoever loads it next
        reads the appended lines from the corpus file."""
        table = self.table
        stamp = self.file_stamp()
        if offset != int(table.offsets[-1]) or stamp.size != offset + len(text) or table.stamp.is_unreadable:
            self.load()  # not the file the table describes: read it again
            return
        first = len(self.line_ids)
        table.read_lines(text, self.path, first_number=first + 1)
        table.stamp = stamp
        if worth_saving(table):
            try:
                table.save(self.table_path)
            except OSError as exc:  # a read-only table: the next load parses the new lines again
                log.debug("corpus table not saved to %s: %s", self.table_path, exc)
        self.stamp = stamp
        self.torn = False
        self.line_ids = table.ids
        added = table.ids[first:]
        self._entries = None
        self._bytes = None
        if (
            len(self.row_of) == first
            and not any(entry_id in self.row_of for entry_id in added)
            and len(set(added)) == len(added)
        ):
            for row, entry_id in enumerate(added, start=first):
                self.row_of[entry_id] = row
            self.order.extend(added)
            self.generation += 1
        else:  # an id written again: its newer line wins, as a load would decide
            self._parsed = {}
            self._reindex()

    def rewrite(self, kept: Sequence[str]) -> None:
        """Write the corpus file again with the current entries of ``kept`` only (the
        caller loads it again once the files derived from it follow)."""
        entries = self.entries
        text = "".join(json.dumps(entries[i].to_json(), ensure_ascii=False) + "\n" for i in kept)
        atomic_write_text(self.path, text)
        record_file(self.path)

    def cut_torn_tail(self) -> int:
        """Cut the torn last line off the corpus file; returns the size it is cut to."""
        cut = int(self.table.offsets[-1])
        fd = open_nofollow(self.path, os.O_WRONLY)
        try:
            os.ftruncate(fd, cut)
        finally:
            os.close(fd)
        record_file(self.path)
        return cut


__all__ = ["CorpusRows"]
