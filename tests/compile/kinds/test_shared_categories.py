"""Categories many users share: nicknames of places in New Zealand, Australia and South-East
Asia, the user's own dollar where the places named share a city name, long run-on messages
(a question only at their end, an opening phrase before the subject, "im"/"ive"), purchases
told with other verbs and lists, and trips told by a countdown, their end or their nights."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import assemble, detect, doubt, registry
from uac.extract.places import lookup
from uac.extract.rules import RuleExtractor
from uac.extract.states import is_question
from uac.sessions.model import Session, Turn

from .conftest import facts_of
from .test_meals_jobs_purchases import _localised

TRIP = next(k for k in registry() if k.name == "trip")
DAY = dt.date(2025, 2, 16)


def _trips(*lines: str) -> list[tuple]:
    facts = facts_of(*lines, said_on=DAY)
    found = assemble(TRIP, [s for f in facts for s in detect(f)], {f.id: f for f in facts})
    return [tuple(a.fields[k] for k in ("destination", "country", "status", "nights")) for a in found]


def _bought(*lines: str) -> list[tuple]:
    out = _localised(*lines)
    return [
        (s.fields["item"], s.fields["amount"], s.fields["currency"]) for s in out.get("purchase", []) if not doubt(s)
    ]


@pytest.mark.parametrize(
    "name, city, country",
    [
        ("Welly", "Wellington", "NZ"),
        ("Chch", "Christchurch", "NZ"),
        ("Rotovegas", "Rotorua", "NZ"),
        ("Gizzy", "Gisborne", "NZ"),
        ("Queenie", "Queenstown", "NZ"),
        ("Melbs", "Melbourne", "AU"),
        ("JKT", "Jakarta", "ID"),
        ("HCMC", "Ho Chi Minh City", "VN"),
        ("HK", "Hong Kong", "HK"),
    ],
)
def test_nicknames_of_new_zealand_australia_and_asia(name, city, country):
    place = lookup(name)
    assert place is not None and (place.name, place.country) == (city, country)


def test_no_nickname_is_another_citys_own_name():
    from uac.extract import places

    frisco = lookup("Frisco")  # Frisco, Texas (and a town in Colorado), never San Francisco
    assert frisco is not None and frisco.name == "Frisco"
    tables = places._tables()
    for nickname, (city, _) in places.NICKNAMES.items():
        rows = tables.cities.get(places.fold(nickname)) or []
        assert all(row[3] == city for row in rows[:1]), nickname


def test_a_well_known_island_is_the_island_not_towns_of_its_name_abroad():
    bali = lookup("Bali")
    assert bali is not None and (bali.kind, bali.country, bali.ambiguous) == ("region", "ID", False)
    # a city that is not ambiguous stays the city
    york = lookup("New York")
    assert york is not None and york.country == "US"


def test_a_city_several_countries_share_counts_for_the_country_the_user_names_most():
    lines = (
        "We got back from Welly on Sunday.",
        "I drove down to Gisborne for Nana's birthday.",
        "I flew to Bali in March.",
        "We went to Ubud for a week.",
        "We took the bikes down to Cambridge.",
        "We rode to Hamilton and back.",
        "I bought a wetsuit for $290.",
    )
    # NZ 2 of 4 alone is no majority; Cambridge and Hamilton (NZ among their countries) make it 4 of 6
    assert _bought(*lines) == [("wetsuit", 290.0, "NZD")]
    # the shared names count for no country the user never names alone
    assert _bought(*lines[2:]) == [("wetsuit", 290.0, "USD")]


def test_a_long_report_that_only_asks_at_its_end_is_a_report():
    report = (
        "ok so i did a thing, bought a road bike off trade me last night, a 2019 Giant TCR, guy in Hillsborough "
        "let it go for $1,150 which i reckon is pretty good??"
    )
    assert not is_question(report)
    assert [item for item, _, _ in _bought(report)] == ["road bike"]
    # a question opens with a question word, however long; a short sentence ending in "?" asks
    assert is_question(
        "do you think, given the weather, the wind and the rain and the ferry times, that we should fly "
        "to Rome next week or wait a bit longer and go in the summer?"
    )
    assert is_question("should I buy a bike for $400, a bargain, right or not??")
    # a deed told first, then the asking about it: the deed is a report
    assert not is_question("bought a bike for $400, a bargain, right or not??")
    assert not is_question("Also Sam bought a winter coat at Beams, 24,900円, Tokyo wind is colder than Osaka??")
    assert is_question("Sam bought a coat?")
    session = Session("s1", DAY, DAY.isoformat(), (Turn("D1:1", "Sam", report),))
    assert "asked:" not in RuleExtractor().extract(session)[0].text


def test_an_opening_phrase_and_contractions_without_apostrophes():
    assert _bought(
        "in other news i bought noise cancelling headphones for the bus, the Sony ones, $399 at JB Hi-Fi"
    ) == [("noise cancelling headphones", 399.0, "USD")]
    facts = facts_of("im so tired and ive started swimming")
    assert "Sam is so tired" in facts[0].text and "Sam has started" in facts[0].text
    # "ill" and "id" are words: left as they are
    assert "ill" in facts_of("she was ill all week")[0].text


def test_purchases_told_with_other_verbs_and_lists():
    assert _bought(
        "also ive started swimming, did 1.5k at the baths, grabbed new togs at Rebel for $59.99 and goggles for 25 "
        "on the way"
    ) == [("new togs", 59.99, "USD"), ("goggles", 25.0, "USD")]
    # what is said of the first thing is not the second; a thing looked at is not bought
    assert _bought(
        "bought a couch from Freedom for $1,899 which i will be paying off til im 60, and a second hand fridge "
        "off marketplace for $350"
    ) == [("couch", 1899.0, "USD"), ("second hand fridge", 350.0, "USD")]
    assert _bought(
        "i bought headphones, the Sony ones, $399 at JB Hi-Fi, was eyeing up the Dyson too but $899 for a vacuum is "
        "insane so i left it"
    ) == [("headphones", 399.0, "USD")]
    assert _bought("i finally bought my own plinth, $450") == [("plinth", 450.0, "USD")]
    # no thing after "and" for a time or a count
    assert _bought("I bought a couch for £850 and waited for 20 minutes.") == [("couch", 850.0, "GBP")]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("4 sleeps till Bali!! we moved it to the end of feb", [("Bali", "ID", "planned", None)]),
        ("Perth trip wrapped. thurs to sun, mining client.", [("Perth", "AU", "done", None)]),
        ("JKT wk over. dead.", [("Jakarta", "ID", "done", None)]),
        ("back fr Phuket wed.", [("Phuket", "TH", "done", None)]),
        ("back fae dublin yesterday, the hen was carnage", [("Dublin", "IE", "done", None)]),
        ("Manila was ok btw, 3 nights, client in BGC.", [("Manila", "PH", "done", 3)]),
        (
            "Melbs was so fun, it was Jess's 30th so 4 of us flew over and got back monday, so 4 nights",
            [("Melbourne", "AU", "done", 4)],
        ),
        (
            "flights to Japan are booked!! Tokyo 5 nights and a couple somewhere random, maybe Hakone",
            [("Japan", "JP", "planned", None)],
        ),
        ("got back from Queenie on thursday", [("Queenstown", "NZ", "done", None)]),
    ],
)
def test_trips_told_by_a_countdown_their_end_or_their_nights(line, expected):
    assert _trips(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "Manila was ok btw.",  # a review alone makes no trip
        "4 sleeps till payday!!",  # no place
        "maybe the Perth trip wrapped early, not sure",
        "flights to Japan are booked maybe, not sure",
        "Kyoto might be booked soon",
    ],
)
def test_no_trip_from_a_review_a_countdown_to_no_place_or_a_hedge(line):
    assert _trips(line) == []


def test_a_countdown_dates_its_trip_and_a_later_look_back_makes_it_done():
    from tests.compile.kinds.test_trips_chat import _trips as trips_of

    countdown = (DAY, ["4 sleeps till Bali!! we moved it to the end of feb"])
    back = (
        dt.date(2025, 3, 23),
        ["sorry i went quiet, i havent even told you about Bali, it was unreal, 10 nights, Ollie surfed every morning"],
    )
    assert trips_of(countdown) == [{"destination": "Bali", "country": "ID", "status": "planned", "nights": None}]
    assert [t["status"] for t in trips_of(countdown, back)] == ["done"]
    facts = facts_of("4 sleeps till Bali!!", said_on=DAY)
    (found,) = [s for f in facts for s in detect(f) if s.kind == "trip"]
    assert found.fields["start"].start == dt.date(2025, 2, 20)


def test_a_dollar_named_by_its_land_after_the_amount():
    from uac.extract.money import find_amounts, names_us_dollar

    assert [(m.amount, m.currency) for m in find_amounts("bought Blundstones, $260 aussie at the boot place")] == [
        (260.0, "AUD")
    ]
    assert [m.currency for m in find_amounts("$40 kiwi")] == ["NZD"]
    assert names_us_dollar("$68 US w tip") and not names_us_dollar("gave us $50 and left")


def test_a_purchase_takes_its_price_from_the_next_sentence():
    assert _bought("bought a proper backpack for the new commute.", "Bellroy, $189.", "no more suits") == [
        ("backpack", 189.0, "USD")
    ]
    # a next sentence that does not open with the price gives none
    assert _bought("bought a proper leather backpack for the new commute.", "the train was $189 this month.") == [
        ("leather backpack", None, None)
    ]


def _meals(*lines: str) -> list[tuple]:
    return [
        (s.fields["place"], s.fields["meal"], s.fields["amount"])
        for f in facts_of(*lines)
        for s in detect(f)
        if s.kind == "meal" and not doubt(s)
    ]


def test_a_meal_told_as_a_fragment_with_who_when_and_its_price():
    assert _meals("dinner w Wei Jie fri at Casa Lisboa on East Coast Rd, we split, $74 my half.") == [
        ("Casa Lisboa", "dinner", 74.0)
    ]
    assert _meals("lunch w my new team weds at Kotuwa, $42, paid for my own") == [("Kotuwa", "lunch", 42.0)]
    assert _meals("Dinner at Nopa last night, £40.") == [("Nopa", "dinner", 40.0)]
    # a fragment with no price, or a time ahead, is no meal had
    assert _meals("dinner w Ana tomorrow at Nopa, $40 set menu") == []
    assert _meals("dinner at Nopa next week, it's $40 a head") == []
    assert _meals("dinner w Ana at Nopa") == []
