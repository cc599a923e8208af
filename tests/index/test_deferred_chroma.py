"""With the embedded backend an ingest writes the flat vector copy, not Chroma;
whoever opens the Chroma collection next brings it in step from the flat copy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from uac.index.store import CHANNELS
from uac.memory import UserMemory

from .test_lazy_imports import run_cli

pytestmark = pytest.mark.embeddings

FIRST = {
    "date": "2024-05-08",
    "messages": [
        {"role": "user", "name": "Maya", "content": "I went to a pottery class in Lisbon yesterday."},
        {"role": "user", "name": "Leo", "content": "Nice! I adopted a cat named Oliver last week."},
    ],
}
SECOND = {
    "date": "2024-06-02",
    "messages": [
        {"role": "user", "name": "Maya", "content": "I sold my old bike to a neighbour on Friday."},
        {"role": "user", "name": "Leo", "content": "Oliver the cat learned to open the fridge."},
    ],
}


def _write(path: Path, session: dict) -> Path:
    path.write_text(json.dumps(session), "utf-8")
    return path


def _chroma_state(root: Path, channel: str) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
    """Id -> vector and id -> metadata, read straight from the project's Chroma files."""
    import chromadb

    client = chromadb.PersistentClient(path=str(root / ".uac" / "chroma"))
    try:
        got = client.get_or_create_collection(f"uac_{channel}").get(include=["embeddings", "metadatas"])
    finally:
        client.close()
    vectors = {i: np.asarray(v, dtype=np.float32) for i, v in zip(got["ids"], got["embeddings"])}
    return vectors, dict(zip(got["ids"], got["metadatas"]))


def _flat_vectors(memory: UserMemory, channel: str) -> dict[str, np.ndarray]:
    index = memory.index.channel(channel)
    rows = index.flat.read_all()
    return {entry_id: rows[index.rows.row_of[entry_id]] for entry_id in index.rows.order}


@pytest.fixture()
def deferred(tmp_path) -> Path:
    """A project of one session, then a second session ingested by the command line
    in a fresh interpreter (which must not import chromadb)."""
    root = tmp_path / "maya"
    memory = UserMemory.create(root, user_name="Maya")
    memory.ingest(_write(tmp_path / "first.json", FIRST), format="messages", extractor="rules")
    memory.close()
    code, loaded, _ = run_cli(
        [
            "ingest",
            str(root),
            str(_write(tmp_path / "second.json", SECOND)),
            "--format",
            "messages",
            "--extractor",
            "rules",
            "--json",
        ],
        ("chromadb",),
    )
    assert code == 0
    assert loaded == [], "uac ingest imported chromadb"
    return root


def test_ingest_leaves_chroma_behind_and_the_next_open_catches_it_up(deferred):
    before = {name: _chroma_state(deferred, name)[0] for name in CHANNELS}
    memory = UserMemory.open(deferred)
    assert any("fridge" in f.text for f in memory.facts())
    corpus = {name: len(memory.index.channel(name)) for name in CHANNELS}
    # the fresh process did not write Chroma: it holds only the first session
    assert len(before["facts"]) < corpus["facts"]
    # opening the collection brings it in step: every corpus entry, with the flat copy's vector
    for name in CHANNELS:
        assert memory.index.channel(name).vector_count() == corpus[name]
    memory.close()
    for name in CHANNELS:
        vectors, metadatas = _chroma_state(deferred, name)
        memory = UserMemory.open(deferred)
        flat = _flat_vectors(memory, name)
        entries = memory.index.channel(name).entries
        memory.close()
        assert set(vectors) == set(flat)
        for entry_id, vector in flat.items():
            np.testing.assert_allclose(vectors[entry_id], vector, rtol=0, atol=1e-6)
            entry = entries[entry_id]
            assert metadatas[entry_id] == {"session_id": entry.session_id, "date": entry.date_ordinal}


