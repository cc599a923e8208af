"""Corrections: a fact the user writes, superseding others, everywhere the memory is read."""

from __future__ import annotations

import json

import pytest

from uac.cli import main
from uac.errors import FactNotFound, InputError
from uac.memory import UserMemory

SESSION = {
    "date": "2023-05-08",
    "messages": [
        {"role": "user", "content": "I adopted a golden retriever named Rex yesterday."},
        {"role": "user", "content": "I also booked a trip to Lisbon for June."},
    ],
}


@pytest.fixture
def alice(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SESSION), "utf-8")
    memory = UserMemory.create(tmp_path / "alice", user_name="Alice")
    memory.ingest(path)
    memory.compile()
    yield memory
    memory.close()


def _fact_about(memory: UserMemory, word: str):
    return next(f for f in memory.facts() if word in f.text)


def test_a_correction_supersedes_and_is_a_fact_with_its_own_evidence(alice):
    rex = _fact_about(alice, "retriever")
    report = alice.correct("Rex is a labrador, not a golden retriever.", supersedes=[rex.id])
    fact = report.fact
    assert report.superseded == [rex.id]
    assert fact.meta["correction"] is True and fact.meta["corrected_at"]
    assert fact.meta["supersedes"] == [rex.id]
    # the superseded fact is no longer valid now, but still in the log with its interval closed
    valid = {f.id for f in alice.facts()}
    assert rex.id not in valid and fact.id in valid
    old = alice.fact(rex.id)
    # a misstated fact was never in force: it ends where it began, and the correction holds
    # from then on, so the memory as of any day before the correction says "labrador" too
    began = rex.valid_from or rex.session_date
    assert old.fact.superseded_by == fact.id and old.fact.invalid_at == began and fact.valid_from == began
    assert [f.id for f in alice.facts(as_of=began) if f.id in (rex.id, fact.id)] == [fact.id]
    assert old.superseded_by.id == fact.id
    # the evidence chain of the correction leads to a real turn of a real session
    detail = alice.fact(fact.id)
    assert detail.correction and [f.id for f in detail.supersedes] == [rex.id]
    assert detail.turns[0].text == "Rex is a labrador, not a golden retriever."
    session = alice.session(fact.session_id)
    assert session.source == "correction" and session.turns[0].speaker == "Alice"
    # search finds it, and the overview counts it
    assert alice.search("labrador", k=3, channel="facts")[0].id == fact.id
    counts = alice.overview().to_json()["counts"]
    assert counts["corrections"] == 1 and counts["facts_superseded"] == 1


def test_the_records_citing_a_superseded_fact_are_known_to_the_view(alice):
    rex = _fact_about(alice, "retriever")
    citing = alice.records_citing([rex.id])
    assert citing and all(rex.id in r.sources for r in citing)


def test_bad_corrections_change_nothing(alice):
    log = alice.project.paths.facts
    before = log.read_bytes()
    with pytest.raises(InputError):
        alice.correct("   ")
    with pytest.raises(FactNotFound):
        alice.correct("Rex is a labrador.", supersedes=["no-such-fact"])
    rex = _fact_about(alice, "retriever")
    alice.correct("Rex is a labrador.", supersedes=[rex.id])
    after = log.read_bytes()
    with pytest.raises(InputError, match="already superseded"):
        alice.correct("Rex is a poodle.", supersedes=[rex.id])
    assert log.read_bytes() == after != before


def test_correct_on_the_command_line(alice, capsys):
    rex = _fact_about(alice, "retriever")
    code = main(["correct", str(alice.root), "Rex is a labrador.", "--supersedes", rex.id, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["superseded"] == [rex.id] and out["fact"]["text"] == "Rex is a labrador."
    code = main(["correct", str(alice.root), ""])
    err = capsys.readouterr().err
    assert code == 2 and "needs its text" in err and "nothing was written" in err
