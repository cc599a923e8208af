"""A plan whose days passed with no report is presumed done, and told apart from a trip reported."""

from __future__ import annotations

import datetime as dt

from uac.compile.offline import _assemble

from .conftest import facts_of


def _trips(*sessions: tuple[dt.date, list[str]], speaker: str = "Sam") -> list[dict]:
    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, speaker=speaker, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    _, assembled, _ = _assemble(facts)  # as the offline compile reads them (the nights told by context too)
    return [a.fields for a in assembled["trip"]]


PLAN = (dt.date(2025, 5, 2), ["We're flying to Lisbon on 14 May for four nights."])


def test_a_plan_whose_days_passed_is_presumed_done_with_its_own_dates():
    [trip] = _trips(PLAN, (dt.date(2025, 6, 20), ["Can you help me write a cover letter?"]))
    assert (trip["status"], trip.get("presumed", False)) == ("done", True)
    assert (str(trip["start"]), str(trip["end"])) == ("14 May 2025", "18 May 2025")


def test_a_plan_still_ahead_or_under_way_at_the_last_session_stays_planned():
    [trip] = _trips(PLAN, (dt.date(2025, 5, 16), ["Packing list help please."]))
    assert (trip["status"], trip.get("presumed", False)) == ("planned", False)
    [trip] = _trips(PLAN)  # nothing said after the plan
    assert trip["status"] == "planned"


def test_a_plan_called_off_stays_cancelled():
    [trip] = _trips(
        PLAN,
        (dt.date(2025, 5, 10), ["We cancelled the Lisbon trip, my dad is in hospital."]),
        (dt.date(2025, 7, 1), ["Dad is home again."]),
    )
    assert trip["status"] == "cancelled"


def test_a_plan_reported_is_done_and_not_presumed():
    [trip] = _trips(PLAN, (dt.date(2025, 5, 25), ["Back from Lisbon, it was lovely."]))
    assert (trip["status"], trip.get("presumed", False)) == ("done", False)


def test_a_plan_without_dates_of_its_own_is_never_presumed():
    # "last night I booked ...": the day the sentence dates is the booking's, not the trip's
    [trip] = _trips(
        (dt.date(2025, 1, 12), ["Last night I booked us four nights in Lisbon, flights from Bristol."]),
        (dt.date(2025, 9, 1), ["Can you help me plan a budget?"]),
    )
    assert trip["status"] == "planned"


def test_a_family_visit_of_a_speaker_with_two_names_and_the_day_the_stay_ends():
    [trip] = _trips(
        (
            dt.date(2026, 4, 4),
            [
                "I'm driving up to my dad's in Inverness on Monday with Callum (16, lives on his phone) "
                "and we're staying till Thursday."
            ],
        ),
        speaker="Fiona MacLeod",
    )
    assert (trip["destination"], trip["status"]) == ("Inverness", "planned")
    assert (str(trip["start"]), str(trip["end"])) == ("6 April 2026", "9 April 2026")


def test_a_stay_on_ones_own_ends_on_the_weekday_after_its_start():
    [trip] = _trips(
        (
            dt.date(2026, 10, 10),
            ["I'm going up to Inverness on my own next Saturday for the October week, staying till the Wednesday."],
        ),
        speaker="Fiona MacLeod",
    )
    assert trip["destination"] == "Inverness"
    assert (str(trip["start"]), str(trip["end"])) == ("17 October 2026", "21 October 2026")


def test_a_return_home_from_an_island_the_gazetteer_lacks_and_a_plan_looked_back_on():
    [trip] = _trips(
        (dt.date(2026, 6, 14), ["Home from Arran and I have slept for what feels like eleven hours."]),
        speaker="Fiona MacLeod",
    )
    assert (trip["destination"], trip["status"]) == ("Arran", "done")
    [trip] = _trips(
        (dt.date(2026, 9, 20), ["My friend and I are flying to Dublin for her hen weekend, 2nd to 4th October."]),
        (dt.date(2026, 10, 10), ["Dublin was a riot."]),
    )
    assert (trip["status"], trip.get("presumed", False)) == ("done", False)


def test_a_return_told_weeks_after_the_plan_began_is_its_report():
    [trip] = _trips(
        (dt.date(2026, 7, 12), ["Flights to Lagos booked for the four of us, flying out 20th December!"]),
        (dt.date(2027, 1, 10), ["Back from Lagos since Monday. 16 nights and it felt like 5."]),
    )
    assert (trip["destination"], trip["status"], trip.get("purpose")) == ("Lagos", "done", None)


def test_trips_given_someone_or_told_without_their_subject():
    [trip] = _trips(
        (
            dt.date(2025, 10, 23),
            ["Cian's birthday is the 8th of November and I'm bringing him to Killarney for the weekend."],
        ),
    )
    assert (trip["destination"], trip["status"]) == ("Killarney", "planned")
    [trip] = _trips(
        (dt.date(2025, 8, 13), ["Doing a mini road trip this weekend, Cork to Dingle with Cian, back Sunday evening."]),
    )
    assert (trip["destination"], trip["status"]) == ("Dingle", "planned")
    [trip] = _trips(
        (dt.date(2025, 9, 16), ["I'm going up to Dublin for a course on the 14th and 15th of October."]),
        (dt.date(2025, 10, 23), ["Dublin course was grand by the way, long days but I learned loads."]),
    )
    assert (trip["destination"], trip["status"]) == ("Dublin", "done")
