"""A flat copy of a channel's vectors, for exact dense search without Chroma's client.

With the embedded backend every vector of a channel's entries is appended to
``.uac/index/<channel>.vectors`` (Chroma takes it from there when its collection
is next opened, see :mod:`uac.index.vectors`): raw float32 rows, one per line
of the channel's corpus file (``<channel>.jsonl``), in the same order.  Its
sidecar ``<channel>.vectors.json`` records the row count and the identity
(size, modification time, inode) of the corpus file the rows match; the rows
match a corpus of the same size and modification time (a copy that keeps times
keeps its flat copy).

A search reads the rows in blocks and keeps the best ``n`` (cosine, exact),
so it needs neither ``import chromadb`` (most of a second) nor the HNSW
index in memory, and its memory stays flat however large the channel grows.
When the sidecar does not match the corpus -- a crash between the two writes,
a copy made without its times, a project from before this file existed --
the search asks Chroma instead and the copy is rebuilt from Chroma's vectors
once Chroma holds them all; a rebuild of the indexes restores it with
everything else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..filestamp import FileStamp, KeptRead
from ..fsutil import atomic_write_bytes, atomic_write_text, make_private_dirs, open_private, read_json_object

if TYPE_CHECKING:
    import numpy

#: rows read at a time (6 MB at 384 dimensions)
BLOCK_ROWS = 4096
#: a copy at most this large is kept in memory between searches (while its file keeps its
#: identity); a larger one is read in blocks by every search, so memory stays flat
KEEP_BYTES = 256 * 1024


class FlatVectors:
    def __init__(self, path: Path, dim: int = 384) -> None:
        self.path = Path(path)
        self.meta_path = self.path.with_name(self.path.name + ".json")
        self.dim = dim
        #: the sidecar's parsed content: a search re-reads it only when it changed
        self._meta = KeptRead(self.meta_path, read_json_object)
        #: (stamp of the rows file, its rows) for a small copy kept in memory
        self._kept: tuple[FileStamp, "numpy.ndarray"] | None = None

    # -- state ------------------------------------------------------------------------------

    def read_meta(self) -> dict | None:
        """The sidecar's content (parsed again only when its file changed), or None."""
        return self._meta.get()

    def forget(self) -> None:
        """Let go of what is kept in memory (the sidecar and a small copy of the rows)."""
        self._meta.forget()
        self._kept = None

    def rows(self) -> int:
        return max(FileStamp.of(self.path).size, 0) // (4 * self.dim)

    def matches(self, corpus_stamp: FileStamp, lines: int) -> bool:
        """Do the rows match the corpus file with this identity and this many lines?"""
        meta = self.read_meta()
        if meta is None or meta.get("dim") != self.dim or meta.get("rows") != lines:
            return False
        recorded = FileStamp.from_json(meta.get("corpus"))
        # size and modification time, not the inode: a copy of the project that keeps
        # times (cp -a, rsync -a, a restored backup) keeps its flat copy, which may hold
        # the only copy of vectors Chroma has not taken yet (see uac.index.vectors)
        if recorded is None or not recorded.same_times(corpus_stamp):
            return False
        return FileStamp.of(self.path).size == lines * 4 * self.dim

    def _write_meta(self, rows: int, corpus_stamp: FileStamp) -> None:
        meta = {"dim": self.dim, "rows": rows, "corpus": FileStamp(*corpus_stamp).to_json()}
        atomic_write_text(self.meta_path, json.dumps(meta) + "\n")

    # -- writing (callers hold the project lock) -------------------------------------------

    def append(self, vectors: "numpy.ndarray", *, rows_before: int, corpus_stamp: FileStamp) -> None:
        """Append rows after ``rows_before`` existing ones (a torn earlier tail is cut)."""
        import numpy as np

        data = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        make_private_dirs(self.path.parent)
        with os.fdopen(open_private(self.path, os.O_RDWR | os.O_CREAT), "r+b") as handle:
            handle.truncate(rows_before * 4 * self.dim)
            handle.seek(rows_before * 4 * self.dim)
            handle.write(data.tobytes())
            handle.flush()
            os.fsync(handle.fileno())
        self._write_meta(rows_before + len(data), corpus_stamp)

    def replace(self, vectors: "numpy.ndarray", *, corpus_stamp: FileStamp) -> None:
        import numpy as np

        data = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        atomic_write_bytes(self.path, data.tobytes())
        self._write_meta(len(data), corpus_stamp)

    def restamp(self, was: "Callable[[FileStamp], bool]", lines: int, corpus_stamp: FileStamp) -> bool:
        """Record ``corpus_stamp`` as the corpus these rows match, if they are ``lines``
        whole rows and ``was`` accepts the corpus stamp they recorded; returns whether
        it did (for a corpus cut back to the lines these rows were written for)."""
        meta = self.read_meta()
        if meta is None or meta.get("dim") != self.dim or meta.get("rows") != lines:
            return False
        recorded = meta.get("corpus")
        stamp = FileStamp.from_json(recorded) if isinstance(recorded, list) else None
        if stamp is None or not was(stamp):
            return False
        if FileStamp.of(self.path).size != lines * 4 * self.dim:
            return False
        self._write_meta(lines, corpus_stamp)
        return True

    def drop(self) -> None:
        self.forget()
        self.meta_path.unlink(missing_ok=True)
        self.path.unlink(missing_ok=True)

    def read_all(self) -> "numpy.ndarray":
        import numpy as np

        return np.fromfile(self.path, dtype=np.float32).reshape(-1, self.dim)

    # -- searching ----------------------------------------------------------------------------

    def _small_rows(self, total: int) -> "numpy.ndarray | None":
        """The first ``total`` rows from memory when the file is small (read once per
        identity of the file: size, modification time, inode), else None."""
        import numpy as np

        stamp = FileStamp.of(self.path)
        if not stamp.exists or stamp.size > KEEP_BYTES:
            self._kept = None
            return None
        if self._kept is None or self._kept[0] != stamp:
            with open(self.path, "rb") as handle:
                data = handle.read()
            if len(data) != stamp.size:  # changed while read: read it again next time
                self._kept = None
                return None
            self._kept = (stamp, np.frombuffer(data, dtype=np.float32).reshape(-1, self.dim))
        rows = self._kept[1]
        return rows[:total] if len(rows) >= total else None

    def top(self, query: "numpy.ndarray", n: int, allowed: "numpy.ndarray") -> list[int]:
        """Rows with the ``n`` highest cosine scores among ``allowed`` (a boolean mask
        over the rows), best first; equal scores keep row order."""
        import numpy as np

        q = np.ascontiguousarray(query, dtype=np.float32).reshape(self.dim)
        total = len(allowed)
        kept = self._small_rows(total)
        if kept is not None:
            rows = np.flatnonzero(allowed)
            scores = np.einsum("ij,j->i", kept[rows], q)
            order = np.argsort(-scores, kind="stable")[:n]
            return [int(r) for r in rows[order]]
        best_rows = np.zeros(0, dtype=np.int64)
        best_scores = np.zeros(0, dtype=np.float32)
        with open(self.path, "rb") as handle:
            for start in range(0, total, BLOCK_ROWS):
                count = min(BLOCK_ROWS, total - start)
                mask = allowed[start : start + count]
                if not mask.any():
                    handle.seek((start + count) * 4 * self.dim)
                    continue
                handle.seek(start * 4 * self.dim)
                block = np.fromfile(handle, dtype=np.float32, count=count * self.dim).reshape(count, self.dim)
                # einsum, not BLAS: a matrix-vector product this size gains nothing from
                # BLAS threads, and on a busy machine their hand-offs cost more than the sums
                scores = np.einsum("ij,j->i", block, q)
                rows = np.flatnonzero(mask)
                best_rows = np.concatenate([best_rows, rows + start])
                best_scores = np.concatenate([best_scores, scores[rows]])
                if len(best_rows) > n:
                    keep = np.argsort(-best_scores, kind="stable")[:n]
                    keep.sort()  # back to row order, so ties stay in row order
                    best_rows, best_scores = best_rows[keep], best_scores[keep]
        order = np.argsort(-best_scores, kind="stable")[:n]
        return [int(r) for r in best_rows[order]]
