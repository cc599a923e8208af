"""Offline, end to end: a five-session chat becomes typed records a person can compute with.

The chat (``tests/fixtures/kinds_chat.json``) is ingested with the rules
extractor and compiled without a model; the questions are then answered by
code in the sandbox over the typed view: the trips taken (not planned) with
their destinations and months, the current employer, and the meals out per
month.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures.kinds import CURRENT_EMPLOYER, KINDS_CHAT, MEALS_PER_MONTH, TRIPS_NOT_TAKEN, TRIPS_TAKEN, USER
from uac.memory import UserMemory


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    root = tmp_path_factory.mktemp("story") / "sam"
    memory = UserMemory.create(root, user_name=USER)
    memory.ingest(KINDS_CHAT, extractor="rules")
    report = memory.compile(mode="offline")
    yield memory, report
    memory.close()


def run(memory: UserMemory, code: str):
    result = memory.run(code)
    assert result.ok, result.error
    return result.result


def test_the_trips_taken_with_their_destinations_and_months(compiled):
    memory, _ = compiled
    taken = run(
        memory,
        (
            # "got back from Lisbon yesterday" dates the end of a trip, not its start
            f"result = sorted((t.destination, str((t.start or t.end).start)[:7]) for t in travel.trips\n"
            f"                if t.status.value == 'done' and t.person == {USER!r})"
        ),
    )
    assert {d: m for d, m in taken} == TRIPS_TAKEN
    assert len(taken) == len(TRIPS_TAKEN)  # a plan that came true is one trip, not two


def test_plans_are_not_counted_as_trips_taken(compiled):
    memory, _ = compiled
    others = run(
        memory,
        "result = sorted((t.destination or t.purpose or '', t.status.value) for t in travel.trips "
        "if t.status.value != 'done')",
    )
    assert {status for _, status in others} <= {"planned", "cancelled"}
    assert {name for name, _, _ in TRIPS_NOT_TAKEN} & {name for name, _ in others}


def test_the_current_employer(compiled):
    memory, _ = compiled
    current = run(memory, f"result = [j.employer for j in work.jobs if j.current and j.person == {USER!r}]")
    assert current == [CURRENT_EMPLOYER]


def test_the_meals_out_per_month(compiled):
    memory, _ = compiled
    per_month = run(
        memory,
        (
            "counts = {}\n"
            f"for m in food.meals:\n"
            f"    if m.person == {USER!r} and m.when is not None:\n"
            "        key = str(m.when.start)[:7]\n"
            "        counts[key] = counts.get(key, 0) + 1\n"
            "result = counts"
        ),
    )
    assert per_month == MEALS_PER_MONTH


def test_every_fact_is_placed_and_the_report_counts_the_kinds(compiled):
    memory, report = compiled
    data = report.to_json()
    assert data["totals"]["facts_covered"] == data["totals"]["facts"]  # nothing dropped: kinds or the timeline
    kinds = data["kinds"]
    assert kinds["trip"]["records"] >= len(TRIPS_TAKEN) and kinds["trip"]["status"] == "written"
    assert kinds["job"]["records"] >= 1 and kinds["meal"]["records"] >= sum(
        MEALS_PER_MONTH.values()
    )  # Ana eats out too
    json.dumps(data)  # what `uac compile --json` prints


def test_the_projects_currency_is_what_a_bare_dollar_means(tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {
                    "session_id": "s1",
                    "date": "2024-02-24T20:40:00",
                    "messages": [{"role": "user", "content": "I bought a second-hand road bike on Thursday for $650."}],
                }
            ]
        ),
        encoding="utf-8",
    )
    memory = UserMemory.create(tmp_path / "tamsin", user_name="Tamsin")
    try:
        memory.project.save_config(memory.project.config.with_section("user", currency="AUD"))
        memory.ingest(chat, extractor="rules", compile=False)
        memory.compile(mode="offline")
        assert run(memory, "result = [(p.item, p.amount, p.currency) for p in finance.purchases]") == [
            ["second-hand road bike", 650.0, "AUD"]
        ]
    finally:
        memory.close()
