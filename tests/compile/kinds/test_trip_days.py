"""A weekday told in the report of a trip is that weekday of the trip (uac.compile.kinds.trip_days)."""

from __future__ import annotations

import datetime as dt

from uac.dates import Period

from .conftest import facts_of


def _records(*sessions):
    from uac.compile.offline import _assemble

    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    _, assembled, _ = _assemble(facts)
    return assembled


PLAN = (dt.date(2025, 6, 15), ["The hospital is sending me to Kuching for a conference, 26 to 29 June."])


def test_a_meal_on_a_weekday_told_after_the_trip_is_that_day_of_the_trip():
    report = (
        dt.date(2025, 7, 6),
        ["Kuching review: great food, boring talks.", "On Friday we had laksa at Choon Hui Cafe, RM8 each, so good."],
    )
    [meal] = _records(PLAN, report)["meal"]
    assert meal.fields["when"] == Period.day(dt.date(2025, 6, 27))  # the trip's Friday, not 4 July


def test_a_weekday_with_last_or_a_trip_of_another_session_keeps_its_date():
    said = (
        dt.date(2025, 7, 6),
        ["Kuching review: great food.", "Last Friday we had laksa at Choon Hui Cafe, so good."],
    )
    [meal] = _records(PLAN, said)["meal"]
    assert meal.fields["when"] == Period.day(dt.date(2025, 7, 4))
    # the meal told in a later session than the trip's report: the trip is not what it tells
    later = (dt.date(2025, 7, 6), ["Kuching review: great food."])
    meal_alone = (dt.date(2025, 7, 8), ["On Friday we had laksa at Choon Hui Cafe, so good."])
    [meal] = _records(PLAN, later, meal_alone)["meal"]
    assert meal.fields["when"] == Period.day(dt.date(2025, 7, 4))


def test_a_trip_holding_the_weekday_twice_leaves_the_date_alone():
    plan = (dt.date(2025, 6, 1), ["We're going to Lisbon from 6 to 20 June, two weeks!"])
    report = (
        dt.date(2025, 6, 30),
        ["Lisbon recap: amazing.", "On Friday we had dinner at Taberna da Rua, €40 for both."],
    )
    records = _records(plan, report)
    assert [t.fields["destination"] for t in records["trip"]] == ["Lisbon"]
    [meal] = records["meal"]
    assert meal.fields["when"] == Period.day(dt.date(2025, 6, 27))  # three Fridays in the trip: which one is unknown


def test_days_after_a_return_told_in_the_session_are_days_at_home():
    said = (
        dt.date(2025, 7, 6),
        ["Got back from Kuching on the 29th, what a week.", "On Friday we had laksa at Choon Hui Cafe, so good."],
    )
    [meal] = _records(PLAN, said)["meal"]
    assert meal.fields["when"] == Period.day(dt.date(2025, 7, 4))


def test_the_way_back_of_days_told_whole_is_no_return_home():
    plan = (dt.date(2026, 8, 3), ["Work is sending me to Munich for a training, 17 to 22 August."])
    report = (
        dt.date(2026, 8, 30),
        [
            "Munich was amazing!",
            "Flew out Monday the 17th and back on Saturday the 22nd, 5 nights in the hotel.",
            "Training covered the new firmware.",
            "Also we went to Augustiner on the Tuesday, €38 for me, that pork knuckle.",
        ],
    )
    [meal] = _records(plan, report)["meal"]
    assert meal.fields["when"] == Period.day(dt.date(2026, 8, 18))  # the trip's Tuesday, not the 25th


def test_a_weekday_told_further_on_in_the_message_of_the_trip_report_is_the_trips():
    plan = (dt.date(2026, 8, 3), ["Work is sending me to Munich for a training, 17 to 22 August."])
    message = (
        "Munich was amazing! Can you help me write a short trip report for my manager? "
        "Flew out Monday the 17th and back on Saturday the 22nd. Training covered the new firmware and the grid code. "
        "The trainer was from Stuttgart. Also we went to Augustiner on the Tuesday, €38 for me, that pork knuckle."
    )
    [meal] = _records(plan, (dt.date(2026, 8, 30), [message]))["meal"]
    assert meal.fields["when"] == Period.day(dt.date(2026, 8, 18))
