"""Trips as people report them in a chat: lower-case places, nights per place, a place
booked, a packing list, the speaker mid-sentence, a plan reported done."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import assemble, detect, registry
from uac.dates import Period
from uac.extract.places import lookup_lower

from .conftest import facts_of

TRIP = next(k for k in registry() if k.name == "trip")


def _trips(*sessions, speaker: str = "Sam") -> list[dict]:
    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, speaker=speaker, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    found = assemble(TRIP, [s for f in facts for s in detect(f)], {f.id: f for f in facts})
    return [{k: a.fields[k] for k in ("destination", "country", "status", "nights")} for a in found]


DAY = dt.date(2024, 3, 4)


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "Four nights in seville and two in bilbao, my feet hate me.",
            [("Seville", "ES", "done", 4), ("Bilbao", "ES", "done", 2)],
        ),
        ("just back from portugal, what a week", [("Portugal", "PT", "done", None)]),
        ("We've booked Marrakesh for Ana's birthday!", [("Marrakesh", "MA", "planned", None)]),
        ("Can you check my packing list for Vienna?", []),
        ("Here's my packing list for Vienna, tell me what I forgot.", [("Vienna", "AT", "planned", None)]),
        ("At Easter we went over to Dublin for the weekend.", [("Dublin", "IE", "done", None)]),
        ("Anyway — we are going to Krakow in May!", [("Krakow", "PL", "planned", None)]),
    ],
)
def test_chat_trips(line, expected):
    assert [tuple(t.values()) for t in _trips((DAY, [line]))] == expected


@pytest.mark.parametrize(
    "line",
    [
        "Had a nice day, reading by the canal.",
        "I went to bed early, totally wiped.",
        "I'd love to see japan one day.",
        "We might spend two nights in rome next year.",
        "We booked Sakura House for dinner.",
    ],
)
def test_no_chat_trip(line):
    assert _trips((DAY, [line])) == []


def test_a_lower_case_place_is_only_a_known_big_place():
    assert lookup_lower("vienna").country == "AT"
    assert [lookup_lower(w) for w in ("nice", "reading", "turkey", "bed", "town", "hull")] == [None] * 6


def test_a_plan_then_nights_in_it_is_one_done_trip():
    trips = _trips(
        (dt.date(2024, 4, 2), ["We're going to Vienna in May!"]),
        (dt.date(2024, 6, 3), ["Three nights in vienna, the cake alone was worth it."]),
    )
    assert trips == [{"destination": "Vienna", "country": "AT", "status": "done", "nights": 3}]


def test_a_city_named_by_its_short_form_is_the_trip_planned():
    trips = _trips(
        (dt.date(2024, 3, 4), ["We're going to Mexico City in May, so excited."]),
        (dt.date(2024, 6, 2), ["got back from CDMX on Friday, best tacos of my life"]),
    )
    assert trips == [{"destination": "Mexico City", "country": "MX", "status": "done", "nights": None}]


def test_a_country_and_a_city_in_it_told_together_are_one_trip():
    trips = _trips(
        (dt.date(2024, 2, 1), ["We've booked Portugal for April!"]),
        (dt.date(2024, 4, 22), ["Got back from Portugal on Sunday.", "Five nights in Porto, I ate so many pastries."]),
    )
    assert trips == [{"destination": "Porto", "country": "PT", "status": "done", "nights": 5}]


def test_a_city_of_another_country_or_a_later_plan_stays_its_own_trip():
    trips = _trips(
        (dt.date(2024, 4, 22), ["Got back from Portugal on Sunday.", "Five nights in Seville before that, in March."]),
        (dt.date(2024, 4, 29), ["We're going to Lisbon in June for a wedding."]),
    )
    assert [(t["destination"], t["status"]) for t in trips] == [
        ("Portugal", "done"),
        ("Seville", "done"),
        ("Lisbon", "planned"),
    ]


@pytest.mark.parametrize(
    "outer, inner, held",
    [
        ("Georgia", "Tbilisi", True),
        ("Georgia", "Atlanta", True),
        ("Texas", "Austin", True),
        ("Italy", "Lisbon", False),
        ("Lisbon", "Lisbon", False),
        ("Narnia", "Lisbon", False),
        ("Kyoto", "Osaka", False),
    ],
)
def test_the_gazetteer_says_which_country_or_state_holds_a_city(outer, inner, held):
    from uac.extract.places import contains, lookup

    assert contains(outer, inner) is held
    assert lookup("CDMX").canonical == "Mexico City" and lookup("Lisbon").canonical is None


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "I was in Rotterdam last week for a logistics conference, two nights, so tired.",
            [("Rotterdam", "NL", "done", 2)],
        ),
        ("We were in Glasgow for Ana's graduation.", [("Glasgow", "GB", "done", None)]),
        ("Drove down to my parents' in Exeter on Friday, back Sunday.", [("Exeter", "GB", "done", None)]),
        ("At Easter we're going up to Ana's mum's place in Aberdeen.", [("Aberdeen", "GB", "planned", None)]),
        (
            "Next up: my cousin's wedding in Cardiff, driving over on the 14th for two nights.",
            [("Cardiff", "GB", "planned", 2)],
        ),
        (
            "Then my sister's graduation in Salem, Oregon, flying out on the 2nd.",
            [("Salem, Oregon", "US", "planned", None)],
        ),
        ("Back from Toulouse, three nights, and my French is worse than ever.", [("Toulouse", "FR", "done", 3)]),
        ("Flying out to Bilbao next week to look at flats.", [("Bilbao", "ES", "planned", None)]),
        # being somewhere for an occasion of work or of friends
        ("I was in Denver Tuesday to Thursday for a trade show.", [("Denver", "US", "done", None)]),
        (
            "We were in Frankfurt on Saturday for Leonie's 30th, stayed over at hers.",
            [("Frankfurt", "DE", "done", None)],
        ),
    ],
)
def test_trips_as_chats_tell_them(line, expected):
    assert [tuple(t.values()) for t in _trips((DAY, [line]))] == expected


@pytest.mark.parametrize(
    "line",
    [
        "I was in Rotterdam when I was little.",
        "My sister was in Glasgow for a conference.",
        "My sister was in Glasgow for a shoot.",
        "My brother drove down to our parents' in Exeter.",
        "Maybe a wedding in Cardiff, flying is too dear though.",
        "Flying out to Bilbao might be cheaper, maybe?",
    ],
)
def test_no_trip_from_being_somewhere_once_or_someone_elses_visit(line):
    assert _trips((DAY, [line])) == []


def test_a_family_visit_planned_then_looked_back_on_is_done():
    trips = _trips(
        (dt.date(2023, 11, 2), ["At Christmas we're going down to my parents' in Truro, 23rd to 27th."]),
        (dt.date(2024, 1, 4), ["Christmas at mum and dad's was so nice, we stayed till the 28th."]),
    )
    assert [(t["destination"], t["status"]) for t in trips] == [("Truro", "done")]


def test_a_family_visit_looked_back_on_before_it_was_due_or_of_someone_else_leaves_the_plan():
    plan = (dt.date(2023, 11, 2), ["In December we're going down to my parents' in Truro."])
    assert (
        _trips(plan, (dt.date(2023, 11, 20), ["The weekend at mum and dad's was so nice."]))[0]["status"] == "planned"
    )
    # someone else's weekend reports nothing: said after December, the plan is only presumed done
    facts = [
        fact.replace(id=f"s{n}-{fact.id.split('-')[1]}", session_id=f"s{n}")
        for n, (day, lines) in enumerate(
            (plan, (dt.date(2024, 1, 4), ["The weekend at Ana's parents' was so nice."])), 1
        )
        for fact in facts_of(*lines, speaker="Sam", said_on=day)
    ]
    [trip] = assemble(TRIP, [s for f in facts for s in detect(f)], {f.id: f for f in facts})
    assert (trip.fields["status"], trip.fields["presumed"], len(trip.sources)) == ("done", True, 1)


def test_a_stay_with_family_ahead_is_a_plan_and_being_spoken_of_there_later_makes_it_done():
    trips = _trips(
        (dt.date(2023, 7, 27), ["We are at Tom's parents in York next weekend."]),
        (dt.date(2023, 8, 15), ["Tom's mum said at the weekend in York that she loved the tiles."]),
    )
    assert [(t["destination"], t["status"]) for t in trips] == [("York", "done")]
    # said before the weekend, or undated, or in the present: no trip, or still a plan
    assert _trips((dt.date(2023, 7, 27), ["We are at Tom's parents in York today."])) == []
    early = _trips(
        (dt.date(2023, 7, 27), ["We are at Tom's parents in York next weekend."]),
        (dt.date(2023, 7, 28), ["Tom's mum said in York last year that she loved the tiles."]),
    )
    assert [(t["destination"], t["status"]) for t in early] == [("York", "planned")]


@pytest.mark.parametrize(
    "line, expected",
    [
        # travel verbs by family, with their tense
        ("Popped over to Berlin for a night on friday to see the old crew.", [("Berlin", "DE", "done", 1)]),
        ("I'm taking the train down to Freiburg tomorrow to visit my sister.", [("Freiburg", "DE", "planned", None)]),
        ("We caught the ferry across to Tallinn on Saturday.", [("Tallinn", "EE", "done", None)]),
        # a stay told by its length
        ("We were in Palermo for a week over easter and I ate everything.", [("Palermo", "IT", "done", None)]),
        ("So we were on Mallorca for the weekend, the wind was insane.", [("Mallorca", "ES", "done", None)]),
        ("We had a long weekend in Ghent, bliss.", [("Ghent", "BE", "done", None)]),
        # a place called off, a place booked, a return after a greeting
        ("Well. We've pulled the pin on Bali.", [("Bali", "ID", "cancelled", None)]),
        ("Bad news: we cancelled Vienna.", [("Vienna", "AT", "cancelled", None)]),
        ("Anyway Italy is BOOKED.", [("Italy", "IT", "planned", None)]),
        ("Kia ora from Leeds, back from Wellington since sunday.", [("Wellington", "NZ", "done", None)]),
    ],
)
def test_trips_said_with_other_verbs_and_stays(line, expected):
    assert [tuple(t.values()) for t in _trips((DAY, [line]))] == expected


@pytest.mark.parametrize(
    "line",
    [
        "We'd love to do Bali one day.",
        "Mira cancelled Vienna.",
        "We were on Mallorca when it rained.",
        "Maybe Italy is booked, who knows.",
        "Kia ora from Leeds, my sister is back from Wellington.",
    ],
)
def test_no_trip_from_other_verbs_that_say_nothing_of_the_speakers_trip(line):
    assert _trips((DAY, [line])) == []


def _localised_trips(*lines: str) -> list[dict]:
    """The trips of ``lines`` once read in their context (:func:`uac.compile.kinds.localise`)."""
    from uac.compile.kinds import localise

    facts = facts_of(*lines, said_on=DAY)
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    trips = localise(seen, facts).get("trip", [])
    return [a.fields for a in assemble(TRIP, trips, {f.id: f for f in facts})]


def _trips_in_context(*lines: str) -> list[str]:
    return [trip["destination"] for trip in _localised_trips(*lines)]


def test_a_day_trip_inside_a_stay_is_no_trip_of_its_own():
    assert _trips_in_context("Just back from lisbon, five nights.", "Did a day trip to Sintra which was pretty.") == [
        "Lisbon"
    ]
    # a day out from home is no trip either (no night away), nor one to another country
    assert _trips_in_context("Did a day trip to Sintra which was pretty.") == []
    assert _trips_in_context("Just back from lisbon, five nights.", "We did a day trip to Seville too.") == ["Lisbon"]
    # a day trip said so stays one beside a stay told in the same sentence
    assert "Sintra" not in _trips_in_context("Did a day trip to Sintra and then three nights in Porto.")


def _noted(line: str) -> list[tuple]:
    facts = facts_of(line, speaker="Sam", said_on=DAY)
    found = assemble(TRIP, [s for f in facts for s in detect(f)], {f.id: f for f in facts})
    return [(a.fields["destination"], a.fields["country"], a.fields["status"], a.fields["place_note"]) for a in found]


@pytest.mark.parametrize(
    "line, destination",
    [
        # a strong cue names a place the gazetteer does not hold: a stay, a return, a flight or a train
        ("I survived camp!!! three nights at Halls Gap, one kid lost a shoe.", "Halls Gap"),
        ("happy new year! we got back from the Prom on Monday.", "Prom"),
    ],
)
def test_a_place_by_its_cue_where_the_gazetteer_is_silent(line, destination):
    assert _noted(line) == [(destination, None, "done", "not in the gazetteer: named by a travel cue, country unknown")]


@pytest.mark.parametrize(
    "line, destination, country",
    [
        # the small towns' table knows them: the place, its country (before the traveller's own decides)
        ("We had a week in Noosa for Easter, five nights.", "Noosa", "AU"),
        ("So we were on Usedom for the weekend, Friday to Sunday.", "Usedom", "DE"),
        ("We took the train to Whitby on Friday.", "Whitby", "CA"),
        # "went to" alone is weak: a stay told after the place makes it strong
        ("Jo, Mel and I went to Daylesford for the long weekend.", "Daylesford", "AU"),
    ],
)
def test_a_place_by_its_cue_that_only_the_small_towns_know(line, destination, country):
    assert _noted(line) == [(destination, country, "done", None)]


@pytest.mark.parametrize(
    "line",
    [
        "I went to Zorblat Falls.",  # a weak cue: the gazetteer still decides
        "I drove to Bunnings on Saturday.",  # drove, no stay: the shops
        "We flew to IKEA.",  # an organisation
        "Two nights at the Ritz, bliss.",  # a hotel
        "Three nights at Hilton, fine.",
        "We got back from Christmas at Ana's.",  # a holiday, not a place
        "Got back from Wombat Hill Kitchen at midnight.",  # a venue
        "I was in Hospital for a week.",  # a place of everyday life
    ],
)
def test_no_place_by_cue(line):
    assert _noted(line) == []


def test_a_gazetteer_place_keeps_no_note():
    assert _noted("We had a week in Lisbon.") == [("Lisbon", "PT", "done", None)]


def _told(*lines: str) -> list[tuple]:
    from uac.compile.kinds import localise

    facts = [f.replace(session_id="s1") for f in facts_of(*lines, speaker="Sam", said_on=DAY)]
    sightings = {k.name: [s for f in facts for s in detect(f) if s.kind == k.name] for k in registry()}
    trips = localise(sightings, facts)["trip"]
    found = assemble(TRIP, [s for s in trips if "_doubt" not in s.fields], {f.id: f for f in facts})
    return [(a.fields["destination"], a.fields["status"], a.fields["nights"]) for a in found]


@pytest.mark.parametrize(
    "lines, expected",
    [
        # "there" is the place of the sentence before, told by the same person
        (
            ["santa fe was amazing.", "we spent four nights there last week, Monday to Friday."],
            [("Santa Fe", "done", 4)],
        ),
        (["It's my cousin's wedding in Adelaide.", "We flew over there on Friday."], [("Adelaide", "done", None)]),
        # or named before it in the same sentence
        (
            ["Kiri's parents keep asking us to come to Wellington, so we're going there instead."],
            [("Wellington", "planned", None)],
        ),
    ],
)
def test_there_is_the_place_said_before(lines, expected):
    assert _told(*lines) == expected


@pytest.mark.parametrize(
    "lines",
    [
        ["We had dinner at Little Seoul.", "We've been going there since 2019."],  # no place of the gazetteer
        ["I love Lisbon.", "Is it worth going there in August?"],  # a question
        ["Lisbon looks lovely.", "I might spend a week there."],  # a wish
    ],
)
def test_no_trip_for_there(lines):
    assert _told(*lines) == []


@pytest.mark.parametrize(
    "line, expected",
    [
        # a weekend away told by "were in X" and the time of it
        ("we were in Hermanus this weekend!!", [("Hermanus", "ZA", "done", None)]),
        ("We were in Montagu at the weekend, hot springs.", [("Montagu", "ZA", "done", None)]),
        ("We were in Whitstable over Easter.", [("Whitstable", "GB", "done", None)]),
        # a night away
        ("Stayed over in Franschhoek last Saturday for Jess's 30th!!", [("Franschhoek", "ZA", "done", None)]),
        # a drive told with the holiday it was for
        ("We drove up to the Cederberg for Easter, camping.", [("Cederberg", None, "done", None)]),
        # family visited and to visit
        ("And news: I'm visiting my sister in London in October!!", [("London", "GB", "planned", None)]),
        ("I visited my parents in Durban last month.", [("Durban", "ZA", "done", None)]),
        ("We're going home to Durban for the winter break.", [("Durban", "ZA", "planned", None)]),
        # a place "done" ahead
        ("Jess and I are doing Namibia after Christmas!", [("Namibia", "NA", "planned", None)]),
        # a nickname is its city
        ("Just got back from Joburg on Thursday.", [("Johannesburg", "ZA", "done", None)]),
        ("Back from Swakop on Friday, still finding sand.", [("Swakopmund", "NA", "done", None)]),
    ],
)
def test_stays_and_visits_as_chats_tell_them(line, expected):
    assert [tuple(t.values()) for t in _trips((DAY, [line]))] == expected


@pytest.mark.parametrize(
    "line",
    [
        "We were in Hermanus.",  # no time of a stay away
        "We were in the garden this weekend.",
        "I'm doing Hermanus Pottery this weekend.",  # no gazetteer place
        "We're doing Italian tonight.",
        "I'd love to be in Montagu this weekend.",
        "Were you in Hermanus at the weekend?",
        "My sister is visiting her friend in London.",
    ],
)
def test_no_stay_or_visit(line):
    assert _trips((DAY, [line])) == []


def test_an_undated_plan_to_a_country_comes_true_in_one_of_its_cities():
    plan = (dt.date(2024, 10, 20), ["Jess and I are going to Namibia after Christmas!"])
    back = (dt.date(2025, 1, 6), ["Back from Swakopmund on Friday and I'm still finding sand in places."])
    assert [tuple(t.values()) for t in _trips(plan, back)] == [("Swakopmund", "NA", "done", None)]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("Now: work sends me to London next month for a client workshop.", [("London", "GB", "planned", None)]),
        ("They're sending me to Joburg in June for a client workshop.", [("Johannesburg", "ZA", "planned", None)]),
        ("My boss sent me to Oslo last week, two days of meetings.", [("Oslo", "NO", "done", None)]),
    ],
)
def test_a_trip_someone_sends_the_speaker_on(line, expected):
    assert [tuple(t.values()) for t in _trips((DAY, [line]))] == expected


@pytest.mark.parametrize(
    "line",
    [
        "Work might send me to London next month.",
        "They're sending Tom to London in June.",
        "Work sends me emails all day.",
    ],
)
def test_no_trip_sent_on_of_someone_else_or_hedged(line):
    assert _trips((DAY, [line])) == []


def test_a_plan_is_done_when_a_later_sentence_opens_with_its_place_in_the_past():
    plan = (dt.date(2025, 1, 2), ["We're going to London on 20 January for a client workshop."])
    after = (dt.date(2025, 1, 26), ["London debrief: the workshop went fine and it rained for 4 days straight."])
    assert [tuple(t.values()) for t in _trips(plan, after)] == [("London", "GB", "done", None)]


def test_a_small_town_in_lower_case_is_a_place_unless_its_name_is_an_english_word():
    assert [lookup_lower(w).country for w in ("varadero", "sudbury")] == ["CU", "CA"]
    assert [lookup_lower(w) for w in ("can", "wedding", "holiday", "spring", "golden")] == [None] * 5
    assert [tuple(t.values()) for t in _trips((DAY, ["just back from varadero, what a week"]))] == [
        ("Varadero", "CU", "done", None)
    ]
    assert _trips((DAY, ["just back from holiday, what a week"])) == []


def test_a_place_booked_in_lower_case_is_a_plan_and_a_nickname_reads_in_any_case():
    assert [tuple(t.values()) for t in _trips((DAY, ["ok bigger news: we booked iceland for october!!"]))] == [
        ("Iceland", "IS", "planned", None)
    ]
    assert [tuple(t.values()) for t in _trips((DAY, ["sam and i booked nyc!!"]))] == [
        ("New York City", "US", "planned", None)
    ]
    assert _trips((DAY, ["we booked dinner for friday"])) == []


def test_a_recap_of_a_planned_place_makes_the_plan_done_and_alone_makes_no_trip():
    plan, recap = (DAY, ["We booked Lisbon!"]), (DAY + dt.timedelta(days=40), ["Lisbon recap bc I need to vent."])
    assert [t["status"] for t in _trips(plan, recap)] == ["done"]
    assert [t["status"] for t in _trips((DAY, ["sam and i booked nyc!!"]), (recap[0], ["Nyc recap: so tired."]))] == [
        "done"
    ]
    assert _trips(recap) == []


def test_a_place_with_someone_at_a_time_gone_by_is_a_trip_taken():
    said = dt.date(2025, 4, 30)
    assert [tuple(t.values()) for t in _trips((said, ["montreal w claire last weekend!! fri to sunday"]))] == [
        ("Montreal", "CA", "done", None)
    ]
    for line in (
        "lisbon w ana next weekend!!",
        "dinner w claire last weekend",
        "Lisbon with Ana last week would be nice",
    ):
        assert _trips((said, [line])) == [], line


def _countries_in_context(*lines: str) -> dict[str, str | None]:
    return {trip["destination"]: trip["country"] for trip in _localised_trips(*lines)}


def test_a_city_several_countries_hold_is_in_the_travellers_own_when_it_is_big_enough():
    home = "We moved to Toronto last year."
    # a Canadian's Victoria is British Columbia's (Hong Kong's is another name of Hong Kong)...
    assert _countries_in_context(home, "Just back from Victoria, three nights.") == {"Victoria": "CA"}
    # ... but London, 380,000 people against 7.5 million, stays England's
    assert _countries_in_context(home, "Just back from London, three nights.") == {"London": "GB"}
    # an American's Santa Fe is New Mexico's; their Paris stays France's
    us = "We moved to Denver last year."
    assert _countries_in_context(us, "Just back from Santa Fe, three nights.") == {"Santa Fe": "US"}
    assert _countries_in_context(us, "Just back from Paris, three nights.") == {"Paris": "FR"}
    # a name no city dominates is in the traveller's own country; with none known it stays unknown
    assert _countries_in_context("We moved to Melbourne last year.", "Just back from Newcastle, three nights.") == {
        "Newcastle": "AU"
    }
    assert _countries_in_context("Just back from Newcastle, three nights.") == {"Newcastle": None}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we got back from new orleans on the 20th", "got back from New Orleans on the 20th"),
        ("driving to st louis that weekend", "driving to St Louis that weekend"),
        ("sri lanka is off", "Sri Lanka is off"),
        ("can u help me plan mexico city. me and rafa", "plan Mexico City. me"),
    ],
)
def test_a_place_of_several_words_in_lower_case_is_written_as_the_gazetteer_does(text, expected):
    from uac.extract.places import title_places

    assert expected in title_places(text)


@pytest.mark.parametrize(
    "text", ["a long beach walk", "little rock climbing", "we just went to new mexico", "salt lake"]
)
def test_ordinary_words_and_states_in_lower_case_stay_as_written(text):
    from uac.extract.places import title_places

    assert title_places(text) == text


def test_a_return_told_after_another_clause_without_its_subject_is_the_speakers():
    said = dt.date(2024, 9, 10)
    assert _trips((said, ["sorry im rambling, got back from milwaukee sunday w marisol and my brain is mush"])) == [
        {"destination": "Milwaukee", "country": "US", "status": "done", "nights": None}
    ]
    assert _trips((said, ["Chloe was sick, got back from Rome on sunday"])) == []


def test_a_town_the_gazetteer_lacks_is_planned_by_its_dates_and_looked_back_on_as_done():
    plan = (dt.date(2025, 7, 30), ["Otieno and I are going to Watamu on 15th to 17th August, two nights."])
    back = (dt.date(2025, 8, 26), ["And Watamu was so relaxing, two nights at a small guesthouse."])
    assert _trips(plan) == [{"destination": "Watamu", "country": "KE", "status": "planned", "nights": 2}]
    assert _trips(plan, back) == [{"destination": "Watamu", "country": "KE", "status": "done", "nights": 2}]
    assert _trips(back) == []  # a review alone of a place the gazetteer does not hold makes no trip
    assert _trips((dt.date(2025, 7, 30), ["I am going to Kroger on saturday"])) == []


def test_trips_told_in_the_shapes_of_a_chat():
    plan = dt.date(2024, 6, 9)
    assert _trips((plan, ["Mariel and I are planning a quick Abu Dhabi overnight on the 22nd, just 1 night."])) == [
        {"destination": "Abu Dhabi", "country": "AE", "status": "planned", "nights": 1}
    ]
    assert _trips(
        (plan, ["Mariel and I are planning a quick Abu Dhabi overnight on the 22nd."]),
        (dt.date(2024, 6, 25), ["Btw Abu Dhabi was sooo fun!!"]),
    ) == [{"destination": "Abu Dhabi", "country": "AE", "status": "done", "nights": None}]
    assert _trips((dt.date(2025, 10, 26), ["Home from Bergen, which was every bit as wet as promised."])) == [
        {"destination": "Bergen", "country": "NO", "status": "done", "nights": None}
    ]
    assert _trips((plan, ["If we went to Salalah instead we'd need at least 5 days, so Muscat it is."])) == []


def _trips_read_in_turns(*sessions) -> list[dict]:
    """As :func:`_trips`, with the sentences no rule told read by their signs (``localise``)."""
    return [{k: trip[k] for k in ("destination", "status")} for trip in _localised_after(*sessions)]


def test_a_place_called_off_closes_its_plan_and_a_trip_longed_for_is_none():
    booked = (dt.date(2025, 5, 15), ["And Otieno and I booked Lamu for 13th to 16th June, finally!"])
    off = (dt.date(2025, 6, 10), ["Pole for my mood, I'm a bit down. Lamu is off. We have an audit that week."])
    missed = (dt.date(2025, 7, 8), ["Beautiful, but it made me miss the Lamu trip even more."])
    assert _trips_read_in_turns(booked, off, missed) == [{"destination": "Lamu", "status": "cancelled"}]
    assert _trips_read_in_turns(off) == []  # called off with no plan of it: nothing to close
    sadly = (dt.date(2025, 4, 6), ["Sadly Sri Lanka didn't happen, the roster was too short."])
    booked = (dt.date(2025, 3, 16), ["Mariel and I booked Sri Lanka!"])
    assert _trips_read_in_turns(booked, sadly) == [{"destination": "Sri Lanka", "status": "cancelled"}]


def test_a_lower_case_chat_plans_cancels_and_looks_back_on_its_trips():
    plan = (dt.date(2025, 3, 18), ["oh and marisol and i booked toronto for the long weekend"])
    off = (dt.date(2025, 5, 20), ["ugh also the worst news, we had to cancel toronto."])
    assert _trips(plan, off) == [{"destination": "Toronto", "country": "CA", "status": "cancelled", "nights": None}]
    going = (dt.date(2025, 7, 30), ["we're driving to st louis that weekend for his bday, the 8th to the 10th"])
    good = (dt.date(2025, 8, 25), ["oh st louis was so good btw, sunny loved the grill."])
    assert _trips(going, good) == [{"destination": "St Louis", "country": "US", "status": "done", "nights": None}]
    back = (dt.date(2025, 10, 5), ["oh and minneapolis was last weekend, home sunday, 2 nights."])
    assert _trips(back) == [{"destination": "Minneapolis", "country": "US", "status": "done", "nights": 2}]


def test_a_visit_a_stay_booked_and_a_weekend_up_in_a_town_the_gazetteer_lacks():
    unplaced = {"country": None}
    visit = (dt.date(2024, 10, 29), ["I'm going up to see my father in Llanrwst in a couple of weeks."])
    assert _trips(visit) == [{"destination": "Llanrwst", "status": "planned", "nights": None, "country": "GB"}]
    booked = (dt.date(2025, 5, 4), ["Tomos and I have booked a cottage in Grasmere for a week at the end of June."])
    assert _trips(booked) == [{"destination": "Grasmere", "status": "planned", "nights": None, **unplaced}]
    weekend = (dt.date(2024, 11, 24), ["Context, in case it helps: we were up in Llanrwst last weekend."])
    assert _trips(weekend) == [{"destination": "Llanrwst", "status": "done", "nights": None, "country": "GB"}]
    assert _trips((dt.date(2024, 11, 24), ["we were up in Llanrwst, it was fine."])) == []  # no time away told


def test_a_friend_who_came_back_from_somewhere_is_no_trip_of_the_speakers():
    said = (
        dt.date(2025, 10, 5),
        ["For the record, I also have a friend who has just come back from Tromsø with photos."],
    )
    assert _trips_read_in_turns(said) == []
    mine = (dt.date(2025, 10, 5), ["Back from Tromsø, 4 nights, the northern lights were unreal."])
    assert _trips_read_in_turns(mine) == [{"destination": "Tromsø", "status": "done"}]


def test_a_lower_case_place_called_off_and_a_christmas_there_looked_back_on():
    booked = (dt.date(2026, 1, 12), ["Lanzarote is booked - flights and villa, 14th to the 21st of feb."])
    off = (dt.date(2026, 2, 5), ["which means lanzarote is off - I cannot be on a sun lounger the week after."])
    assert _trips_read_in_turns(booked, off) == [{"destination": "Lanzarote", "status": "cancelled"}]
    plan = (dt.date(2025, 12, 18), ["we're off to sligo on the 23rd so it needs to be sorted by then"])
    back = (dt.date(2026, 1, 12), ["christmas in sligo was lovely, we came back on the 27th."])
    assert [t["status"] for t in _trips(plan, back)] == ["done"]
    away = (
        dt.date(2026, 2, 5),
        ["we were in westport the weekend before last - no, the 17th - and it was a great reset"],
    )
    assert [t["destination"] for t in _trips(away)] == ["Westport"]


def test_a_return_to_a_town_the_gazetteer_lacks_and_a_plan_after_its_label():
    back = (dt.date(2025, 2, 25), ["back from coorg since sunday night and still dreaming about that homestay."])
    assert _trips(back) == [{"destination": "Coorg", "country": None, "status": "done", "nights": None}]
    assert _trips((dt.date(2025, 2, 25), ["just back from the gym lol"])) == []
    label = (dt.date(2025, 10, 12), ["now DIWALI: flying to jaipur on 17th, back 23rd. need gift ideas"])
    assert _trips(label) == [{"destination": "Jaipur", "country": "IN", "status": "planned", "nights": None}]


def test_a_friend_named_like_a_town_who_got_back_is_no_trip_of_the_speakers():
    said = (dt.date(2025, 6, 8), ["Nadia just got back from Cuba and she's still bronzée and insufferable about it."])
    assert _trips_read_in_turns(said) == []


def test_a_night_at_a_friends_named_like_a_city_is_no_trip_there():
    said = (dt.date(2026, 4, 29), ["I drove down Saturday the 18th and came back Sunday, one night at Florence's."])
    assert _trips_read_in_turns(said) == []


def test_a_plan_is_never_dated_before_the_day_it_was_said():
    from uac.compile.kinds.trips import _ahead_of

    said = dt.date(2025, 12, 28)
    assert _ahead_of(Period("2025-01"), None, said) == (Period("2026-01"), None)  # "in January", said in December
    assert _ahead_of(Period("2025-12-03"), None, said) == (None, None)  # a day gone by: no date rather than a past one
    assert _ahead_of(Period("2026-01-05"), None, said) == (Period("2026-01-05"), None)


@pytest.mark.parametrize(
    "line, expected",
    [
        # going to a place without "to", as Malaysian, Singaporean and Indian English say it
        ("Farah and I going Penang this weekend, flying Friday night!", [("Penang", "MY", "planned", None)]),
        # someone taken away, the stay told
        ("took my sister Hani to Ipoh, Fri to Sun, 2 nights.", [("Ipoh", "MY", "done", 2)]),
        # a rail line named by its letters
        ("Last month I took the KTM down to Seremban, 1 night, so peaceful.", [("Seremban", "MY", "done", 1)]),
        # a holiday spent away
        ("we spent Christmas in Lisbon with my parents, four nights.", [("Lisbon", "PT", "done", 4)]),
        # sent on a work trip, the company's subject before it
        ("hospital sending me to Kota Kinabalu for a course next month", [("Kota Kinabalu", "MY", "planned", None)]),
        # the nights told after a comma of the speaker's own report in the past
        ("Eid recap: drove down on the Thursday, came back Monday, 4 nights in Ipoh.", [("Ipoh", "MY", "done", 4)]),
    ],
)
def test_trips_told_the_ways_of_other_englishes(line, expected):
    assert [tuple(t.values()) for t in _trips((DAY, [line]))] == expected


@pytest.mark.parametrize(
    "line",
    [
        "we're going crazy with the wedding prep",
        "I'm going Dutch with Ana tonight, 2 drinks max",
        "took Ana to Zara on Saturday",
        "Spring break is march 14-22, any ideas?",
        "Raya recap: so much food, Mak cooked for 3 days.",
        "we're booking the hotel, 4 nights in Rome.",
    ],
)
def test_no_trip_from_a_going_a_taking_a_season_or_a_holiday_named_alone(line):
    assert [t["destination"] for t in _trips((DAY, [line]))] == []


def test_the_speaker_with_their_own_people_and_a_plan_told_with_its_days():
    said = dt.date(2025, 12, 14)
    company = (said, ["me and my 2 besties Farah and Mei Ling going Ipoh the weekend after next, 1 night only."])
    assert _trips(company) == [{"destination": "Ipoh", "country": "MY", "status": "planned", "nights": 1}]
    # a town the gazetteer lacks, named by going there with a weekend and a night away
    town = (said, ["me and my 2 besties going Bukit Tinggi the weekend after next, Sat go, Sun back, 1 night only."])
    assert [t["destination"] for t in _trips(town)] == ["Bukit Tinggi"]
    assert _trips((said, ["me and my sister are going to Sakura Tei this weekend, so excited"])) == []
    # "we all go X" with its days is a plan; without them, a habit
    plan = (said, ["Mak and Hani come up after Christmas, then we all go Langkawi 1 to 6 Jan, 5 nights."])
    assert [(t["destination"], t["status"], t["nights"]) for t in _trips(plan)] == [("Langkawi", "planned", 5)]
    assert _trips((said, ["we go Langkawi every year, it's tradition"])) == []


@pytest.mark.parametrize(
    "line",
    ["Farah dah booked Bali for her honeymoon in December, so happy for her", "Farah booked Bali for her honeymoon."],
)
def test_a_friends_booking_is_no_trip_of_the_speakers_nor_a_trip_to_her_name(line):
    assert _trips_read_in_turns((DAY, [line])) == []


@pytest.mark.parametrize(
    "line, expected",
    [
        ("We were at my parents in Písek from Friday to Monday, me and Ondra.", [("Písek", "CZ", "done", None)]),
        ("On Wednesday and Thursday I was on a work trip in Brno, so tiring.", [("Brno", "CZ", "done", None)]),
        (
            "the weekend before last we were at Kuba's family chata in Chocerady on the Sázava, Friday to Sunday.",
            [("Chocerady", "CZ", "done", None)],
        ),
        ("Back from MMEA Midwinter in Minneapolis.", [("Minneapolis", "US", "done", None)]),
        ("And SWEDEN IS BOOKED.", [("Sweden", "SE", "planned", None)]),
    ],
)
def test_stays_told_as_where_one_was_an_event_in_a_place_and_a_place_in_capitals(line, expected):
    assert [tuple(t.values()) for t in _trips((DAY, [line]))] == expected


def test_no_stay_from_a_dinner_at_family_and_a_trip_taken_is_never_dated_months_ahead():
    assert _trips((DAY, ["We were at my parents in Písek for dinner."])) == []
    said = (dt.date(2026, 1, 11), ["Christmas in Písek was really nice, we came back on the 27th as planned."])
    [trip] = _localised_after(said)
    assert (trip["destination"], trip["status"]) == ("Písek", "done")
    assert trip["start"] is None or trip["start"].end <= dt.date(2026, 1, 11)


def _localised_after(*sessions) -> list[dict]:
    """The fields of the trips of ``sessions`` ((day, lines) each) once read in their context."""
    from uac.compile.kinds import localise

    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    trips = localise(seen, facts).get("trip", [])
    return [a.fields for a in assemble(TRIP, trips, {f.id: f for f in facts})]


def test_a_trip_taken_months_ahead_of_its_telling_is_last_years_and_one_going_on_keeps_its_end():
    from uac.compile.kinds.trips import _behind

    said = dt.date(2026, 1, 11)
    assert _behind(Period("2026-12-27"), None, said) == (Period("2025-12-27"), None)
    assert _behind(Period("2026-01-08"), Period("2026-01-15"), said) == (Period("2026-01-08"), Period("2026-01-15"))
    assert _behind(Period("2025-12-20"), Period("2025-12-27"), said) == (Period("2025-12-20"), Period("2025-12-27"))
    assert _behind(Period("2027-03-01"), None, said) == (None, None)  # a year back is still ahead: no date


def test_a_small_town_at_home_wins_over_a_small_city_of_its_name_abroad():
    # Keswick, Cumbria (5,000 people) for someone in Bristol, not Keswick, Ontario (21,000)
    trips = _localised_trips("We moved to Bristol years ago.", "Back from a week in Keswick, home on Saturday.")
    assert [(t["destination"], t["country"]) for t in trips] == [("Keswick", "GB")]
    # with no home told, the gazetteer's city stays; a big city abroad stays abroad
    assert [t["country"] for t in _localised_trips("Back from a week in Keswick, home on Saturday.")] == ["CA"]
    trips = _localised_trips("We moved to Bristol years ago.", "Back from a week in Perth, home on Saturday.")
    assert [t["country"] for t in trips] == ["AU"]
