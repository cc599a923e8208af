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
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..errors import StoreError
from ..failpoints import crash_point
from ..fsutil import atomic_write_text, open_nofollow, read_regular
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
    #: the corpus file ends in a torn line (a crash mid-append); rewritten before the next append
    torn: bool = False

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
        """Read the corpus.  Text after the last newline is a line torn by a crash
        mid-append: it is ignored and :attr:`torn` set (the next append rewrites
        the file without it).  A damaged complete line is a :class:`StoreError`."""
        self._stamp = self._file_stamp()
        self.entries.clear()
        try:
            # .uac/index/<channel>.jsonl: the project root is three levels up
            data = read_regular(self.corpus_path.parent.parent.parent, self.corpus_path)
        except FileNotFoundError:
            data = b""
        body, newline, tail = data.rpartition(b"\n")
        if not newline:
            body, tail = b"", data
        self.torn = bool(tail)
        for number, raw in enumerate(body.split(b"\n") if newline else [], 1):
            if not raw.strip():
                continue
            try:
                entry = Entry.from_json(json.loads(raw.decode("utf-8")))
            except (ValueError, KeyError, TypeError) as exc:
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
        crash_point(f"index:{self.channel}-vectors")
        if self.torn:
            self._rewrite_corpus()
        self.corpus_path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in entries).encode("utf-8")
        with os.fdopen(open_nofollow(self.corpus_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "wb") as handle:
            half = len(text) // 2
            handle.write(text[:half])
            handle.flush()
            crash_point(f"index:{self.channel}-corpus")  # leaves a torn last line
            handle.write(text[half:])
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

    def delete_vectors(self, ids: Sequence[str]) -> None:
        """Drop vectors by id (ids without a vector are ignored)."""
        for start in range(0, len(ids), 5000):
            self.collection.delete(ids=list(ids[start : start + 5000]))

    def vector_ids(self) -> set[str]:
        """The ids the vector collection holds (read in pages)."""
        ids: set[str] = set()
        page = 10_000
        offset = 0
        while True:
            got = self.collection.get(include=[], limit=page, offset=offset)["ids"]
            ids.update(got)
            if len(got) < page:
                return ids
            offset += page

    def drop_torn_tail(self) -> None:
        """Rewrite the corpus without a torn last line, if it has one."""
        if self.torn:
            self._rewrite_corpus()

    def _rewrite_corpus(self) -> None:
        text = "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in self.entries.values())
        atomic_write_text(self.corpus_path, text)
        self.torn = False
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
            data = json.loads(read_regular(self.root, self.manifest_path).decode("utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def settings_differ(self, manifest: dict[str, Any]) -> bool:
        """True if the indexes were built with other settings than this uac's (rebuild needed)."""
        return any(manifest.get(key) != value for key, value in self.expected_manifest().items())

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
