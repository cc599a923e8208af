"""Places typed in lower case in any alphabet ("ayvalık", "córdoba"), small towns in lower case
behind a cue of travel ("bozcaada"), purchases told with a bare price in cents or with a dot
for thousands, and a case supposed ("say I'm going to X") that is no plan."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.offline import _assemble
from uac.extract.places import lookup_lower

from .conftest import facts_of
from .test_purchases_chat import _local

SAID = dt.date(2025, 6, 3)


def _trips(*lines: str, speaker: str = "Emre") -> list[tuple]:
    _, assembled, _ = _assemble(facts_of(*lines, speaker=speaker, said_on=SAID))
    return [(a.fields["destination"], a.fields["country"], a.fields["status"]) for a in assembled["trip"]]


@pytest.mark.parametrize(("name", "country"), [("ayvalık", "TR"), ("eskişehir", "TR"), ("kraków", "PL")])
def test_a_place_in_lower_case_in_any_alphabet(name, country):
    place = lookup_lower(name)
    assert place is not None and place.country == country


def test_a_small_town_in_lower_case_only_where_a_cue_asks():
    assert lookup_lower("bozcaada") is None
    assert lookup_lower("bozcaada", towns=True).country == "TR"
    for word in ("haha", "kanka", "abi", "bro", "yaa"):
        assert lookup_lower(word, towns=True) is None


def test_a_trip_to_a_place_typed_in_lower_case_with_its_letters():
    assert _trips("ok so we're driving to ayvalık on friday, 2 nights in a stone house") == [
        ("Ayvalık", "TR", "planned")
    ]


def test_a_case_supposed_is_no_plan():
    assert _trips("and say im going to córdoba, what happens to my patients?", speaker="Sofía") == []
    # (Córdoba in Argentina is not five times Spain's: its country is the traveller's to decide)
    assert [t[0::2] for t in _trips("im going to córdoba next week for a conference", speaker="Sofía")] == [
        ("Córdoba", "planned")
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        # two digits with their cents are a price; "one of those" names the kind of thing
        (
            "I bought one of those air fryers at Costco Saturday, 89.99, because everyone has one.",
            [("air fryer", 89.99, "USD")],
        ),
        (
            "Black Friday I got myself a Kindle Paperwhite on Amazon for 124.99 lol",
            [("Kindle Paperwhite", 124.99, "USD")],
        ),
    ],
)
def test_bare_prices_of_a_us_user(line, expected):
    assert _local("I live in Omaha with my daughter.", line) == expected


def test_a_bare_price_with_a_dot_for_thousands():
    assert _local("I live in Izmir.", "got a new desk chair on trendyol, 6.750 because my back hurts") == [
        ("new desk chair", 6750.0, "TRY")
    ]


def test_a_small_town_with_its_letters_is_that_town_not_another_spelled_alike():
    # "Kaş" is Turkey's; folded it is also Sudan's Kas and Denmark's Kås
    assert lookup_lower("kaş", towns=True).country == "TR"
    assert _trips("we're going to kaş with deniz!") == [("Kaş", "TR", "planned")]


def test_a_recap_of_a_small_town_makes_its_plan_done():
    facts = facts_of("we're going to kaş with deniz!", speaker="Emre", said_on=SAID)
    later = [
        f.replace(id=f"s2-{f.id.split('-')[1]}", session_id="s2")
        for f in facts_of(
            "kaş recap: PERFECT. the kayak tour was 3 hours.", speaker="Emre", said_on=dt.date(2025, 6, 16)
        )
    ]
    _, assembled, _ = _assemble(facts + later)
    assert [(a.fields["destination"], a.fields["status"]) for a in assembled["trip"]] == [("Kaş", "done")]


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "before that we had a company offsite in sapanca, 24-26 july, team building stuff",
            [("Sapanca", "TR", "done")],
        ),
        ("the girls and I have Vegas booked for end of June, the 24th to the 27th", [("Las Vegas", "US", "planned")]),
        (
            "We did Memorial Day weekend out at Lake McConaughy with the Hendersons.",
            [("Lake McConaughy", None, "done")],
        ),
        ("valentine's weekend i ended up doing mahabaleshwar with kavya, 1 night.", [("Mahabaleshwar", "IN", "done")]),
        ("Emilio and I did Oaxaca at Easter, five nights in a cabaña.", [("Oaxaca", "MX", "done")]),
    ],
)
def test_an_event_away_a_place_booked_and_a_weekend_done(line, expected):
    assert _trips(line) == expected


def test_a_bare_price_with_a_sign_in_letters_is_read_in_the_users_own_signs():
    line = "also gift for deniz. i got her a swatch last weekend, 6.750tl, the blue one she was looking at."
    assert _local("I live in Istanbul.", line) == [("swatch", 6750.0, "TRY")]
    assert _local("I live in Berlin.", line) == []  # "tl" is no sign of the euro: no amount the rules can tell


@pytest.mark.parametrize(
    "line",
    [
        "ok so I finally got my tax refund yesterday, 2,340, and I want to be smart with it",
        "got my first paycheck on friday, 1,850 after tax",
        "I got a bonus, 500, at work",
    ],
)
def test_money_coming_in_is_no_purchase(line):
    assert _local("I live in Omaha.", line) == []
