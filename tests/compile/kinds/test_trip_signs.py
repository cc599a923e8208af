"""Trips told in no fixed shape: a place tied to its trip and one more sign in its message."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import trip_signs, trips

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


@pytest.mark.parametrize(
    "line, found",
    [
        # a town the gazetteer does not hold, after a return or a booking, with a stay beside it
        ("back from kalbarri w jayden. got back sat. 5 nights, best trip we've done", ("Kalbarri", "done", 5)),
        ("Back from Kalbarri with Jayden. 5 nights, best trip we've done", ("Kalbarri", "done", 5)),
        ("also booked broome for october. 5 nights. cable beach, camels, the lot", ("Broome", "planned", 5)),
        # a return from doing something somewhere
        (
            "I got back yesterday from shooting a wedding in Valladolid, two nights at a hacienda",
            ("Valladolid", "done", 2),
        ),
    ],
)
def test_a_return_or_a_booking_with_a_stay_reads_a_town_the_gazetteer_lacks(line, found):
    facts = facts_of(line, speaker="Mick", said_on=SAID)
    [sighting] = trip_signs.in_turns(facts, set())
    assert (sighting.fields["destination"], sighting.fields["status"], sighting.fields["nights"]) == found


@pytest.mark.parametrize(
    "line",
    [
        "back from work. 2 nights of overtime lol",  # everyday life
        "back from the gym, then 2 nights of marking",
        "back from nobu, the flight of sake was unreal",  # no stay: a venue
        "booked dishoom for friday, 8 of us",
        "my coworker Dani just got back from Alaska and said the bears were insane so I'm a little scared. 5 nights",
    ],
)
def test_no_town_without_a_stay_and_no_trip_of_a_coworker(line):
    assert _trips(line) == []


def test_a_country_is_no_trip_of_its_own_beside_a_city_a_rule_read():
    line = "handing my notice in after we get back from Japan. because we're going to Kyoto in June!! we booked it, 5 nights"
    facts = facts_of(line, speaker="Kim", said_on=SAID)
    told = {f.id for f in facts if trips.detect(f)}
    assert [(s.fields["destination"], s.fields["status"]) for s in trip_signs.in_turns(facts, told)] == [
        ("Japan", "planned")
    ]
    assert trip_signs.in_turns(facts, told, tripped=told) == []


def test_a_place_before_an_eatery_word_is_the_eatery_not_a_trip():
    from .conftest import facts_of as said

    facts = said("for her bday we went to boston brewing for lunch, she wouldnt let anyone else pay", speaker="Mick")
    assert [s for f in facts for s in trips.detect(f) if s.fields.get("destination")] == []
    facts = said("we went to boston for a week in june", speaker="Mick")
    assert [s.fields["destination"] for f in facts for s in trips.detect(f)] == ["Boston"]


@pytest.mark.parametrize(
    "line, found",
    [
        ("Did Goa for NYE with batchmates, 3 nights in Calangute. Wallet is crying", ("Calangute", "done")),
        ("the Ladakh bike trip is cancelled, two guys backed out last minute", ("Ladakh", "cancelled")),
        (
            "edinburgh weekend is off, rota changed and nobody would swap. lost the airbnb deposit",
            ("Edinburgh", "cancelled"),
        ),
        ("I returned from business trip in Singapore yesterday, 4 nights", ("Singapore", "done")),
    ],
)
def test_a_place_tied_by_its_stay_or_its_trip(line, found):
    facts = facts_of(line, speaker="Kim", said_on=SAID)
    told = {f.id for f in facts if trips.detect(f)}
    got = [(s.fields["destination"], s.fields["status"]) for s in trip_signs.in_turns(facts, told)]
    got += [
        (s.fields["destination"], s.fields["status"])
        for f in facts
        for s in trips.detect(f)
        if s.fields.get("destination")
    ]
    assert found in got


@pytest.mark.parametrize(
    "line, found",
    [
        # a place the gazetteer holds, written in lower case anywhere, with a span or a stay
        ("asheville w jaylen was the 9th to the 11th and it was so good", [("Asheville", "done")]),
        ("other news: nashik last weekend, 3rd-4th, one night at their resort", [("Nashik", "done")]),
        # "doing" or "did" a town with its trip's signs
        ("me, tasha and monique are doing new orleans next month, 3 nights", [("New Orleans", "planned")]),
        ("we did Porto last weekend, two nights in a guesthouse", [("Porto", "done")]),
        ("before bali i'm doing bangkok w my brother, 1st to 3rd next month", [("Bangkok", "planned")]),
        # a journey told without its "to", a stay with its days, a plan called off after "and"
        (
            "no parkrun on the 2nd though, going hobart with aisha 1st to 3rd next month, 2 nights",
            [("Hobart", "planned")],
        ),
        ("Other news, we were in Maribor the weekend 12.–13.10., Brigitte and me.", [("Maribor", "done")]),
        ("and gokarna is cancelled, her leave got rejected", [("Gokarna", "cancelled")]),
    ],
)
def test_a_lower_case_place_or_a_town_done_with_its_trips_signs(line, found):
    assert _trips(line) == found


@pytest.mark.parametrize(
    "line",
    [
        "we did Emerald Lake on the Friday, 3.6 miles round trip",  # a walk, not a town
        "sydney from my team is planning an actual australia trip for christmas.",  # someone else's
        "My sister and her husband are in Rome next month, 4 nights",  # someone else's, with their partner
        "my sister and her husband are doing rome next month, 4 nights",
        "me and arjun, 1st to 3rd next month, 2 nights, flying pune to kochi",  # the town left is no trip
        "my sister is going paris for 3 nights",
    ],
)
def test_no_trip_from_a_walk_done_or_someone_elses_news_in_lower_case(line):
    assert _trips(line) == []


def test_a_town_of_two_words_in_lower_case_is_read_whole():
    from .conftest import records_of

    [trip] = records_of("trip", "also we got back from myrtle beach on the 12th, jaylen loved it", said_on=SAID)
    assert trip["destination"] == "Myrtle Beach" and trip["country"] == "US"
