"""Trips: the ways people say they went, will go or called it off, and what is no trip."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.compile.kinds import assemble, detect, doubt, registry
from uac.dates import Period

from .conftest import fact_of, facts_of

TRIP = next(k for k in registry() if k.name == "trip")


def trip_sightings(line: str, **kwargs):
    return [s for s in detect(fact_of(line, **kwargs)) if s.kind == "trip" and not doubt(s)]


def one(line: str, **kwargs) -> dict:
    [sighting] = trip_sightings(line, **kwargs)
    return sighting.fields


@pytest.mark.parametrize(
    "line, destination, status",
    [
        ("I just got back from Lisbon yesterday.", "Lisbon", "done"),
        ("I'm back from Rio de Janeiro.", "Rio de Janeiro", "done"),
        ("I returned from a work trip to Berlin on Monday.", "Berlin", "done"),
        ("I spent five nights in Rome last month.", "Rome", "done"),
        ("I flew to Porto for a wedding in May.", "Porto", "done"),
        ("We visited Kyoto and Osaka in April.", "Kyoto and Osaka", "done"),
        ("I took the train to Vienna on Saturday.", "Vienna", "done"),
        ("I had a wonderful vacation in Greece last summer.", "Greece", "done"),
        ("We drove up to the Alps last winter.", "the Alps", "done"),
        ("I stayed in Paris for three nights.", "Paris", "done"),
        ("We are traveling through Lake Tahoe!", "Lake Tahoe", "done"),
        ("We're going to Oslo next month, maybe.", "Oslo", "planned"),
        ("I'm planning a trip to Japan in October.", "Japan", "planned"),
        ("I'll fly to Madrid next week.", "Madrid", "planned"),
        ("I booked flights to Tokyo.", "Tokyo", "planned"),
        ("We cancelled the Oslo trip.", "Oslo", "cancelled"),
        ("We called off our trip to Paris.", "Paris", "cancelled"),
    ],
)
def test_phrasings(line, destination, status):
    fields = one(line)
    assert (fields["destination"], fields["status"], fields["person"]) == (destination, status, "Sam")


@pytest.mark.parametrize(
    "line",
    [
        "I went to the gym.",
        "I flew through the book.",
        "I went to bed early.",
        "I went to Ana's place.",
        "My friend went to Paris.",
        "Lisbon is amazing.",
        "Did you go to Porto?",
        "We spent five nights there.",
        "I went to Nopa for dinner.",
        "I went to church on Sunday.",
        "I went there in May.",
        "I'm going to the store.",
        "I went to the Apple store.",
        "That pic takes me back to my trip to the Ferrari dealership.",
        "My trip to Paris is a long story.",
        # thinking of it, considering it, dreaming of it: a hedge or a wish, no plan
        "We're thinking of going to Iceland.",
        "Also I'm thinking about a work trip to Berlin in June for a conference.",
        "We're considering a trip to Lisbon in the spring.",
    ],
)
def test_no_trip(line):
    assert trip_sightings(line) == []


@pytest.mark.parametrize(
    "line, destination, status",
    [
        ("I'm so excited about my upcoming trip to Boston.", "Boston", "planned"),
        ("I went to a castle during my trip to the UK last Friday.", "the UK", "done"),
        ("This was my Rocky Mountains trip last year and it was stunning.", "Rocky Mountains", "done"),
    ],
)
def test_a_trip_named_as_someones(line, destination, status):
    fields = one(line)
    assert (fields["destination"], fields["status"], fields["person"]) == (destination, status, "Sam")


def test_next_month_is_a_month_not_a_day():
    fields = one("We're going to Oslo next month, maybe.")  # said on 9 June 2023
    assert fields["start"] == Period.month(2023, 7)
    assert fields["start"].precision == "month"


def test_return_dates_the_end_and_nights_the_start():
    fields = one("I got back from Lisbon yesterday after five nights there.")
    assert fields["end"] == Period.day(dt.date(2023, 6, 8))
    fields = one("I spent five nights in Rome last month.")
    assert (fields["start"], fields["nights"], fields["end"]) == (Period.month(2023, 5), 5, None)


def test_companions_and_purpose():
    fields = one("I went to Munich with my sister and Ben for a conference.")
    assert fields["companions"] == ["Sam's sister", "Ben"]
    assert fields["purpose"] == "conference"
    assert one("We went camping with the kids two days ago.")["purpose"] == "camping"
    # "two weekends ago" is no date the date finder knows; it is no companion either
    assert one("We went camping with my family two weekends ago.")["companions"] == ["Sam's family"]


def test_a_return_from_an_activity():
    fields = one("I just got back from a road trip with my friends.")
    assert (fields["destination"], fields["purpose"], fields["companions"]) == (None, "road trip", ["Sam's friends"])


def test_companions_are_people():
    fields = one("I came back from San Francisco with some great insights and a new car.")
    assert fields["companions"] == []


def test_a_booking_does_not_date_the_trip():
    fields = one("I booked a flight to Boston last week.")
    assert (fields["destination"], fields["status"], fields["start"]) == ("Boston", "planned", None)


def test_planned_activity_without_a_place():
    fields = one("I'm planning to go camping in August.")
    assert (fields["destination"], fields["purpose"], fields["status"]) == (None, "camping", "planned")
    assert fields["start"] == Period.month(2023, 8)
    assert trip_sightings("I'm thinking of camping in August.") == []  # a hedge


def _assembled(*sessions: tuple[dt.date, list[str]]):
    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    by_id = {f.id: f for f in facts}
    return assemble(TRIP, [s for f in facts for s in detect(f)], by_id)


def test_a_plan_that_came_true_is_one_done_trip():
    [trip] = _assembled(
        (dt.date(2023, 6, 9), ["We're going to Oslo next month."]),
        (dt.date(2023, 8, 2), ["We got back from Oslo on Sunday."]),
    )
    assert trip.fields["status"] == "done"
    assert trip.fields["destination"] == "Oslo"
    assert trip.fields["end"] == Period.day(dt.date(2023, 7, 30))
    assert trip.sources == ["s1-f1", "s2-f1"]
    assert trip.fields["said_on"] == dt.date(2023, 6, 9)


def test_the_done_report_dates_the_trip():
    [trip] = _assembled(
        (dt.date(2023, 6, 9), ["We're going to Oslo next month."]),
        (dt.date(2023, 8, 2), ["I flew to Oslo on 12 July 2023."]),
    )
    assert trip.fields["start"] == Period.day(dt.date(2023, 7, 12))


def test_looking_back_on_a_plan_completes_it():
    [trip] = _assembled(
        (dt.date(2024, 5, 2), ["I'm planning a trip to Kyoto next month."]),
        (dt.date(2024, 7, 20), ["Kyoto was wonderful."]),
    )
    assert (trip.fields["status"], trip.fields["start"]) == ("done", Period.month(2024, 6))
    assert len(trip.sources) == 2


def test_looking_back_alone_is_no_trip():
    assert _assembled((dt.date(2024, 7, 20), ["Kyoto was wonderful."])) == []
    # said before the planned month began: the plan stays a plan
    [trip] = _assembled(
        (dt.date(2024, 5, 2), ["I'm planning a trip to Kyoto in September."]),
        (dt.date(2024, 7, 20), ["Kyoto was wonderful."]),
    )
    assert trip.fields["status"] == "planned"


def test_two_trips_to_one_place_in_different_periods_stay_two():
    trips_ = _assembled(
        (dt.date(2023, 6, 9), ["I went to Rome in March."]),
        (dt.date(2024, 6, 9), ["I went to Rome in May."]),
    )
    assert [t.fields["start"] for t in trips_] == [Period.month(2023, 3), Period.month(2024, 5)]


def test_a_plan_for_another_period_is_not_the_done_trip():
    trips_ = _assembled(
        (dt.date(2023, 6, 9), ["I'm going to Rome next month."]),
        (dt.date(2024, 6, 9), ["I flew to Rome in May."]),
    )
    # two trips: the plan's month passed with no report of its own, so it is presumed done
    assert sorted((t.fields["status"], t.fields.get("presumed", False)) for t in trips_) == [
        ("done", False),
        ("done", True),
    ]


def test_cancellation_closes_the_plan_and_a_bare_refusal_needs_one():
    [trip] = _assembled(
        (dt.date(2023, 6, 9), ["We're going to Oslo next month."]),
        (dt.date(2023, 6, 20), ["We cancelled the Oslo trip."]),
    )
    assert trip.fields["status"] == "cancelled"
    assert trip.fields["start"] == Period.month(2023, 7)
    assert _assembled((dt.date(2023, 6, 9), ["I'm not going to Oslo after all."])) == []


def test_two_reports_of_one_trip_merge():
    [trip] = _assembled(
        (dt.date(2023, 6, 9), ["I flew to Porto for a wedding last weekend.", "I got back from Porto on Sunday."])
    )
    assert trip.fields["purpose"] == "wedding"
    assert len(trip.sources) == 2


#: places of the gazetteer (a capitalised word that is no place is no destination: see below)
_PLACE = st.sampled_from(
    [
        "Lisbon",
        "Porto",
        "Kyoto",
        "Osaka",
        "Hanoi",
        "Peru",
        "Iceland",
        "Bristol",
        "Falmouth",
        "Savannah",
        "Lyon",
        "Edinburgh",
        "Texas",
        "Bavaria",
        "Tuscany",
        "Quito",
        "Tbilisi",
        "Ghent",
    ]
)
_VERBS = st.sampled_from(["flew to", "went to", "travelled to", "got back from", "visited", "spent two nights in"])


@settings(max_examples=60, deadline=None)
@given(place=_PLACE, verb=_VERBS)
def test_any_place_of_the_gazetteer_after_a_travel_verb(place, verb):
    fields = one(f"I {verb} {place} last year.")
    assert fields["destination"] == place
    assert fields["status"] == "done"
    period = fields["start"] or fields["end"]
    assert period == Period.year(2022)


@settings(max_examples=60, deadline=None)
@given(word=st.from_regex(r"[a-z]{3,9}", fullmatch=True), verb=_VERBS)
def test_a_lowercase_word_is_never_a_destination(word, verb):
    assert trip_sightings(f"I {verb} the {word}.") == []


@pytest.mark.parametrize(
    "line",
    [
        "Rosa and I went to Copper Kettle on Friday.",  # a restaurant's name, no place
        "I went to Blue Heron Lane for brunch.",
        "I'd love to see Peru one day.",  # a wish
        "I want to visit Iceland someday.",
        "We might go to Ghent in the spring.",  # a hypothetical
    ],
)
def test_no_trip_without_a_place_or_with_only_a_wish(line):
    assert trip_sightings(line) == []


@pytest.mark.parametrize(
    "line, destination, country",
    [
        ("I flew to Paris, Texas for a rodeo last week.", "Paris, Texas", "US"),
        ("I flew to Paris last week.", "Paris", "FR"),
        ("We spent two nights in Savannah, Georgia.", "Savannah, Georgia", "US"),
        ("I got back from Georgia yesterday.", "Georgia", None),  # the country or the state: not said
        ("We did a road trip around the Lake District.", "the Lake District", None),
        ("I got back from Kyoto and Osaka.", "Kyoto and Osaka", "JP"),
    ],
)
def test_destinations_come_from_the_gazetteer_with_their_country(line, destination, country):
    fields = one(line)
    assert (fields["destination"], fields["country"]) == (destination, country)
    assert fields["status"] == "done"


def test_a_report_without_its_subject_is_the_speakers_trip():
    fields = one("got back from Tbilisi on thursday, exhausted.")
    assert (fields["destination"], fields["country"], fields["status"]) == ("Tbilisi", "GE", "done")
