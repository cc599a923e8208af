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

A :class:`ChannelIndex` composes three pieces, each in its own module: the
corpus rows (:mod:`uac.index.rows`), their vectors in Chroma and the flat copy
(:mod:`uac.index.vectors`), and what searches compute from the rows
(:mod:`uac.index.lookups`).  :class:`MemoryIndex` holds both channels, the
Chroma client and the manifest (:mod:`uac.index.manifest`).

Chroma runs embedded (``.uac/chroma``) or against a server
(``[index] backend = "http"`` with ``chroma_host``/``chroma_port``; then every
write reaches Chroma at once, as there is no flat copy); it is opened only by
what needs it (removals, counts, rebuilds, searches against a server or when
the flat copy is out of step).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from ..errors import StoreError
from .bm25 import BM25
from .entry import Entry
from .flat import FlatVectors
from .lookups import RowLookups
from .manifest import IndexManifest
from .rows import CorpusRows
from .vectors import ChannelVectors

if TYPE_CHECKING:
    import numpy

    from ..config import IndexConfig

log = logging.getLogger(__name__)

CHANNELS = ("facts", "archive")


@dataclass
class ChannelIndex:
    """One channel's indexes: its corpus rows (:mod:`uac.index.rows`), their vectors
    (:mod:`uac.index.vectors`) and what searches compute from the rows
    (:mod:`uac.index.lookups`).  Writes go through here, so the three stay in step."""

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
    rows: CorpusRows = field(init=False)
    vectors: ChannelVectors = field(init=False)
    lookups: RowLookups = field(init=False)

    def __post_init__(self) -> None:
        self.rows = CorpusRows(self.channel, self.corpus_path)
        self.vectors = ChannelVectors(
            self.rows, self.open_collection, self.flat, self.try_lock, self.batch_size, chroma=self.chroma
        )
        self.lookups = RowLookups(self.rows)

    def refresh(self) -> None:
        """Reload the corpus if another process (or object) changed it."""
        self.rows.refresh()

    def load(self) -> None:
        """Read the corpus (see :meth:`CorpusRows.load`)."""
        self.rows.load()

    @property
    def entries(self) -> dict[str, Entry]:
        """Every entry by id, in corpus order (parses the whole corpus file once)."""
        return self.rows.entries

    def __len__(self) -> int:
        return len(self.rows)

    def entry(self, entry_id: str) -> Entry:
        """One entry (KeyError if the corpus has none with this id)."""
        return self.rows.entry(entry_id)

    def has(self, entry_id: str) -> bool:
        return self.rows.has(entry_id)

    # -- writing ------------------------------------------------------------------

    def add(self, entries: Sequence[Entry], vectors: "numpy.ndarray", *, max_batch: int | None = None) -> None:
        """Append ``entries`` with their ``vectors``.  With a flat copy in step with
        the corpus, Chroma is not opened: the vectors go to the flat copy and
        Chroma takes them when it is next opened (see :meth:`sync_vectors`)."""
        if not entries:
            return
        self.rows.refresh()
        if len(entries) != len(vectors):
            raise StoreError(f"{len(entries)} entries but {len(vectors)} vectors for the {self.channel} index.")
        lines_before = len(self.rows.line_ids)
        in_step = self.vectors.write_ahead(entries, vectors, max_batch)
        self.rows.append(entries)
        self.vectors.appended(vectors, in_step=in_step, rows_before=lines_before)

    def remove(self, ids: Iterable[str], *, from_chroma: bool = True) -> int:
        """Drop the entries ``ids`` from the corpus, the flat copy, BM25 and (unless
        ``from_chroma`` is False: the caller deletes the whole Chroma store next, as a
        forget does) the Chroma collection; returns how many were dropped."""
        rows = self.rows
        rows.refresh()
        doomed = list(dict.fromkeys(i for i in ids if i in rows.row_of))
        if not doomed:
            return 0
        in_step = self.vectors.in_step()
        gone = set(doomed)
        kept = [i for i in rows.order if i not in gone]
        kept_rows = [rows.row_of[i] for i in kept]
        if from_chroma:
            self.vectors.delete(doomed)
        rows.rewrite(kept)
        self.vectors.rewritten(in_step=in_step, kept_rows=kept_rows)
        # the saved BM25 columns hold the removed texts' words: gone with them (rebuilt by the next search)
        self.lookups.drop_saved()
        rows.load()
        return len(doomed)

    def drop_torn_tail(self) -> None:
        """Cut a torn last line off the corpus, if it has one."""
        rows = self.rows
        rows.refresh()
        if rows.torn:
            before = rows.stamp
            size = rows.cut_torn_tail()
            self.vectors.cut(size, before)
            rows.load()

    # -- vectors ----------------------------------------------------------------------

    def sync_vectors(self) -> int:
        """Bring the Chroma collection in step with the corpus (see :meth:`ChannelVectors.sync`)."""
        return self.vectors.sync()

    def vector_count(self) -> int:
        return self.vectors.count()

    def stored_vectors(self, checksums: "dict[str, str | None]") -> "dict[str, numpy.ndarray]":
        """The vectors of the entries whose indexed checksum matches (see :meth:`ChannelVectors.stored`)."""
        return self.vectors.stored(checksums)

    def flat_from_chroma(self) -> bool:
        """Bring the flat copy in step from Chroma (see :meth:`ChannelVectors.from_chroma`)."""
        return self.vectors.from_chroma()

    # -- searching --------------------------------------------------------------------

    def bm25(self) -> BM25:
        """The BM25 index of the corpus as loaded (see :meth:`RowLookups.bm25`)."""
        return self.lookups.bm25()

    def dense(self, vector: "numpy.ndarray", n: int, *, max_ordinal: int | None = None) -> list[str]:
        return self.vectors.dense(vector, n, max_ordinal=max_ordinal)

    def lexical(
        self, tokens: list[str], n: int, *, max_ordinal: int | None = None, extra: "dict[str, float] | None" = None
    ) -> list[str]:
        return self.lookups.lexical(tokens, n, max_ordinal=max_ordinal, extra=extra)

    def facts_of_chunks(self, chunks: "ChannelIndex", chunk_ids: Sequence[str]) -> list[str]:
        """Ids of the facts whose evidence lies in the given archive chunks, chunk by chunk."""
        return self.lookups.facts_of_chunks(chunks.rows, chunk_ids)


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
        self.manifest = IndexManifest(self.dir, self.root)

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
        self.manifest.forget()

    def release_client(self) -> None:
        """Close this project's own Chroma client (an embedded one: its threads and
        files), keeping the loaded corpus tables and BM25 indexes; the client
        reopens when something needs it.  A server's client is shared by every
        project of the process: the process closes it (:func:`~uac.index.client.close_shared_clients`)."""
        client, self._client = self._client, None
        for index in self._channels.values():
            index.vectors.release()
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
                channel,
                self.dir / f"{channel}.jsonl",
                open_collection,
                flat,
                self._try_lock,
                self.max_batch,
                chroma=self.uses_chroma,
            )
            if self.backend == "http":
                index.vectors.collection  # noqa: B018  (a server is needed for every search: reach it now, or say why not)
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

    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest, or None (see :meth:`IndexManifest.read`)."""
        return self.manifest.read()

    def write_manifest(self, log_position: tuple[int, str] | None = None) -> None:
        """Record the settings and the log position covered (see :meth:`IndexManifest.write`)."""
        self.manifest.write(log_position)

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
