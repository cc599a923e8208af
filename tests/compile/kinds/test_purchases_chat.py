"""Purchases as chats tell them: the thing named after "one", "of the ...", an item
named before the speaker bought it, a second item priced without its currency."""

from __future__ import annotations

import pytest

from uac.compile.kinds import detect, doubt

from .conftest import facts_of


def _bought(line: str) -> list[tuple]:
    return [
        (s.fields["item"], s.fields["amount"], s.fields["currency"])
        for f in facts_of(line)
        for s in detect(f)
        if s.kind == "purchase" and not doubt(s)
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("Forget it, I bought one already, the Barbour wax jacket, £210 in the end.", [("Barbour wax jacket", 210.0, "GBP")]),
        ("I bought a small painting of the harbour at the market for €35.", [("small painting", 35.0, "EUR")]),
        ("I bought a pair of hiking boots for $140.", [("pair of hiking boots", 140.0, "USD")]),
        ("I have to send back the wool blanket I bought last week, £70, it itches.", [("wool blanket", 70.0, "GBP")]),
        ("Ordered a bookcase for £120 from Habitat and a side table for 45.", [("bookcase", 120.0, "GBP"), ("side table", 45.0, "GBP")]),
    ],
)
def test_chat_purchases(line, expected):
    assert _bought(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "I looked at the lamp I almost bought, £90, no way.",
        "The cake my sister bought was huge.",
    ],
)
def test_no_chat_purchase(line):
    assert _bought(line) == []


@pytest.mark.parametrize(
    "line, expected",
    [
        ("I bought a wok instead, $38, because the old one warped.", [("wok", 38.0, "USD")]),
        ("Swam for an hour at the lido, got a new pair of goggles there for £12.", [("new pair of goggles", 12.0, "GBP")]),
        ("I brought back a rug from Marrakesh, 900 dirhams, no regrets.", [("rug", 900.0, "AED")]),
        ("I returned the Bose earbuds I got in March, $199, the fit was awful.", [("Bose earbuds", 199.0, "USD")]),
        ("We paid 45 lari for the whole feast.", []),
    ],
)
def test_purchases_told_in_passing(line, expected):
    assert _bought(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "Tom climbed for an hour, got a new harness for $80.",
        "Maybe I'll swim at the lido, got a voucher for £12 somewhere.",
    ],
)
def test_no_purchase_going_on_from_someone_else_or_a_maybe(line):
    assert _bought(line) == []


def test_a_purchase_going_on_after_the_speakers_report():
    assert _bought("I ran the park loop twice, then got a new pair of socks for $15.") == [("new pair of socks", 15.0, "USD")]
