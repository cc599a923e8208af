"""A forget reaches every copy: the log, the archive, the indexes, the compiled view and its
cache, the compile ledgers and history, and the LLM response cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uac.llm import LLMClient, ScriptedProvider
from uac.llm.cache import ResponseCache
from uac.memory import UserMemory

from ..compile.helpers import protocol_handler, records

SECRET = "Zorblax"


def write_session(path: Path, date: str, lines: list[str]) -> Path:
    messages = [{"role": "user", "content": line} for line in lines]
    path.write_text(json.dumps({"date": date, "messages": messages}), "utf-8")
    return path


def all_records(memory) -> list:
    """Every record of every domain (the protocol model writes trips and events)."""
    return [r for domain in memory.state for r in records(memory, domain)]


def grep(root: Path, needle: str) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file() and needle.lower().encode() in path.read_bytes().lower():
            hits.append(str(path.relative_to(root)))
    return hits


def plant_in_chroma_files(root: Path, needle: str) -> int:
    """Write ``needle`` into the unused tail of every HNSW level-0 file of the embedded
    Chroma store, as Chroma's writer does with whatever its process's heap held (it
    saves the whole preallocated buffer); returns how many files were planted."""
    planted = 0
    for path in (root / ".uac" / "chroma").rglob("data_level0.bin"):
        data = bytearray(path.read_bytes())
        assert len(data) > 64
        data[-64 : -64 + len(needle)] = needle.encode()
        path.write_bytes(bytes(data))
        planted += 1
    return planted


@pytest.fixture
def cached_memory(project_dir):
    memory = UserMemory.create(project_dir, user_name="Alice")
    cache = ResponseCache(project_dir / ".uac" / "llm-cache.sqlite")
    provider = ScriptedProvider(handler=protocol_handler)
    return UserMemory.open(project_dir, llm=LLMClient(provider, cache=cache, sleep=lambda _s: None))


@pytest.mark.embeddings
def test_forgetting_a_session_leaves_no_copy_of_its_words(cached_memory, tmp_path):
    memory = cached_memory
    secret = write_session(tmp_path / "a.json", "2024-03-01", [f"I flew to the island of {SECRET} for a hiking trip.", f"My friend {SECRET}ian cooked dinner."])
    other = write_session(tmp_path / "b.json", "2024-03-05", ["I flew to Lisbon for a conference trip.", "I cooked ramen for dinner."])
    first = memory.ingest(secret, extractor="rules")
    memory.ingest(other, extractor="rules")
    report = memory.compile(mode="incremental")
    assert report.ok and report.to_json()["totals"]["facts_pending"] == 0
    assert any(SECRET in repr(r) for r in all_records(memory))
    assert memory.search(SECRET, k=3)[0].text.count(SECRET)
    hits = grep(memory.root, SECRET)
    assert any("llm-cache" in h for h in hits) and any(h.startswith("domains/") for h in hits)
    # Chroma's segment files as an earlier writer may have left them: the word in stray bytes
    assert memory.index.sync_vectors() > 0
    memory.index.release_client()
    assert plant_in_chroma_files(memory.root, SECRET) >= 1

    forgotten = memory.forget(session=first.sessions_added[0])
    data = forgotten.to_json()
    assert data["records_removed"] >= 2 and data["cache_entries_dropped"] >= 1
    assert grep(memory.root, SECRET) == []
    # the forget wrote no Chroma file of its own: its heap held the word moments ago, and
    # Chroma's writer may save stray heap bytes in the unused slots of its segment files
    assert not (memory.root / ".uac" / "chroma").exists(), "the forget left or wrote Chroma files"
    # what the other session said is all still there
    texts = [repr(r) for r in all_records(memory)]
    assert any("Lisbon" in t for t in texts) and any("ramen" in t for t in texts)
    assert all(SECRET not in h.text for h in memory.search(SECRET, k=5))
    assert memory.doctor().ok
    # and the next compile has nothing to redo
    again = memory.compile(mode="incremental")
    assert again.to_json()["totals"]["facts_pending"] == 0
    assert grep(memory.root, SECRET) == []


@pytest.mark.embeddings
def test_forgetting_one_fact_trims_the_records_that_cite_it(cached_memory, tmp_path):
    memory = cached_memory
    memory.ingest(write_session(tmp_path / "a.json", "2024-03-01", ["I flew to Oslo for a trip.", "I ran ten kilometres at the gym."]), extractor="rules")
    memory.compile(mode="incremental")
    oslo = next(f for f in memory.facts() if "Oslo" in f.text)
    domain, record = next((d, r) for d in memory.state for r in records(memory, d) if oslo.id in r.sources)
    report = memory.forget(fact=oslo.id)
    assert report.records_removed == 1 and report.records_revisited == 0
    assert type(record).__name__ == "Trip" and record.destination == "Oslo"
    assert all(oslo.id not in r.sources for r in all_records(memory))
    assert record.id not in {r.id for r in records(memory, domain)}
