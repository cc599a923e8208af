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
