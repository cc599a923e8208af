"""What a search needs of a channel's corpus file, without parsing every line.

``.uac/index/<channel>.jsonl`` holds one JSON entry per line.  A search needs,
per line, the entry's id, its date (for ``--as-of``), its session and
evidence turns (to find the facts of the best archive excerpts), and where the
line starts -- the full entry (text, BM25 text) only for the few it returns.
:class:`CorpusTable` keeps exactly that, saved as ``<channel>.corpus.pack``
(a packed array file, :mod:`uac.packed`; format 2) with the identity (size,
modification time, inode) of the corpus file.  Tables saved by earlier
versions (``<channel>.corpus.npz``, format 1) are still read, and replaced by
the packed file the first time.

The corpus file is only appended to between rewrites (a rewrite is an atomic
replace, so it gets a new inode), so bringing the table up to date after an
append parses just the new lines.  Like the rest of ``.uac/`` the table is
derived data: deleting it costs one full parse.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import zipfile
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..filestamp import FileStamp
from ..packed import is_pack, read_pack, text_array, write_pack

log = logging.getLogger(__name__)

#: the packed layout (``<channel>.corpus.pack``); format 1 was the ``.npz`` file
FORMAT = 2
LEGACY_FORMAT = 1
KIND = "uac-corpus-table"
#: lines appended since the saved table that make it worth saving again; parsing
#: this many lines costs about as much as writing a table of 100,000 (tens of ms)
SAVE_AFTER_LINES = 1000


class _LazyTexts:
    """A list of texts saved as one JSON array, decoded when first read; texts added
    before that wait beside it, so an append costs nothing for a list nobody reads."""

    def __init__(self, texts: list[str] | None, encoded: str | None) -> None:
        #: None until the saved texts are decoded
        self._texts = texts if texts is not None else ([] if encoded is None else None)
        self._encoded = encoded
        self._added: list[str] = []

    def get(self) -> list[str]:
        if self._texts is None:
            assert self._encoded is not None
            self._texts = json.loads(self._encoded) + self._added
            self._encoded, self._added = None, []
        return self._texts

    def extend(self, texts: list[str]) -> None:
        (self._texts if self._texts is not None else self._added).extend(texts)


class CorpusTable:
    """Per line of the corpus file, in file order: id, date ordinal, session,
    evidence turns and byte offset (``offsets[i]`` starts line i; ``offsets[-1]`` is
    where the next line will start).  Sessions and evidence, needed only to find the
    facts of archive excerpts, are decoded on first use."""

    def __init__(
        self,
        ids: list[str] | None = None,
        ordinals: Any = None,
        offsets: Any = None,
        *,
        sessions: list[str] | None = None,
        turns: list[str] | None = None,
        turn_offsets: Any = None,
        stamp: FileStamp = FileStamp.missing(),
        encoded: dict[str, str] | None = None,
    ) -> None:
        self.ids: list[str] = ids if ids is not None else []
        self.ordinals = ordinals if ordinals is not None else []
        self.offsets = offsets if offsets is not None else [0]
        self._sessions = _LazyTexts(sessions, None if encoded is None else encoded["sessions"])
        self._turns = _LazyTexts(turns, None if encoded is None else encoded["turns"])
        self.turn_offsets = turn_offsets if turn_offsets is not None else [0]
        self.stamp = stamp
        #: lines the file at the table's path holds (the rest were added since it was saved)
        self.saved_lines = len(self.ids) if encoded is not None else 0

    @property
    def sessions(self) -> list[str]:
        return self._sessions.get()

    @property
    def turns(self) -> list[str]:
        return self._turns.get()

    def evidence(self, line: int) -> list[str]:
        return self.turns[int(self.turn_offsets[line]) : int(self.turn_offsets[line + 1])]

    def read_lines(self, data: bytes, path: Path, first_number: int = 1) -> None:
        """Add the lines of ``data``, which starts at byte ``self.offsets[-1]`` of the file.

        The cost follows ``data``: the arrays already loaded are extended, not
        converted, and the saved sessions and turns stay encoded until asked for."""
        import numpy as np

        offsets = [int(self.offsets[-1])]  # where each new line starts, then the end
        turn_offsets = [int(self.turn_offsets[-1])]
        ids: list[str] = []
        ordinals: list[int] = []
        sessions: list[str] = []
        turns: list[str] = []
        base = offsets[0]
        position = 0
        number = first_number
        while position < len(data):
            end = data.find(b"\n", position)
            if end == -1:
                break  # a line still being written: left for the next read
            raw = data[position:end]
            if raw.strip():
                try:
                    record = json.loads(raw)
                    entry_id = str(record["id"])
                    date = record.get("session_date")
                    ordinal = _dt.date.fromisoformat(date).toordinal() if date else 0
                    session = str(record["session_id"])
                    evidence = [str(t) for t in record.get("evidence") or ()]
                except (ValueError, KeyError, TypeError) as exc:
                    raise StoreError(
                        f"{path}:{number} is damaged ({exc}).",
                        hint="{do:repair}.",
                    ) from None
                ids.append(entry_id)
                ordinals.append(ordinal)
                sessions.append(session)
                turns.extend(evidence)
                turn_offsets.append(turn_offsets[-1] + len(evidence))
                offsets.append(base + end + 1)
            else:
                offsets[-1] = base + end + 1  # skip a blank line
            position = end + 1
            number += 1
        self.ids.extend(ids)
        self.ordinals = np.concatenate([np.asarray(self.ordinals, dtype=np.int64), np.array(ordinals, dtype=np.int64)])
        self.offsets = np.concatenate(
            [np.asarray(self.offsets, dtype=np.int64)[:-1], np.array(offsets, dtype=np.int64)]
        )
        self.turn_offsets = np.concatenate(
            [np.asarray(self.turn_offsets, dtype=np.int64)[:-1], np.array(turn_offsets, dtype=np.int64)]
        )
        self._sessions.extend(sessions)
        self._turns.extend(turns)

    # -- on disk ------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        import numpy as np

        write_pack(
            path,
            KIND,
            FORMAT,
            {
                "ids": text_array(self.ids),
                "ordinals": np.array(self.ordinals, dtype=np.int64),
                "sessions": text_array(self.sessions),
                "turns": text_array(self.turns),
                "turn_offsets": np.array(self.turn_offsets, dtype=np.int64),
                "offsets": np.array(self.offsets, dtype=np.int64),
            },
            {"stamp": FileStamp(*self.stamp).to_json()},
        )
        self.saved_lines = len(self.ids)

    @classmethod
    def load(cls, path: Path) -> "CorpusTable | None":
        """The table saved at ``path`` (packed, or the ``.npz`` of format 1), or None."""
        pack = read_pack(path, KIND, FORMAT)
        if pack is None:
            return None if is_pack(path) else cls._load_npz(path)
        try:
            return cls(
                json.loads(pack.text("ids")),
                pack["ordinals"],
                pack["offsets"],
                turn_offsets=pack["turn_offsets"],
                stamp=FileStamp.saved(pack.meta["stamp"]),
                encoded={name: pack.text(name) for name in ("sessions", "turns")},
            )
        except (ValueError, KeyError, TypeError):
            return None

    @classmethod
    def _load_npz(cls, path: Path) -> "CorpusTable | None":
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as data:
                if int(data["format"][0]) != LEGACY_FORMAT:
                    return None
                return cls(
                    json.loads(data["ids"].tobytes().decode("utf-8")),
                    data["ordinals"],
                    data["offsets"],
                    turn_offsets=data["turn_offsets"],
                    stamp=FileStamp.saved(data["stamp"].tolist()),
                    encoded={name: data[name].tobytes().decode("utf-8") for name in ("sessions", "turns")},
                )
        except (OSError, ValueError, KeyError, IndexError, zipfile.BadZipFile):
            return None


def _last_line_matches(corpus_path: Path, table: CorpusTable) -> bool:
    """Does the file still hold the table's last line where the table says?  (Guards
    against a new file that happens to reuse the old one's inode.)"""
    if not table.ids:
        return int(table.offsets[-1]) == 0
    with open(corpus_path, "rb") as handle:
        handle.seek(int(table.offsets[-2]))
        raw = handle.read(int(table.offsets[-1]) - int(table.offsets[-2]))
    try:
        return str(json.loads(raw)["id"]) == table.ids[-1]
    except (ValueError, KeyError, TypeError):
        return False


