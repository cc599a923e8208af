"""Scoring a view against a ledger: matches by key, status and date; others' records left out;
field checks; unknown (None) rather than perfect when there is nothing to divide by."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from types import SimpleNamespace

from analytical_bench.conv import parse_ledger, score_view
from analytical_bench.conv.view_score import same_employer, same_item, same_place, same_purchase_by_price
from tests.fixtures.kinds import KINDS_CHAT, USER
from uac import UserMemory
from uac.dates import Period


@dataclass(frozen=True)
class Trip:
    status: str
    destination: str | None
    person: str | None
    start: Period | None
    end: Period | None = None
    nights: int | None = None


@dataclass(frozen=True)
class Purchase:
    item: str
    person: str | None
    amount: float | None
    currency: str | None
    when: Period | None = None


def _ledger(events):
    return parse_ledger({"format": "uac-ledger/1", "user": "Sam", "currency": "EUR", "events": events})


def _day(text):
    return Period(_dt.date.fromisoformat(text), _dt.date.fromisoformat(text))


def test_trips_match_by_destination_status_and_date():
    ledger = _ledger(
        [
            {"id": "a", "kind": "trip", "status": "done", "destination": "Lisbon", "start": "2024-03-02", "nights": 5},
            {"id": "b", "kind": "trip", "status": "done", "destination": "Lisbon", "start": "2024-09-10"},
            {"id": "c", "kind": "trip", "status": "cancelled", "destination": "Oslo", "start": "2024-04"},
        ]
    )
    view = {
        "travel": SimpleNamespace(
            trips=(
                Trip("done", "Lisbon", "Sam", _day("2024-09-11")),
                Trip("done", "lisbon", None, _day("2024-03-03"), nights=4),
                Trip("planned", "Oslo", "Sam", Period("2024-04")),  # wrong status: not a match
                Trip("done", "Sakura Tei", "Sam", _day("2024-03-08")),  # a restaurant as a trip
                Trip("done", "Rome", "Ana", _day("2024-03-01")),  # someone else's: left out
            )
        )
    }
    [trip] = score_view(view, ledger, kinds=["trip"], collections={"trip": ("travel", "trips")}).values()
    assert (trip.events, trip.records, trip.matched) == (3, 4, 2)
    assert trip.missed == ["c"]
    assert trip.precision == 0.5 and trip.recall == 2 / 3
    assert trip.fields["nights"] == [0, 1] and trip.fields["start_month"] == [2, 2]


def test_purchases_check_amount_and_currency_and_nothing_scores_unknown():
    ledger = _ledger(
        [
            {"id": "d", "kind": "purchase", "item": "standing desk", "amount": 340, "currency": "GBP"},
            {"id": "p", "kind": "purchase", "item": "ceramic plates", "amount": 48, "currency": "EUR"},
        ]
    )
    view = {
        "shopping": SimpleNamespace(
            purchases=(
                Purchase("a new standing desk", "Sam", 340.0, "GBP"),
                Purchase("plates", None, 48.0, "USD"),
            )
        )
    }
    where = {"purchase": ("shopping", "purchases"), "meal": ("food", "meals")}
    scores = score_view(view, ledger, kinds=["purchase", "meal"], collections=where)
    assert scores["purchase"].matched == 2 and scores["purchase"].fields["amount"] == [1, 2]
    assert scores["meal"].precision is None and scores["meal"].recall is None
    assert same_item("standing desk", "desk") and same_item("ceramic plates", "hand-painted ceramic plates")
    assert not same_item("standing desk", "desk lamp") and not same_item("running shoes", "shoe rack")


def test_a_thing_named_by_its_make_and_model_is_the_ledger_s_item():
    """People name a thing by its make and model; the ledger adds the noun ("Sony XM5
    headphones"). Two or more words all in the gold's match; one word, or a word the gold
    lacks, does not."""
    assert same_item("Sony XM5 headphones", "Sony XM5") and same_item("Seiko Presage watch", "seiko presage")
    assert not same_item("Sony XM5 headphones", "Sony") and not same_item("Sony XM5 headphones", "Sony XM4")
    assert not same_item("portable folding plinth", "own plinth")


def test_the_offline_view_of_the_kinds_chat_scores_its_trips(tmp_path):
    memory = UserMemory.create(tmp_path / "sam", user_name=USER)
    memory.ingest(KINDS_CHAT, extractor="rules")
    memory.compile(mode="offline")
    ledger = _ledger(
        [
            {"id": "lisbon", "kind": "trip", "status": "done", "destination": "Lisbon", "end": "2024-03-13"},
            {"id": "porto", "kind": "trip", "status": "done", "destination": "Porto", "start": "2024-03-30"},
            {"id": "paris", "kind": "trip", "status": "done", "destination": "Paris", "start": "2024-03"},
            {"id": "initech", "kind": "job", "employer": "Initech"},
        ]
    )
    scores = score_view(memory.state, ledger, kinds=["trip", "job"])
    memory.close()
    assert scores["trip"].matched == 2 and scores["trip"].missed == ["paris"]
    assert scores["trip"].records >= 5  # the chat's other trips, not in this small ledger, count as wrong
    assert scores["job"].matched == 1 and scores["job"].fields["current"] == [1, 1]


def test_a_trip_destination_matches_with_its_qualifier():
    assert same_place("Portland", "Portland, Oregon")
    assert same_place("Paris", "Paris, Texas") and same_place("Paris", "paris")
    assert not same_place("Paris, Texas", "Paris") and not same_place("Portland", "Oregon, Portland")
    # the wider place the ledger names a town in
    assert same_place("Playa Blanca, Lanzarote", "Lanzarote") and same_place("Alcúdia, Majorca", "majorca")
    assert not same_place("Playa Blanca, Lanzarote", "Tenerife") and not same_place(
        "Playa Blanca, Lanzarote", "Lanzarote, Spain"
    )


def test_two_names_of_one_city_and_letters_written_plain_are_one_place():
    assert same_place("Ho Chi Minh City", "Saigon") and same_place("Cusco", "Cuzco")
    assert same_place("Nam Định", "Nam Dinh") and same_place("Tromsø", "Tromso")
    assert not same_place("Hanoi", "Saigon") and not same_place("Georgia", "Atlanta")


def test_an_island_named_without_the_word_for_one_is_that_island():
    assert same_place("Isle of Skye", "Skye") and same_place("Arran", "Isle of Arran")
    assert not same_place("Isle of Skye", "Isle of Arran") and not same_place("Isle of Man", "Manchester")


def test_a_trip_named_by_the_country_of_the_ledger_s_town_is_that_trip():
    from analytical_bench.conv.ledger import Event
    from analytical_bench.conv.view_score import same_trip

    montego = Event("t", "trip", {"status": "done", "destination": "Montego Bay", "country": "JM"}, ("s1",))
    assert same_trip(montego, {"destination": "Jamaica", "country": "JM"})
    assert not same_trip(montego, {"destination": "Cuba", "country": "CU"})
    assert not same_trip(montego, {"destination": "Kingston", "country": "JM"})  # another town is another trip


def test_a_purchase_named_otherwise_matches_by_its_price_and_a_word():
    from analytical_bench.conv.ledger import Event

    hokas = Event("b", "purchase", {"item": "Hoka running shoes", "amount": 145, "currency": "USD"}, ("s1",))
    assert same_purchase_by_price(hokas, {"item": "new hokas", "amount": 145.0, "currency": "USD"})
    assert not same_purchase_by_price(hokas, {"item": "new hokas", "amount": 140.0, "currency": "USD"})
    assert not same_purchase_by_price(hokas, {"item": "new hokas", "amount": 145.0, "currency": "CAD"})
    assert not same_purchase_by_price(hokas, {"item": "rain jacket", "amount": 145.0, "currency": "USD"})
    assert not same_item("Hoka running shoes", "new hokas")  # by name alone it is not


def test_a_ledger_note_in_parentheses_may_be_left_out_of_a_destination():
    assert same_place("Alaska (Inside Passage cruise)", "Alaska")
    assert not same_place("Norwegian fjords cruise (from Copenhagen)", "Copenhagen")
    assert not same_place("Alaska (Inside Passage cruise)", "Juneau")


def test_a_ledger_note_in_parentheses_may_be_left_out_of_an_item():
    assert same_item("secondhand bike (blue Raleigh)", "secondhand bike")
    assert same_item("secondhand bike (blue Raleigh)", "blue Raleigh secondhand bike")
    assert not same_item("scarf (for her mother)", "mother")
    assert not same_item("secondhand bike (blue Raleigh)", "bike rack")


def test_an_employer_the_ledger_describes_matches_by_words_of_the_description():
    assert same_employer("Kestrel", "kestrel") and same_employer("Kestrel", "Kestrel Labs")
    assert not same_employer("Kestrel Labs", "Kestrel Bank")
    assert same_employer("dental practice in Shawlands", "the practice in shawlands")
    assert same_employer("health board community dental team", "the health board")
    assert same_employer("cardiac ICU of a hospital in Hamilton", "Hamilton")
    assert same_employer("provincial transportation ministry (BC)", "the provincial transportation ministry")
    assert same_employer(
        "consulting engineering firm on West Broadway", "a mid-sized consulting engineering firm on West Broadway"
    )
    assert not same_employer("cardiac ICU of a hospital in Hamilton", "the hospital")  # a kind of workplace only
    assert not same_employer("hospital", "the big hospital")
    assert not same_employer("dental practice in Shawlands", "private clinic in Finnieston")
    assert not same_employer("dental practice in Shawlands", "the practice in Partick")
    assert not same_employer("Brightwater Energy", None) and not same_employer("Brightwater Energy", "")


def test_a_trip_named_by_several_places_or_a_town_and_its_region_matches_one_of_them():
    from analytical_bench.conv.ledger import Event
    from analytical_bench.conv.view_score import same_trip

    hanoi = Event("t", "trip", {"destination": "Hanoi and Ha Long Bay", "status": "done"}, ("s1",))
    assert same_trip(hanoi, {"destination": "Hanoi"}) and same_trip(hanoi, {"destination": "Ha Long Bay"})
    assert not same_trip(hanoi, {"destination": "Hue"})
    japan = Event("t", "trip", {"destination": "Tokyo & Kyoto (with Jas)", "status": "done"}, ("s1",))
    assert same_trip(japan, {"destination": "Kyoto"}) and not same_trip(japan, {"destination": "Osaka"})
    town = Event("t", "trip", {"destination": "Playa Blanca, Lanzarote", "country": "ES"}, ("s1",))
    assert same_trip(town, {"destination": "Playa Blanca", "country": "ES"})
    assert not same_trip(town, {"destination": "Playa Blanca", "country": None})  # no country: not told apart
    texas = Event("t", "trip", {"destination": "Paris, Texas", "country": "US"}, ("s1",))
    assert not same_trip(texas, {"destination": "Paris", "country": "FR"})
    assert not same_trip(Event("t", "trip", {"destination": "Lisbon"}, ("s1",)), {"destination": "Porto"})


def test_a_meal_place_matches_without_the_location_the_ledger_adds():
    from analytical_bench.conv.view_score import same_meal_place

    assert same_meal_place("Jollibee, Al Ghurair Centre", "Jollibee")
    assert same_meal_place("the Drovers, Cardiff (leaving drinks)", "The Drovers")
    assert same_meal_place("Ravi Restaurant, Satwa", "Ravi") and same_meal_place("Nopa", "nopa")
    assert not same_meal_place("Jollibee, Al Ghurair Centre", "Al Ghurair Centre")
    assert not same_meal_place("Oaxaca Kitchen", "Oaxaca Kitchen Me")
    assert not same_meal_place("Oaxaca Kitchen", "Oaxaca")  # a kitchen is part of the name
    assert not same_meal_place("Ravi Restaurant, Satwa", "Restaurant")
    assert not same_meal_place("Sunday Griddle", "Griddle Here") and not same_meal_place("Nopa", None)


def test_a_described_meal_place_matches_by_its_amount_and_a_word():
    from analytical_bench.conv.ledger import Event
    from analytical_bench.conv.view_score import same_meal_by_price

    seafood = Event(
        "m",
        "meal",
        {"place": "seafood restaurant by the water, Menai Bridge", "amount": 64, "currency": "GBP"},
        ("s1",),
    )
    assert same_meal_by_price(seafood, {"place": "a seafood place", "amount": 64.0, "currency": "GBP"})
    assert not same_meal_by_price(seafood, {"place": "a seafood place", "amount": 58.0, "currency": "GBP"})
    assert not same_meal_by_price(seafood, {"place": "a pub", "amount": 64.0, "currency": "GBP"})
    assert not same_meal_by_price(seafood, {"place": "a seafood place", "amount": 64.0, "currency": "EUR"})


def test_a_workout_matches_by_the_sport_its_activity_names():
    from analytical_bench.conv.view_score import same_activity

    assert same_activity("running (Marina Walk)", "run") and same_activity("parkrun at Pontcanna", "run")
    assert same_activity("bike ride along the river to Naburn and back", "cycle")
    assert same_activity("swim at Cardiff International Pool", "swim") and same_activity("yoga", "Yoga")
    assert not same_activity("running (Marina Walk)", "swim") and not same_activity("Zumba class", "run")
    assert not same_activity("walk (to the run club)", "run")  # a note in parentheses names no sport
