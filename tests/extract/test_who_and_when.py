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


def test_a_users_you_to_the_assistant_is_nobody():
    """A user's "you" addresses the assistant or means anyone; it never becomes "assistant"."""
    session = _session(
        ("Leah", "everyone says your 20s you bounce back and i'm 31 so idk"),
        ("assistant", "Thirty-one is not old."),
        ("Leah", "Can you remind me what you said about the ferry?"),
    )
    texts = [f.text for f in RuleExtractor().extract(session)]
    assert texts and not any("assistant" in t.lower() for t in texts), texts
    assert any("your 20s you bounce back" in t for t in texts), texts


def test_between_two_people_you_is_the_listener():
    session = _session(("Caroline", "You ran the Leipzig half, right?"), ("Melanie", "I did."))
    assert "Melanie ran the Leipzig half" in RuleExtractor().extract(session)[0].text


@pytest.mark.parametrize(
    "sentence, code",
    [
        ("Halifax is Nov 15-18 and I'm presenting.", "2024-11-15/2024-11-18"),  # no tense: the nearest
        ("sam and i booked nyc!! nov 15-18, flights from billy bishop", "2024-11-15/2024-11-18"),
        ("we went nov 15-18", "2023-11-15/2023-11-18"),  # a report: the last one
        ("the conference is sept 3", "2024-09-03"),
        ("May 3 to 6 we were in Rome.", "2024-05-03/2024-05-06"),
    ],
)
def test_a_month_day_and_its_range_in_any_case(sentence, code):
    [found] = find_relative_dates(sentence, dt.date(2024, 10, 2))
    assert found.period.code == code
