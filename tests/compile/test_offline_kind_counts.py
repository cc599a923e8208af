"""The offline report per kind: facts that became records, and facts left unclear on the
timeline, counted by why."""

from __future__ import annotations

import datetime as dt

from tests.compile.kinds.conftest import facts_of

SAID = dt.date(2024, 3, 4)


def test_kind_counts_say_what_became_records_and_what_stayed_unclear(memory):
    facts = facts_of(
        "We got back from Lisbon on Sunday.",  # a trip
        "I bought tickets to Rome for €200.",  # a planned trip and a purchase: one fact, two records
        "We went to Zorblat Falls last week.",  # a name the gazetteer does not know: unclear
        "Oslo was lovely.",  # a review of a trip nobody planned: unclear
        "I almost bought a camera for £900.",  # not bought: unclear
        "I applied for a job at Pellucid Labs.",  # only a name for the job rules: not unclear
        "I work at Pellucid.",  # a job
        said_on=SAID,
    )
    kinds = memory.compile(facts=facts, mode="offline").to_json()["kinds"]
    trip, purchase, job = kinds["trip"], kinds["purchase"], kinds["job"]
    assert (trip["records"], trip["facts"], trip["unclear"]) == (2, 2, 2)
    assert trip["unclear_why"] == {"a place the gazetteer does not know": 1, "seen, but no record came of it": 1}
    assert (purchase["records"], purchase["facts"], purchase["unclear"]) == (1, 1, 1)
    assert purchase["unclear_why"] == {"looked at or almost bought, not bought": 1}
    assert (job["records"], job["facts"], job["unclear"]) == (1, 1, 0)
    assert job["unclear_why"] == {}

    # the unclear facts are on a timeline with their sources; the records' facts are not
    state = memory.state
    on_timeline = {e.sources[0] for name in state for e in state[name].events}
    by_text = {f.text: f.id for f in facts}
    unclear = [i for t, i in by_text.items() if "Zorblat" in t or "Oslo" in t or "camera" in t]
    assert set(unclear) <= on_timeline
    assert by_text[next(t for t in by_text if "Rome" in t)] not in on_timeline
