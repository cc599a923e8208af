"""A change of index settings rebuilds the indexes; a change of what BM25 reads
keeps the facts' vectors (nothing is embedded again but excerpts without facts)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from uac.index import maintain
from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings

LINES = (
    "I adopted a golden retriever named Rex yesterday.",
    "I also booked a trip to Lisbon for June.",
    "My sister Ana is moving to Porto next spring.",
)


def _manifest(memory) -> tuple:
    path = memory.root / ".uac" / "index" / "manifest.json"
    return path, json.loads(path.read_text())


def _vectors(memory) -> dict:
    channel = memory.index.channel("facts")
    return channel.stored_vectors({i: None for i in channel.rows.order})


def test_a_bm25_setting_change_keeps_the_vectors(tmp_path, monkeypatch, one_session_memory):
    memory = one_session_memory(*LINES)
    before = _vectors(memory)
    path, manifest = _manifest(memory)
    manifest["texts"]["bm25_said_day"] = 0  # built by a uac whose BM25 texts lacked the day
    path.write_text(json.dumps(manifest))
    memory.close()

    def refuse(*args, **kwargs):
        raise AssertionError("facts embedded again")

    monkeypatch.setattr(maintain, "compute_fact_vectors", refuse)
    reopened = UserMemory.open(memory.root)
    hits = reopened.search("8 May 2023 dog", k=3)  # the day in words: only the new BM25 texts have it
    assert hits and "Rex" in hits[0].text
    after = _vectors(reopened)
    assert after.keys() == before.keys()
    for fact_id, vector in before.items():
        np.testing.assert_array_equal(after[fact_id], vector)
    assert not reopened.index.manifest.settings_differ(_manifest(reopened)[1])
    reopened.close()


def test_a_vector_setting_change_embeds_again(tmp_path, monkeypatch, one_session_memory):
    memory = one_session_memory(*LINES)
    path, manifest = _manifest(memory)
    manifest["texts"]["chunk_turns"] = 5
    path.write_text(json.dumps(manifest))
    memory.close()
    calls: list[int] = []
    real = maintain.compute_fact_vectors
    monkeypatch.setattr(
        maintain, "compute_fact_vectors", lambda embedder, facts: calls.append(len(facts)) or real(embedder, facts)
    )
    reopened = UserMemory.open(memory.root)
    assert reopened.search("dog", k=3)
    assert calls and calls[0] == len(LINES)
    reopened.close()
