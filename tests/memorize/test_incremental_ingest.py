"""Ingest's cost follows the new sessions: it reads the log's saved head, not its
folded facts, and indexes only what was committed since the indexes' position.
What it leaves must be what a full fold and a full rebuild give; ``doctor``'s
fast checks must still find a damaged derived file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.fixtures.conversations import SECOND
from uac.errors import StoreError
from uac.facts import log as log_module
from uac.facts.head import LogHead
from uac.facts.log import FactLog, Supersession
from uac.facts.model import Fact
from uac.facts.table import FactTable, read_fact_table
from uac.fsutil import read_utf8, split_lines
from uac.index.maintain import rebuild
from uac.memory import UserMemory
from uac.sessions.archive import Archive

pytestmark = pytest.mark.embeddings


def _chat(path: Path, day: str, lines: list[tuple[str, str]]) -> Path:
    path.write_text(
        json.dumps({"date": day, "messages": [{"role": "user", "name": n, "content": t} for n, t in lines]}), "utf-8"
    )
    return path


@pytest.fixture
def grown(memory, locomo_file, tmp_path, embedder):
    """A memory built by four ingests, each into the project the last one left."""
    memory.ingest(locomo_file, sample_id="conv-t1")
    second = tmp_path / "second.json"
    second.write_text(json.dumps(SECOND), "utf-8")
    memory.ingest(second)
    memory.ingest(
        _chat(tmp_path / "a.json", "2023-08-02", [("Maya", "I adopted a grey cat called Pixel."), ("Leo", "Cute!")]),
        format="messages",
    )
    memory.ingest(
        _chat(tmp_path / "b.json", "2023-08-09", [("Maya", "Pixel knocked my ferry tickets off the desk.")]),
        format="messages",
    )
    return memory


def _fresh_log(root: Path) -> FactLog:
    log_module._CACHE.clear()
    log_module._HEADS.clear()
    return FactLog(root / "memory" / "facts.jsonl", head_path=root / ".uac" / "index" / "log-head.json")


def test_the_saved_head_equals_a_full_fold(grown):
    root = grown.root
    assert (root / ".uac" / "index" / "log-head.json").exists()
    log = _fresh_log(root)
    head = log.head()
    full = LogHead.of_state(log.read())
    assert head.sessions == full.sessions
    assert head.commit_ends == full.commit_ends
    assert head.fact_ids == full.fact_ids
    assert (head.good_bytes, head.lines, head.digest) == (full.good_bytes, full.lines, full.digest)


def test_small_ingests_leave_the_saved_head_for_readers_to_extend(grown, tmp_path, monkeypatch):
    """The head is saved again only when SAVE_AFTER_BYTES were committed since: the
    three small ingests after the first left it describing a prefix, which the next
    reader extends (the test above checks the answers equal a full fold)."""
    from uac.facts import head as head_module

    root = grown.root
    saved = json.loads((root / ".uac" / "index" / "log-head.json").read_bytes())
    assert saved["format"] == head_module.FORMAT and isinstance(saved["fact_ids"], str)
    assert 0 < saved["good_bytes"] < grown.project.paths.facts.stat().st_size
    monkeypatch.setattr(head_module, "SAVE_AFTER_BYTES", 0)
    grown.ingest(
        _chat(tmp_path / "c.json", "2023-08-10", [("Maya", "Pixel is asleep on the ferry tickets.")]), format="messages"
    )
    saved = json.loads((root / ".uac" / "index" / "log-head.json").read_bytes())
    assert saved["good_bytes"] == grown.project.paths.facts.stat().st_size
    full = LogHead.of_state(_fresh_log(root).read())
    assert set(saved["fact_ids"].split("\n")) == full.fact_ids


def test_a_head_saved_in_the_earlier_format_is_read(grown):
    root = grown.root
    path = root / ".uac" / "index" / "log-head.json"
    data = json.loads(path.read_bytes())
    data["format"], data["fact_ids"] = 2, sorted(data["fact_ids"].split("\n"))
    path.write_text(json.dumps(data), "utf-8")
    loaded = LogHead.from_json(json.loads(path.read_bytes()))
    assert loaded is not None and loaded.fact_ids == set(data["fact_ids"])


def test_the_head_extends_by_what_another_writer_appended(grown):
    root = grown.root
    log = _fresh_log(root)
    before = log.head()
    other = FactLog(root / "memory" / "facts.jsonl")  # saves no head
    fact = Fact(id="x-1-f1", text="Maya sold the kayak.", session_id="x-1", session_date=None, evidence=())
    with grown.project.lock("test"):
        other.append_session("x-1", [fact], [Supersession(sorted(before.fact_ids)[0], "x-1-f1", None, "x-1")])
    head = _fresh_log(root).head()
    full = LogHead.of_state(_fresh_log(root).read())
    assert "x-1" in head.sessions and "x-1-f1" in head.fact_ids
    assert (head.good_bytes, head.digest, head.commit_ends) == (full.good_bytes, full.digest, full.commit_ends)


def test_a_changed_line_before_the_head_is_caught(grown):
    path = grown.project.paths.facts
    data = bytearray(path.read_bytes())
    at = data.index(b'"text":"') + 9
    data[at] = ord("#") if data[at] != ord("#") else ord("%")
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="line 1 is corrupt"):
        _fresh_log(grown.root).head()


def test_recent_valid_facts_are_the_folds_last_valid_facts(grown):
    root = grown.root
    log = _fresh_log(root)
    facts = list(log.read().facts.values())
    with grown.project.lock("test"):
        log.append_session(
            "sup-1",
            [Fact(id="sup-1-f1", text="Pixel is now called Byte.", session_id="sup-1", session_date=None, evidence=())],
            [
                Supersession(facts[-1].id, "sup-1-f1", facts[-1].session_date, "sup-1"),
                Supersession(facts[-2].id, "sup-1-f1", None, "sup-1"),
            ],
        )
    log = _fresh_log(root)
    valid = [f for f in log.read().facts.values() if f.invalid_at is None]
    for count in (1, 3, len(valid), len(valid) + 5):
        assert [f.to_json() for f in log.recent_valid(count)] == [f.to_json() for f in valid[-count:]]


def _corpus(root: Path, channel: str) -> list[dict]:
    lines = split_lines(read_utf8(root / ".uac" / "index" / f"{channel}.jsonl"))
    return [json.loads(line) for line in lines if line.strip()]


def test_incremental_ingest_agrees_with_a_full_rebuild(grown, tmp_path):
    root = grown.root
    grown.close()
    copy = tmp_path / "rebuilt"
    shutil.copytree(root, copy)
    other = UserMemory.open(copy)
    try:
        with other.project.lock("test"):
            rebuild(other.index, _fresh_log(copy).read(), Archive(other.project.paths.sessions))
        for channel in ("facts", "archive"):
            assert sorted(map(json.dumps, _corpus(root, channel))) == sorted(map(json.dumps, _corpus(copy, channel)))
            ours, theirs = grown.index.channel(channel), other.index.channel(channel)
            ours.refresh()
            rows_ours = {i: r for r, i in enumerate(ours.rows.line_ids)}
            rows_theirs = {i: r for r, i in enumerate(theirs.rows.line_ids)}
            a, b = ours.flat.read_all(), theirs.flat.read_all()
            for entry_id in rows_ours:
                assert np.allclose(a[rows_ours[entry_id]], b[rows_theirs[entry_id]], atol=1e-5)
        table = read_fact_table(root / "memory" / "facts.jsonl", tmp_path / "t1.npz")
        fresh = FactTable()
        fresh._fold(_fresh_log(root).read())
        assert table.ids == fresh.ids
        assert list(table.end) == list(fresh.end) and list(table.start) == list(fresh.start)
        for query in ("cat Pixel", "camping with the kids", "dance studio"):
            assert [h.id for h in grown.search(query, k=8)] == [h.id for h in other.search(query, k=8)]
        assert grown.doctor(deep=True).ok and other.doctor(deep=True).ok
    finally:
        other.close()


def test_ingest_does_not_fold_the_log(grown, tmp_path, monkeypatch):
    def no_fold(self):
        raise AssertionError("the whole log was folded")

    monkeypatch.setattr(FactLog, "read", no_fold)
    report = grown.ingest(
        _chat(tmp_path / "c.json", "2023-08-20", [("Leo", "I started rowing on Tuesdays.")]), format="messages"
    )
    assert report.facts_appended >= 1 and report.chunks_indexed == 1
    assert grown.doctor().ok  # the fast checks do not fold it either
    monkeypatch.undo()
    assert grown.doctor(deep=True).ok


@pytest.mark.parametrize("name", ["facts.jsonl", "archive.jsonl", "facts.vectors", "facts.bm25.pack"])
def test_fast_doctor_finds_a_damaged_derived_file(grown, name):
    grown.search("Pixel")  # saves the BM25 and corpus tables
    assert grown.doctor().check("indexes").status == "ok"
    path = grown.root / ".uac" / "index" / name
    data = bytearray(path.read_bytes())
    at = len(data) // 2
    data[at] ^= 0x01  # one bit, same size, same place
    path.write_bytes(bytes(data))
    grown.close()
    again = UserMemory.open(grown.root)
    try:
        check = again.doctor().check("indexes")
        assert check.status == "fail", check.detail
        assert name in check.detail
        repaired = again.doctor(repair=True).check("indexes")
        assert repaired.status == "ok" and repaired.repaired
        assert again.doctor().ok
    finally:
        again.close()


def test_a_damaged_corpus_table_is_read_afresh_by_whoever_opens_it(grown):
    from uac.packed import pack_problem

    grown.search("Pixel")
    path = grown.root / ".uac" / "index" / "facts.corpus.pack"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    assert pack_problem(path) is not None  # the array's CRC-32 no longer matches
    grown.close()
    again = UserMemory.open(grown.root)
    try:
        assert again.search("Pixel")  # the damaged table is not used: it is built again
        assert pack_problem(path) is None
        assert again.doctor().check("indexes").status == "ok"
    finally:
        again.close()
