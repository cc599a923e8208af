"""What a channel's searches compute from its rows: BM25, date ordinals, turn maps.

Each is built on first use and kept while the rows stay the same
(:attr:`~uac.index.rows.CorpusRows.generation`).  The BM25 index is also saved
as ``<channel>.bm25.pack`` under a stamp of the corpus (size, modification
time, inode, lines), so the next process reads it, extends it with appended
entries, or builds it afresh.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..filestamp import FileStamp
from .bm25 import BM25
from .rows import CorpusRows

if TYPE_CHECKING:
    import numpy

log = logging.getLogger(__name__)


def _same_corpus(saved: tuple[int, ...], current: tuple[int, ...]) -> bool:
    """Was a BM25 index stamped ``saved`` built from the corpus stamped ``current``
    (size, modification time, inode, lines)?  The inode may differ: a copy of the
    project that keeps times (cp -a, rsync -a, a restored backup) keeps its index,
    as the flat vector copy does (:meth:`FlatVectors.matches`)."""
    return len(saved) == 4 and len(current) == 4 and saved[:2] == current[:2] and saved[3] == current[3]


class RowLookups:
    """BM25, dates and turn maps of one channel's rows, kept until the rows change."""

    def __init__(self, rows: CorpusRows) -> None:
        self.rows = rows
        self._generation = -1
        self._bm25: BM25 | None = None
        self._ordinals: "numpy.ndarray | None" = None
        #: session -> turn id -> entry ids citing it (filled per session on demand)
        self._by_turn: dict[str, dict[str, list[str]]] = {}
        #: session -> its entry ids in corpus order
        self._session_rows: dict[str, list[str]] | None = None

    @property
    def bm25_path(self) -> Path:
        return self.rows.path.with_name(f"{self.rows.channel}.bm25.pack")

    def _current(self) -> None:
        """Forget what was computed from rows that have changed since."""
        if self._generation != self.rows.generation:
            self._generation = self.rows.generation
            self._bm25 = self._ordinals = self._session_rows = None
            self._by_turn = {}

    def drop_saved(self) -> None:
        """Delete the saved BM25 columns (they hold the words of removed texts)."""
        self.bm25_path.unlink(missing_ok=True)
        self.rows.legacy_path(self.bm25_path).unlink(missing_ok=True)
        self._bm25 = None

    def bm25(self) -> BM25:
        """The BM25 index of the corpus as loaded: from disk, extended with appended
        entries, or built afresh (and saved for the next search)."""
        self._current()
        if self._bm25 is not None:
            return self._bm25
        rows = self.rows
        stamp = (*(rows.stamp or FileStamp.missing()), len(rows.line_ids))
        saved = BM25.load(self.bm25_path)
        legacy = rows.legacy_path(self.bm25_path)  # an earlier version's .npz: built again, then gone
        index: BM25 | None = None
        if saved is not None and _same_corpus(saved.stamp, stamp) and saved.size == len(rows.order):
            index = saved
            if saved.stamp != stamp:  # a copy: saved again under its new identity, so appends extend it
                index = BM25(saved.vocab, saved.doc_tokens, saved.doc_offsets, stamp=stamp)
                index._matrix = saved._scores_matrix()
        elif saved is not None and self._appended_since(saved):
            index = saved.extended([rows.entry(i).index_text for i in rows.order[saved.size :]], stamp=stamp)
        if index is None:
            index = BM25.build([rows.entry(i).index_text for i in rows.order], stamp=stamp)
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
        rows = self.rows
        if len(saved.stamp) != 4 or rows.stamp is None:
            return False
        size, _mtime, inode, lines = saved.stamp
        if inode != rows.stamp.inode or size > rows.stamp.size or lines > len(rows.line_ids):
            return False
        if saved.size > len(rows.order):
            return False
        covered = set(rows.order[: saved.size])
        return len(covered) == saved.size and not any(i in covered for i in rows.line_ids[lines:])

    def ordinals(self) -> "numpy.ndarray":
        """The day ordinal of each entry, in corpus order."""
        import numpy as np

        self._current()
        if self._ordinals is None:
            dates, row_of = self.rows.table.ordinals, self.rows.row_of
            self._ordinals = np.array([dates[row_of[i]] for i in self.rows.order], dtype=np.int64)
        return self._ordinals

    def lexical(
        self, tokens: list[str], n: int, *, max_ordinal: int | None = None, extra: "dict[str, float] | None" = None
    ) -> list[str]:
        """The ids of the ``n`` entries BM25 scores highest (above zero), best first."""
        import numpy as np

        scores = self.bm25().scores(tokens, extra)
        if scores is None:
            return []
        if max_ordinal is not None:
            scores = np.where(self.ordinals() <= max_ordinal, scores, 0.0)
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self.rows.order[i] for i in top if scores[i] > 0]

    def facts_of_chunks(self, chunks: CorpusRows, chunk_ids: Sequence[str]) -> list[str]:
        """Ids of the entries whose evidence lies in the given archive chunks, chunk by chunk.

        Only the entries of the chunks' sessions are looked at (their turns mapped
        once per loaded corpus), so the cost follows the chunks, not the corpus."""
        out: dict[str, None] = {}
        for chunk_id in chunk_ids:
            row = chunks.row_of.get(chunk_id)
            if row is None:
                continue
            by_turn = self._turns_of(chunks.table.sessions[row])
            for turn_id in chunks.table.evidence(row):
                for fact_id in by_turn.get(turn_id, ()):
                    out.setdefault(fact_id, None)
        return list(out)

    def _turns_of(self, session: str) -> dict[str, list[str]]:
        """turn id -> ids of this channel's entries of ``session`` citing it, in corpus order."""
        self._current()
        rows = self.rows
        if session not in self._by_turn:
            if self._session_rows is None:
                sessions = rows.table.sessions
                by_session: dict[str, list[str]] = {}
                for entry_id in rows.order:
                    by_session.setdefault(sessions[rows.row_of[entry_id]], []).append(entry_id)
                self._session_rows = by_session
            by_turn: dict[str, list[str]] = {}
            for entry_id in self._session_rows.get(session, ()):
                for turn_id in rows.table.evidence(rows.row_of[entry_id]):
                    by_turn.setdefault(turn_id, []).append(entry_id)
            self._by_turn[session] = by_turn
        return self._by_turn[session]


__all__ = ["RowLookups"]