def test_fast_doctor_accepts_the_lag_and_deep_doctor_syncs(deferred):
    memory = UserMemory.open(deferred)
    fast = {r.name: r for r in memory.doctor().checks}
    assert fast["indexes"].status == "ok", fast["indexes"].detail
    memory.close()
    assert len(_chroma_state(deferred, "facts")[0]) < len(_flat_vectors(UserMemory.open(deferred), "facts"))
    memory = UserMemory.open(deferred)
    deep = {r.name: r for r in memory.doctor(deep=True).checks}
    assert deep["indexes"].status == "ok", deep["indexes"].detail
    memory.close()
    memory = UserMemory.open(deferred)
    assert set(_chroma_state(deferred, "facts")[0]) == set(_flat_vectors(memory, "facts"))


def test_forget_after_a_deferred_ingest_leaves_no_stale_vector(deferred):
    memory = UserMemory.open(deferred)
    doomed = next(f for f in memory.facts() if "fridge" in f.text)
    memory.forget(fact=doomed.id)
    session = next(f.session_id for f in memory.facts() if "bike" in f.text)
    assert memory.index.sync_vectors() > 0  # Chroma rebuilt from the flat copies in between
    memory.forget(session=session)
    kept = {name: set(memory.index.channel(name).rows.order) for name in CHANNELS}
    memory.close()
    # a forget deletes the embedded store whole: no segment file keeps a forgotten vector
    assert not (deferred / ".uac" / "chroma").exists()
    # the next opening adds every kept entry from the flat copy, and nothing else
    memory = UserMemory.open(deferred)
    assert memory.index.sync_vectors() == len(kept["facts"]) + len(kept["archive"])
    assert memory.index.channel("facts").vectors.ids() == kept["facts"]
    memory.close()
    facts, _ = _chroma_state(deferred, "facts")
    chunks, _ = _chroma_state(deferred, "archive")
    assert doomed.id not in facts
    assert set(facts) == kept["facts"] and set(chunks) == kept["archive"]
    flat = _flat_vectors(UserMemory.open(deferred), "facts")
    assert all(np.allclose(facts[i], flat[i]) for i in kept["facts"])


def test_forget_keeps_vectors_only_chroma_held(deferred):
    """A flat copy out of step (lost) is rebuilt from Chroma before the store is deleted."""
    memory = UserMemory.open(deferred)
    assert memory.index.sync_vectors() > 0
    facts = memory.index.channel("facts")
    before = _flat_vectors(memory, "facts")
    facts.flat.drop()
    assert not facts.vectors.covered()
    doomed = next(f for f in memory.facts() if "fridge" in f.text)
    memory.forget(fact=doomed.id)
    assert memory.index.channel("facts").vectors.covered()
    after = _flat_vectors(memory, "facts")
    assert set(after) == set(before) - {doomed.id}
    assert all(np.allclose(after[i], before[i]) for i in after)
    memory.close()


def test_a_copy_that_keeps_times_keeps_the_vectors_chroma_lacks(deferred, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(deferred, copy, symlinks=True)
    memory = UserMemory.open(copy)
    try:
        assert memory.index.channel("facts").vectors.covered()  # the copy's inodes differ, its times do not
        fact = next(f for f in memory.facts() if "fridge" in f.text)
        assert fact.id in [h.id for h in memory.search(fact.text, channel="facts", k=5)]
        assert memory.index.channel("facts").vector_count() == len(memory.index.channel("facts"))
    finally:
        memory.close()


def test_a_rebuild_leaves_no_segment_directory_of_the_old_collections(deferred):
    from uac.facts.log import FactLog
    from uac.index.maintain import rebuild
    from uac.sessions.archive import Archive

    memory = UserMemory.open(deferred)
    assert memory.index.sync_vectors() > 0
    memory.index.release_client()
    chroma = deferred / ".uac" / "chroma"
    old = {p.name for p in chroma.iterdir() if p.is_dir()}
    assert old
    with memory.project.lock("rebuild"):
        rebuild(memory.index, FactLog(memory.project.paths.facts).read(), Archive(memory.project.paths.sessions))
    memory.index.release_client()
    now = {p.name for p in chroma.iterdir() if p.is_dir()}
    assert now and not (now & old)
    assert len(now) == len(CHANNELS)
    memory = UserMemory.open(deferred)
    assert memory.index.sync_vectors() == 0
    assert memory.index.channel("facts").vector_count() == len(memory.index.channel("facts"))
    memory.close()
