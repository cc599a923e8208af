"""A channel's vectors: its Chroma collection, the flat copy, and keeping them in step.

With the embedded backend the flat copy (:mod:`uac.index.flat`, one row per
corpus line) is written first and Chroma follows lazily: whoever opens the
collection first adds the corpus entries it lacks, with their vectors from the
flat copy (:meth:`ChannelVectors.sync`).  When the flat copy is out of step
with the corpus, it is kept if the files are exactly as recorded (a copy of
the project) or written again from Chroma's vectors
(:meth:`ChannelVectors.from_chroma`).  With a server there is no flat copy and
every write reaches Chroma at once.
"""

from __future__ import annotations

import logging
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..errors import ProjectLocked, StoreError
from ..failpoints import crash_point
from ..filestamp import FileStamp
from .digests import forget_file, record_append, record_file
from .entry import Entry
from .flat import FlatVectors
from .rows import CorpusRows

if TYPE_CHECKING:
    import numpy

log = logging.getLogger(__name__)

#: ids read from or written to Chroma at a time when its own limit is not asked for
CHROMA_PAGE = 5000


def collection_ids(collection: Any) -> set[str]:
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


def _batch(batch_size: Callable[[], int] | None) -> int:
    return int(batch_size()) if batch_size is not None else CHROMA_PAGE


