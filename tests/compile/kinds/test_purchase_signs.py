"""Purchases told in no fixed shape: a price after the thing, and a sign it was bought."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import purchase_signs

from .conftest import facts_of, records_of


def _bought(*lines: str) -> list[tuple[str, float | None]]:
    records = records_of("purchase", *lines, speaker="Kim", said_on=dt.date(2025, 3, 1))
    return [(r["item"], r["amount"]) for r in records]


@pytest.mark.parametrize(
    "line, found",
    [
        ("Went with the Mitsubishi heat pump in the end, $3,450 installed", [("Mitsubishi heat pump", 3450.0)]),
        ("copped the jordan 4 military blacks 💯 $215 off this dude on ig", [("jordan 4 military blacks", 215.0)]),
        # two things, each with its price
        (
            "grabbed a monitor arm ($129) and one of those anti-fatigue mats ($45)",
            [("monitor arm", 129.0), ("anti-fatigue mats", 45.0)],
        ),
        ("snagged a robot vacuum, $499 down from $899, basically a necessity", [("robot vacuum", 499.0)]),
    ],
)
def test_a_price_after_the_thing_with_a_sign_it_was_bought(line, found):
    assert _bought(line) == found


@pytest.mark.parametrize(
    "line",
    [
        "Thinking about a used Tesla Model 3, seller wants $32k.",  # a thought
        "Kiri meanwhile bought himself an e-bike for $2,800 for the Geelong lifestyle",  # someone else
        "one guy, Tobi, bought a 3D printer for like 600 euros",
        "Jas's bro also just bought a BMW, $290k in SG",
        "the electricity bill this month, uf, 380 euros",  # a bill
        "we went to Chengdu Garden, £48, the dumplings were unreal",  # a meal out
        "got the train, 145, and then a bus",  # a journey
        "sold my old bike, $300, to a guy at work",  # sold
        "new runners $180 is that normal for asics",  # no verb of buying: too little to tell
        "oh and the belt bag arrived today, $89 from Lululemon",  # "arrived" names no purchase by itself
        "Got two quotes, $3,200 and $4,100 installed, haven't decided yet.",  # "got" says too little here
    ],
)
def test_no_purchase_from_a_price_that_buys_nothing_of_the_speakers(line):
    for fact in facts_of(line, speaker="Kim"):
        assert purchase_signs.detect(fact) == []


@pytest.mark.parametrize(
    "line, found",
    [
        # "it" stands for the thing the sentence named before it
        ("I waited and the coat went on sale for Black Friday, I bought it for 246€!!", [("coat", 246.0)]),
        # whom or what it was for, before the thing
        ("got the mam a nespresso for christmas, 89 euro in argos", [("nespresso", 89.0)]),
        ("I bought for the shop a new till, it was 430 euros", [("new till", 430.0)]),
        ("for reyes i bought my little brother a lego set, $899 at liverpool", [("lego set", 899.0)]),
        # "back in the spring" says when, not what
        ("Grabbed the Model 3 back in the spring, got the guy down to $30,500.", [("Model 3", 30500.0)]),
    ],
)
def test_the_thing_bought_is_named_not_a_word_standing_for_it(line, found):
    assert _bought(line) == found


@pytest.mark.parametrize(
    "line",
    [
        "Bought it for $40 in the end.",  # nothing names what "it" is: unclear, not a record of "it"
        "Got two quotes, $3,200 and $4,100 installed, haven't decided yet.",  # quotes, not purchases
        "Bought a used parka for $120 (the Canada Goose version retails for like $1,500).",  # $1,500 was not paid
    ],
)
def test_no_record_of_a_word_standing_for_a_thing_a_quote_or_a_retail_price(line):
    assert all(item not in ("it", "two quotes", "and") and amount != 1500.0 for item, amount in _bought(line))
    assert all(amount != 3200.0 for _, amount in _bought(line))


def test_a_thing_not_named_stays_on_the_timeline_unclear():
    from uac.compile.kinds import detect

    [fact] = facts_of("Bought it for $40 in the end.", speaker="Kim")
    found = detect(fact)
    assert found and all("_doubt" in s.fields for s in found if s.kind == "purchase")


def test_a_make_named_after_the_thing_keeps_the_thing():
    line = (
        "Also I finally bit the bullet and bought new walking boots yesterday, Meindls from Tiso on Rose Street, £165."
    )
    assert _bought(line) == [("Meindls new walking boots", 165.0)]
    # the make alone, with no thing before it, stays the make
    assert _bought("Finally bought Meindls from Tiso on Rose Street, £165.") == [("Meindls", 165.0)]
