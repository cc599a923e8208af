"""Who says what (the assistant's turns are no facts) and dates read by tense."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.extract.dates import find_relative_dates
from uac.extract.rules import RuleExtractor
from uac.sessions.model import Session, Turn

SAID = dt.date(2024, 5, 2)


def _session(*turns: tuple[str, str]) -> Session:
    return Session(
        "c1", SAID, SAID.isoformat(), tuple(Turn(f"c1:{i}", who, text) for i, (who, text) in enumerate(turns))
    )


def test_the_assistants_turns_give_no_facts():
    session = _session(
        ("Rosa", "I rode to Ghent and back on Sunday."),
        ("assistant", "Exciting! Have you thought about visiting Bruges next? It's lovely in spring."),
        ("Rosa", "Maybe later."),
    )
    facts = RuleExtractor().extract(session)
    assert [f.speaker for f in facts] == ["Rosa", "Rosa"]
    assert not any("assistant" in f.text.lower() and "said" in f.text for f in facts)


@pytest.mark.parametrize(
    "name, expected", [("assistant", True), ("Assistant", True), ("AI", True), ("Rosa", False), (None, False)]
)
def test_is_assistant(name, expected):
    from uac.extract.rules import is_assistant

    assert is_assistant(name) is expected


@pytest.mark.parametrize(
    "sentence, period",
    [
        ("Kyoto in June sounds lovely.", "2024-06"),  # neither plan nor report: this year's June
        ("We're off to Oslo in June.", "2024-06"),  # a plan
        ("I booked the ferry for March.", "2025-03"),  # "for March": forward
        ("We went to Oslo in June.", "2023-06"),  # a report: backward
        ("The hotel in March was awful.", "2024-03"),  # a month already past this year
        ("I'm flying to Lima in January.", "2025-01"),
    ],
)
def test_a_bare_month_reads_by_tense(sentence, period):
    [found] = find_relative_dates(sentence, SAID)
    assert found.period.code == period
    assert found.period.precision == "month"


def test_tense():
    from uac.extract.dates import tense

    assert tense("We're off to Oslo next week") is True
    assert tense("We stayed in a tiny flat") is False
    assert tense("Kyoto sounds lovely") is None
