"""Imported records are searchable as text, kept in step with the view (import,
re-import, compile, forget), and "now" questions prefer the valid fact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uac.index.search import asks_about_now
from uac.records.search import in_step, record_text

TRIPS = "trip_id,city,start date,companions\nT1,Kyoto,2023-04-02,Ana\nT2,Zanzibar,2023-08-10,Leo\nT3,Oslo,2024-01-05,\n"


def _chat(path: Path, turns: list[tuple[str, str]], date: str = "2024-05-08") -> Path:
    path.write_text(
        json.dumps({"date": date, "messages": [{"role": "user", "name": n, "content": t} for n, t in turns]})
    )
    return path


@pytest.fixture
def with_trips(memory, tmp_path):
    _chat(tmp_path / "chat.json", [("Alice", "I adopted a cat named Pixel."), ("Leo", "I started learning the piano.")])
    memory.ingest(tmp_path / "chat.json", format="messages", extractor="rules")
    (tmp_path / "trips.csv").write_text(TRIPS)
    memory.import_records(tmp_path / "trips.csv", domain="travel", collection="trips")
    return memory


def _records(hits):
    return [h for h in hits if h.channel == "records"]


def test_record_text_names_the_collection_and_fields(with_trips):
    trip = with_trips.state["travel"].trips[0]
    assert (
        record_text("travel", "trips", trip)
        == "travel.trips: trip id T1, city Kyoto, start date 2023-04-02, companions Ana"
    )


def test_a_search_finds_imported_records_with_a_pointer(with_trips):
    hits = with_trips.search("Who went to Kyoto?", k=5)
    found = _records(hits)
    assert found and found[0].id == "travel.trips#0" and "Kyoto" in found[0].text
    data = found[0].to_json()
    assert set(data) == {"id", "channel", "text", "score", "session_id", "session_date", "evidence", "record"}
    assert data["record"] == {
        "domain": "travel",
        "collection": "trips",
        "position": 0,
        "record_type": "Trip",
        "source": "record:trips.csv#0",
    }
    # fact and archive hits keep exactly the old shape
    other = [h.to_json() for h in hits if h.channel != "records"]
    assert other and all(
        set(d) == {"id", "channel", "text", "score", "session_id", "session_date", "evidence"} for d in other
    )


def test_the_records_channel_alone_and_the_others_without_it(with_trips):
    only = with_trips.search("Zanzibar", channel="records", k=3)
    assert only and {h.channel for h in only} == {"records"} and only[0].id == "travel.trips#1"
    assert not _records(with_trips.search("Zanzibar", channel="facts", k=10))
    assert not _records(with_trips.search("Zanzibar", k=10, as_of="2024-06-01"))


def test_reimport_and_compile_keep_the_index_in_step(with_trips, tmp_path):
    (tmp_path / "trips.csv").write_text(TRIPS.replace("Zanzibar", "Valparaiso"))
    with_trips.import_records(tmp_path / "trips.csv", domain="travel", collection="trips", replace=True)
    assert in_step(with_trips.project)
    texts = [h.text for h in with_trips.search("Valparaiso Zanzibar", channel="records", k=10)]
    assert any("Valparaiso" in t for t in texts) and not any("Zanzibar" in t for t in texts)
    with_trips.compile(mode="offline")  # rewrites domains: the next search brings the index in step
    assert not in_step(with_trips.project) or "travel" not in with_trips.state
    assert _records(with_trips.search("Valparaiso", channel="records", k=3))[0].id == "travel.trips#1"
    assert in_step(with_trips.project)


def test_forgetting_the_collection_removes_it_from_every_index_file(with_trips):
    assert _records(with_trips.search("Zanzibar", k=5))
    with_trips.forget(domain="travel", collection="trips")
    assert not _records(with_trips.search("Zanzibar", k=10))
    internal = with_trips.project.paths.internal
    holders = [p for p in internal.rglob("*") if p.is_file() and b"Zanzibar" in p.read_bytes()]
    assert holders == []


@pytest.mark.parametrize(
    "query, now",
    [
        ("Where do I work now?", True),
        ("What is my current job?", True),
        ("What do I do these days?", True),
        ("Do I still live in Lisbon?", True),
        ("Where did I work in 2022?", False),
        ("When did I leave Acme?", False),
    ],
)
def test_questions_about_the_present(query, now):
    assert asks_about_now(query) is now


@pytest.fixture
def acme_then_initech(memory, tmp_path):
    text = "I work at Acme Corp, a software company, as an engineer. My job at Acme is great."
    _chat(tmp_path / "job.json", [("Alice", text)], date="2023-02-01")
    memory.ingest(tmp_path / "job.json", format="messages", extractor="rules")
    acme = [f.id for f in memory.facts() if "Acme" in f.text]
    assert len(acme) == 2
    memory.correct("I joined Initech in March.", supersedes=acme)
    (initech,) = [f.id for f in memory.facts() if "Initech" in f.text]
    return memory, set(acme), initech


QUESTIONS = ("Where do I work now?", "What is my current job?", "Which company do I work for these days?")


@pytest.mark.parametrize("question", QUESTIONS)
def test_now_questions_rank_the_superseded_facts_below_the_valid_one(acme_then_initech, question):
    from uac.index.search import hybrid_search

    memory, acme, initech = acme_then_initech
    ctx = memory.context
    plain = [
        h.id for h in hybrid_search(ctx.index, ctx.fact_table(), question, k=10, channel="facts", prefer_valid=False)
    ]
    assert plain.index(initech) > min(plain.index(i) for i in acme)  # what the preference changes
    hits = memory.search(question, k=10, channel="facts")
    ids = [h.id for h in hits]
    assert ids[0] == initech and acme <= set(ids)  # still findable, below
    assert all(h.invalid_at is not None for h in hits if h.id in acme)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    everywhere = memory.search(question, k=10)
    valid_scores = [h.score for h in everywhere if h.id not in acme]
    assert all(h.score < min(valid_scores) for h in everywhere if h.id in acme)


def test_other_questions_still_find_the_superseded_fact_by_its_rank(acme_then_initech):
    memory, acme, _ = acme_then_initech
    hits = memory.search("Acme software company engineer", k=5, channel="facts")
    assert hits[0].id in acme and hits[0].invalid_at is not None


def test_a_broken_domain_does_not_break_search(with_trips):
    state = with_trips.project.paths.domains / "travel" / "state.py"
    good = state.read_text("utf-8")
    state.write_text(good + "\nimport os\n", "utf-8")  # no longer validates
    hits = with_trips.search("Pixel the cat", k=5)
    assert hits and not _records(hits)
    state.write_text(good.replace("Zanzibar", "Mombasa"), "utf-8")  # fixed: indexed again
    assert _records(with_trips.search("Mombasa", channel="records", k=3))[0].id == "travel.trips#1"


def test_a_record_entry_is_stored_as_its_fields_and_points_with_all_but_its_id_and_text():
    from uac.index.record_index import RecordEntry

    entry = RecordEntry("travel.trips#0", "Trip: Kyoto", "travel", "trips", 0, "Trip", "record:trips.csv#0")
    line = json.dumps(entry.to_json())
    assert line == (
        '{"id": "travel.trips#0", "text": "Trip: Kyoto", "domain": "travel", "collection": "trips", '
        '"position": 0, "record_type": "Trip", "source": "record:trips.csv#0"}'
    )
    assert RecordEntry.from_json(json.loads(line)) == entry
    assert list(entry.pointer()) == ["domain", "collection", "position", "record_type", "source"]
    assert entry.to_json() == {"id": entry.id, "text": entry.text, **entry.pointer()}
