"""The search index of imported records (``uac import-records``), as text.

Every record that cites an imported file (a ``record:<file>#<n>`` source) is
indexed as one line of text naming its collection and its fields::

    travel.trips: trip id T002, city Kyoto, country Japan, start date 2023-01-27, nights 7

Files, all under ``.uac/index/`` and all derived (deleting them costs one
rebuild by the next search):

* ``records.jsonl`` -- one entry per record: id (``<domain>.<collection>#<position>``),
  text, domain, collection, position in the collection, record type, source;
* ``records.vectors`` -- their vectors, float32 rows in the same order;
* ``records.json`` -- which version of each domain's ``state.py`` (size,
  modification time, inode) the entries were made from, and the identity of
  the two files above.  When a domain's ``state.py`` is not the one recorded
  (an import, a forget, a compile, an edit), its entries are made again.

Searching reads the three files, scans the vectors exactly and scores the
texts with BM25 built in memory; no Chroma.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..fieldjson import fields_json
from ..filestamp import FileStamp, KeptRead
from ..fsutil import (
    atomic_write_bytes,
    atomic_write_text,
    make_private_dirs,
    read_json_object,
    read_utf8,
    split_lines,
)

if TYPE_CHECKING:
    import numpy

    from .bm25 import BM25

FORMAT = 1


@dataclass(frozen=True)
class RecordEntry:
    """One imported record as the search index holds it."""

    id: str
    text: str
    domain: str
    collection: str
    #: 0-based position in the collection
    position: int
    record_type: str
    #: the record's import source, ``record:<file>#<n>``
    source: str

    def pointer(self) -> dict[str, Any]:
        """Where the record lives in the view (the ``record`` field of a search hit):
        every field but the id and the text."""
        where = self.to_json()
        del where["id"], where["text"]
        return where

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RecordEntry":
        return cls(
            str(data["id"]),
            str(data["text"]),
            str(data["domain"]),
            str(data["collection"]),
            int(data["position"]),
            str(data["record_type"]),
            str(data["source"]),
        )


def _read_meta(path: Path) -> dict[str, Any] | None:
    meta = read_json_object(path)
    return meta if meta is not None and meta.get("format") == FORMAT else None


class RecordIndex:
    def __init__(self, directory: Path, dim: int = 384) -> None:
        self.dir = Path(directory)
        self.dim = dim
        self.corpus_path = self.dir / "records.jsonl"
        self.vectors_path = self.dir / "records.vectors"
        self.meta_path = self.dir / "records.json"
        self._loaded: tuple[Any, ...] | None = None
        self._entries: list[RecordEntry] = []
        self._by_id: dict[str, RecordEntry] = {}
        self._vectors: "numpy.ndarray | None" = None
        self._bm25: "BM25 | None" = None
        #: ``records.json``, read again only when the file changed (a kept index costs a
        #: warm search one ``stat``)
        self._meta_file = KeptRead(self.meta_path, _read_meta)
        self._problem: str | None = None

    # -- state --------------------------------------------------------------------------

    def _meta(self) -> dict[str, Any] | None:
        return self._meta_file.get()

    def stamps(self) -> dict[str, list[int]] | None:
        """Domain -> the ``state.py`` identity its entries were made from; ``None`` when the
        files are missing, do not match each other or cannot be read (everything is
        made again)."""
        meta = self._meta()
        if meta is None:
            return None
        if FileStamp.of(self.corpus_path) != FileStamp.from_json(meta.get("corpus")) or FileStamp.of(
            self.vectors_path
        ) != FileStamp.from_json(meta.get("vectors")):
            return None
        if self.problem() is not None:
            return None
        stamps = meta.get("domains")
        return stamps if isinstance(stamps, dict) else None

    def problem(self) -> str | None:
        """What makes the files unreadable (a line that is not an entry, vectors that do
        not fit the entries), or ``None``.  A damaged index searches nothing and is
        made again by the next write."""
        self._load()
        return self._problem

    def entries(self) -> list[RecordEntry]:
        self._load()
        return list(self._entries)

    def __len__(self) -> int:
        self._load()
        return len(self._entries)

    def _load(self) -> None:
        import numpy as np

        key = (FileStamp.of(self.corpus_path), FileStamp.of(self.vectors_path))
        if self._loaded == key:
            return
        entries, problem = self._read_entries() if key[0].size > 0 else ([], None)
        vectors = np.zeros((0, self.dim), dtype=np.float32)
        if key[1].size > 0 and problem is None:
            row = self.dim * np.dtype(np.float32).itemsize
            if key[1][0] % row:
                problem = f"records.vectors holds {key[1][0]} bytes, not whole rows of {self.dim} numbers"
            else:
                vectors = np.fromfile(self.vectors_path, dtype=np.float32).reshape(-1, self.dim)
        if problem is None and len(vectors) != len(entries):
            problem = f"records.vectors holds {len(vectors)} vectors for {len(entries)} entries"
        if problem is not None:
            entries, vectors = [], np.zeros((0, self.dim), dtype=np.float32)
        self._entries, self._vectors, self._bm25, self._problem = entries, vectors, None, problem
        self._by_id = {e.id: e for e in entries}
        self._loaded = key

    def _read_entries(self) -> tuple[list[RecordEntry], str | None]:
        """The entries of ``records.jsonl`` (its lines end at "\n" only: a record's text may
        hold U+2028 and the like), or what is wrong with it."""
        try:
            text = read_utf8(self.corpus_path)
        except FileNotFoundError:
            return [], None
        except (OSError, UnicodeDecodeError) as exc:
            return [], f"records.jsonl cannot be read ({exc})"
        entries = []
        for number, line in enumerate(split_lines(text), 1):
            if not line.strip():
                continue
            try:
                entries.append(RecordEntry.from_json(json.loads(line)))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                return [], f"records.jsonl line {number} is not an entry ({exc})"
        return entries, None

    # -- writing (caller holds the project lock) ---------------------------------------

    def write(self, entries: list[RecordEntry], vectors: "numpy.ndarray", stamps: dict[str, list[int]]) -> None:
        """Replace the whole index with ``entries`` (rows of ``vectors``), made from the
        domains' ``state.py`` versions in ``stamps``."""
        import numpy as np

        data = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(entries), self.dim)
        make_private_dirs(self.dir)
        self.meta_path.unlink(missing_ok=True)  # a crash between the writes leaves no valid meta
        atomic_write_bytes(self.vectors_path, data.tobytes())
        atomic_write_text(
            self.corpus_path, "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in entries)
        )
        meta = {
            "format": FORMAT,
            "domains": stamps,
            "corpus": FileStamp.of(self.corpus_path).to_json(),
            "vectors": FileStamp.of(self.vectors_path).to_json(),
        }
        atomic_write_text(self.meta_path, json.dumps(meta) + "\n")
        self._meta_file.keep(meta)
        self._loaded = None

    def vectors_by_text(self) -> "dict[str, numpy.ndarray]":
        """Stored vectors by entry text (reused for records whose text did not change)."""
        self._load()
        assert self._vectors is not None
        return {e.text: self._vectors[n] for n, e in enumerate(self._entries)}

    # -- searching ---------------------------------------------------------------------

    def entry(self, entry_id: str) -> RecordEntry:
        self._load()
        return self._by_id[entry_id]

    def dense(self, vector: "numpy.ndarray", n: int) -> list[str]:
        import numpy as np

        self._load()
        if not self._entries:
            return []
        assert self._vectors is not None
        scores = self._vectors @ np.asarray(vector, dtype=np.float32).reshape(self.dim)
        order = np.argsort(-scores, kind="stable")[:n]
        return [self._entries[i].id for i in order]

    def lexical(self, tokens: list[str], n: int) -> list[str]:
        import numpy as np

        from .bm25 import BM25

        self._load()
        if not self._entries:
            return []
        if self._bm25 is None:
            self._bm25 = BM25.build([e.text for e in self._entries])
        scores = self._bm25.scores(tokens)
        if scores is None:
            return []
        order = np.argsort(-scores, kind="stable")[:n]
        return [self._entries[i].id for i in order if scores[i] > 0]


__all__ = ["RecordEntry", "RecordIndex"]
