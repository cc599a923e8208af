"""A home told in passing: its rent or landlord with the city, a move written as two towns, a
greeting in lower case, "have lived in X since"."""

from __future__ import annotations

import pytest

from .conftest import records_of


def _cities(*lines: str) -> list[tuple[str, bool]]:
    return [(r["city"], r["current"]) for r in records_of("home", *lines)]


@pytest.mark.parametrize(
    "line",
    [
        "Our rent in Zurich is 2150 a month, which is steep.",
        "My landlord in Leeds has finally fixed the boiler.",
        "My flat in Manchester has the worst damp.",
    ],
)
def test_a_home_named_with_its_city_in_the_present_is_lived_in(line):
    assert len(_cities(line)) == 1
    [(city, current)] = _cities(line)
    assert current is True and city in {"Zurich", "Leeds", "Manchester"}


@pytest.mark.parametrize(
    "line",
    [
        "My sister's flat in Leeds is tiny.",  # someone else's home
        "If our rent in Zurich goes up we might move.",  # a hedge
        "Our old flat in Manchester had the worst damp.",  # the past
        "Our house in Spain is lovely in spring.",  # a country, no city
        "My rent is going up again.",  # no city
    ],
)
def test_no_home_from_someone_elses_a_hedged_a_past_or_a_cityless_one(line):
    assert _cities(line) == []


def test_a_home_named_in_passing_never_adds_a_second_current_home():
    homes = _cities("We moved to Leeds in March.", "Our rent in York is steep.")
    assert homes == [("Leeds", True)]


def test_a_move_written_as_two_towns_after_moving():
    homes = records_of("home", "Moving checklist pls: Hanoi to Da Nang, flying on the 2nd")
    assert [(h["city"], h["current"]) for h in homes][:1] == [("Hanoi", True)]
    assert any(h["city"] == "Da Nang" for h in homes)


def test_have_lived_since_a_year_starts_the_home_then():
    [home] = records_of("home", "I have lived in Zurich since 2017 and still love it.")
    assert home["city"] == "Zurich" and home["current"] is True
    assert str(home["start"]).startswith("2017")


@pytest.mark.parametrize(
    "line",
    [
        "Moving to Melbourne next month.",  # the subject left out
        "We're moving to melbourne next month.",  # the city in lower case
    ],
)
def test_a_move_ahead_without_its_subject_or_in_lower_case(line):
    [home] = records_of("home", line)
    assert home["city"] == "Melbourne" and home["current"] is False and str(home["start"]) == "July 2023"


def test_a_move_only_wished_or_of_a_town_unknown_is_no_home():
    assert records_of("home", "Moving to Melbourne would be nice one day.") == []
    assert records_of("home", "Moving to the coast next month.") == []
