"""The flat copy of the vectors: kept in step by writes, searched exactly, and
replaced by Chroma's answer (and rebuilt) whenever it is out of step."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import numpy as np
import pytest

from uac.index.entry import Entry
from uac.index.flat import FlatVectors
from uac.index.store import MemoryIndex


def _entries(n: int, start: int = 0) -> list[Entry]:
    out = []
    for i in range(start, start + n):
        day = (dt.date(2023, 1, 1) + dt.timedelta(days=i)).isoformat()
        out.append(Entry(f"f{i}", f"fact {i}", f"fact {i}", f"s{i // 10}", day, [f"D{i // 10}:{i % 10}"]))
    return out


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _exact(vectors: dict[str, np.ndarray], query: np.ndarray, n: int, allowed=lambda i: True) -> list[str]:
    ids = [i for i in vectors if allowed(i)]
    scores = np.array([vectors[i] @ query for i in ids])
    return [ids[j] for j in np.argsort(-scores, kind="stable")[:n]]


@pytest.fixture
def filled(tmp_path):
    index = MemoryIndex(tmp_path / ".uac")
    channel = index.channel("facts")
    entries, vectors = _entries(300), _vectors(300, 1)
    channel.add(entries[:200], vectors[:200], max_batch=index.max_batch())
    channel.add(entries[200:], vectors[200:], max_batch=index.max_batch())
    assert channel.sync_vectors() == 300  # the adds went to the flat copy; Chroma takes them when opened
    yield index, {e.id: v for e, v in zip(entries, vectors)}
    index.close()


def test_writes_keep_the_copy_in_step(filled):
    index, vectors = filled
    channel = index.channel("facts")
    assert channel.vectors.in_step()
    stored = channel.flat.read_all()
    assert stored.shape == (300, 384)
    np.testing.assert_array_equal(stored, np.stack(list(vectors.values())))
    assert channel.remove(["f3", "f150", "f299", "nope"]) == 3
    assert channel.vectors.in_step()
    kept = [i for i in vectors if i not in ("f3", "f150", "f299")]
    np.testing.assert_array_equal(channel.flat.read_all(), np.stack([vectors[i] for i in kept]))


def test_flat_search_is_exact_and_agrees_with_chroma(filled):
    index, vectors = filled
    channel = index.channel("facts")
    for seed in range(5):
        query = _vectors(1, 100 + seed)[0]
        got = channel.dense(query, 20)
        assert got == _exact(vectors, query, 20)
        chroma = channel.vectors.collection.query(query_embeddings=[query], n_results=20, include=["distances"])["ids"][
            0
        ]
        # Chroma's HNSW graph is approximate: it may swap a neighbour near the cut
        assert len(set(got) & set(chroma)) >= 18
        assert got[:3] == chroma[:3]
    # the date filter, as Chroma's metadata filter applies it
    query = _vectors(1, 7)[0]
    cutoff = dt.date(2023, 3, 1).toordinal()
    got = channel.dense(query, 15, max_ordinal=cutoff)
    assert got == _exact(vectors, query, 15, lambda i: channel.entries[i].date_ordinal <= cutoff)
    where = {"date": {"$lte": cutoff}}
    chroma = channel.vectors.collection.query(query_embeddings=[query], n_results=15, where=where)["ids"][0]
    assert len(set(got) & set(chroma)) >= 13


def test_an_out_of_step_copy_is_not_read_and_is_rebuilt(filled, tmp_path):
    index, vectors = filled
    channel = index.channel("facts")
    channel.flat.path.write_bytes(channel.flat.path.read_bytes()[:-100])  # torn tail
    assert not channel.vectors.in_step()
    query = _vectors(1, 11)[0]
    assert channel.dense(query, 10) == _exact(vectors, query, 10)  # answered by Chroma
    assert channel.vectors.in_step()  # ... and rebuilt from Chroma's vectors
    np.testing.assert_allclose(channel.flat.read_all(), np.stack(list(vectors.values())), atol=1e-6)
    assert channel.dense(query, 10) == _exact(vectors, query, 10)


def test_a_copy_made_for_another_corpus_is_not_read(filled):
    index, vectors = filled
    channel = index.channel("facts")
    meta = json.loads(channel.flat.meta_path.read_text())
    meta["corpus"][0] += 1  # another corpus size
    channel.flat.meta_path.write_text(json.dumps(meta))
    assert not channel.vectors.in_step()


def test_no_rebuild_while_a_writer_holds_the_lock(filled):
    index, vectors = filled
    channel = index.channel("facts")
    channel.flat.drop()
    query = _vectors(1, 12)[0]
    # another process holds the project lock (this process would re-enter its own)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom uac.lock import project_lock\n"
            f"with project_lock({str(index.internal / 'lock')!r}):\n    print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert channel.dense(query, 10) == _exact(vectors, query, 10)
        assert not channel.vectors.in_step()  # left for later: the writer may be changing the corpus
    finally:
        holder.kill()
        holder.wait()
    assert channel.dense(query, 10) == _exact(vectors, query, 10)
    assert channel.vectors.in_step()


def test_a_write_while_out_of_step_drops_the_copy(filled):
    index, vectors = filled
    channel = index.channel("facts")
    channel.flat.meta_path.unlink()
    channel.add(_entries(5, 300), _vectors(5, 2), max_batch=index.max_batch())
    assert not channel.flat.path.exists()
    assert channel.dense(_vectors(1, 3)[0], 5)  # Chroma answers, the copy comes back
    assert channel.vectors.in_step() and channel.flat.rows() == 305


def test_top_keeps_row_order_on_ties(tmp_path):
    flat = FlatVectors(tmp_path / "x.vectors", dim=4)
    rows = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]], dtype=np.float32)
    flat.replace(rows, corpus_stamp=(1, 1, 1))
    query = np.array([1, 0, 0, 0], dtype=np.float32)
    assert flat.top(query, 3, np.ones(4, dtype=bool)) == [0, 2, 3]
    assert flat.top(query, 3, np.array([True, True, False, True])) == [0, 3, 1]


def test_adds_go_to_the_copy_and_chroma_takes_them_when_opened(tmp_path):
    index = MemoryIndex(tmp_path / ".uac")
    channel = index.channel("facts")
    entries, vectors = _entries(30), _vectors(30, 4)
    channel.add(entries[:20], vectors[:20])
    channel.add(entries[20:], vectors[20:])
    assert index._client is None  # Chroma was not opened by the adds
    assert channel.vector_count() == 30  # opening the collection brought it in step
    got = channel.vectors.collection.get(ids=[e.id for e in entries], include=["embeddings", "metadatas"])
    by_id = dict(zip(got["ids"], got["embeddings"]))
    np.testing.assert_allclose(np.stack([by_id[e.id] for e in entries]), vectors, atol=1e-6)
    assert dict(zip(got["ids"], got["metadatas"]))["f3"] == {"session_id": "s0", "date": entries[3].date_ordinal}
    assert channel.sync_vectors() == 0
    index.close()


def test_a_copy_lost_before_chroma_took_it_is_found_by_the_count(tmp_path):
    index = MemoryIndex(tmp_path / ".uac")
    channel = index.channel("facts")
    channel.add(_entries(10), _vectors(10, 5))
    channel.flat.drop()  # lost before Chroma was opened: nothing can fill Chroma
    assert channel.sync_vectors() == 0
    assert channel.vector_count() == 0 != len(channel)  # what the deep doctor reports (and a rebuild repairs)
    index.close()


def test_the_vectors_of_two_indexes_over_the_same_rows_are_two_objects():
    from uac.index.vectors import ChannelVectors

    rows = object()
    first, second = ChannelVectors(rows, dict), ChannelVectors(rows, dict)
    assert first != second and len({first, second}) == 2  # compared by identity, usable as keys
    assert first.chroma and first.flat is None
