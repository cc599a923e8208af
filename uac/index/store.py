"""The derived search indexes under ``.uac/``: a corpus file, Chroma vectors and BM25.

Two channels, ``facts`` and ``archive``.  For each:

* ``.uac/index/<channel>.jsonl`` -- the corpus: one entry per indexed item
  (id, display text, text BM25 reads, session, date, evidence turn ids, and
  for facts the fact's content checksum).  It records exactly what the
  indexes cover, so ``doctor`` can compare it with the log and the archive;
* a Chroma collection with the entry's vector (uac computes every vector
  itself; Chroma's own embedding function is never used);
* with the embedded backend, a flat copy of the same vectors in corpus order
  (``<channel>.vectors``, see :mod:`uac.index.flat`) that a search scans
  exactly without loading Chroma's client.  There the flat copy is written
  first and Chroma follows lazily: an append (an ingest) writes the corpus and
  the flat copy but not Chroma, and whoever opens the collection next first
  adds the corpus entries it lacks, with their vectors from the flat copy
  (:meth:`ChannelIndex.sync_vectors`).  Chroma's lag is found by comparing its
  count with the corpus, so nothing records it and a crash cannot lose it;
* a BM25 index over the entries' texts (:mod:`uac.index.bm25`), saved as
  ``<channel>.bm25.pack`` and brought up to date by the first search after the
  corpus changed;
* the corpus table (:mod:`uac.index.corpus`), ``<channel>.corpus.pack``.

The two ``.pack`` files replaced ``.npz`` files of the same names; those are
still read and converted on first use.

Chroma runs embedded (``.uac/chroma``) or against a server
(``[index] backend = "http"`` with ``chroma_host``/``chroma_port``; then every
write reaches Chroma at once, as there is no flat copy); it is opened only by
what needs it (removals, counts, rebuilds, searches against a server or when
the flat copy is out of step).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from ..errors import ProjectLocked, StoreError
from ..failpoints import crash_point
from ..filestamp import FileStamp
from ..fsutil import atomic_write_text, make_private_dirs, open_nofollow, open_regular, read_regular
from .bm25 import BM25
from .corpus import CorpusTable, read_corpus_table
from .digests import forget_file, record_append, record_file
from .entry import Entry
from .flat import KEEP_BYTES, FlatVectors

if TYPE_CHECKING:
    import numpy

    from ..config import IndexConfig

log = logging.getLogger(__name__)

CHANNELS = ("facts", "archive")
#: bump when what goes into the indexes changes; doctor then asks for a rebuild
INDEX_VERSION = 1


def _same_corpus(saved: tuple[int, ...], current: tuple[int, ...]) -> bool:
    """Was a BM25 index stamped ``saved`` built from the corpus stamped ``current``
    (size, modification time, inode, lines)?  The inode may differ: a copy of the
    project that keeps times (cp -a, rsync -a, a restored backup) keeps its index,
    as the flat vector copy does (:meth:`FlatVectors.matches`)."""
    return len(saved) == 4 and len(current) == 4 and saved[:2] == current[:2] and saved[3] == current[3]


def _date_ordinal(value: str | None) -> int:
    return _dt.date.fromisoformat(value).toordinal() if value else 0


@dataclass
class ChannelIndex:
    channel: str
    corpus_path: Path
    #: opens the channel's Chroma collection (only when something needs it)
    open_collection: Callable[[], Any]
    #: the flat copy of the vectors (embedded backend), or None
    flat: FlatVectors | None = None
    #: takes the project lock without waiting (for rebuilding the flat copy), or None
    try_lock: Callable[[], Any] | None = None
    #: Chroma's largest batch (asked of the client when Chroma is written), or None: 5000
    batch_size: Callable[[], int] | None = None
    #: is there a Chroma collection behind the channel?  False: the embedded backend
    #: without the chroma extra, where the flat copy is the only store of the vectors
    chroma: bool = True
    #: entry ids in corpus order (first appearance)
    _order: list[str] = field(default_factory=list)
    #: the id of every line of the corpus file, in file order (an id may repeat after an upsert)
    _line_ids: list[str] = field(default_factory=list)
    #: id -> the line that holds its current entry (the last one with that id)
    _row_of: dict[str, int] = field(default_factory=dict)
    _table: CorpusTable = field(default_factory=CorpusTable)
    _entries: dict[str, Entry] | None = None
    _parsed: dict[str, Entry] = field(default_factory=dict)
    _collection: Any = None
    _bm25: BM25 | None = None
    _ordinals: Any = None
    _stamp: tuple[int, int, int] | None = None
    #: the corpus stamp :meth:`_adopt_copied_flat` last checked
    _copy_checked: tuple[int, int, int] | None = None
    #: the corpus stamp for which the flat copy could not be written from Chroma
    _rebuild_failed: tuple[int, int, int] | None = None
    #: session -> turn id -> entry ids citing it (filled per session on demand)
    _by_turn: dict[str, dict[str, list[str]]] | None = None
    #: session -> its entry ids in corpus order
    _session_rows: dict[str, list[str]] | None = None
    #: per corpus line: does it hold its id's current entry (the mask a dense search starts from)
    _current_rows: Any = None
    #: the whole corpus file as loaded, when it is small (entries are then parsed from memory)
    _bytes: bytes | None = None
    #: the corpus file ends in a torn line (a crash mid-append); cut off before the next append
    torn: bool = False

    @property
    def collection(self) -> Any:
        """The Chroma collection, opened on first use; with a flat copy it is first
        brought in step with the corpus (see :meth:`sync_vectors`)."""
        if self._collection is None:
            collection = self.open_collection()
            if self.flat is not None:
                self._sync_into(collection)
            self._collection = collection
        return self._collection

    def sync_vectors(self) -> int:
        """Bring the Chroma collection in step with the corpus (opening it); returns
        how many entries were added to it.  Only with a flat copy, which holds the
        vectors Chroma lacks; without one every write reaches Chroma at once."""
        if self.flat is None or not self.chroma:
            return 0
        if self._collection is None:
            self._collection = self.open_collection()
        return self._sync_into(self._collection)

    def _sync_into(self, collection: Any) -> int:
        """Add to ``collection`` the corpus entries it lacks, with their vectors from
        the flat copy (ids and metadata as :meth:`add` writes them), in batches.

        Counting is cheap; the ids are compared only when the counts differ.  Only
        additions: an upsert of an entry the corpus holds can never be wrong, while
        vectors without a corpus entry are dropped under the project lock by the
        catch-up (:mod:`uac.index.catchup`).  Nothing is done when the flat copy is
        not in step with the corpus: then the entries Chroma lacks have no vector
        anywhere and the catch-up embeds them again."""
        import numpy as np

        self.refresh()
        if not self._order or not self._flat_in_step():
            return 0
        if int(collection.count()) == len(self._order):
            return 0
        held = _collection_ids(collection)
        missing = [i for i in self._order if i not in held]
        if not missing:
            return 0
        assert self.flat is not None
        table = np.memmap(self.flat.path, dtype=np.float32, mode="r").reshape(-1, self.flat.dim)
        batch = self._batch()
        try:
            for start in range(0, len(missing), batch):
                ids = missing[start : start + batch]
                rows = np.fromiter((self._row_of[i] for i in ids), dtype=np.int64, count=len(ids))
                entries = [self.entry(i) for i in ids]
                collection.upsert(
                    ids=ids,
                    embeddings=np.array(table[rows]),
                    metadatas=[{"session_id": e.session_id, "date": e.date_ordinal} for e in entries],
                )
        finally:
            del table
        log.info("Chroma collection of %s brought in step: %d entr(ies) added from the flat copy", self.channel, len(missing))
        return len(missing)

    def _batch(self) -> int:
        return int(self.batch_size()) if self.batch_size is not None else 5000

    @property
    def bm25_path(self) -> Path:
        return self.corpus_path.with_name(f"{self.channel}.bm25.pack")

    @property
    def table_path(self) -> Path:
        return self.corpus_path.with_name(f"{self.channel}.corpus.pack")

    def legacy_path(self, path: Path) -> Path:
        """Where an earlier version saved the table now at ``path`` (``.npz``)."""
        return path.with_suffix(".npz")

    def _file_stamp(self) -> tuple[int, int, int]:
        return FileStamp.of(self.corpus_path)

    def refresh(self) -> None:
        """Reload the corpus if another process (or object) changed it."""
        if self._file_stamp() != self._stamp:
            self.load()

    def load(self) -> None:
        """Read the corpus table (ids, dates, sessions, evidence per line); the entries
        themselves are parsed when asked for.  Text after the last newline is a line
        torn by a crash mid-append: it is left out and :attr:`torn` set (the next
        append cuts it off first).  The corpus must be a regular file inside the
        project (never a link out of it)."""
        if self.corpus_path.exists() or self.corpus_path.is_symlink():
            # .uac/index/<channel>.jsonl: the project root is three levels up
            os.close(open_regular(self.corpus_path.parent.parent.parent, self.corpus_path))
        self._table = read_corpus_table(self.corpus_path, self.table_path, self.legacy_path(self.table_path))
        self._stamp = self._table.stamp if not self._table.stamp.is_unreadable else self._file_stamp()
        self.torn = self._stamp[0] > int(self._table.offsets[-1])
        self._line_ids = self._table.ids
        self._entries = None
        self._parsed = {}
        self._bytes = None
        self._invalidate()

    def _invalidate(self) -> None:
        self._row_of = {entry_id: row for row, entry_id in enumerate(self._line_ids)}
        self._order = list(self._row_of) if len(self._row_of) == len(self._line_ids) else list(dict.fromkeys(self._line_ids))
        self._drop_derived()

    def _drop_derived(self) -> None:
        """Forget what was computed from the rows (turn maps, BM25, dates, masks)."""
        self._by_turn = None
        self._session_rows = None
        self._bm25 = None
        self._ordinals = None
        self._current_rows = None

    @property
    def entries(self) -> dict[str, Entry]:
        """Every entry by id, in corpus order (parses the whole corpus file once)."""
        if self._entries is None:
            self._entries = {entry_id: self.entry(entry_id) for entry_id in self._order}
        return self._entries

    def __len__(self) -> int:
        return len(self._order)

    def entry(self, entry_id: str) -> Entry:
        """One entry (KeyError if the corpus has none with this id)."""
        if self._entries is not None:
            return self._entries[entry_id]
        cached = self._parsed.get(entry_id)
        if cached is not None:
            return cached
        row = self._row_of[entry_id]
        raw = self._line(row)
        try:
            entry = Entry.from_json(json.loads(raw))
        except (ValueError, KeyError) as exc:
            raise StoreError(
                f"{self.corpus_path}:{row + 1} is damaged ({exc}).",
                hint="{do:repair}.",
            ) from None
        self._parsed[entry_id] = entry
        return entry

    def _line(self, row: int) -> bytes:
        """The bytes of corpus line ``row``.  A small corpus is read whole by the first
        entry asked for (if the file is still the one loaded) and kept: a warm search
        reads no file."""
        start, end = int(self._table.offsets[row]), int(self._table.offsets[row + 1])
        if self._bytes is None and self._stamp is not None and 0 <= self._stamp[0] <= KEEP_BYTES:
            with open(self.corpus_path, "rb") as handle:
                st = os.fstat(handle.fileno())
                if FileStamp.of_stat(st) == self._stamp:
                    data = handle.read()
                    if len(data) == st.st_size:
                        self._bytes = data
        if self._bytes is not None:
            return self._bytes[start:end]
        with open(self.corpus_path, "rb") as handle:
            handle.seek(start)
            return handle.read(end - start)

    def has(self, entry_id: str) -> bool:
        return entry_id in self._row_of

    def _adopt_copied_flat(self) -> bool:
        """A copy of the project that did not keep file times (``cp -r``): the flat copy
        no longer names the corpus by its stamp, yet both files may be exactly as uac
        last wrote them together.  If each matches the length and CRC-32 recorded when
        it was written (``digests.json``) and the flat copy has a row per corpus line,
        it is stamped with the corpus as it is now and kept -- it may hold the only
        copy of the vectors.  The caller holds the project lock.  Checked once per
        corpus stamp (it reads both files)."""
        from .digests import file_crc, read_digests

        if self.flat is None or self._stamp is None or self._copy_checked == self._stamp:
            return False
        self._copy_checked = self._stamp
        recorded = read_digests(self.corpus_path.parent)
        for path in (self.corpus_path, self.flat.path):
            record = recorded.get(path.name)
            if record is None or file_crc(path) != (record["bytes"], record["crc32"]):
                return False
        if not self.flat.restamp(lambda _recorded: True, len(self._line_ids), self._stamp):
            return False
        log.info("flat vectors of %s kept: the corpus and the copy are as recorded (a copy of the project)", self.channel)
        return True

    def _flat_in_step(self) -> bool:
        """Does the flat copy hold exactly the vectors of the corpus as loaded?"""
        if self.flat is None or self._stamp is None:
            return False
        if not self._line_ids and self.flat.rows() == 0:
            return True
        return self.flat.matches(self._stamp, len(self._line_ids))

    # -- writing ------------------------------------------------------------------

    def add(self, entries: Sequence[Entry], vectors: "numpy.ndarray", *, max_batch: int | None = None) -> None:
        """Append ``entries`` with their ``vectors``.  With a flat copy in step with
        the corpus, Chroma is not opened: the vectors go to the flat copy and
        Chroma takes them when it is next opened (see :meth:`sync_vectors`)."""
        if not entries:
            return
        self.refresh()
        if len(entries) != len(vectors):
            raise StoreError(f"{len(entries)} entries but {len(vectors)} vectors for the {self.channel} index.")
        flat_in_step = self._flat_in_step() or self._adopt_copied_flat()
        lines_before = len(self._line_ids)
        if not flat_in_step and self.chroma:  # a server, or a flat copy out of step: Chroma holds the vectors
            size = max_batch or self._batch()
            for start in range(0, len(entries), size):
                batch = entries[start : start + size]
                self.collection.upsert(
                    ids=[e.id for e in batch],
                    embeddings=vectors[start : start + size],
                    metadatas=[{"session_id": e.session_id, "date": e.date_ordinal} for e in batch],
                )
        crash_point(f"index:{self.channel}-vectors")
        make_private_dirs(self.corpus_path.parent)
        text = "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in entries).encode("utf-8")
        with os.fdopen(open_nofollow(self.corpus_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "wb") as handle:
            if self.torn:  # cut off the line a crash left half-written; appends follow the last whole line
                handle.truncate(int(self._table.offsets[-1]))
            offset = os.fstat(handle.fileno()).st_size
            half = len(text) // 2
            handle.write(text[:half])
            handle.flush()
            crash_point(f"index:{self.channel}-corpus")  # leaves a torn last line
            handle.write(text[half:])
        record_append(self.corpus_path, offset, text)
        if self.flat is not None:
            if flat_in_step:
                self.flat.append(vectors, rows_before=lines_before, corpus_stamp=self._file_stamp())
                record_append(self.flat.path, lines_before * 4 * self.flat.dim, _float32_bytes(vectors))
            else:
                # rebuilt from Chroma by the next search; without Chroma the next
                # catch-up finds every entry without a vector and indexes it again
                self.flat.drop()
                forget_file(self.flat.path)
        self._appended(text, offset)

    def _appended(self, text: bytes, offset: int) -> None:
        """Take the lines just appended at ``offset`` into the loaded table (what
        :meth:`load` would read, without reading the file again).  The table is
        saved only when enough lines have built up since it was last
        (:func:`~uac.index.corpus.worth_saving`); until then whoever loads it next
        reads the appended lines from the corpus file."""
        from .corpus import worth_saving

        table = self._table
        stamp = self._file_stamp()
        if offset != int(table.offsets[-1]) or stamp[0] != offset + len(text) or table.stamp.is_unreadable:
            self.load()  # not the file the table describes: read it again
            return
        first = len(self._line_ids)
        table.read_lines(text, self.corpus_path, first_number=first + 1)
        table.stamp = stamp
        if worth_saving(table):
            try:
                table.save(self.table_path)
            except OSError as exc:  # a read-only table: the next load parses the new lines again
                log.debug("corpus table not saved to %s: %s", self.table_path, exc)
        self._stamp = stamp
        self.torn = False
        self._line_ids = table.ids
        added = table.ids[first:]
        self._entries = None
        self._bytes = None
        if len(self._row_of) == first and not any(entry_id in self._row_of for entry_id in added) and len(set(added)) == len(added):
            for row, entry_id in enumerate(added, start=first):
                self._row_of[entry_id] = row
            self._order.extend(added)
            self._drop_derived()
        else:  # an id written again: its newer line wins, as a load would decide
            self._parsed = {}
            self._invalidate()

    def remove(self, ids: Iterable[str], *, from_chroma: bool = True) -> int:
        """Drop the entries ``ids`` from the corpus, the flat copy, BM25 and (unless
        ``from_chroma`` is False: the caller deletes the whole Chroma store next, as a
        forget does) the Chroma collection; returns how many were dropped."""
        self.refresh()
        doomed = list(dict.fromkeys(i for i in ids if i in self._row_of))
        if not doomed:
            return 0
        flat_in_step = self._flat_in_step()
        gone = set(doomed)
        kept = [i for i in self._order if i not in gone]
        kept_rows = [self._row_of[i] for i in kept]
        entries = self.entries
        if from_chroma and self.chroma:
            for start in range(0, len(doomed), 5000):
                self.collection.delete(ids=doomed[start : start + 5000])
        text = "".join(json.dumps(entries[i].to_json(), ensure_ascii=False) + "\n" for i in kept)
        atomic_write_text(self.corpus_path, text)
        record_file(self.corpus_path)
        if self.flat is not None:
            if flat_in_step:
                self.flat.replace(self.flat.read_all()[kept_rows], corpus_stamp=self._file_stamp())
                record_file(self.flat.path)
            else:
                self.flat.drop()
                forget_file(self.flat.path)
        # the saved BM25 columns hold the removed texts' words: gone with them (rebuilt by the next search)
        self.bm25_path.unlink(missing_ok=True)
        self.legacy_path(self.bm25_path).unlink(missing_ok=True)
        self.load()
        return len(doomed)

    def delete_vectors(self, ids: Sequence[str]) -> None:
        """Drop vectors by id (ids without a vector are ignored); for vectors that no
        corpus line holds, so the flat copy (one row per line) is not affected."""
        if not self.chroma:
            return  # the flat copy holds a vector per corpus line and no other
        for start in range(0, len(ids), 5000):
            self.collection.delete(ids=list(ids[start : start + 5000]))

    def vector_ids(self) -> set[str]:
        """The ids the vector collection holds (read in pages); without Chroma, the
        ids of the corpus when the flat copy is in step with it, else none."""
        if not self.chroma:
            return set(self._order) if self.vectors_covered() else set()
        return _collection_ids(self.collection)

    def vectors_covered(self) -> bool:
        """Does every corpus line have its vector without asking Chroma?  True when
        the flat copy is in step with the corpus (Chroma may lag behind it)."""
        self.refresh()
        return self._flat_in_step() or self._adopt_copied_flat()

    def drop_torn_tail(self) -> None:
        """Cut a torn last line off the corpus, if it has one."""
        self.refresh()
        if self.torn:
            fd = open_nofollow(self.corpus_path, os.O_WRONLY)
            try:
                os.ftruncate(fd, int(self._table.offsets[-1]))
            finally:
                os.close(fd)
            record_file(self.corpus_path)
            if self.flat is not None:
                # the flat copy stops at the last whole line when its stamp names the file as it
                # was before the torn append (same inode, the size it has again): it is kept, as
                # it may hold the only vectors of entries Chroma has not taken yet
                cut = int(self._table.offsets[-1])
                if not self.flat.restamp(
                    lambda stamp: stamp[0] == cut and stamp[2] == self._stamp[2] if self._stamp else False,
                    len(self._line_ids),
                    self._file_stamp(),
                ):
                    self.flat.drop()
                    forget_file(self.flat.path)
            self.load()

    # -- reading ------------------------------------------------------------------

    def facts_of_chunks(self, chunks: "ChannelIndex", chunk_ids: Sequence[str]) -> list[str]:
        """Ids of the facts whose evidence lies in the given archive chunks, chunk by chunk.

        Only the facts of the chunks' sessions are looked at (their turns mapped
        once per loaded corpus), so the cost follows the chunks, not the corpus."""
        out: dict[str, None] = {}
        for chunk_id in chunk_ids:
            row = chunks._row_of.get(chunk_id)
            if row is None:
                continue
            by_turn = self._turns_of(chunks._table.sessions[row])
            for turn_id in chunks._table.evidence(row):
                for fact_id in by_turn.get(turn_id, ()):
                    out.setdefault(fact_id, None)
        return list(out)

    def _turns_of(self, session: str) -> dict[str, list[str]]:
        """turn id -> ids of this channel's entries of ``session`` citing it, in corpus order."""
        if self._by_turn is None:
            self._by_turn = {}
        if session not in self._by_turn:
            if self._session_rows is None:
                sessions = self._table.sessions
                rows: dict[str, list[str]] = {}
                for entry_id in self._order:
                    rows.setdefault(sessions[self._row_of[entry_id]], []).append(entry_id)
                self._session_rows = rows
            by_turn: dict[str, list[str]] = {}
            for entry_id in self._session_rows.get(session, ()):
                for turn_id in self._table.evidence(self._row_of[entry_id]):
                    by_turn.setdefault(turn_id, []).append(entry_id)
            self._by_turn[session] = by_turn
        return self._by_turn[session]

    def stored_vectors(self, checksums: "dict[str, str | None]") -> "dict[str, numpy.ndarray]":
        """The vectors of the entries named in ``checksums`` (id -> content checksum,
        or ``None`` when the caller knows the entry is current) whose indexed checksum
        matches, from the flat copy; empty when the copy is not in step with the
        corpus (nothing here opens Chroma)."""
        import numpy as np

        self.refresh()
        if self.flat is None or not self._flat_in_step() or not self._line_ids:
            return {}
        rows: dict[str, int] = {}
        entries = self.entries if any(c is not None for c in checksums.values()) else {}
        for entry_id, checksum in checksums.items():
            row = self._row_of.get(entry_id)
            if row is not None and (checksum is None or entries[entry_id].checksum == checksum):
                rows[entry_id] = row
        if not rows:
            return {}
        table = np.memmap(self.flat.path, dtype=np.float32, mode="r").reshape(-1, self.flat.dim)
        picked = np.array(table[np.fromiter(rows.values(), dtype=np.int64, count=len(rows))])
        del table
        return {entry_id: picked[n] for n, entry_id in enumerate(rows)}

    def vector_count(self) -> int:
        if not self.chroma:
            return len(self._order) if self.vectors_covered() else 0
        return int(self.collection.count())

    def bm25(self) -> BM25:
        """The BM25 index of the corpus as loaded: from disk, extended with appended
        entries, or built afresh (and saved for the next search)."""
        if self._bm25 is not None:
            return self._bm25
        stamp = (*(self._stamp or (-1, 0, 0)), len(self._line_ids))
        saved = BM25.load(self.bm25_path)
        legacy = self.legacy_path(self.bm25_path)  # an earlier version's .npz: built again, then gone
        index: BM25 | None = None
        if saved is not None and _same_corpus(saved.stamp, stamp) and saved.size == len(self._order):
            index = saved
            if saved.stamp != stamp:  # a copy: saved again under its new identity, so appends extend it
                index = BM25(saved.vocab, saved.doc_tokens, saved.doc_offsets, stamp=stamp)
                index._matrix = saved._scores_matrix()
        elif saved is not None and self._appended_since(saved):
            index = saved.extended([self.entry(i).index_text for i in self._order[saved.size :]], stamp=stamp)
        if index is None:
            index = BM25.build([self.entry(i).index_text for i in self._order], stamp=stamp)
        if index is not saved:
            try:
                index.save(self.bm25_path)
                legacy.unlink(missing_ok=True)
            except OSError as exc:  # a read-only project still searches, it just rebuilds next time
                log.debug("BM25 index not saved to %s: %s", self.bm25_path, exc)
        self._bm25 = index
        return index

    def _appended_since(self, saved: BM25) -> bool:
        """Was the corpus only appended to, with new ids, since ``saved`` was built?"""
        if len(saved.stamp) != 4 or self._stamp is None:
            return False
        size, _mtime, inode, lines = saved.stamp
        if inode != self._stamp[2] or size > self._stamp[0] or lines > len(self._line_ids):
            return False
        if saved.size > len(self._order):
            return False
        covered = set(self._order[: saved.size])
        return len(covered) == saved.size and not any(i in covered for i in self._line_ids[lines:])

    def ordinals(self) -> "numpy.ndarray":
        import numpy as np

        if self._ordinals is None:
            dates = self._table.ordinals
            self._ordinals = np.array([dates[self._row_of[i]] for i in self._order], dtype=np.int64)
        return self._ordinals

    def dense(self, vector: "numpy.ndarray", n: int, *, max_ordinal: int | None = None) -> list[str]:
        count = len(self._order)
        if not count:
            return []
        if self._flat_in_step():
            return self._flat_dense(vector, n, max_ordinal)
        if self.flat is not None:
            self._rebuild_flat()  # kept (a copy of the project) or written from Chroma
            if self._flat_in_step():
                return self._flat_dense(vector, n, max_ordinal)
        if not self.chroma:
            raise StoreError(
                f"the {self.channel} vectors ({self.flat.path if self.flat else 'none'}) are not in step with "
                "their corpus, and there is no Chroma store to read them from.",
                hint="{do:repair} (the vectors are computed again from the fact log and the archive).",
            )
        where = {"date": {"$lte": max_ordinal}} if max_ordinal is not None else None
        result = self.collection.query(
            query_embeddings=[vector], n_results=min(n, count), where=where, include=["distances"]
        )
        return [i for i in result["ids"][0] if i in self._row_of]

    def lexical(
        self, tokens: list[str], n: int, *, max_ordinal: int | None = None, extra: "dict[str, float] | None" = None
    ) -> list[str]:
        import numpy as np

        scores = self.bm25().scores(tokens, extra)
        if scores is None:
            return []
        if max_ordinal is not None:
            scores = np.where(self.ordinals() <= max_ordinal, scores, 0.0)
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self._order[i] for i in top if scores[i] > 0]

    def _flat_dense(self, vector: "numpy.ndarray", n: int, max_ordinal: int | None) -> list[str]:
        import numpy as np

        assert self.flat is not None
        if self._current_rows is None:
            current = np.zeros(len(self._line_ids), dtype=bool)
            current[np.fromiter(self._row_of.values(), dtype=np.int64, count=len(self._row_of))] = True
            self._current_rows = current
        allowed = self._current_rows
        if max_ordinal is not None:
            allowed = allowed & (np.asarray(self._table.ordinals, dtype=np.int64) <= max_ordinal)
        return [self._line_ids[row] for row in self.flat.top(vector, n, allowed)]

    def _rebuild_flat(self) -> None:
        """Write the flat copy from Chroma's vectors (skipped while a writer is busy)."""
        assert self.flat is not None
        if self.try_lock is None or self._rebuild_failed == self._stamp:
            return  # tried for this corpus already: Chroma lacks vectors (warned once)
        try:
            with self.try_lock():
                if not self.flat_from_chroma():
                    self._rebuild_failed = self._stamp
        except ProjectLocked:
            log.debug("flat vectors of %s not rebuilt: a writer holds the lock", self.channel)

    def flat_from_chroma(self) -> bool:
        """Bring the flat copy in step with the corpus from Chroma's vectors (the caller
        holds the project lock); returns whether it is in step.  Chroma is opened only
        when the copy lags.  False without a flat copy (a server), or when some entries
        have a vector in neither (a rebuild of the indexes embeds them again)."""
        import numpy as np

        if self.flat is None:
            return False
        self.refresh()
        if self._flat_in_step() or self._adopt_copied_flat():
            return True
        if not self.chroma:
            return False  # no other copy of the vectors: the catch-up or a repair embeds them again
        vectors = np.zeros((len(self._line_ids), self.flat.dim), dtype=np.float32)
        row_of = {entry_id: row for row, entry_id in enumerate(self._line_ids)}
        ids = list(row_of)
        for start in range(0, len(ids), 5000):
            got = self.collection.get(ids=ids[start : start + 5000], include=["embeddings"])
            for entry_id, embedding in zip(got["ids"], got["embeddings"]):
                vectors[row_of[entry_id]] = embedding
            missing = set(ids[start : start + 5000]) - set(got["ids"])
            if missing:
                log.warning(
                    "flat vectors of %s not rebuilt: %d entries have no vector in Chroma either "
                    "(a rebuild of the indexes embeds them again)", self.channel, len(missing),
                )
                return False
        # rows of an id that repeats keep that id's vector (only its last row is read)
        for row, entry_id in enumerate(self._line_ids):
            vectors[row] = vectors[row_of[entry_id]]
        self.flat.replace(vectors, corpus_stamp=self._stamp or (-1, 0, 0))
        record_file(self.flat.path)
        return True


