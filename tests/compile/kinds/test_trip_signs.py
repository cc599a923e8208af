"""Trips told in no fixed shape: a place tied to its trip and one more sign in its message."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import trip_signs

from .conftest import facts_of

SAID = dt.date(2024, 10, 20)


def _trips(line: str, speaker: str = "Kim") -> list[tuple[str, str]]:
    facts = facts_of(line, speaker=speaker, said_on=SAID)
    return [(s.fields["destination"], s.fields["status"]) for s in trip_signs.in_turns(facts, set())]


@pytest.mark.parametrize(
    "line, found",
    [
        # the signs in the sentence after the place's
        ("Hobart done!! 4 nights wasn't enough", [("Hobart", "done")]),
        ("Osaka in 3 wks. 5 nights, help me not overplan", [("Osaka", "planned")]),
        ("Wellington's off. the client moved the workshop, so no flights for me", [("Wellington", "cancelled")]),
        ("Perth trip wrapped, the flight home was brutal", [("Perth", "done")]),
    ],
)
def test_a_place_tied_to_its_trip_with_a_sign_beside_it(line, found):
    assert _trips(line) == found


@pytest.mark.parametrize(
    "line",
    [
        "Hobart done!! what a week",  # tied, but no other sign of a journey
        "would love Osaka in 3 wks, 5 nights, flights are cheap",  # a wish
        "my sister is in Osaka for 5 nights, her flight was delayed",  # someone else's trip
        "Osaka in 3 wks?? 5 nights enough?",  # a question
        "back in Hobart now, 4 nights of my own bed",  # home
    ],
)
def test_no_trip_without_the_signs_or_from_someone_else(line):
    assert _trips(line) == []


def test_a_sentence_a_rule_told_is_left_to_it():
    facts = facts_of("Hobart done!! 4 nights wasn't enough", speaker="Kim", said_on=SAID)
    assert trip_signs.in_turns(facts, {f.id for f in facts}) == []
