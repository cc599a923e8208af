"""A plan whose time has come, done by the later words of its person that say it was taken
("London don finish!", "athlone was grand in the end", "NEW YORK!!!" then "back since
Tuesday"), and never by a question, a plan said again, someone else or another place."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.offline import _assemble
from uac.extract.sentences import split_sentences

from .conftest import facts_of


def _trips(*sessions, speaker: str = "Sam") -> list[tuple]:
    facts = []
    for number, (day, lines, who) in enumerate(sessions, 1):
        for fact in facts_of(*lines, speaker=who or speaker, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    _, assembled, _ = _assemble(facts)
    return sorted((a.fields["destination"], a.fields["status"]) for a in assembled["trip"])


PLANNED = dt.date(2025, 9, 4)
LATER = dt.date(2025, 10, 23)
LONDON = "Big one: I'm going to London in October! Work is sending me for a week of training."


@pytest.mark.parametrize(
    "later",
    [
        "London don finish! 🇬🇧 They moved my flight and I came back on Sunday.",
        "london was grand in the end, one night in a hotel by the river",
        "LONDON!!! back since Tuesday night and I'm still processing.",
        "We're back since Saturday and I'm still on London time in my heart.",
        "London done! monday to thursday last week.",
    ],
)
def test_a_plan_is_done_by_a_later_word_that_it_was_taken(later):
    assert _trips((PLANNED, [LONDON], None), (LATER, [later], None)) == [("London", "done")]


@pytest.mark.parametrize(
    "later, who",
    [
        ("Are you back from London yet, do you think?", None),  # a question
        ("Got back from Paris on Sunday, London was not the plan after all.", None),
        ("London was cancelled, the training moved online.", None),
        ("London was amazing, Tom says, he came back on Sunday.", "Tom"),  # someone else
        ("Still thinking about London.", None),  # no return, no look back
    ],
)
def test_a_plan_stays_a_plan_without_its_person_saying_it_was_taken(later, who):
    found = _trips((PLANNED, [LONDON], None), (LATER, [later], who))
    assert ("London", "done") not in found


def test_a_plan_is_not_done_before_its_time():
    early = dt.date(2025, 9, 20)
    assert _trips(
        (PLANNED, [LONDON], None), (early, ["London was the best news, back from the office early."], None)
    ) == [("London", "planned")]


def test_an_undated_plan_is_done_only_by_a_return_from_its_place():
    plan = "Julien and I are going to LISBON, flights booked."
    assert _trips((PLANNED, [plan], None), (LATER, ["Lisbon was on my mind all week."], None)) == [
        ("Lisbon", "planned")
    ]
    back = "We're back since Saturday and I'm still on Lisbon time in my heart."
    assert _trips((PLANNED, [plan], None), (LATER, [back], None)) == [("Lisbon", "done")]


def test_a_place_named_again_without_its_word_of_kind_is_the_same_trip():
    plan = "My sister Mio and I are going to Arima Onsen on Saturday the 13th, just one night, ryokan booked."
    later = "We got back from Arima on Sunday evening, the ryokan was so cozy."
    found = _trips((dt.date(2025, 9, 8), [plan], None), (dt.date(2025, 9, 20), [later], None))
    assert [status for _, status in found] == ["done"]


def test_a_face_typed_in_the_text_ends_a_sentence():
    assert split_sentences("The concert was AMAZING (≧▽≦) we went to Nagoya Saturday. so fun :) we ate") == [
        "The concert was AMAZING (≧▽≦)",
        "we went to Nagoya Saturday.",
        "so fun :)",
        "we ate",
    ]
    assert split_sentences("It cost (€45) in the end.") == ["It cost (€45) in the end."]


def test_a_plan_done_by_a_sentence_that_opens_with_its_place_in_the_past():
    plan = "ok planning: chuseok i'm going to daejeon oct 4 to 7."
    later = "chuseok was fine at least. daejeon 4th to 7th, ate my body weight in jeon."
    found = _trips((dt.date(2025, 9, 21), [plan], None), (dt.date(2025, 10, 15), later.split(". "), None))
    assert found == [("Daejeon", "done")]


@pytest.mark.parametrize(
    "off", ["jeju got cancelled 😭 typhoon warning", "Jeju is officially off btw", "jeju was cancelled"]
)
def test_a_plan_called_off_in_more_words(off):
    plan = "then soo-ah and I are doing Jeju the 9th to 11th, flights booked."
    assert _trips((dt.date(2025, 9, 21), [plan], None), (dt.date(2025, 10, 15), [off], None)) == [("Jeju", "cancelled")]


def test_someone_else_who_got_back_is_no_trip_of_the_speaker():
    assert _trips((dt.date(2025, 6, 8), ["Nadia just got back from Cuba and she's still bronzée."], None)) == []


def test_a_plan_after_a_label_and_nights_after_the_time_away():
    plan = "seollal: going to daejeon sat the 14th, back wed the 18th."
    later = "back in busan. seollal was 4 nights in daejeon, way too much food"
    found = _trips((dt.date(2026, 1, 25), [plan], None), (dt.date(2026, 2, 22), [later], None))
    assert found == [("Daejeon", "done")]


def test_a_place_whose_name_opens_like_a_month_and_a_subject_after_a_holiday():
    plan = "Easter finde we're going to Mar del Plata to see my dad, driving down thursday 17."
    assert _trips((dt.date(2025, 4, 8), [plan], None)) == [("Mar del Plata", "planned")]
    back = "back from Mardel! it was lindo."
    assert _trips((dt.date(2025, 4, 8), [plan], None), (dt.date(2025, 4, 24), [back], None)) == [
        ("Mar del Plata", "done")
    ]


@pytest.mark.parametrize(
    "line, place",
    [
        ("I am going to the EAHP congress in Copenhagen in March, the 18th to the 21st.", "Copenhagen"),
        ("we're off to a wedding in Kilkenny on the 28th.", "Kilkenny"),
        ("soo-ah and i are doing jeonju two weeks from tomorrow, friday to monday so three nights.", "Jeonju"),
    ],
)
def test_a_plan_to_an_event_away_or_to_a_place_done(line, place):
    assert _trips((dt.date(2025, 2, 16), [line], None)) == [(place, "planned")]


def test_no_trip_to_an_event_at_a_venue():
    assert _trips((dt.date(2025, 2, 16), ["I'm going to the wedding at the Ritz."], None)) == []


def test_a_plan_done_by_news_after_a_label():
    plan = "I am going to the EAHP congress in Copenhagen in March, the 18th to the 21st."
    later = "First: Copenhagen was great. The poster got many good questions."
    found = _trips((dt.date(2025, 2, 16), [plan], None), (dt.date(2025, 4, 8), [later], None))
    assert found == [("Copenhagen", "done")]


def test_a_future_said_of_someone_met_is_no_plan_and_a_return_by_a_pronoun_is_someone_elses():
    plan = "I'm off to athlone for a two day leadership thing on the 20th, overnight"
    later = (
        "athlone was grand in the end, one night in the hodson bay, but I met a DP who's going to be a great contact."
    )
    found = _trips((dt.date(2025, 11, 4), [plan], None), (dt.date(2025, 11, 26), [later], None))
    assert found == [("Athlone", "done")]
    assert (
        _trips(
            (dt.date(2025, 9, 4), ["Saw Kemi briefly, she's just back from Accra, 8 nights with her friends."], None)
        )
        == []
    )


def test_a_trip_named_by_its_nickname_is_named_in_full():
    plan = "mike and me are going to the AHR expo in vegas feb 1 to the 4th, first time for me."
    later = "back from vegas wednesday. expo was huge."
    found = _trips((dt.date(2026, 1, 7), [plan], None), (dt.date(2026, 2, 9), later.split(". "), None))
    assert found == [("Las Vegas", "done")]


def test_a_town_the_gazetteer_lacks_with_who_went_before_its_stay():
    line = "last weekend we went to Ericeira with Rui and Joana, one night in a surf house."
    assert _trips((dt.date(2025, 5, 14), [line], None)) == [("Ericeira", "done")]


def test_leaving_for_a_place_and_a_place_done_overnight():
    assert _trips((dt.date(2024, 11, 10), ["By the way, Akinyi and I leave for Mombasa on Thursday!"], None)) == [
        ("Mombasa", "planned")
    ]
    assert _trips((dt.date(2024, 11, 10), ["I leave for work at 8."], None)) == []
    found = _trips(
        (dt.date(2024, 11, 10), ["Mariel and I did Hatta overnight on the 5th-6th, we stayed in a dome tent"], None)
    )
    assert found == [("Hatta", "done")]


def test_someone_elses_return_to_the_place_makes_no_plan_done():
    plan = "we booked flights to London for November, the 14th to the 18th, Piotr has a sofa bed in Walthamstow."
    found = _trips(
        (dt.date(2025, 9, 7), [plan], None), (dt.date(2026, 1, 18), ["Piotr flew back to London on the 2nd."], None)
    )
    assert found == [("London", "planned")]


@pytest.mark.parametrize(
    "plan, later, place",
    [
        ("Anyway. Christmas we go to my mum in Zwolle, 25th to 27th.", "Christmas at mum's was lovely.", "Zwolle"),
        (
            "And for Joost's 45th in January I'm planning Berlin, just us two, Friday 16 to Monday 19 January.",
            "",
            "Berlin",
        ),
        ("Also I have a course in Nijmegen a week on Thursday, sleeping over one night.", "", "Nijmegen"),
        (
            "Marloes and I do a goodbye weekend in Ghent, 19 to 21 September, two nights.",
            "Ghent update: in the end only one night, not two.",
            "Ghent",
        ),
        (
            "we're going to Wrocław the weekend of the 6th to see flats.",
            "The Wrocław weekend: we saw all five flats on Saturday.",
            "Wrocław",
        ),
    ],
)
def test_plans_in_the_present_and_their_reports(plan, later, place):
    said, after = dt.date(2025, 12, 2), dt.date(2026, 2, 24)
    if "Ghent" in plan:
        said, after = dt.date(2025, 9, 3), dt.date(2025, 9, 29)
    sessions = [(said, [plan], None)] + ([(after, [later], None)] if later else [])
    assert _trips(*sessions) == [(place, "done" if later else "planned")]


def test_no_plan_in_a_habit_or_a_meeting_gone_by():
    assert _trips((dt.date(2025, 12, 2), ["we go to Lidl every saturday"], None)) == []
    assert _trips((dt.date(2025, 12, 2), ["I had an interview in Porto yesterday."], None)) == []


def test_a_region_in_lower_case_before_its_trip():
    plan = "also meera and i are planning a last goa trip before i move!! second weekend of july, 11th to 13th."
    found = _trips((dt.date(2025, 6, 20), [plan], None), (dt.date(2025, 7, 27), ["goa got cancelled btw"], None))
    assert found == [("Goa", "cancelled")]
    other = "sydney from my team is planning an actual australia trip for christmas."
    assert _trips((dt.date(2025, 9, 9), [other], None)) == []


def test_a_plan_called_off_by_its_name_alone_then_not_going():
    plan = "last night I booked us four nights in Lisbon: Thursday the 20th to Monday the 24th, flights from Bristol."
    off = "2. Lisbon. Obviously we're not going. I've told Tomos everything."
    found = _trips((dt.date(2025, 1, 12), [plan], None), (dt.date(2025, 2, 16), [off], None))
    assert found == [("Lisbon", "cancelled")]
    # the name alone, then something else: the plan stands
    found = _trips((dt.date(2025, 1, 12), [plan], None), (dt.date(2025, 2, 16), ["2. Lisbon. We're so excited."], None))
    assert found == [("Lisbon", "planned")]
