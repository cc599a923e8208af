"""The indexes follow the log by themselves, and know cheaply whether they do."""

from __future__ import annotations

import json

import pytest

from uac.facts.log import FactLog
from uac.facts.model import Fact
from uac.index.catchup import catch_up, coverage, ensure_current
from uac.memory import UserMemory
from uac.sessions.archive import Archive

pytestmark = pytest.mark.embeddings


@pytest.fixture
def ingested(memory, locomo_file, embedder):
    memory.ingest(locomo_file, sample_id="conv-t1")
    return memory


def _status(memory) -> str:
    log = memory.context.fact_log()
    return coverage(memory.index, log.read(), log)


def _append_behind_the_index(memory) -> Fact:
    """A session committed to the log whose indexing never happened (as after kill -9)."""
    import datetime as dt

    from uac.sessions.model import Session, Turn

    session = Session(
        "late-1", dt.date(2023, 9, 1), "2023-09-01", (Turn("late-1:1", "Maya", "I bought a red kayak named Otter."),)
    )
    Archive(memory.project.paths.sessions).write(session)
    fact = Fact(
        id="late-1-f1",
        text="Maya bought a red kayak named Otter.",
        session_id="late-1",
        session_date=session.date,
        evidence=("late-1:1",),
        valid_from=session.date,
    )
    with memory.project.lock("test"):
        FactLog(memory.project.paths.facts).append_session("late-1", [fact], session_hash=session.content_hash())
    return fact


def test_after_ingest_and_forget_the_indexes_are_current(ingested):
    assert _status(ingested) == "current"
    manifest = json.loads((ingested.root / ".uac" / "index" / "manifest.json").read_text())
    assert manifest["log"]["bytes"] == ingested.project.paths.facts.stat().st_size
    ingested.forget(fact=ingested.facts()[0].id)
    assert _status(ingested) == "current"
    ingested.forget(session="conv-t1_s2")
    assert _status(ingested) == "current"
    assert ingested.doctor().check("indexes").status == "ok"


def test_search_catches_up_with_a_log_that_grew_behind_its_back(ingested):
    fact = _append_behind_the_index(ingested)
    assert _status(ingested) == "grown"
    hits = ingested.search("red kayak Otter", channel="facts", k=5)
    assert hits and hits[0].id == fact.id
    assert _status(ingested) == "current"
    assert ingested.doctor().check("indexes").status == "ok"


def test_a_fresh_process_sees_the_same(ingested):
    fact = _append_behind_the_index(ingested)
    other = UserMemory.open(ingested.root)
    assert [h.id for h in other.search("red kayak Otter", channel="facts", k=1)] == [fact.id]


def test_reingest_of_a_committed_file_catches_up_instead_of_doing_nothing(ingested, locomo_file):
    ingested.index.channel("facts").remove([f.id for f in ingested.facts() if f.session_id == "conv-t1_s3"])
    # an index manifest from before positions were recorded: coverage unknown
    manifest_path = ingested.root / ".uac" / "index" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["log"]
    manifest_path.write_text(json.dumps(manifest))
    assert _status(ingested) == "unknown"
    assert ingested.doctor().check("indexes").status == "fail"
    report = ingested.ingest(locomo_file, sample_id="conv-t1")
    assert report.skipped and report.sessions_added == []
    assert _status(ingested) == "current"
    assert ingested.doctor().check("indexes").status == "ok"


def test_unknown_coverage_embeds_only_what_is_missing(ingested):
    facts = ingested.index.channel("facts")
    total = len(facts.entries)
    doomed = [f.id for f in ingested.facts() if f.session_id == "conv-t1_s1"]
    facts.remove(doomed)
    (ingested.root / ".uac" / "index" / "manifest.json").unlink()
    log = ingested.context.fact_log()
    with ingested.project.lock("test"):
        report = catch_up(ingested.index, log.read(), Archive(ingested.project.paths.sessions), log)
    assert report.status == "unknown"
    assert report.sessions_indexed == 1 and report.facts_added == len(doomed)
    assert len(ingested.index.channel("facts").entries) == total


def test_a_torn_corpus_line_is_dropped_and_mended(ingested):
    corpus = ingested.root / ".uac" / "index" / "facts.jsonl"
    data = corpus.read_bytes()
    last_line_start = data.rstrip(b"\n").rfind(b"\n") + 1
    corpus.write_bytes(data[: last_line_start + 20])  # the last entry torn mid-line
    (ingested.root / ".uac" / "index" / "manifest.json").unlink()
    fresh = UserMemory.open(ingested.root)
    assert ensure_current(fresh.context) is not None
    check = fresh.doctor().check("indexes")
    assert check.status == "ok", check.detail
    assert corpus.read_bytes() == data or corpus.read_bytes().endswith(b"\n")


def test_indexes_built_with_older_texts_are_rebuilt_by_the_next_search(ingested):
    """A project indexed before BM25 read a fact's whole turn and its day gets them
    on its next search, without any command."""
    path = ingested.root / ".uac" / "index" / "manifest.json"
    manifest = json.loads(path.read_text())
    older = {k: v for k, v in manifest["texts"].items() if k not in ("bm25_own_turn", "bm25_said_day")}
    path.write_text(json.dumps({**manifest, "texts": older}))
    assert _status(ingested) == "settings"
    fresh = UserMemory.open(ingested.root)
    hits = fresh.search("support group 7 May 2023", channel="facts", k=3)
    assert _status(fresh) == "current"
    assert any("support group" in h.text for h in hits)
    entry = fresh.index.channel("facts").entry(hits[0].id)
    assert "8 May 2023 (Monday)" in entry.index_text