def _metadata(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    return [{"session_id": e.session_id, "date": e.date_ordinal} for e in entries]


@dataclass(eq=False, repr=False)
class ChannelVectors:
    """The vectors of one channel's rows, in Chroma and (embedded backend) the flat copy."""

    rows: CorpusRows
    #: opens the channel's Chroma collection (only when something needs it)
    open_collection: Callable[[], Any]
    #: the flat copy of the vectors (embedded backend), or None
    flat: FlatVectors | None = None
    #: takes the project lock without waiting (for rebuilding the flat copy), or None
    try_lock: Callable[[], Any] | None = None
    #: Chroma's largest batch (asked of the client when Chroma is written), or None: 5000
    batch_size: Callable[[], int] | None = None
    _: KW_ONLY
    #: is there a Chroma collection behind the channel?  False: the embedded backend
    #: without the chroma extra, where the flat copy is the only store of the vectors
    chroma: bool = True
    _collection: Any = field(default=None, init=False)
    #: the corpus stamp :meth:`_adopt_copied_flat` last checked
    _copy_checked: FileStamp | None = field(default=None, init=False)
    #: the corpus stamp for which the flat copy could not be written from Chroma
    _rebuild_failed: FileStamp | None = field(default=None, init=False)
    #: (rows generation, per corpus line: does it hold its id's current entry)
    _current_rows: "tuple[int, numpy.ndarray] | None" = field(default=None, init=False)

    @property
    def collection(self) -> Any:
        """The Chroma collection, opened on first use; with a flat copy it is first
        brought in step with the corpus (see :meth:`sync`)."""
        if self._collection is None:
            collection = self.open_collection()
            if self.flat is not None:
                self._sync_into(collection)
            self._collection = collection
        return self._collection

    def release(self) -> None:
        """Forget the opened collection (its client is being closed); reopened on demand."""
        self._collection = None

    def sync(self) -> int:
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
        the flat copy (ids and metadata as an append writes them), in batches.

        Counting is cheap; the ids are compared only when the counts differ.  Only
        additions: an upsert of an entry the corpus holds can never be wrong, while
        vectors without a corpus entry are dropped under the project lock by the
        catch-up (:mod:`uac.index.catchup`).  Nothing is done when the flat copy is
        not in step with the corpus: then the entries Chroma lacks have no vector
        anywhere and the catch-up embeds them again."""
        import numpy as np

        rows = self.rows
        rows.refresh()
        if not rows.order or not self.in_step():
            return 0
        if int(collection.count()) == len(rows.order):
            return 0
        held = collection_ids(collection)
        missing = [i for i in rows.order if i not in held]
        if not missing:
            return 0
        assert self.flat is not None
        table = np.memmap(self.flat.path, dtype=np.float32, mode="r").reshape(-1, self.flat.dim)
        batch = _batch(self.batch_size)
        try:
            for start in range(0, len(missing), batch):
                ids = missing[start : start + batch]
                picked = np.fromiter((rows.row_of[i] for i in ids), dtype=np.int64, count=len(ids))
                collection.upsert(
                    ids=ids, embeddings=np.array(table[picked]), metadatas=_metadata([rows.entry(i) for i in ids])
                )
        finally:
            del table
        log.info(
            "Chroma collection of %s brought in step: %d entr(ies) added from the flat copy", rows.channel, len(missing)
        )
        return len(missing)

    def in_step(self) -> bool:
        """Does the flat copy hold exactly the vectors of the corpus as loaded?"""
        rows = self.rows
        if self.flat is None or rows.stamp is None:
            return False
        if not rows.line_ids and self.flat.rows() == 0:
            return True
        return self.flat.matches(rows.stamp, len(rows.line_ids))

    def _adopt_copied_flat(self) -> bool:
        """A copy of the project that did not keep file times (``cp -r``): the flat copy
        no longer names the corpus by its stamp, yet both files may be exactly as uac
        last wrote them together.  If each matches the length and CRC-32 recorded when
        it was written (``digests.json``) and the flat copy has a row per corpus line,
        it is stamped with the corpus as it is now and kept -- it may hold the only
        copy of the vectors.  The caller holds the project lock.  Checked once per
        corpus stamp (it reads both files)."""
        from .digests import file_crc, read_digests

        rows = self.rows
        if self.flat is None or rows.stamp is None or self._copy_checked == rows.stamp:
            return False
        self._copy_checked = rows.stamp
        recorded = read_digests(rows.path.parent)
        for path in (rows.path, self.flat.path):
            record = recorded.get(path.name)
            if record is None or file_crc(path) != (record["bytes"], record["crc32"]):
                return False
        if not self.flat.restamp(lambda _recorded: True, len(rows.line_ids), rows.stamp):
            return False
        log.info(
            "flat vectors of %s kept: the corpus and the copy are as recorded (a copy of the project)", rows.channel
        )
        return True

    def covered(self) -> bool:
        """Does every corpus line have its vector without asking Chroma?  True when
        the flat copy is in step with the corpus (Chroma may lag behind it)."""
        self.rows.refresh()
        return self.in_step() or self._adopt_copied_flat()

    # -- writing (callers hold the project lock) -------------------------------------------

    def write_ahead(self, entries: Sequence[Entry], vectors: "numpy.ndarray", max_batch: int | None) -> bool:
        """Before ``entries`` are appended to the corpus: write their vectors to Chroma
        unless the flat copy is in step (then they go to the flat copy after the
        corpus, see :meth:`appended`).  Returns whether the flat copy is in step."""
        in_step = self.covered()
        if not in_step and self.chroma:  # a server, or a flat copy out of step: Chroma holds the vectors
            size = max_batch or _batch(self.batch_size)
            for start in range(0, len(entries), size):
                batch = entries[start : start + size]
                self.collection.upsert(
                    ids=[e.id for e in batch], embeddings=vectors[start : start + size], metadatas=_metadata(batch)
                )
        crash_point(f"index:{self.rows.channel}-vectors")
        return in_step

    def appended(self, vectors: "numpy.ndarray", *, in_step: bool, rows_before: int) -> None:
        """After the corpus took the entries of ``vectors`` (at row ``rows_before``):
        extend the flat copy if it was in step, else drop it."""
        if self.flat is None:
            return
        if in_step:
            self.flat.append(vectors, rows_before=rows_before, corpus_stamp=self.rows.file_stamp())
            record_append(self.flat.path, rows_before * 4 * self.flat.dim, _float32_bytes(vectors))
        else:
            # rebuilt from Chroma by the next search; without Chroma the next
            # catch-up finds every entry without a vector and indexes it again
            self._drop_flat()

    def rewritten(self, *, in_step: bool, kept_rows: Sequence[int]) -> None:
        """After the corpus was written again with the lines ``kept_rows`` of the old one."""
        if self.flat is None:
            return
        if in_step:
            self.flat.replace(self.flat.read_all()[list(kept_rows)], corpus_stamp=self.rows.file_stamp())
            record_file(self.flat.path)
        else:
            self._drop_flat()

    def cut(self, size: int, before: FileStamp | None) -> None:
        """After a torn last line was cut off the corpus (stamped ``before``) at ``size``.
        The flat copy stops at the last whole line when its stamp names the file as it
        was before the torn append (same inode, the size it has again): it is kept, as
        it may hold the only vectors of entries Chroma has not taken yet."""
        if self.flat is None:
            return
        lines = len(self.rows.line_ids)
        if not self.flat.restamp(
            lambda stamp: before is not None and stamp.size == size and stamp.inode == before.inode,
            lines,
            self.rows.file_stamp(),
        ):
            self._drop_flat()

    def _drop_flat(self) -> None:
        assert self.flat is not None
        self.flat.drop()
        forget_file(self.flat.path)

    def delete(self, ids: Sequence[str]) -> None:
        """Drop vectors from Chroma by id (ids without a vector are ignored).  The flat
        copy (one row per corpus line) follows the corpus, not this."""
        if not self.chroma:
            return  # the flat copy holds a vector per corpus line and no other
        for start in range(0, len(ids), CHROMA_PAGE):
            self.collection.delete(ids=list(ids[start : start + CHROMA_PAGE]))

    # -- reading --------------------------------------------------------------------------

    def ids(self) -> set[str]:
        """The ids the vector collection holds (read in pages); without Chroma, the
        ids of the corpus when the flat copy is in step with it, else none."""
        if not self.chroma:
            return set(self.rows.order) if self.covered() else set()
        return collection_ids(self.collection)

    def count(self) -> int:
        if not self.chroma:
            return len(self.rows.order) if self.covered() else 0
        return int(self.collection.count())

    def stored(self, checksums: "dict[str, str | None]") -> "dict[str, numpy.ndarray]":
        """The vectors of the entries named in ``checksums`` (id -> content checksum,
        or ``None`` when the caller knows the entry is current) whose indexed checksum
        matches, from the flat copy; empty when the copy is not in step with the
        corpus (nothing here opens Chroma)."""
        import numpy as np

        rows = self.rows
        rows.refresh()
        if self.flat is None or not self.in_step() or not rows.line_ids:
            return {}
        picked_rows: dict[str, int] = {}
        entries = rows.entries if any(c is not None for c in checksums.values()) else {}
        for entry_id, checksum in checksums.items():
            row = rows.row_of.get(entry_id)
            if row is not None and (checksum is None or entries[entry_id].checksum == checksum):
                picked_rows[entry_id] = row
        if not picked_rows:
            return {}
        table = np.memmap(self.flat.path, dtype=np.float32, mode="r").reshape(-1, self.flat.dim)
        picked = np.array(table[np.fromiter(picked_rows.values(), dtype=np.int64, count=len(picked_rows))])
        del table
        return {entry_id: picked[n] for n, entry_id in enumerate(picked_rows)}

    def dense(self, vector: "numpy.ndarray", n: int, *, max_ordinal: int | None = None) -> list[str]:
        """The ids of the ``n`` entries nearest ``vector``: an exact scan of the flat copy
        when it is in step (kept, or written from Chroma, first), else Chroma's query."""
        import numpy as np

        rows = self.rows
        count = len(rows.order)
        if not count:
            return []
        if not self.in_step() and self.flat is not None:
            self._rebuild_flat()  # kept (a copy of the project) or written from Chroma
        if self.in_step():
            assert self.flat is not None
            if self._current_rows is None or self._current_rows[0] != rows.generation:
                current = np.zeros(len(rows.line_ids), dtype=bool)
                current[np.fromiter(rows.row_of.values(), dtype=np.int64, count=len(rows.row_of))] = True
                self._current_rows = (rows.generation, current)
            allowed = self._current_rows[1]
            if max_ordinal is not None:
                allowed = allowed & (np.asarray(rows.table.ordinals, dtype=np.int64) <= max_ordinal)
            return [rows.line_ids[row] for row in self.flat.top(vector, n, allowed)]
        if not self.chroma:
            raise StoreError(
                f"the {rows.channel} vectors ({self.flat.path if self.flat else 'none'}) are not in step with "
                "their corpus, and there is no Chroma store to read them from.",
                hint="{do:repair} (the vectors are computed again from the fact log and the archive).",
            )
        where = {"date": {"$lte": max_ordinal}} if max_ordinal is not None else None
        result = self.collection.query(
            query_embeddings=[vector], n_results=min(n, count), where=where, include=["distances"]
        )
        return [i for i in result["ids"][0] if i in rows.row_of]

    def _rebuild_flat(self) -> None:
        """Write the flat copy from Chroma's vectors (skipped while a writer is busy)."""
        assert self.flat is not None
        if self.try_lock is None or self._rebuild_failed == self.rows.stamp:
            return  # tried for this corpus already: Chroma lacks vectors (warned once)
        try:
            with self.try_lock():
                if not self.from_chroma():
                    self._rebuild_failed = self.rows.stamp
        except ProjectLocked:
            log.debug("flat vectors of %s not rebuilt: a writer holds the lock", self.rows.channel)

    def from_chroma(self) -> bool:
        """Bring the flat copy in step with the corpus from Chroma's vectors (the caller
        holds the project lock); returns whether it is in step.  Chroma is opened only
        when the copy lags.  False without a flat copy (a server), or when some entries
        have a vector in neither (a rebuild of the indexes embeds them again)."""
        import numpy as np

        if self.flat is None:
            return False
        if self.covered():
            return True
        if not self.chroma:
            return False  # no other copy of the vectors: the catch-up or a repair embeds them again
        rows = self.rows
        vectors = np.zeros((len(rows.line_ids), self.flat.dim), dtype=np.float32)
        row_of = {entry_id: row for row, entry_id in enumerate(rows.line_ids)}
        ids = list(row_of)
        for start in range(0, len(ids), CHROMA_PAGE):
            got = self.collection.get(ids=ids[start : start + CHROMA_PAGE], include=["embeddings"])
            for entry_id, embedding in zip(got["ids"], got["embeddings"]):
                vectors[row_of[entry_id]] = embedding
            missing = set(ids[start : start + CHROMA_PAGE]) - set(got["ids"])
            if missing:
                log.warning(
                    "flat vectors of %s not rebuilt: %d entries have no vector in Chroma either "
                    "(a rebuild of the indexes embeds them again)",
                    rows.channel,
                    len(missing),
                )
                return False
        # rows of an id that repeats keep that id's vector (only its last row is read)
        for row, entry_id in enumerate(rows.line_ids):
            vectors[row] = vectors[row_of[entry_id]]
        self.flat.replace(vectors, corpus_stamp=rows.stamp or FileStamp.missing())
        record_file(self.flat.path)
        return True


__all__ = ["CHROMA_PAGE", "ChannelVectors", "collection_ids"]
