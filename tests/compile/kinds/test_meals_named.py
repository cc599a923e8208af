"""Meals out at a named restaurant without "dinner at": the name, the cost, the company."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import assemble, detect, registry

from .conftest import facts_of, records_of

MEAL = next(k for k in registry() if k.name == "meal")


def _meals(*lines: str, speaker: str = "Sam") -> list[dict]:
    facts = facts_of(*lines, speaker=speaker, said_on=dt.date(2024, 3, 4))
    return [a.fields for a in assemble(MEAL, [s for f in facts for s in detect(f)], {f.id: f for f in facts})]


@pytest.mark.parametrize(
    "line, place, amount, companions",
    [
        (
            "We went to Pomegranate Yard, the Persian place near the station, £70 for the two of us.",
            "Pomegranate Yard",
            70.0,
            [],
        ),
        ("had Wrenfield on Sunday with Ana, the brunch plates are huge", "Wrenfield", None, ["Ana"]),
        ("Had a cosy dinner with Ana at Copper Kettle, €44 for both of us.", "Copper Kettle", 44.0, ["Ana"]),
        ("We tried the new Georgian place in Leith, Tbilisi Nights, £52 for my half.", "Tbilisi Nights", 52.0, []),
        ("grabbed tacos at Loma Verde on Friday, $18", "Loma Verde", 18.0, []),
        ("brunch at Ottoline with Ben was exactly what I needed", "Ottoline", None, ["Ben"]),
        ("Our best dinner of the trip was at Casa Fenix, grilled octopus.", "Casa Fenix", None, []),
        (
            "So my team lunch was on Thursday at Marlowe's Kitchen on Dale Street, the company paid.",
            "Marlowe's Kitchen",
            None,
            [],
        ),
        (
            "Then the night before we flew home we had the best meal at Quinta Rosa, €60 for both.",
            "Quinta Rosa",
            60.0,
            [],
        ),
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

    return [
        (s.fields["place"], s.fields["amount"], s.fields["currency"]) for f in facts_of(line) for s in meals.detect(f)
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "Friday we went to Tbilisi Nights on Park Road for my sister's birthday, the Georgian place, £70 all in.",
            [("Tbilisi Nights", 70.0, "GBP")],
        ),
        (
            "I took my mentor Ruth out to Hattie's Kitchen for her leaving do, the set lunch, £25 each.",
            [("Hattie's Kitchen", 25.0, "GBP")],
        ),
        ("Had the best curry at Uncle Raj's?", []),
        ("We had the best dumplings at Auntie Mei's, £30 for the two of us.", []),
        ("We had the best ramen at Papa Kenzo's, £30 for the two of us.", [("Papa Kenzo's", 30.0, "GBP")]),
        (
            "We cycled to the coast, swam twice, and then had lunch at The Crab Shed, £41.",
            [("The Crab Shed", 41.0, "GBP")],
        ),
    ],
)
def test_meals_out_as_chats_tell_them(line, expected):
    assert _meal_places(line) == expected


def test_a_place_eaten_at_twice_is_two_meals_the_amount_on_the_one_it_was_said_of():
    assert _meal_places(
        "We ate at Bistro Anouk near the station twice, the second time was 60 euros for everything."
    ) == [("Bistro Anouk", None, None), ("Bistro Anouk", 60.0, "EUR")]


@pytest.mark.parametrize(
    "line, place, amount",
    [
        # a meal as the subject, however it is named
        (
            "Best meal was The Salted Gull down near the waterfront, $130 for both of us with wine.",
            "The Salted Gull",
            130.0,
        ),
        (
            "Also wednesday was a staff dinner at Bep Nho in Footscray, the pho place, my share was $28.",
            "Bep Nho",
            28.0,
        ),
        ("Yesterday was kind of a goodbye dinner with Jakob at Little Seoul on Hermannstrasse.", "Little Seoul", None),
        (
            "My farewell dinner from the staff was on thursday at Trattoria Lucca and they paid.",
            "Trattoria Lucca",
            None,
        ),
        # a name described as an eatery wherever the clause puts it, a place found, what was eaten there
        (
            "Then Kiri and I snuck off to celebrate, just the two of us, at The Harbourmaster, the seafood place on the waterfront.",
            "The Harbourmaster",
            None,
        ),
        (
            "We found a place called Tasca do Ze in Graca, no menu, grilled sardines, €34 for both of us.",
            "Tasca do Ze",
            34.0,
        ),
        (
            "5 years with Mira yesterday 🥹 we went to Salz & Seele in the Sudvorstadt, the tasting menu, €96 for both.",
            "Salz & Seele",
            96.0,
        ),
    ],
)
def test_meals_told_as_a_subject_a_description_or_a_find(line, place, amount):
    [meal] = _meals(line)
    assert (meal["place"], meal["amount"]) == (place, amount)


@pytest.mark.parametrize(
    "line",
    [
        "We'll celebrate at The Harbourmaster, the seafood place on the waterfront.",
        "Ana snuck off to The Harbourmaster, the seafood place on the waterfront.",
        "We found a place called Plagwitz Lofts, three rooms and a balcony.",
        "Best meal would be Casa Fenix, if it's open.",
    ],
)
def test_no_meal_from_a_plan_another_person_or_a_find_without_food(line):
    assert _meals(line) == []


def _meals_in_context(*lines: str, speaker: str = "Sam") -> list[tuple]:
    from uac.compile.kinds import localise

    facts = facts_of(*lines, speaker=speaker, said_on=dt.date(2024, 3, 4))
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    meals = localise(seen, facts).get("meal", [])
    return [
        (a.fields["place"], a.fields["amount"], a.fields["currency"], len(a.sources))
        for a in assemble(MEAL, meals, {f.id: f for f in facts})
    ]


def test_a_meals_cost_said_in_the_next_sentence():
    assert _meals_in_context("We had dinner at Oaxaca Kitchen last night. €94 for the two of us with mezcals.") == [
        ("Oaxaca Kitchen", 94.0, "EUR", 2)
    ]
    assert _meals_in_context("Had dinner at Little Seoul with Jakob yesterday. 27,50 € for my half.") == [
        ("Little Seoul", 27.5, "EUR", 2)
    ]
    # the next sentence is about something else, or tells its own record
    assert _meals_in_context("We had dinner at Oaxaca Kitchen last night. The rent is €900 now.") == [
        ("Oaxaca Kitchen", None, None, 1)
    ]
    assert (
        _meals_in_context("We had dinner at Oaxaca Kitchen last night. €45 well spent: I bought a lamp for €45.")[0][1]
        is None
    )


@pytest.mark.parametrize(
    "line, place, meal, amount",
    [
        (
            "He treated all of us to dinner at The Blue Anchor on the beachfront, even Ouma came.",
            "The Blue Anchor",
            "dinner",
            None,
        ),
        ("The team took me for a goodbye lunch at Nonna Rosa in Obs, £24 each.", "Nonna Rosa", "lunch", 24.0),
        (
            "Jess took me out to Beira Peri-Peri in Woodstock on Friday, £43 for both of us.",
            "Beira Peri-Peri",
            None,
            43.0,
        ),
        # "I'd lost a bet" is a report ("had"), not a wish ("would")
        (
            "dinner on saturday at Perlemoen & Co, bill came to £87 and I got it because I'd lost a bet",
            "Perlemoen & Co",
            "dinner",
            87.0,
        ),
    ],
)
def test_a_meal_someone_treated_the_speaker_to(line, place, meal, amount):
    [found] = _meals(line)
    assert (found["place"], found["meal"], found["amount"]) == (place, meal, amount)


@pytest.mark.parametrize(
    "line",
    [
        "Jess took me out to Kirstenbosch on Sunday.",  # no meal, no amount
        "Tom will take me to dinner at Nopa.",
        "Tom might treat us to dinner at Nopa.",
        "Jess took me out to Paris for my birthday, £400.",  # a place of the gazetteer
        "Ana took Tom for lunch at Nopa.",  # not the speaker
    ],
)
def test_no_treat_that_is_no_meal_of_the_speaker(line):
    assert _meals(line) == []


@pytest.mark.parametrize(
    "line, place, meal, amount",
    [
        ("ana took me to golden fig on the high street saturday, £40 w tip", "Golden Fig", None, 40.0),
        ("the company paid for a dinner at salt & cedar, a fish place on the pier", "Salt & Cedar", "dinner", None),
        ("dad treated us all at birch & rye on sunday, the one nice restaurant in town", "Birch & Rye", None, None),
        ("his mum took everyone to jade garden for dim sum on monday", "Jade Garden", None, None),
        ("the team took me out to bistro saint-malo on friday, the tagine was unreal", "Bistro Saint-Malo", None, None),
    ],
)
def test_a_meal_out_at_a_place_named_in_lower_case(line, place, meal, amount):
    [found] = _meals(line)
    assert (found["place"], found["meal"], found["amount"]) == (place, meal, amount)


@pytest.mark.parametrize(
    "line",
    [
        "ana took me to the hospital on friday, $40 for parking",  # a determiner: no eatery's name
        "ana took me to ikea on saturday, got a shelf for £40",  # no meal, eatery or tip said
        "ana took me to lisbon for my birthday dinner",  # a place of the gazetteer
        "ana took me to see a play on friday, dinner after",  # a verb, not a name
        "ana might take me to golden fig for dinner",  # not done
    ],
)
def test_no_lower_case_meal_that_is_no_meal_out(line):
    assert _meals(line) == []


@pytest.mark.parametrize(
    "line, place, meal, amount",
    [
        ("had dinner at salt & cedar on friday, £80 for the two of us", "Salt & Cedar", "dinner", 80.0),
        ("we grabbed lunch at jade garden last week", "Jade Garden", "lunch", None),
        ("had a lovely brunch with ana at copper kettle", "Copper Kettle", "brunch", None),
    ],
)
def test_a_meal_said_with_its_eatery_in_lower_case(line, place, meal, amount):
    [found] = _meals(line)
    assert (found["place"], found["meal"], found["amount"]) == (place, meal, amount)


@pytest.mark.parametrize(
    "line",
    [
        "had dinner at home on friday",
        "had dinner at grandmas on sunday",  # someone's home
        "had lunch at sam's after the game",
        "had dinner at lisbon airport",  # a place of the gazetteer
        "had lunch at work with the team",
        "had dinner at the ivy",  # a determiner: a capitalised name is read, a lower-case one not
    ],
)
def test_no_lower_case_eatery_that_is_a_home_or_a_place(line):
    assert _meals(line) == []


@pytest.mark.parametrize(
    "line, place, amount",
    [
        (
            "took her to an omakase in haeundae, 180 dollars for two, the most I've spent",
            "omakase place in haeundae",
            180.0,
        ),
        ("we took the kids to a pizza place on friday, €45", "pizza place", 45.0),
        ("dad took us all out for galbi at this place near their apt, $80", "galbi place", None),  # he paid
        ("then farewell dinner with Caro and Nico at Miranda, $45 my part, worth it", "Miranda", 45.0),
        ("fun part: dinner at Liguria with two vets on the thursday, $38 my part", "Liguria", 38.0),
    ],
)
def test_a_meal_out_told_by_who_took_whom_or_by_its_occasion(line, place, amount):
    [meal] = records_of("meal", line)
    assert (meal["place"], meal["amount"]) == (place, amount)


@pytest.mark.parametrize(
    "line",
    [
        "my sister took her kids out for pizza in town",
        "he took me out for a drive to the coast",
        "we took Ana out for her birthday",
    ],
)
def test_no_meal_taken_out_by_someone_else_or_for_no_dish(line):
    assert records_of("meal", line) == []


@pytest.mark.parametrize(
    "line, place, amount",
    [
        ("dinner in the Clew Bay Bistro was 78 dollars and we climbed nothing.", "Clew Bay Bistro", 78.0),
        (
            "Mio took me for yakiniku on Saturday to celebrate, at Matsusaka-ya in Tenma, she paid.",
            "Matsusaka-ya",
            None,
        ),
        (
            "also took the kids to buffalo wild wings after the game saturday, $62 for the 4 of us",
            "Buffalo Wild Wings",
            62.0,
        ),
    ],
)
def test_a_meal_in_a_named_eatery_or_taken_to_one_by_its_food(line, place, amount):
    [meal] = records_of("meal", line)
    assert (meal["place"], meal["amount"]) == (place, amount)


@pytest.mark.parametrize("line", ["dinner in Lisbon was lovely, $40.", "my sister took her kids to the pizza kitchen"])
def test_no_meal_in_a_town_or_someone_elses(line):
    assert records_of("meal", line) == []


def test_a_meal_with_its_day_before_the_place():
    [meal] = records_of("meal", "Dinner on Saturday at Ogień on Zabłocie, eight of us, 180 zł my part.")
    assert (meal["place"], meal["amount"], meal["currency"]) == ("Ogień", 180.0, "PLN")


def _local_meals(*lines: str, currency: str) -> list[tuple]:
    from uac.compile.kinds import localise

    facts = facts_of(*lines, speaker="Rafael", said_on=dt.date(2026, 3, 3))
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    return [(s.fields["place"], s.fields["meal"], s.fields["amount"]) for s in localise(seen, facts, currency)["meal"]]


def test_an_eatery_opening_the_report_then_the_meal_had_there():
    line = "Mercado Central for lunch on saturday like you said, fígado com jiló and a cold beer, 45 reais."
    assert _local_meals(line, currency="BRL") == [("Mercado Central", "lunch", 45.0)]
    assert _local_meals("Mercado Central for lunch tomorrow?", currency="BRL") == []
    assert _local_meals("Lisbon for lunch on saturday was great.", currency="EUR") == []


def test_a_bill_for_both_of_us_in_the_users_money_after_the_extractor_named_us():
    line = "best dinner was Tragaluz on saturday, 260 for both of us, I paid because Ju did all the driving."
    assert _local_meals(line, currency="BRL") == [("Tragaluz", "dinner", 260.0)]