def read_corpus_table(corpus_path: Path, table_path: Path, legacy_path: Path | None = None) -> CorpusTable:
    """The table of ``corpus_path``: saved, extended by the lines appended since, or
    read afresh -- and saved again if it changed.  Without a table at ``table_path``,
    one saved by an earlier version at ``legacy_path`` is read and moved to
    ``table_path`` in the current format."""
    stamp = FileStamp.of(corpus_path)
    saved = CorpusTable.load(table_path)
    if saved is None and legacy_path is not None and legacy_path.exists():
        saved = CorpusTable.load(legacy_path)
        if saved is not None and saved.stamp == stamp:
            _convert(saved, table_path, legacy_path)
            return saved
    if saved is not None and saved.stamp == stamp:
        return saved
    if saved is not None and stamp.exists and stamp.same_times(saved.stamp) and _last_line_matches(corpus_path, saved):
        # the same size and modification time under another inode: a copy that kept its
        # times (cp -a, rsync -a, a restored backup); the table is the file's, restamped
        saved.stamp = stamp
        try:
            saved.save(table_path)
        except OSError as exc:
            log.debug("corpus table not saved to %s: %s", table_path, exc)
        return saved
    if not stamp.exists:
        return CorpusTable(stamp=stamp)
    table: CorpusTable | None = None
    if saved is not None and saved.stamp.inode == stamp.inode and saved.offsets[-1] <= stamp.size:
        if _last_line_matches(corpus_path, saved):
            table = saved  # appended to since: read the new lines only
    if table is None:
        table = CorpusTable()
    with open(corpus_path, "rb") as handle:
        handle.seek(int(table.offsets[-1]))
        data = handle.read()
        after = FileStamp.of(corpus_path)
    table.read_lines(data, corpus_path, first_number=len(table.ids) + 1)
    # the stamp must describe the bytes read; a concurrent append makes it differ,
    # and then the table is used this once and extended again next time
    table.stamp = stamp if after == stamp and int(table.offsets[-1]) == stamp.size else FileStamp.unreadable()
    if table.stamp == stamp and worth_saving(table):
        try:
            table.save(table_path)
        except OSError as exc:
            log.debug("corpus table not saved to %s: %s", table_path, exc)
        else:
            if legacy_path is not None:
                legacy_path.unlink(missing_ok=True)
    return table


def worth_saving(table: CorpusTable) -> bool:
    """Save the table again?  Only when the lines added since it was saved cost more
    to parse than writing it: a few appended lines are read from the corpus file by
    whoever loads the table next (see :func:`read_corpus_table`), so an ingest of
    one session does not rewrite a table of every line."""
    return table.saved_lines == 0 or len(table.ids) - table.saved_lines > SAVE_AFTER_LINES


def _convert(table: CorpusTable, table_path: Path, legacy_path: Path) -> None:
    """Save a table read from the earlier format in the current one, and drop the old file."""
    try:
        table.save(table_path)
        legacy_path.unlink(missing_ok=True)
    except OSError as exc:  # a read-only project keeps reading the old file
        log.debug("corpus table not converted to %s: %s", table_path, exc)
