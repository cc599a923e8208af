"""The ledger format: what it accepts, and the ledgers it refuses with a message that names the fix."""

from __future__ import annotations

import json

import pytest

from analytical_bench.conv import LedgerError, load_ledger, parse_ledger
from analytical_bench.conv.ledger import Distractor


def _ledger(*events, **top):
    return {
        "format": "uac-ledger/1",
        "user": "Maya",
        "currency": "GBP",
        "rates": {"EUR": 0.86},
        "events": list(events),
        **top,
    }


TRIP = {
    "id": "t1",
    "kind": "trip",
    "status": "done",
    "destination": "Lisbon",
    "start": "2024-03-02",
    "end": "2024-03-07",
    "nights": 5,
    "planned_on": "2024-01",
    "sessions": ["s1", "s3"],
}


def test_a_good_ledger_loads_with_partial_dates_and_conversion(tmp_path):
    meal = {"id": "m1", "kind": "meal", "place": "Sakura Tei", "date": "2024-03", "amount": 40, "currency": "EUR"}
    job = {"id": "j1", "kind": "job", "employer": "Northwind", "start": "2022"}
    path = tmp_path / "ledger.json"
    path.write_text(
        json.dumps(_ledger(TRIP, meal, job, distractors=[{"session": "s2", "text": "Japan one day", "why": "wish"}]))
    )
    ledger = load_ledger(path)
    assert [e.id for e in ledger.of_kind("trip")] == ["t1"]
    assert ledger.of_kind("meal")[0].span("date").last.day == 31
    assert ledger.of_kind("job")[0].current
    assert ledger.convert(40, "EUR") == pytest.approx(34.4)
    assert parse_ledger(ledger.to_json()) == ledger


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"kind": "holiday"}, "unknown kind"),
        ({"colour": "red"}, "unknown field"),
        ({"destination": ""}, "needs destination"),
        ({"start": "March 2024"}, "not a date"),
        ({"start": "2024-02-30"}, "not a date"),
        ({"status": "cancelled"}, "cancelled trip has no nights"),
        ({"planned_on": "2024-04-01"}, "before it was planned"),
        ({"end": "2024-02-01"}, "before it starts"),
        ({"status": "maybe", "nights": None}, "status"),
        ({"nights": -1}, "at least 0"),
    ],
)
def test_a_ledger_that_cannot_be_a_gold_is_refused(change, words):
    with pytest.raises(LedgerError, match=words):
        parse_ledger(_ledger({**TRIP, **change}))


def test_an_amount_without_a_currency_and_a_missing_rate_are_refused():
    with pytest.raises(LedgerError, match="ISO 4217"):
        parse_ledger(_ledger({"id": "p1", "kind": "purchase", "item": "desk", "amount": 340}))
    ledger = parse_ledger(_ledger(TRIP))
    with pytest.raises(LedgerError, match="no exchange rate for JPY"):
        ledger.convert(1000, "JPY")


def test_duplicate_ids_and_wrong_format_are_refused():
    with pytest.raises(LedgerError, match="twice"):
        parse_ledger(_ledger(TRIP, TRIP))
    with pytest.raises(LedgerError, match="format"):
        parse_ledger({**_ledger(TRIP), "format": "v0"})


def test_a_distractor_reads_back_from_its_json_and_a_bad_one_is_refused():
    said = {"session": "s2", "text": "Japan one day", "why": "wish"}
    distractor = Distractor.parse(said, "distractor 1")
    assert distractor == Distractor("s2", "Japan one day", "wish") and distractor.to_json() == said
    assert Distractor.parse({"text": "my sister went to Rome"}, "distractor 1").why == "other"
    with pytest.raises(LedgerError, match='^ledger: distractor 2 needs a "text".'):
        parse_ledger(_ledger(TRIP, distractors=[said, {"session": "s3", "why": "wish"}]))
    with pytest.raises(LedgerError, match="^ledger: distractor 1: why 'dream' is none of wish, other_person"):
        parse_ledger(_ledger(TRIP, distractors=[{**said, "why": "dream"}]))
