"""Meals out, jobs and purchases: phrasings, negatives and assembling."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.compile.kinds import assemble, detect, doubt, registry
from uac.dates import Period

from .conftest import fact_of, facts_of, records_of

KINDS = {k.name: k for k in registry()}


def sightings(line: str, kind: str, **kwargs):
    return [s for s in detect(fact_of(line, **kwargs)) if s.kind == kind and not doubt(s)]


def one(line: str, kind: str) -> dict:
    [sighting] = sightings(line, kind)
    return sighting.fields


def test_registry_is_the_contract():
    assert [(k.name, k.domain, k.collection, k.cls.name) for k in registry()] == [
        ("trip", "travel", "trips", "Trip"),
        ("meal", "food", "meals", "Meal"),
        ("job", "work", "jobs", "Job"),
        ("purchase", "finance", "purchases", "Purchase"),
        ("workout", "health", "workouts", "Workout"),
        ("book", "hobbies", "books", "Book"),
        ("home", "general", "homes", "Home"),
    ]
    for kind in registry():
        names = [f.name for f in kind.cls.fields]
        assert names[-2:] == ["said_on", "sources"]
        assert kind.description
    trip = KINDS["trip"]
    assert [e.name for e in trip.enums] == ["TripStatus"]
    assert [m[0] for m in trip.enums[0].members] == ["done", "planned", "cancelled"]
    assert trip.cls.field("start").type.source() == "Period | None"


# -- meals --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, place, cuisine, companions",
    [
        ("I had dinner at Nopa with Ana last Friday.", "Nopa", None, ["Ana"]),
        ("We tried a new ramen place yesterday.", "a new ramen place", "ramen", []),
        ("I grabbed lunch at a little Thai place near work.", "a little Thai place", "thai", []),
        ("I had sushi at Nobu on Saturday.", "Nobu", "sushi", []),
        ("We ate at Chez Panisse for my birthday.", "Chez Panisse", None, []),
        ("We went to Nopa for dinner.", "Nopa", None, []),
        ("We tried a new place called Zuni last week.", "Zuni", None, []),
        ("I had brunch with Ana and Ben at Tartine.", "Tartine", None, ["Ana", "Ben"]),
        ("We went out for tacos last night.", None, "tacos", []),
        ("I had coffee at Blue Bottle this morning.", "Blue Bottle", None, []),
    ],
)
def test_meal_phrasings(line, place, cuisine, companions):
    fields = one(line, "meal")
    assert (fields["place"], fields["cuisine"], fields["companions"]) == (place, cuisine, companions)


@pytest.mark.parametrize(
    "line",
    [
        "I had dinner at home.",
        "I had lunch at Ana's place.",
        "I cooked dinner for the kids.",
        "I'll have dinner at Nopa tomorrow.",
        "I had a great time at Disneyland.",
        "I had dinner with Ana.",
        "I went to the gym.",
        "My sister had dinner at Nopa.",
        "I had lunch at work.",
        "I found a quiet spot in the park.",
        "I visited this place and it was so calming.",
        "We went to a place in London a few years ago.",
    ],
)
def test_no_meal_out(line):
    assert sightings(line, "meal") == []


def test_a_meal_is_no_trip():
    found = detect(fact_of("We went to Nopa for dinner last Friday."))
    assert [s.kind for s in found] == ["meal"]


def test_meals_dated_and_merged_per_day():
    facts = facts_of(
        "I had dinner at Nopa with Ana last Friday.", "Sam loved the dinner at Nopa.", "I had sushi at Nobu yesterday."
    )
    meals = assemble(KINDS["meal"], [s for f in facts for s in detect(f)], {f.id: f for f in facts})
    assert [(m.fields["place"], m.fields["when"]) for m in meals] == [
        ("Nopa", Period.day(dt.date(2023, 6, 2))),
        ("Nobu", Period.day(dt.date(2023, 6, 8))),
    ]


# -- jobs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, employer, role, event",
    [
        ("I work at Acme Corp as an analyst.", "Acme Corp", "analyst", "current"),
        ("I'm a nurse at St Mary Hospital.", "St Mary Hospital", "nurse", "current"),
        ("I now work at Initech as a designer.", "Initech", "designer", "start"),
        ("I started at Globex last week.", "Globex", None, "start"),
        ("I joined Hooli in March.", "Hooli", None, "start"),
        ("I got a job at Google as a software engineer.", "Google", "software engineer", "start"),
        ("I started a new job as a counselor last week!", None, "counselor", "start"),
        ("I'm leaving Acme Corp.", "Acme Corp", None, "end"),
        ("I was laid off from Twitter.", "Twitter", None, "end"),
        ("I quit my job at the bank.", "the bank", None, "end"),
        ("I worked at IBM for ten years.", "IBM", None, "past"),
        ("I work at a bakery downtown.", "a bakery", None, "current"),
        ("I lost my job at the mechanical engineering company.", "the mechanical engineering company", None, "end"),
        ("I started a new job as a Financial Analyst last week.", None, "Financial Analyst", "start"),
    ],
)
def test_job_phrasings(line, employer, role, event):
    fields = one(line, "job")
    assert (fields["employer"], fields["role"], fields["_event"]) == (employer, role, event)


@pytest.mark.parametrize(
    "line",
    [
        "My friend works at Initech.",
        "I joined Ana for lunch.",
        "I work from home.",
        "Ana's boss joined Hooli.",
        "I went to work.",
        "What worked for Ana was a fitness routine.",
    ],
)
def test_no_job(line):
    assert sightings(line, "job") == []


def _jobs(*sessions):
    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    return assemble(KINDS["job"], [s for f in facts for s in detect(f)], {f.id: f for f in facts})


def test_a_new_job_closes_the_open_one():
    acme, initech = _jobs(
        (dt.date(2023, 1, 10), ["I work at Acme as an analyst."]),
        (dt.date(2023, 6, 9), ["I joined Initech last month as a designer."]),
    )
    assert (acme.fields["employer"], acme.fields["current"], acme.fields["end"]) == (
        "Acme",
        False,
        Period.month(2023, 5),
    )
    assert (initech.fields["employer"], initech.fields["current"], initech.fields["start"]) == (
        "Initech",
        True,
        Period.month(2023, 5),
    )


def test_leaving_closes_a_job_and_left_a_city_is_no_job():
    [acme] = _jobs(
        (dt.date(2023, 1, 10), ["I work at Acme Corp."]),
        (dt.date(2023, 6, 9), ["I left Acme yesterday.", "I left Lisbon on Monday."]),
    )
    assert acme.fields["current"] is False
    assert acme.fields["end"] == Period.day(dt.date(2023, 6, 8))
    assert len(acme.sources) == 2


def test_two_present_jobs_stay_current():
    jobs = _jobs((dt.date(2023, 1, 10), ["I work at Acme.", "I also work at a bakery on weekends."]))
    assert [j.fields["current"] for j in jobs] == [True, True]


# -- purchases -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, item, amount, currency, where",
    [
        ("I bought a bike for $450.", "bike", 450.0, "USD", None),
        ("I paid 30 euros for a haircut yesterday.", "haircut", 30.0, "EUR", None),
        ("I spent £200 on concert tickets.", "concert tickets", 200.0, "GBP", None),
        ("I got a new phone for 300 dollars at Best Buy.", "new phone", 300.0, "USD", "Best Buy"),
        ("I picked up a lamp at IKEA for €25.", "lamp", 25.0, "EUR", "IKEA"),
        ("I bought two tickets for fifty bucks.", "two tickets", 50.0, "USD", None),
        ("I bought a used car for $3.5k.", "used car", 3500.0, "USD", None),
        ("I paid EUR 1,200 for a new laptop.", "new laptop", 1200.0, "EUR", None),
        ("I ordered a desk from Amazon last week.", "desk", None, None, "Amazon"),
        ("I bought myself an adventure book.", "adventure book", None, None, None),
        ("I bought a lot of new books.", "new books", None, None, None),
    ],
)
def test_purchase_phrasings(line, item, amount, currency, where):
    fields = one(line, "purchase")
    assert (fields["item"], fields["amount"], fields["currency"], fields["where"]) == (item, amount, currency, where)


@pytest.mark.parametrize(
    "line",
    [
        "I spent five nights in Rome.",
        "I paid attention in class.",
        "I got a cat.",
        "I want to buy a car.",
        "I bought into the idea.",
        "My sister bought a bike for $300.",
        "I spent three hours on the report.",
    ],
)
def test_no_purchase(line):
    assert sightings(line, "purchase") == []


@settings(max_examples=80, deadline=None)
@given(
    amount=st.integers(min_value=1, max_value=99999),
    sign=st.sampled_from(
        [("$", "", "USD"), ("€", "", "EUR"), ("£", "", "GBP"), ("", " euros", "EUR"), ("", " dollars", "USD")]
    ),
    item=st.sampled_from(["bike", "lamp", "winter coat", "pair of boots"]),
)
def test_any_amount_and_currency(amount, sign, item):
    prefix, suffix, code = sign
    fields = one(f"I bought a {item} for {prefix}{amount:,}{suffix}.", "purchase")
    assert (fields["item"], fields["amount"], fields["currency"]) == (item, float(amount), code)


def _purchases(line: str) -> list[tuple]:
    from uac.compile.kinds import purchases

    return [
        (s.fields["item"], s.fields["amount"], s.fields["currency"])
        for s in purchases.detect(fact_of(line))
        if not doubt(s)
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("I bought a kettle for £30 and a toaster for £25.", [("kettle", 30.0, "GBP"), ("toaster", 25.0, "GBP")]),
        (
            "Bought a rocking chair for €210 and a footstool for 40, both arrive Monday.",
            [("rocking chair", 210.0, "EUR"), ("footstool", 40.0, "EUR")],
        ),
        ("finally ordered a rowing machine yesterday — $640.", [("rowing machine", 640.0, "USD")]),
        ("I got a secondhand guitar for fifty quid.", [("secondhand guitar", 50.0, "GBP")]),
        ("I bought these hand-painted mugs at the market for ¥2,400.", [("hand-painted mugs", 2400.0, "JPY")]),
        ("I nearly bought a drone for $300.", []),
    ],
)
def test_purchases_carry_their_amounts(line, expected):
    assert _purchases(line) == expected


def test_a_meal_out_carries_its_cost():
    from uac.compile.kinds import meals

    [sighting] = meals.detect(fact_of("I had dinner at Copper Kettle with Rosa, £30 for my half."))
    assert (sighting.fields["amount"], sighting.fields["currency"]) == (30.0, "GBP")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("€48", [(48.0, "EUR")]),
        ("it was fifty quid", [(50.0, "GBP")]),
        ("1.299,99 €", [(1299.99, "EUR")]),
        ("about 200 Swiss francs", [(200.0, "CHF")]),
        ("a couple hundred bucks", [(200.0, "USD")]),
        ("CA$45 each", [(45.0, "CAD")]),
        ("five nights, the 40 bus, 5 km", []),
        ("3 pounds of flour", []),
        ("お茶 ¥500 🍵", [(500.0, "JPY")]),
        ("Ich habe 30 EUR bezahlt", [(30.0, "EUR")]),
        ("it came to 70 lari", [(70.0, "GEL")]),
        ("about 300 lei each", [(300.0, "RON")]),
        ("the bill was 40 quid", [(40.0, "GBP")]),
        ("and for 85 euros", [(85.0, "EUR")]),
        ("USD 20 and EUR 5", [(20.0, "USD"), (5.0, "EUR")]),
    ],
)
def test_amounts_of_money(text, expected):
    from uac.extract.money import find_amounts

    assert [(m.amount, m.currency) for m in find_amounts(text)] == expected


def test_a_dollar_sign_with_a_code_after_it_is_that_dollar():
    from uac.extract.money import find_amounts, local_currency, names_us_dollar

    assert [(m.amount, m.currency) for m in find_amounts("$86 NZD which is nothing")] == [(86.0, "NZD")]
    assert [(m.amount, m.currency) for m in find_amounts("$86 and more")] == [(86.0, "USD")]
    assert (
        local_currency(None, "AU"),
        local_currency("CAD", "AU"),
        local_currency(None, "GB"),
        local_currency("EUR", "AU"),
    ) == ("AUD", "CAD", None, None)
    # a land whose own sign is "$" though English writes its code: Singapore's, Colombia's, Jamaica's
    assert [local_currency(None, c) for c in ("SG", "CO", "JM", "IN")] == ["SGD", "COP", "JMD", None]
    assert names_us_dollar("US$40") and names_us_dollar("40 USD") and not names_us_dollar("$40")


@pytest.mark.parametrize(
    "text, local, expected",
    [
        ("the lamp was R450", "ZAR", [(450.0, "ZAR")]),
        ("paid R 450 for it", "ZAR", [(450.0, "ZAR")]),
        ("a rug for R1 200", "ZAR", [(1200.0, "ZAR")]),
        ("a rug for R1\u202f200", "ZAR", [(1200.0, "ZAR")]),
        ("the jacket was R899,99", "ZAR", [(899.99, "ZAR")]),
        ("about R4k all in", "ZAR", [(4000.0, "ZAR")]),
        ("the tour was N$780", "NAD", [(780.0, "NAD")]),
        ("kr 199 at IKEA", "SEK", [(199.0, "SEK")]),
        ("it was 199 kr", "NOK", [(199.0, "NOK")]),
        ("249 kr. for two", "DKK", [(249.0, "DKK")]),
        ("200 zł for the tickets", "PLN", [(200.0, "PLN")]),
        ("RM 45 for lunch", "MYR", [(45.0, "MYR")]),
        ("S$30 at the hawker centre", "SGD", [(30.0, "SGD")]),
        ("300 krona for the book", "SEK", [(300.0, "SEK")]),
        ("fifty rand for parking", "ZAR", [(50.0, "ZAR")]),
        ("R85 for my half", "ZAR", [(85.0, "ZAR")]),
        ("a lamp for R450 and a rug for R1 200", "ZAR", [(450.0, "ZAR"), (1200.0, "ZAR")]),
    ],
)
def test_amounts_written_the_local_way(text, local, expected):
    from uac.extract.money import find_amounts

    assert [(m.amount, m.currency) for m in find_amounts(text, local)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "R2-D2 was in the film",
        "we danced to R&B all night",
        "we stayed in Room R2",
        "seat R12 on the train",
        "r450 in lower case",
        "2 coffees 40 minutes later",
        "a 3 200m climb",
        "Kr 50 is not how it is written",
        "3 pounds of flour",
    ],
)
def test_no_local_amount(text):
    from uac.extract.money import find_amounts

    local = "SEK" if "Kr" in text else "GBP" if "pounds" in text else "ZAR"
    assert find_amounts(text, local) == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("CHF 1'200 for the watch", [(1200.0, "CHF")]),
        ("CHF 1’200 for the watch", [(1200.0, "CHF")]),
        ("the sofa was 4 200 rand", [(4200.0, "ZAR")]),
        ("89,90 € in the end", [(89.9, "EUR")]),
    ],
)
def test_amounts_grouped_the_local_way(text, expected):
    from uac.extract.money import find_amounts

    assert [(m.amount, m.currency) for m in find_amounts(text)] == expected


def test_local_symbols_and_names_come_from_babel():
    from uac.extract.money import home_currency, local_names, local_symbols

    assert "R" in local_symbols("ZAR") and "kr" in local_symbols("SEK") and "zł" in local_symbols("PLN")
    assert "N$" in local_symbols("NAD") and "S$" in local_symbols("SGD") and "RM" in local_symbols("MYR")
    assert "$" not in local_symbols("AUD") and local_names("ZAR") == ("rand",)
    assert (home_currency(None, "ZA"), home_currency("sek", "ZA"), home_currency(None, None)) == ("ZAR", "SEK", None)


def test_purchases_and_meals_take_the_users_local_amount():
    from uac.compile.kinds import localise

    facts = facts_of(
        "I bought a desk lamp for R450 yesterday.",
        "I had dinner at Marble with Thandi, R899,99 for the two of us.",
        "We stayed in Room R2 and I bought a straw hat there.",
    )
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    for currency, purchases, meals in (
        ("ZAR", [(450.0, "ZAR"), (None, None)], [(899.99, "ZAR")]),
        (None, [(None, None), (None, None)], [(None, None)]),
    ):
        out = localise(seen, facts, currency)
        assert [(s.fields["amount"], s.fields["currency"]) for s in out["purchase"] if not doubt(s)] == purchases
        assert [(s.fields["amount"], s.fields["currency"]) for s in out["meal"]] == meals


def _priced(*texts: str) -> list[tuple]:
    """(amount, currency) of each purchase ``texts`` tell, read against no project currency."""
    from uac.compile.kinds import localise

    facts = facts_of(*texts)
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    out = localise(seen, facts, None)
    return [(s.fields["amount"], s.fields["currency"]) for s in out["purchase"] if not doubt(s)]


def test_a_user_who_never_said_where_home_is_takes_the_country_they_speak_of_most():
    amounts = _priced

    lamp = "I bought a desk lamp for R450 yesterday."
    # three places named, all in South Africa: the rand is the user's currency
    assert amounts(
        "I spent the weekend in Durban.", "We drove to Stellenbosch on Sunday.", "I was in Johannesburg for work.", lamp
    ) == [(450.0, "ZAR")]
    # too few places, or no country with more than half of them: no currency is assumed
    assert amounts("I spent the weekend in Durban.", lamp) == [(None, None)]
    assert amounts(
        "I spent the weekend in Durban.", "We flew to London.", "Then a week in Paris.", "Back to Lisbon.", lamp
    ) == [(None, None)]


def test_a_bare_dollar_is_the_dollar_of_the_country_whose_places_are_named_most():
    def dollars(*texts: str) -> list:
        return [currency for _, currency in _priced(*texts)]

    saw = "I bought a new chainsaw for $649."
    # New Zealand named three times, Australia and England twice each: no country holds most of
    # the places named, but the "$" is a kiwi's
    kiwi = ("We took the caravan down to Timaru.", "Two nights in Dunedin.", "Then on to Invercargill.")
    away = ("We flew to Brisbane at Easter.", "A week in Sydney.", "My brother lives in London.", "He was in Leeds.")
    assert dollars(*kiwi, *away, saw) == ["NZD"]
    # as many places in the US as in Canada: the "$" stays the US one
    north = ("A week in Toronto.", "Then on to Montreal.", "Two nights in Ottawa.")
    assert dollars(*north, "Back to Chicago.", "Then to Denver.", "A week in Boston.", saw) == ["USD"]
    # places of a country with no dollar say nothing of the "$"
    europe = (
        "A week in Paris.",
        "Then on to Lyon.",
        "Two nights in Marseille.",
        "Then to Madrid.",
        "A week in Seville.",
    )
    assert dollars(*europe, "Then on to Rome.", saw) == ["USD"]


def _localised(*texts: str) -> dict[str, list]:
    from uac.compile.kinds import localise

    facts = facts_of(*texts)
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    return localise(seen, facts, None)


def test_places_named_in_lower_case_count_towards_the_country_spoken_of():
    out = _localised(
        "my sister is coming from ottawa.",
        "we had a weekend in montreal.",
        "i drove to toronto.",
        "i bought a kobo, $220.",
    )
    assert [(s.fields["amount"], s.fields["currency"]) for s in out["purchase"]] == [(220.0, "CAD")]


def test_a_home_in_a_city_several_countries_share_lies_where_the_person_names_places():
    moved = "We moved to Hamilton last week."
    out = _localised("My sister is coming from Ottawa.", moved, "I bought a kettle for $40.")
    assert [s.fields["country"] for s in out["home"]] == ["CA"]
    assert [s.fields["currency"] for s in out["purchase"]] == ["CAD"]
    # no country of the name's cities is named: the home's country stays unknown, "$" a dollar
    out = _localised("My sister is coming from Lisbon.", moved, "I bought a kettle for $40.")
    assert [s.fields["country"] for s in out["home"]] == [None]
    assert [s.fields["currency"] for s in out["purchase"]] == ["USD"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("I dropped like two hundred bucks on new scrubs bc mine had a stain.", [("new scrubs", 200.0, "USD")]),
        ("I spent like $40 on a desk lamp.", [("desk lamp", 40.0, "USD")]),
        ("I bought a desk lamp for like $40.", [("desk lamp", 40.0, "USD")]),
    ],
)
def test_a_price_said_as_like_an_amount_and_an_item_up_to_bc(line, expected):
    assert _purchases(line) == expected


def test_a_phrase_before_the_buyer_is_no_item_and_the_purchase_after_it_is_read():
    line = "For the new place I ordered a mattress ($899, the firm one), both delivering friday."
    assert _purchases(line) == [("mattress", 899.0, "USD")]
    assert _purchases("For the trip I might buy a tent for £90.") == []
    # a relative clause still names what was bought: "the running shoes I bought in June"
    assert _purchases("I had to return the running shoes I bought in June, £120.") == [("running shoes", 120.0, "GBP")]


def test_a_purchase_with_no_price_and_a_one_word_thing_stays_on_the_timeline_unclear():
    from uac.compile.kinds import localise

    facts = facts_of("I bought a car last week.", "I bought a secondhand road bike.", "I bought a kettle for $40.")
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    out = localise(seen, facts, "USD")
    kept = [s.fields["item"] for s in out["purchase"] if not doubt(s)]
    assert kept == ["secondhand road bike", "kettle"]
    assert [s.fields["_doubt"] for s in out["purchase"] if doubt(s)] == ["no price, and the thing named by one word"]


def _bought(line: str) -> list[tuple]:
    """(item, amount, currency) of each purchase record ``line`` tells."""
    return [(r["item"], r["amount"], r["currency"]) for r in records_of("purchase", line)]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("Bought a $40 scarf at the market.", [("scarf", 40.0, "USD")]),
        ("Picked up a £12 paperback.", [("paperback", 12.0, "GBP")]),
        ("Got a new €30 lamp yesterday.", [("lamp", 30.0, "EUR")]),
        ("Bought a 40 euro scarf.", [("scarf", 40.0, "EUR")]),
        ("Bought a new €30 lamp and a $12 mug at IKEA.", [("lamp", 30.0, "EUR"), ("mug", 12.0, "USD")]),
    ],
)
def test_a_price_before_the_thing_prices_the_thing(line, expected):
    assert _bought(line) == expected


def test_kr_is_the_users_own_krone_and_of_no_land_without_one():
    home = ("I live in Oslo.", "We spent the weekend in Bergen.", "Then Tromsø for work.")
    for line, amount in (
        ("I bought a wool sweater for 450 kr.", 450.0),
        ("I bought new boots for 1 299,- kr.", 1299.0),
    ):
        assert _priced(*home, line) == [(amount, "NOK")]
        assert _priced(line) == [(None, None)]
    assert _priced("I paid 350 kroner for a new phone case.") == [(350.0, "NOK")]


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "ellie's birthday is a week on saturday, got her a micro scooter off amazon, £35, pink obviously",
            [("micro scooter", 35.0, "GBP")],
        ),
        ("the old kettle died so got a new kettle for £25", [("new kettle", 25.0, "GBP")]),
        # the buying verb has a subject of its own: no purchase of the speaker's
        ("one guy, Tobi, bought a 3D printer for like 600 euros and prints things", []),
        ("my sister came over and got a new bag for $40", []),
        ("the weather was awful so got soaked", []),
    ],
)
def test_a_buying_verb_later_in_a_sentence_without_its_subject_is_the_speakers(line, expected):
    assert _bought(line) == expected


def test_a_price_in_no_currency_after_for_is_in_the_users_own():
    home = ("I live in Bengaluru.", "We drove to Mysuru last weekend.", "Then Coorg for two days.")
    for line, amount in (
        ("Finally bought the headphones for 2.5k.", 2500.0),
        ("Bought a new phone for 18k.", 18000.0),
        ("Ordered a kurta for 1500.", 1500.0),
        ("Got a used bike, 45k.", 45000.0),
    ):
        assert _priced(*home, line) == [(amount, "INR")]
        # no currency known to be the user's: its amount unknown (and a thing of one word no record without one)
        assert _priced(line) in ([], [(None, None)])
    # a year, a count of people, a table: no price
    for line in ("Bought tickets for 2025.", "Ordered pizza for 12 people.", "Booked a table for 4."):
        assert [a for a, _ in _priced(*home, line)] in ([], [None])


@pytest.mark.parametrize(
    "line, expected",
    [
        ("We went to Kathmandu Kitchen on Pearl Street after, it was $35 for me.", [("Kathmandu Kitchen", 35.0)]),
        ("I went to Trattoria Sorrento on Saturday, £72.", [("Trattoria Sorrento", 72.0)]),
        ("I went to Golden Kitchen on Friday.", [("Golden Kitchen", None)]),
        # a plan, someone else's, or no eatery word: no meal out
        ("We're going to Golden Kitchen on Friday.", []),
        ("My sister went to Boston Brewing.", []),
        ("I went to Kings Cross Station.", []),
    ],
)
def test_a_name_an_eatery_word_ends_or_opens_is_a_meal_out(line, expected):
    assert [(r["place"], r["amount"]) for r in records_of("meal", line)] == expected
