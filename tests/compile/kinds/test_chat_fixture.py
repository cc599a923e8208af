"""The kinds on the facts a real rules ingest of a five-session chat produced:
the trips taken with their months, the current employer, meals out per month,
and employer and home changes superseding the old facts in the log."""

from __future__ import annotations

from collections import Counter

import pytest

from uac import UserMemory
from uac.compile.kinds import assemble, detect, registry

from ...fixtures.kinds import (
    CURRENT_EMPLOYER,
    CURRENT_ROLE,
    KINDS_CHAT,
    MEALS_PER_MONTH,
    PURCHASES,
    TRIPS_NOT_TAKEN,
    TRIPS_TAKEN,
    USER,
)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    memory = UserMemory.create(tmp_path_factory.mktemp("kinds") / "sam", user_name=USER)
    report = memory.ingest(KINDS_CHAT, extractor="rules")
    facts = memory.facts(include_superseded=True)
    memory.close()
    return report, facts


@pytest.fixture(scope="module")
def records(ingested):
    _, facts = ingested
    by_id = {f.id: f for f in facts}
    found = [s for f in facts for s in detect(f)]
    return {kind.name: [r.fields for r in assemble(kind, found, by_id)] for kind in registry()}


def _month(period) -> str:
    return f"{period.start.year:04d}-{period.start.month:02d}"


def test_trips_taken_with_their_months(records):
    taken = [t for t in records["trip"] if t["status"] == "done" and t["person"] == USER]
    assert {t["destination"]: _month(t["start"] or t["end"]) for t in taken} == TRIPS_TAKEN
    assert len(taken) == len(TRIPS_TAKEN)  # the Kyoto plan and its report are one trip


def test_plans_and_cancellations_are_not_taken(records):
    others = {
        (t["destination"] or t["purpose"], _month(t["start"]), t["status"])
        for t in records["trip"]
        if t["status"] != "done"
    }
    assert others == TRIPS_NOT_TAKEN


def test_the_plan_that_came_true_keeps_both_sources(records):
    [kyoto] = [t for t in records["trip"] if t["destination"] == "Kyoto"]
    assert [s.split("_")[1].split("-")[0] for s in kyoto["sources"]] == ["s3", "s4"]
    assert str(kyoto["said_on"]) == "2024-05-06"


def test_current_employer(records):
    current = [j for j in records["job"] if j["current"] and j["person"] == USER]
    assert [(j["employer"], j["role"]) for j in current] == [(CURRENT_EMPLOYER, CURRENT_ROLE)]
    [acme] = [j for j in records["job"] if j["employer"] == "Acme Corp"]
    assert acme["current"] is False and acme["role"] == "analyst"
    assert all(j["employer"] != "Initech" or j["person"] == USER for j in records["job"])


def test_meals_out_per_month(records):
    mine = [m for m in records["meal"] if m["person"] == USER]
    assert Counter(_month(m["when"]) for m in mine) == Counter(MEALS_PER_MONTH)
    assert [m["place"] for m in records["meal"] if m["person"] == "Ana"] == ["Nopa"]


def test_purchases(records):
    assert {(p["item"], p["amount"], p["currency"]) for p in records["purchase"]} == PURCHASES


def test_employer_and_home_changes_supersede(ingested):
    report, facts = ingested
    assert report.supersessions == 3
    by_text = {f.text: f for f in facts}
    works = by_text["Sam works at Acme Corp as an analyst."]
    leaving = by_text["Sam is leaving Acme Corp."]
    initech = next(f for f in facts if "now works at Initech" in f.text)
    home = next(f for f in facts if "lives in Madrid" in f.text)
    moved = next(f for f in facts if "moved to Berlin" in f.text)
    assert (works.superseded_by, str(works.invalid_at)) == (leaving.id, "2024-04-02")
    assert (leaving.superseded_by, str(leaving.invalid_at)) == (initech.id, "2024-05-06")
    assert (
        initech.invalid_at is None and initech.meta["state"] == "employer" and initech.meta["state_value"] == "Initech"
    )
    assert (home.superseded_by, str(home.invalid_at)) == (moved.id, "2024-06-20")
    assert moved.meta["state"] == "home" and moved.meta["state_value"] == "Berlin"
    mention = next(f for f in facts if "friend works at Initech" in f.text)
    assert mention.invalid_at is None and "state" not in mention.meta
