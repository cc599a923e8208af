"""Trips to towns the main gazetteer lacks get their country from the small towns' table, and a
day out ("a day trip to Sintra", "cycled to Winsum and back") is no trip."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds.context import day_out
from uac.compile.offline import _assemble

from .conftest import facts_of

SAID = dt.date(2025, 5, 6)


def _trips(*lines: str, speaker: str = "Sam") -> list[dict]:
    _, assembled, _ = _assemble(facts_of(*lines, speaker=speaker, said_on=SAID))
    return [a.fields for a in assembled["trip"]]


@pytest.mark.parametrize(
    ("line", "town", "country"),
    [
        ("Just got back from Ericeira on Sunday, the surf was huge.", "Ericeira", "PT"),
        ("We spent three nights in Vimmerby last week, the kids loved it.", "Vimmerby", "SE"),
    ],
)
def test_a_small_town_named_by_a_strong_cue_gets_its_country(line, town, country):
    [trip] = _trips(line)  # a town this size abroad: its country (Sam has no home told)
    assert trip["destination"] == town
    assert trip["country"] == country
    assert trip["place_note"] is None


def test_a_small_town_in_the_speakers_own_country_gets_it_whatever_its_size():
    trips = _trips("I live in Calgary with my husband.", "We spent three nights in Tofino last week.")
    [trip] = [t for t in trips if t["destination"] == "Tofino"]
    assert trip["country"] == "CA"


def test_a_tiny_town_abroad_of_a_nickname_gives_no_country():
    # "Kal" (Kalgoorlie) is also a Hungarian village: too small to be the trip's country
    trips = _trips("Got back from Kal on Sunday, three nights of work.")
    assert trips and trips[0]["country"] is None


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We did a day trip to Sintra which was pretty but crowded.", "Sintra"),
        ("a quick Nara day trip on the Tuesday", "Nara"),
        ("Mira wanted to do a day in Cefalù but we never made it", "Cefalù"),
        ("On Sunday we drove over to Bukowina for the thermal baths for a few hours", "Bukowina"),
        ("Sunday I cycled to Winsum and back along the Reitdiep, 41 km", "Winsum"),
        ("I'm going to London on Wednesday for a day at the National Archives in Kew.", "London"),
    ],
)
def test_a_day_out_is_told(text, place):
    assert day_out(text, place)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("went to Porto and back on Sunday, 3 nights at my aunt's", "Porto"),
        ("flew to Lisbon on Friday and back Monday", "Lisbon"),
        ("going to Leeds for a day or two next week", "Leeds"),
        ("a day trip to Sintra from our hotel in Lisbon", "Lisbon"),
    ],
)
def test_a_stay_is_no_day_out(text, place):
    assert not day_out(text, place)


def test_a_day_out_makes_no_trip_and_the_stay_around_it_stays():
    trips = _trips(
        "Drove to Porto on Friday for three nights with Ana.", "On Sunday we drove over to Braga for a few hours."
    )
    assert [t["destination"] for t in trips] == ["Porto"]


def test_a_place_looked_back_on_is_a_trip_when_the_next_words_tell_the_return():
    trips = _trips(
        "eskişehir was good! we went on thursday and came back on sunday as planned.",
        "her dad and i watched football the whole time.",
        speaker="Emre",
    )
    assert [(t["destination"], t["status"]) for t in trips] == [("Eskişehir", "done")]


@pytest.mark.parametrize(
    "lines",
    [
        ("Lisbon was great.", "We watched a lot of movies at home."),  # no return told: it only completes a plan
        ("Wedding was perfect.", "We came home on the Sunday."),  # a word, though Berlin has a Wedding
        ("Porto was lovely.", "Is it worth coming back in winter?"),  # a question
    ],
)
def test_a_look_back_without_its_return_makes_no_trip(lines):
    assert _trips(*lines) == []


def test_a_place_looked_back_on_with_its_stay_in_the_same_sentence_is_a_trip():
    trips = _trips("Khor Fakkan was so relaxing, 2 nights, 17th to 19th, we went kayaking.", speaker="Joy")
    assert [(t["destination"], t["status"]) for t in trips] == [("Khor Fakkan", "done")]


def _sessions(*sessions: tuple[dt.date, str], speaker: str = "Anneke") -> list[tuple]:
    facts = []
    for number, (day, line) in enumerate(sessions, 1):
        for fact in facts_of(line, speaker=speaker, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    _, assembled, _ = _assemble(facts)
    return sorted((a.fields["destination"], a.fields["status"]) for a in assembled["trip"])


def test_a_place_named_shortened_completes_the_plan_of_its_full_name():
    plan = (
        dt.date(2026, 4, 28),
        "We leave for Schiermonnikoog on Saturday, three nights in a holiday house, back Tuesday.",
    )
    back = (dt.date(2026, 5, 19), "Back from Schier since Tuesday, three nights of wind and bikes.")
    assert _sessions(plan, back) == [("Schiermonnikoog", "done")]
    # a shortening that is a place of its own is that place ("Porto" is no shortened "Portofino")
    other = (dt.date(2026, 5, 19), "Back from Porto since Tuesday, two nights.")
    portofino = (dt.date(2026, 4, 28), "We leave for Portofino on Saturday, three nights.")
    # (the Portofino plan stays a trip of its own: its days passed, so it is presumed done)
    assert _sessions(portofino, other) == [("Porto", "done"), ("Portofino", "done")]


def test_a_stay_at_a_cabin_on_a_small_island_is_a_trip_and_no_meal():
    _, assembled, _ = _assemble(
        facts_of(
            "Last weekend we were at the hytte on Tjøme, two nights, we swam, ate crab on the brygge.",
            speaker="Ingrid",
            said_on=dt.date(2025, 6, 18),
        )
    )
    assert [(a.fields["destination"], a.fields["nights"]) for a in assembled["trip"]] == [("Tjøme", 2)]
    assert assembled["meal"] == []
