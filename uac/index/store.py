"""The derived search indexes under ``.uac/``: a corpus file, Chroma vectors and BM25.

Two channels, ``facts`` and ``archive``.  For each:

* ``.uac/index/<channel>.jsonl`` -- the corpus: one entry per indexed item
  (id, display text, text BM25 reads, session, date, evidence turn ids, and
  for facts the fact's content checksum).  It records exactly what the
  indexes cover, so ``doctor`` can compare it with the log and the archive;
* a Chroma collection with the entry's vector (uac computes every vector
  itself; Chroma's own embedding function is never used);
* a BM25 index (``bm25s``) over the entries' texts, rebuilt in memory from the
  corpus on first search (a second or two at 100k entries).

Chroma runs embedded (``.uac/chroma``) or against a server
(``[index] backend = "http"`` with ``chroma_host``/``chroma_port``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..errors import StoreError
from ..fsutil import atomic_write_text
from .entry import Entry
from .tokens import tokenize

if TYPE_CHECKING:
    import numpy

    from ..config import IndexConfig

log = logging.getLogger(__name__)

CHANNELS = ("facts", "archive")
#: bump when what goes into the indexes changes; doctor then asks for a rebuild
INDEX_VERSION = 1


def _date_ordinal(value: str | None) -> int:
    return _dt.date.fromisoformat(value).toordinal() if value else 0


class _BM25:
    """BM25 over a list of token lists (bm25s), with full score vectors for masking."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self.size = len(texts)
        self.model = bm25s.BM25()
        corpus = [tokenize(t) or ["_"] for t in texts]
        if corpus:
            self.model.index(corpus, show_progress=False)
        self.vocab = self.model.vocab_dict if corpus else {}

    def scores(self, tokens: list[str]) -> "numpy.ndarray | None":
        known = [t for t in tokens if t in self.vocab]
        if not known or not self.size:
            return None
        return self.model.get_scores(known)


@dataclass
class ChannelIndex:
    channel: str
    corpus_path: Path
    collection: Any
    entries: dict[str, Entry] = field(default_factory=dict)
    _order: list[str] = field(default_factory=list)
    _bm25: _BM25 | None = None
    _ordinals: Any = None
    _stamp: tuple[int, int, int] | None = None
    _by_turn: dict[tuple[str, str], list[str]] | None = None

    def _file_stamp(self) -> tuple[int, int, int]:
        try:
            st = self.corpus_path.stat()
        except FileNotFoundError:
            return (-1, 0, 0)
        return (st.st_size, st.st_mtime_ns, st.st_ino)

    def refresh(self) -> None:
        """Reload the corpus if another process (or object) changed it."""
        if self._file_stamp() != self._stamp:
            self.load()

    def load(self) -> None:
        self._stamp = self._file_stamp()
        self.entries.clear()
        if self.corpus_path.exists():
            for number, line in enumerate(self.corpus_path.read_text("utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    entry = Entry.from_json(json.loads(line))
                except (ValueError, KeyError) as exc:
                    raise StoreError(
                        f"{self.corpus_path}:{number} is damaged ({exc}).",
                        hint="{do:repair}.",
                    ) from None
                self.entries[entry.id] = entry
        self._invalidate()

    def _invalidate(self) -> None:
        self._by_turn = None
        self._order = list(self.entries)
        self._bm25 = None
        self._ordinals = None

    # -- writing ------------------------------------------------------------------

    def add(self, entries: Sequence[Entry], vectors: "numpy.ndarray", *, max_batch: int) -> None:
        if not entries:
            return
        self.refresh()
        if len(entries) != len(vectors):
            raise StoreError(f"{len(entries)} entries but {len(vectors)} vectors for the {self.channel} index.")
        for start in range(0, len(entries), max_batch):
            batch = entries[start : start + max_batch]
            self.collection.upsert(
                ids=[e.id for e in batch],
                embeddings=vectors[start : start + max_batch],
                metadatas=[{"session_id": e.session_id, "date": e.date_ordinal} for e in batch],
            )
        self.corpus_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.corpus_path, "a", encoding="utf-8") as handle:
            for entry in entries:
                handle.write(json.dumps(entry.to_json(), ensure_ascii=False) + "\n")
        for entry in entries:
            self.entries[entry.id] = entry
        self._stamp = self._file_stamp()
        self._invalidate()

    def remove(self, ids: Iterable[str]) -> int:
        self.refresh()
        doomed = [i for i in ids if i in self.entries]
        if not doomed:
            return 0
        for start in range(0, len(doomed), 5000):
            self.collection.delete(ids=doomed[start : start + 5000])
        for i in doomed:
            del self.entries[i]
        self._rewrite_corpus()
        self._invalidate()
        return len(doomed)

    def _rewrite_corpus(self) -> None:
        text = "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in self.entries.values())
        atomic_write_text(self.corpus_path, text)
        self._stamp = self._file_stamp()

    # -- reading ------------------------------------------------------------------

    def facts_of_chunks(self, chunks: "ChannelIndex", chunk_ids: Sequence[str]) -> list[str]:
        """Ids of the facts whose evidence lies in the given archive chunks, chunk by chunk."""
        if self._by_turn is None:
            by_turn: dict[tuple[str, str], list[str]] = {}
            for entry in self.entries.values():
                for turn_id in entry.evidence:
                    by_turn.setdefault((entry.session_id, turn_id), []).append(entry.id)
            self._by_turn = by_turn
        out: dict[str, None] = {}
        for chunk_id in chunk_ids:
            chunk = chunks.entries.get(chunk_id)
            if chunk is None:
                continue
            for turn_id in chunk.evidence:
                for fact_id in self._by_turn.get((chunk.session_id, turn_id), ()):
                    out.setdefault(fact_id, None)
        return list(out)

    def vector_count(self) -> int:
        return int(self.collection.count())

    def bm25(self) -> _BM25:
        if self._bm25 is None:
            self._bm25 = _BM25([self.entries[i].index_text for i in self._order])
        return self._bm25

    def ordinals(self) -> "numpy.ndarray":
        import numpy as np

        if self._ordinals is None:
            self._ordinals = np.array([self.entries[i].date_ordinal for i in self._order], dtype=np.int64)
        return self._ordinals

    def dense(self, vector: "numpy.ndarray", n: int, *, max_ordinal: int | None = None) -> list[str]:
        count = len(self.entries)
        if not count:
            return []
        where = {"date": {"$lte": max_ordinal}} if max_ordinal is not None else None
        result = self.collection.query(
            query_embeddings=[vector], n_results=min(n, count), where=where, include=["distances"]
        )
        return [i for i in result["ids"][0] if i in self.entries]

    def lexical(self, tokens: list[str], n: int, *, max_ordinal: int | None = None) -> list[str]:
        import numpy as np

        scores = self.bm25().scores(tokens)
        if scores is None:
            return []
        if max_ordinal is not None:
            scores = np.where(self.ordinals() <= max_ordinal, scores, 0.0)
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self._order[i] for i in top if scores[i] > 0]


