"""A forget reaches every copy: the log and its saved head, the archive, the indexes, the
compiled view and its cache, the compile ledgers and history, and the LLM response cache."""

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
    """Every record of every domain (the rule model writes trips and events)."""
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
    UserMemory.create(project_dir, user_name="Alice").close()
    cache = ResponseCache(project_dir / ".uac" / "llm-cache.sqlite")
    provider = ScriptedProvider(handler=protocol_handler)
    return UserMemory.open(project_dir, llm=LLMClient(provider, cache=cache, sleep=lambda _s: None))


@pytest.mark.embeddings
def test_forgetting_a_session_leaves_no_copy_of_its_words(cached_memory, tmp_path):
    memory = cached_memory
    secret = write_session(
        tmp_path / "a.json",
        "2024-03-01",
        # the last line records a state (an employer): the log's saved head keeps such facts
        [
            f"I flew to the island of {SECRET} for a hiking trip.",
            f"My friend {SECRET}ian cooked dinner.",
            f"I work at {SECRET} Labs as a baker.",
        ],
    )
    other = write_session(
        tmp_path / "b.json", "2024-03-05", ["I flew to Lisbon for a conference trip.", "I cooked ramen for dinner."]
    )
    first = memory.ingest(secret, extractor="rules")
    memory.ingest(other, extractor="rules")
    report = memory.compile(mode="incremental")
    assert report.ok and report.to_json()["totals"]["facts_pending"] == 0
    assert any(SECRET in repr(r) for r in all_records(memory))
    assert memory.search(SECRET, k=3)[0].text.count(SECRET)
    hits = grep(memory.root, SECRET)
    assert any("llm-cache" in h for h in hits) and any(h.startswith("domains/") for h in hits)
    assert ".uac/index/log-head.json" in hits
    assert ".uac/history/changes-000001.jsonl" in hits  # the view's change log holds the values
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
    # the change log keeps what the other session caused, and nothing of the forgotten one
    logged = [c.to_json() for c in memory.history().changes]
    assert any("Lisbon" in json.dumps(c) for c in logged)
    assert all(SECRET.lower() not in json.dumps(c).lower() for c in logged)
    assert memory.doctor().check("history").status == "ok"
    # and the next compile has nothing to redo
    again = memory.compile(mode="incremental")
    assert again.to_json()["totals"]["facts_pending"] == 0
    assert grep(memory.root, SECRET) == []


@pytest.mark.embeddings
def test_forgetting_one_fact_trims_the_records_that_cite_it(cached_memory, tmp_path):
    memory = cached_memory
    memory.ingest(
        write_session(
            tmp_path / "a.json", "2024-03-01", ["I flew to Oslo for a trip.", "I ran ten kilometres at the gym."]
        ),
        extractor="rules",
    )
    memory.compile(mode="incremental")
    oslo = next(f for f in memory.facts() if "Oslo" in f.text)
    domain, record = next((d, r) for d in memory.state for r in records(memory, d) if oslo.id in r.sources)
    report = memory.forget(fact=oslo.id)
    assert report.records_removed == 1 and report.records_revisited == 0
    assert type(record).__name__ == "Trip" and record.destination == "Oslo"
    assert all(oslo.id not in r.sources for r in all_records(memory))
    assert record.id not in {r.id for r in records(memory, domain)}


def _state_fact_memory(project_dir: Path, tmp_path: Path) -> UserMemory:
    memory = UserMemory.create(project_dir, user_name="Alice")
    memory.ingest(
        write_session(
            tmp_path / "a.json", "2024-03-01", [f"I work at {SECRET} Labs as a baker.", "I live in Lisbon now."]
        ),
        extractor="rules",
    )
    memory.ingest(write_session(tmp_path / "b.json", "2024-03-05", ["I cooked ramen for dinner."]), extractor="rules")
    return memory


@pytest.mark.embeddings
def test_forgetting_a_fact_that_records_a_state_leaves_no_copy_of_it(project_dir, tmp_path):
    memory = _state_fact_memory(project_dir, tmp_path)
    job = next(f for f in memory.facts() if SECRET in f.text)
    assert job.meta.get("state") == "employer"
    assert ".uac/index/log-head.json" in grep(memory.root, job.text)  # the saved head keeps facts recording a state
    memory.forget(fact=job.id)
    assert grep(memory.root, job.text) == []
    # the turn it came from stays in the archive (and the search context of its neighbours): a fact was forgotten, not the session
    assert {f.text for f in memory.facts()} == {"Alice lives in Lisbon now.", "Alice cooked ramen for dinner."}
    # the new head describes the new log: the next writer needs no full fold and finds the same
    head = json.loads((memory.root / ".uac" / "index" / "log-head.json").read_text())
    assert head["good_bytes"] == (memory.root / "memory" / "facts.jsonl").stat().st_size
    assert memory.ingest(
        write_session(tmp_path / "c.json", "2024-03-09", ["I adopted a cat named Miso."]), extractor="rules"
    ).facts_appended
    assert memory.doctor(deep=True).ok


@pytest.mark.slow
@pytest.mark.embeddings
def test_the_servers_session_delete_leaves_no_copy_of_its_words(tmp_path):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app
    from uac.server.tokens import TokenStore

    root = tmp_path / "root"
    root.mkdir()
    memory = _state_fact_memory(root / "alice", tmp_path)
    session = next(f.session_id for f in memory.facts() if SECRET in f.text)
    memory.close()
    token, _ = TokenStore.for_project(root / "alice").create("test")
    assert ".uac/index/log-head.json" in grep(root / "alice", SECRET)
    with TestClient(create_app(root)) as client:
        gone = client.delete(f"/v1/projects/alice/sessions/{session}", headers={"Authorization": f"Bearer {token}"})
        assert gone.status_code == 200, gone.text
    assert grep(root / "alice", SECRET) == []
