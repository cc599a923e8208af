"""Lives told beyond ASCII: names with accents and Vietnamese letters, towns typed without their
diacritics, the dong as Hanoi writes it, a meal's bill, a job held "since"."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.offline import _assemble
from uac.extract.money import local_amounts
from uac.extract.places import fold, lookup

from .conftest import facts_of

SAID = dt.date(2026, 3, 10)


def _records(kind: str, *lines: str, speaker: str = "Linh", currency: str = "VND") -> list[dict]:
    _, assembled, _ = _assemble(facts_of(*lines, speaker=speaker, said_on=SAID), currency)
    return [a.fields for a in assembled[kind]]


@pytest.mark.parametrize(
    "line",
    [
        "My cousin chị Hương is going to Tokyo next month for 10 days so jealous 😩.",
        "My cousin Hương is going to Tokyo next month for 10 days.",
        "Chị Hương came back from japan with a new sony camera and now she posts 100 photos a day.",
        "Lucía came back from Máncora super tanned and says the house was amazing.",
    ],
)
def test_someone_else_named_beyond_ascii_makes_no_trip_of_the_speaker(line):
    assert _records("trip", line) == []


@pytest.mark.parametrize(
    "line, destination",
    [("Back from nam dinh 🥹.", "Nam Dinh"), ("Back from hoi an, 1 night only", "Hoi An")],
)
def test_a_town_of_two_words_in_lower_case_after_a_return_is_not_cut_to_its_first(line, destination):
    [trip] = _records("trip", line)
    assert (trip["destination"], trip["country"], trip["status"]) == (destination, "VN", "done")


def test_letters_without_an_accent_to_strip_fold_to_their_plain_spelling():
    assert fold("Nam Định") == fold("Nam Dinh") == "nam dinh"
    assert fold("Tromsø") == "tromso" and fold("Łódź") == "lodz" and fold("Straße") == "strasse"
    place = lookup("Tromso")
    assert place is not None and place.country == "NO"
    assert lookup("Tjome", towns=True) is not None  # the small towns' table is keyed the same way


@pytest.mark.parametrize(
    "text, amount",
    [
        ("lenovo ideapad at thegioididong 14tr5 😭", 14_500_000),
        ("paid 1.2 triệu for it", 1_200_000),
        ("a helmet, 350.000đ", 350_000),
        ("a kindle for 3tr4", 3_400_000),
        ("bought it for 18 triệu from a teacher", 18_000_000),
    ],
)
def test_the_dong_as_vietnamese_chats_write_it(text, amount):
    assert [(m.amount, m.currency) for m in local_amounts(text, "VND")] == [(amount, "VND")]


def test_millions_in_dong_words_are_no_other_lands_money():
    assert local_amounts("tr 5 rooms on the trip", "VND") == []
    assert local_amounts("paid 1.2 triệu", "EUR") == []


def test_a_meal_s_bill_is_not_also_a_purchase_of_the_dish():
    line = "Last night we finally got pad thai at thipsamai, 300 baht for 2 plates, the queue was crazy."
    [meal] = _records("meal", line)
    assert meal["amount"] == 300 and meal["currency"] == "THB"
    assert _records("purchase", line) == []


def test_a_purchase_told_beside_a_meal_keeps_its_own_price():
    line = "We had lunch at Cafe Javas for 1,200 bob and I bought a bark-cloth handbag for 3,500 bob."
    items = [(p["item"], p["amount"]) for p in _records("purchase", line, currency="KES")]
    assert ("bark-cloth handbag", 3500) in items


@pytest.mark.parametrize(
    "line, employer, start",
    [
        (
            "I've been teaching at Sunflower English Centre since August 2023, mostly IELTS and kids classes.",
            "Sunflower English Centre",
            "2023-08",
        ),
        ("I have been working at Kestrel Analytics since 2019.", "Kestrel Analytics", "2019"),
    ],
)
def test_a_job_held_since_a_date_starts_then(line, employer, start):
    [job] = _records("job", line)
    assert job["employer"] == employer and job["current"] is True
    assert job["start"].start.isoformat().startswith(start)


def test_someone_else_s_dinner_the_speaker_shared_is_the_speaker_s_at_the_eatery_named():
    line = (
        "Léa got her seafood dinner in Percé at a little place called Chez Mamie Homard, 142,50$ for the three "
        "of us, lobster for her, and I had the pot-en-pot."
    )
    [meal] = _records("meal", line, speaker="Émilie", currency="CAD")
    assert (meal["person"], meal["place"], meal["amount"]) == ("Émilie", "Chez Mamie Homard", 142.5)


def test_the_eatery_after_the_town_is_the_meal_s_place():
    [meal] = _records("meal", "We had dinner in Lisbon at Cervejaria Ramiro, €80", speaker="Sam", currency="GBP")
    assert meal["place"] == "Cervejaria Ramiro"


def test_a_return_s_day_is_the_trip_s_end():
    [trip] = _records(
        "trip",
        "Also sorry if I'm scattered, we got back from green lake saturday, me and marisol, 3 nights in this "
        "little cabin right on the water.",
        speaker="Dev",
        currency="USD",
    )
    assert trip["destination"] == "Green Lake" and trip["nights"] == 3
    assert trip["end"].start > trip["start"].start


def test_an_interjection_before_someone_else_s_return_keeps_it_theirs():
    line = "Lol my coworker marisol just got back from cancun and she brought everybody a lil bottle of tequila."
    assert _records("trip", line, speaker="Keisha", currency="USD") == []


def test_the_speaker_run_into_a_place_s_name_is_not_part_of_it():
    [trip] = _records(
        "trip", "Since we are back from the Engadin I was a different person.", speaker="Lukas Brunner", currency="CHF"
    )
    assert trip["destination"] == "Engadin"