def _forget_stale_system(path: Path) -> None:
    """Chroma caches one system per directory for the whole process; when the
    directory was deleted (e.g. ``.uac/`` removed before a repair) that cached
    system points at files that are gone, so drop it before opening a new one."""
    from chromadb.api.shared_system_client import SharedSystemClient

    systems = getattr(SharedSystemClient, "_identifier_to_system", None)
    if isinstance(systems, dict):
        stale = systems.pop(str(path), None)
        if stale is not None:
            getattr(SharedSystemClient, "_identifier_to_refcount", {}).pop(str(path), None)
            stale.stop()


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
        self.config = config
        self.root = root or self.internal.parent
        self._client: Any = None
        self._identity: int | None = None
        self._channels: dict[str, ChannelIndex] = {}

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

            if self.backend != "http" and not self.chroma_path.exists():
                _forget_stale_system(self.chroma_path)
            self._client = build_client(self.chroma, self.chroma_path)
            self._identity = self._chroma_identity()
        return self._client

    def close(self) -> None:
        if self._client is not None and hasattr(self._client, "close"):
            self._client.close()
        self._client = None
        self._channels.clear()

    def collection_name(self, channel: str) -> str:
        return _collection_prefix(self.root, self.backend) + channel

    def channel(self, channel: str) -> ChannelIndex:
        if channel not in CHANNELS:
            raise StoreError(f"unknown index channel {channel!r}.")
        client = self.client()
        if channel not in self._channels:
            collection = client.get_or_create_collection(self.collection_name(channel), embedding_function=None)
            index = ChannelIndex(channel, self.dir / f"{channel}.jsonl", collection)
            index.load()
            self._channels[channel] = index
        else:
            self._channels[channel].refresh()
        return self._channels[channel]

    def max_batch(self) -> int:
        return int(self.client().get_max_batch_size())

    # -- manifest -------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.json"

    def expected_manifest(self) -> dict[str, Any]:
        from .embeddings import MODEL_NAME
        from .texts import TEXT_SETTINGS

        return {"index_version": INDEX_VERSION, "model": MODEL_NAME, "texts": TEXT_SETTINGS}

    def read_manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.manifest_path.read_text("utf-8"))
        except (OSError, ValueError):
            return None

    def write_manifest(self) -> None:
        atomic_write_text(self.manifest_path, json.dumps(self.expected_manifest(), indent=2) + "\n")

    def ensure_manifest(self) -> None:
        if self.read_manifest() is None:
            self.write_manifest()

    # -- whole-index operations -----------------------------------------------------

    def reset(self) -> None:
        """Drop every index of the project (the corpus files and the collections)."""
        from chromadb.errors import NotFoundError

        if self.backend != "http" and not self.chroma_path.exists():
            # the directory was deleted under us: forget the old client, open afresh
            self._client = None
            self._channels.clear()
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
