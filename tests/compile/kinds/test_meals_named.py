"""Meals out at a named restaurant without "dinner at": the name, the cost, the company."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import assemble, detect, registry

from .conftest import facts_of

MEAL = next(k for k in registry() if k.name == "meal")


def _meals(*lines: str, speaker: str = "Sam") -> list[dict]:
    facts = facts_of(*lines, speaker=speaker, said_on=dt.date(2024, 3, 4))
    return [a.fields for a in assemble(MEAL, [s for f in facts for s in detect(f)], {f.id: f for f in facts})]


@pytest.mark.parametrize(
    "line, place, amount, companions",
    [
        ("We went to Pomegranate Yard, the Persian place near the station, £70 for the two of us.", "Pomegranate Yard", 70.0, []),
        ("had Wrenfield on Sunday with Ana, the brunch plates are huge", "Wrenfield", None, ["Ana"]),
        ("Had a cosy dinner with Ana at Copper Kettle, €44 for both of us.", "Copper Kettle", 44.0, ["Ana"]),
        ("We tried the new Georgian place in Leith, Tbilisi Nights, £52 for my half.", "Tbilisi Nights", 52.0, []),
        ("grabbed tacos at Loma Verde on Friday, $18", "Loma Verde", 18.0, []),
        ("brunch at Ottoline with Ben was exactly what I needed", "Ottoline", None, ["Ben"]),
        ("Our best dinner of the trip was at Casa Fenix, grilled octopus.", "Casa Fenix", None, []),
        ("So my team lunch was on Thursday at Marlowe's Kitchen on Dale Street, the company paid.", "Marlowe's Kitchen", None, []),
        ("Then the night before we flew home we had the best meal at Quinta Rosa, €60 for both.", "Quinta Rosa", 60.0, []),
    ],
)
def test_a_named_restaurant_is_a_meal_out(line, place, amount, companions):
    [meal] = _meals(line)
    assert (meal["place"], meal["amount"], meal["companions"]) == (place, amount, companions)


@pytest.mark.parametrize(
    "line",
    [
        "I cooked dinner at home, a big pot of dal.",
        "I'd love to go to Pomegranate Yard, the Persian place near the station.",
        "We should try Copper Kettle for dinner some time.",
        "had Ana over on Sunday for dinner",
        "We had Lisbon on the list for dinner and drinks.",
        "Maybe we go to Wrenfield, the brunch spot, next week?",
        "Dinner at Copper Kettle would be perfect for Ana's birthday.",
        "lunch at Ottoline tomorrow with Ben",
    ],
)
def test_no_meal_out(line):
    assert _meals(line) == []


def test_the_assistants_idea_is_no_meal():
    facts = facts_of("You could try Loma Verde, the taco place, for dinner.", speaker="assistant", listener="Sam")
    assert [s for f in facts for s in detect(f)] == []


def _meal_places(line: str) -> list[tuple]:
    from uac.compile.kinds import meals

    return [(s.fields["place"], s.fields["amount"], s.fields["currency"]) for f in facts_of(line) for s in meals.detect(f)]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("Friday we went to Tbilisi Nights on Park Road for my sister's birthday, the Georgian place, £70 all in.", [("Tbilisi Nights", 70.0, "GBP")]),
        ("I took my mentor Ruth out to Hattie's Kitchen for her leaving do, the set lunch, £25 each.", [("Hattie's Kitchen", 25.0, "GBP")]),
        ("Had the best curry at Uncle Raj's?", []),
        ("We had the best dumplings at Auntie Mei's, £30 for the two of us.", []),
        ("We had the best ramen at Papa Kenzo's, £30 for the two of us.", [("Papa Kenzo's", 30.0, "GBP")]),
        ("We cycled to the coast, swam twice, and then had lunch at The Crab Shed, £41.", [("The Crab Shed", 41.0, "GBP")]),
    ],
)
def test_meals_out_as_chats_tell_them(line, expected):
    assert _meal_places(line) == expected


def test_a_place_eaten_at_twice_is_two_meals_the_amount_on_the_one_it_was_said_of():
    assert _meal_places("We ate at Bistro Anouk near the station twice, the second time was 60 euros for everything.") == [
        ("Bistro Anouk", None, None), ("Bistro Anouk", 60.0, "EUR")
    ]