def _collection_ids(collection: Any) -> set[str]:
    """The ids a Chroma collection holds (read in pages)."""
    ids: set[str] = set()
    page = 10_000
    offset = 0
    while True:
        got = collection.get(include=[], limit=page, offset=offset)["ids"]
        ids.update(got)
        if len(got) < page:
            return ids
        offset += page


def _float32_bytes(vectors: "numpy.ndarray") -> bytes:
    import numpy as np

    return np.ascontiguousarray(vectors, dtype=np.float32).tobytes()


def _collection_prefix(root: Path, backend: str) -> str:
    if backend == "http":
        # one server may hold many projects: name collections after this one
        return "uac_" + hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12] + "_"
    return "uac_"


class MemoryIndex:
    """Both channels of one project's indexes."""

    def __init__(self, internal: Path, config: "IndexConfig | None" = None, *, root: Path | None = None) -> None:
        self.internal = Path(internal)
        self.dir = self.internal / "index"
        self.chroma_path = self.internal / "chroma"
        from .client import resolve_settings

        #: the backend and server address, with the environment's overrides applied
        self.chroma = resolve_settings(config)
        self.backend = self.chroma.backend
        from .client import chroma_installed

        #: is Chroma behind the channels?  Always with a server; with the embedded
        #: backend only where the chroma extra is installed (else the flat copies alone)
        self.uses_chroma = self.backend == "http" or chroma_installed()
        self.config = config
        self.root = root or self.internal.parent
        self._client: Any = None
        self._identity: int | None = None
        self._channels: dict[str, ChannelIndex] = {}
        #: (identity of the manifest file, its content): re-read only when the file changed
        self._manifest: tuple[tuple[int, int, int], dict[str, Any] | None] | None = None

    # -- the Chroma client ------------------------------------------------------

    def _chroma_identity(self) -> int | None:
        try:
            return self.chroma_path.stat().st_ino
        except FileNotFoundError:
            return None

    def client(self) -> Any:
        if self._client is not None and self.backend != "http" and self._identity != self._chroma_identity():
            # .uac/chroma was deleted or replaced since this client opened it
            self._client = None
            self._channels.clear()
        if self._client is None:
            from .client import build_client

            # (an embedded store whose directory is gone: build_client drops Chroma's stale system)
            self._client = build_client(self.chroma, self.chroma_path)
            self._identity = self._chroma_identity()
        return self._client

    def close(self) -> None:
        """Release the Chroma client and the loaded channels (both reopen on demand)."""
        self.release_client()
        for index in self._channels.values():
            if index.flat is not None:
                index.flat.forget()
        self._channels.clear()
        self._manifest = None

    def release_client(self) -> None:
        """Close this project's own Chroma client (an embedded one: its threads and
        files), keeping the loaded corpus tables and BM25 indexes; the client
        reopens when something needs it.  A server's client is shared by every
        project of the process: the process closes it (:func:`~uac.index.client.close_shared_clients`)."""
        client, self._client = self._client, None
        for index in self._channels.values():
            index._collection = None
        if client is not None and self.backend != "http" and hasattr(client, "close"):
            client.close()

    def drop_embedded_store(self) -> bool:
        """Delete the embedded Chroma store (``.uac/chroma``: its database and every
        segment directory) and close this project's client; returns whether there was
        one to delete (never with a server).

        This is how a forget reaches Chroma's files.  Deleting entries, or even whole
        collections, through Chroma is not enough: its HNSW writer saves the index's
        whole preallocated buffer, so the unused slots of ``data_level0.bin`` hold
        whatever the writing process's heap held before (text it read, such as the
        words being forgotten), deleted entries stay in the file marked deleted, and a
        deleted collection's segment directory stays on disk.  With the flat copy in
        step with the corpus nothing is lost: the next opening of a collection adds
        every entry again from the flat copy (:meth:`ChannelIndex.sync_vectors`)."""
        if self.backend == "http":
            return False
        from .client import forget_stale_system

        self.release_client()
        forget_stale_system(self.chroma_path)
        if self.chroma_path.is_symlink():
            self.chroma_path.unlink()
            return True
        if not self.chroma_path.exists():
            return False
        shutil.rmtree(self.chroma_path)
        return True

    @property
    def client_open(self) -> bool:
        """Does this project hold a Chroma client of its own right now?"""
        from .client import is_shared

        return self._client is not None and not is_shared(self._client)

    def collection_name(self, channel: str) -> str:
        return _collection_prefix(self.root, self.backend) + channel

    def channel(self, channel: str) -> ChannelIndex:
        if channel not in CHANNELS:
            raise StoreError(f"unknown index channel {channel!r}.")
        if channel in self._channels and self.backend != "http" and self._client is not None:
            if self._identity != self._chroma_identity():  # .uac/chroma was replaced: reopen
                self._client = None
                self._channels.clear()
        if self.backend == "http" and self._client is not None:
            from .client import is_shared

            if not is_shared(self._client):  # the shared clients were closed: reconnect on demand
                self.release_client()
        if channel not in self._channels:
            name = self.collection_name(channel)

            def open_collection() -> Any:
                return self.client().get_or_create_collection(name, embedding_function=None)

            flat = FlatVectors(self.dir / f"{channel}.vectors") if self.backend != "http" else None
            index = ChannelIndex(
                channel, self.dir / f"{channel}.jsonl", open_collection, flat, self._try_lock, self.max_batch,
                chroma=self.uses_chroma,
            )
            if self.backend == "http":
                index.collection  # noqa: B018  (a server is needed for every search: reach it now, or say why not)
            index.load()
            self._channels[channel] = index
        else:
            self._channels[channel].refresh()
        return self._channels[channel]

    def _try_lock(self) -> Any:
        from ..lock import project_lock

        return project_lock(self.internal / "lock", purpose="rebuild the flat vector copy", timeout=0)

    def max_batch(self) -> int:
        return int(self.client().get_max_batch_size())

    def sync_vectors(self) -> int:
        """Bring every channel's Chroma collection in step with its corpus (see
        :meth:`ChannelIndex.sync_vectors`); returns the entries added."""
        return sum(self.channel(name).sync_vectors() for name in CHANNELS)

    # -- manifest -------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.json"

    def expected_manifest(self) -> dict[str, Any]:
        from .embeddings import MODEL_NAME
        from .texts import TEXT_SETTINGS

        return {"index_version": INDEX_VERSION, "model": MODEL_NAME, "texts": TEXT_SETTINGS}

    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest, or None.  It is parsed again only when its file changed (size,
        modification time or inode, not following a link): a warm search pays a ``stat``."""
        stamp = FileStamp.of(self.manifest_path, follow_symlinks=False)
        if self._manifest is not None and self._manifest[0] == stamp:
            return dict(self._manifest[1]) if self._manifest[1] is not None else None
        try:
            data = json.loads(read_regular(self.root, self.manifest_path).decode("utf-8"))
        except (OSError, ValueError):
            data = None
        data = data if isinstance(data, dict) else None
        self._manifest = (stamp, data)
        return dict(data) if data is not None else None

    def settings_differ(self, manifest: dict[str, Any]) -> bool:
        """True if the indexes were built with other settings than this uac's (rebuild
        needed).  The tokenizer's version is not one of them: it is kept with each
        BM25 index, which alone is built again when it changes (a manifest written
        while it was listed here still matches)."""
        expected = self.expected_manifest()
        texts = manifest.get("texts")
        if isinstance(texts, dict) and "stemmer" in texts:
            manifest = {**manifest, "texts": {k: v for k, v in texts.items() if k != "stemmer"}}
        return any(manifest.get(key) != value for key, value in expected.items())

    def vectors_still_valid(self, manifest: dict[str, Any]) -> bool:
        """Were the indexes built with the vectors this uac would compute (same index
        version and model, same vector and excerpt settings, a fact's vector its own),
        so that a rebuild for other settings -- what BM25 reads -- can keep them?"""
        from .texts import VECTOR_SETTINGS

        expected = self.expected_manifest()
        texts = manifest.get("texts")
        if not isinstance(texts, dict) or any(manifest.get(k) != expected[k] for k in ("index_version", "model")):
            return False
        if any(texts.get(key) != expected["texts"].get(key) for key in VECTOR_SETTINGS):
            return False
        return float(expected["texts"].get("context_weight", 0.0)) == 0.0

    def write_manifest(self, log_position: tuple[int, str] | None = None) -> None:
        """Record the settings and, if given, the log position ``(bytes, sha256)`` the
        indexes cover: every session committed in the log's first ``bytes`` bytes."""
        data = dict(self.expected_manifest())
        if log_position is not None:
            data["log"] = {"bytes": log_position[0], "sha256": log_position[1]}
        atomic_write_text(self.manifest_path, json.dumps(data, indent=2) + "\n")

    def covered_position(self, manifest: dict[str, Any] | None = None) -> tuple[int, str] | None:
        """The log position the manifest (read now unless given) says the indexes
        cover, or ``None`` if unknown."""
        manifest = self.read_manifest() if manifest is None else manifest
        if manifest is None:
            return None
        log_part = manifest.get("log")
        if not isinstance(log_part, dict):
            return None
        size, digest = log_part.get("bytes"), log_part.get("sha256")
        if type(size) is not int or not isinstance(digest, str):
            return None
        return size, digest

    def has_corpus(self) -> bool:
        return any((self.dir / f"{channel}.jsonl").exists() for channel in CHANNELS)

    # -- whole-index operations -----------------------------------------------------

    def reset(self) -> None:
        """Drop every index of the project (the corpus files and the collections; an
        embedded Chroma store whole, as a deleted collection's files stay on disk)."""
        if self.backend != "http":
            self.drop_embedded_store()
        else:
            from chromadb.errors import NotFoundError

            client = self.client()
            for channel in CHANNELS:
                name = self.collection_name(channel)
                try:
                    client.delete_collection(name)
                except (NotFoundError, ValueError) as exc:  # the collection was not there
                    log.debug("collection %s not deleted: %s", name, exc)
        self._channels.clear()
        if self.dir.exists():
            shutil.rmtree(self.dir)
