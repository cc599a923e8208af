"""A copy of a project that keeps file times (cp -a, rsync -a, a restored backup)
keeps its derived tables: the first commands in the copy neither parse the
corpus again nor build BM25 again, and appends in the copy extend them."""

from __future__ import annotations

import json
import shutil

import pytest

from uac.facts import table as table_module
from uac.index.bm25 import BM25
from uac.index.corpus import CorpusTable
from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings


def _refuse(*args, **kwargs):
    raise AssertionError("read afresh instead of reused")


def test_a_copy_keeping_times_reuses_its_tables(tmp_path, monkeypatch, one_session_memory):
    memory = one_session_memory(
        "I adopted a golden retriever named Rex yesterday.", "I also booked a trip to Lisbon for June."
    )
    queries = ["dog", "Lisbon trip"]
    expected = [[h.to_json() for h in memory.search(q, k=5)] for q in queries]
    memory.close()
    copy = tmp_path / "copy"
    shutil.copytree(memory.root, copy, symlinks=True)  # copy2: times kept, new inodes

    folded: list[int] = []
    real_parse = table_module.parse_log
    with monkeypatch.context() as strict:
        strict.setattr(
            table_module, "parse_log", lambda data, *a, **k: folded.append(len(data)) or real_parse(data, *a, **k)
        )
        strict.setattr(CorpusTable, "read_lines", _refuse)
        strict.setattr(BM25, "build", classmethod(_refuse))
        strict.setattr(BM25, "extended", _refuse)
        reopened = UserMemory.open(copy)
        assert [[h.to_json() for h in reopened.search(q, k=5)] for q in queries] == expected
        reopened.close()
    assert folded and set(folded) == {0}  # the fact table: its recorded sha256 checked, nothing folded

    # an ingest in the copy, then a search: BM25 is extended by the new entries only
    built: list[int] = []
    real_build = BM25.build.__func__
    monkeypatch.setattr(
        BM25, "build", classmethod(lambda cls, texts, **kw: built.append(len(texts)) or real_build(cls, texts, **kw))
    )
    again = UserMemory.open(copy)
    chat = tmp_path / "more.json"
    chat.write_text(
        json.dumps(
            {"date": "2023-05-09", "messages": [{"role": "user", "content": "Rex chewed my new ferry tickets."}]}
        )
    )
    again.ingest(chat)
    hits = again.search("ferry tickets chewed", k=3)
    assert "ferry" in hits[0].text and built == []
    again.close()


def test_a_copy_with_new_times_keeps_its_flat_vectors(tmp_path, monkeypatch, one_session_memory):
    """cp -r gives every file a new time: the flat vector copy no longer names the
    corpus, but both files match the checksums recorded when they were written, so
    it is kept (Chroma, which has not taken these vectors yet, is never asked)."""
    from uac.index.vectors import ChannelVectors

    memory = one_session_memory(
        "I adopted a golden retriever named Rex yesterday.", "I also booked a trip to Lisbon for June."
    )
    queries = ["dog", "Lisbon trip"]
    expected = [[h.to_json() for h in memory.search(q, k=5)] for q in queries]
    memory.close()
    copy = tmp_path / "copy"
    shutil.copytree(memory.root, copy, symlinks=True, copy_function=shutil.copy)  # times not kept
    monkeypatch.setattr(ChannelVectors, "collection", property(_refuse))

    reopened = UserMemory.open(copy)
    assert [[h.to_json() for h in reopened.search(q, k=5)] for q in queries] == expected
    chat = tmp_path / "more.json"
    chat.write_text(
        json.dumps(
            {"date": "2023-05-09", "messages": [{"role": "user", "content": "Rex chewed my new ferry tickets."}]}
        )
    )
    reopened.ingest(chat)
    assert "ferry" in reopened.search("ferry tickets chewed", k=3)[0].text
    for name in ("facts", "archive"):
        assert reopened.index.channel(name).vectors.in_step()
    reopened.close()


def test_a_changed_flat_copy_is_not_adopted(tmp_path, one_session_memory):
    memory = one_session_memory("I adopted a golden retriever named Rex yesterday.")
    memory.close()
    copy = tmp_path / "copy"
    shutil.copytree(memory.root, copy, symlinks=True, copy_function=shutil.copy)
    vectors = copy / ".uac" / "index" / "facts.vectors"
    data = bytearray(vectors.read_bytes())
    data[5] ^= 0xFF
    vectors.write_bytes(bytes(data))
    from uac.index.store import MemoryIndex

    channel = MemoryIndex(copy / ".uac").channel("facts")
    assert not channel.vectors._adopt_copied_flat() and not channel.vectors.in_step()
