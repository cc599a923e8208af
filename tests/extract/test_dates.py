"""Relative dates resolved against the session date."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.dates import Period
from uac.extract.dates import annotate, find_relative_dates

MONDAY = dt.date(2023, 5, 8)  # 8 May 2023 was a Monday


@pytest.mark.parametrize(
    "phrase, code, rendered",
    [
        ("yesterday", "2023-05-07", "on 7 May 2023"),
        ("today", "2023-05-08", "on 8 May 2023"),
        ("tomorrow", "2023-05-09", "on 9 May 2023"),
        ("last night", "2023-05-07", "on 7 May 2023"),
        ("the day before yesterday", "2023-05-06", "on 6 May 2023"),
        ("two days ago", "2023-05-06", "on 6 May 2023"),
        ("3 weeks ago", "2023-04-17/2023-04-23", "the week of 17 April 2023"),
        ("a few days ago", "2023-05-04/2023-05-06", "between 4 and 6 May 2023"),
        ("a few years ago", "2019-01-01/2021-12-31", "between 2019 and 2021"),
        ("three years ago", "2020", "in 2020"),
        ("last Friday", "2023-05-05", "on 5 May 2023"),
        ("next Friday", "2023-05-12", "on 12 May 2023"),
        ("last Monday", "2023-05-01", "on 1 May 2023"),
        ("last week", "2023-05-01/2023-05-07", "the week of 1 May 2023"),
        ("next week", "2023-05-15/2023-05-21", "the week of 15 May 2023"),
        ("next month", "2023-06", "in June 2023"),
        ("last month", "2023-04", "in April 2023"),
        ("last year", "2022", "in 2022"),
        ("next year", "2024", "in 2024"),
        ("this weekend", "2023-05-13/2023-05-14", "the weekend of 13 May 2023"),
        ("last weekend", "2023-05-06/2023-05-07", "the weekend of 6 May 2023"),
        ("a month ago", "2023-04", "in April 2023"),
        ("last summer", "2022-summer", "in summer 2022"),
        ("this winter", "2023-winter", "in winter 2023"),
        ("in the summer of 2021", "2021-summer", "in summer 2021"),
        ("in March 2022", "2022-03", "in March 2022"),
        ("in 2021", "2021", "in 2021"),
        ("on Saturday", "2023-05-06", "on 6 May 2023"),
        ("on 2 May", "2023-05-02", "on 2 May 2023"),
        ("May 6", "2023-05-06", "on 6 May 2023"),
        ("on May 6th, 2022", "2022-05-06", "on 6 May 2022"),
        ("the week before 9 June 2023", "2023-06-02/2023-06-08", "the week before 9 June 2023"),
        ("the weekend before 9 June 2023", "2023-06-03/2023-06-04", "the weekend of 3 June 2023"),
        ("last December", "2022-12", "in December 2022"),
        ("in April", "2023-04", "in April 2023"),
    ],
)
def test_phrases(phrase, code, rendered):
    [found] = find_relative_dates(f"We talked about it {phrase}.", MONDAY)
    assert found.period.code == code
    assert found.render() == rendered


@pytest.mark.parametrize(
    "sentence, code",
    [
        ("I went hiking on Saturday.", "2023-06-03"),  # said on Friday 9 June 2023: the last one
        ("I will go hiking on Saturday.", "2023-06-10"),  # the future: the next one
        ("I'm going to Paris next month.", "2023-07"),  # the whole month, not 9 July
        ("We met on May 6.", "2023-05-06"),
        ("We will meet again on May 6.", "2024-05-06"),
        ("I started in August.", "2022-08"),
        ("I will start in August.", "2023-08"),
        ("Last week I ran a marathon.", "2023-06-02/2023-06-08"),
        # the clause around the phrase decides: a report, then a plan in one sentence
        ("They called back and I said yes, I start on 3 March.", "2024-03-03"),
        ("I took the offer, I begin in April.", "2024-04"),
        ("My last day at the shop is on Tuesday.", "2023-06-13"),
        ("I loved it, we will go back in May.", "2024-05"),
        ("We will go back, we loved Lisbon in May.", "2023-05"),
        ("Ana wants a ski trip in February, we said yes.", "2024-02"),
        ("My cousin is getting married in March and we have said yes!", "2024-03"),
        # "starting" announces, "would" asks ahead: both point forward
        ("New badge, new desk, starting May 6.", "2024-05-06"),
        ("The club asked if I would coach the juniors in March.", "2024-03"),
        ("I would have gone in March.", "2023-03"),
        ("I did a class on Tuesday and thought I would quit.", "2023-06-06"),
        # a month's nth weekend, in the year the tense points to
        ("We are away the first weekend of August.", "2023-08-05/2023-08-06"),
        ("We will be away the last weekend of March.", "2024-03-30/2024-03-31"),
        ("We went up the second weekend of May.", "2023-05-13/2023-05-14"),
        # a month in lower case, as chats write it (never "may" or "march": words too)
        ("we're off the first weekend of august", "2023-08-05/2023-08-06"),
        ("back in october, it was grim", "2022-10"),
        # "march" and "may" in lower case only before a year or after "since", "until", "end of"
        ("i been a paralegal here since march 2019", "2019-03"),
        ("it was may 2021 i think", "2021-05"),
        ("we're here until may", "2024-05"),
    ],
)
def test_directions_follow_the_tense(sentence, code):
    [found] = find_relative_dates(sentence, dt.date(2023, 6, 9))
    assert found.period.code == code


def test_words_that_only_look_like_dates():
    assert find_relative_dates("I may march on and read a book at 3 pm.", MONDAY) == []
    assert find_relative_dates("the march in may was long, since may be the last", MONDAY) == []
    assert find_relative_dates("Mayday is a song.", MONDAY) == []


def test_a_phrase_that_says_the_full_date_is_not_annotated():
    text, found = annotate("We met on Sunday, May 7, 2023 at the park.", MONDAY)
    assert text == "We met on Sunday, May 7, 2023 at the park."
    assert [f.period.code for f in found] == ["2023-05-07"]
    text, _ = annotate("It was the week before 9 June 2023.", MONDAY)
    assert text == "It was the week before 9 June 2023."


def test_annotate_writes_the_date_after_the_phrase():
    text, found = annotate("Caroline went to a support group yesterday and loved it.", MONDAY)
    assert text == "Caroline went to a support group yesterday (on 7 May 2023) and loved it."
    assert found[0].period == dt.date(2023, 5, 7) and found[0].period.precision == "day"


def test_no_false_positives():
    assert find_relative_dates("The weekday schedule is fine and I like years of jazz.", MONDAY) == []
    text, found = annotate("Nothing dated here.", MONDAY)
    assert text == "Nothing dated here." and found == []


def test_next_month_is_the_whole_month():
    [found] = find_relative_dates("next month", dt.date(2023, 1, 31))
    assert (found.period.start, found.period.end) == (dt.date(2023, 2, 1), dt.date(2023, 2, 28))
    assert found.period.precision == "month"


days = st.dates(min_value=dt.date(1950, 1, 1), max_value=dt.date(2100, 12, 31))


@settings(max_examples=200, deadline=None)
@given(base=days, n=st.integers(min_value=1, max_value=12))
def test_days_ago_is_exact(base, n):
    [found] = find_relative_dates(f"it happened {n} days ago", base)
    assert found.day == base - dt.timedelta(days=n)
    [found] = find_relative_dates(f"it happens in {n} days", base)
    assert found.day == base + dt.timedelta(days=n)


@settings(max_examples=200, deadline=None)
@given(
    base=days, weekday=st.sampled_from(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
)
def test_last_and_next_weekday(base, weekday):
    [last] = find_relative_dates(f"last {weekday}", base)
    [nxt] = find_relative_dates(f"next {weekday}", base)
    assert last.day.strftime("%A") == weekday and nxt.day.strftime("%A") == weekday
    assert 1 <= (base - last.day).days <= 7
    assert 1 <= (nxt.day - base).days <= 7


@settings(max_examples=200, deadline=None)
@given(
    base=days, weekday=st.sampled_from(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
)
def test_the_weekday_before_last_and_after_next_are_a_week_past_last_and_next(base, weekday):
    [last] = find_relative_dates(f"last {weekday}", base)
    [before] = find_relative_dates(f"the {weekday.lower()} before last", base)
    [nxt] = find_relative_dates(f"next {weekday}", base)
    [after] = find_relative_dates(f"the {weekday} after next", base)
    assert (last.day - before.day).days == 7 and (after.day - nxt.day).days == 7
    assert before.phrase.startswith("the ") and after.day.strftime("%A") == weekday


def test_a_range_of_days_with_its_month_after_them():
    """ "the 14th to the 18th of April" was read as 18 April alone (the booking of a trip dated
    at its last day)."""
    base = dt.date(2025, 3, 2)
    text, found = annotate("I booked flights to Lisbon for the 14th to the 18th of April, $640 return.", base)
    assert "the 14th to the 18th of April (between 14 and 18 April 2025)" in text
    assert found[0].period.code == "2025-04-14/2025-04-18"
    for phrase, code in (
        ("we are in Rome from 3 to 7 May", "2025-05-03/2025-05-07"),
        ("staying 14-18 April", "2025-04-14/2025-04-18"),
        ("from the 3rd until the 6th of June", "2025-06-03/2025-06-06"),
        ("we were there 14-18 April 2024", "2024-04-14/2024-04-18"),
        ("we were in Porto 20 to 24 February", "2025-02-20/2025-02-24"),
    ):
        [found] = find_relative_dates(phrase, base)
        assert found.period.code == code, (phrase, found.period.code)
    [single] = find_relative_dates("on 18 to 14 April", base)  # no range backwards: the day alone
    assert single.period.code == "2025-04-14"


def test_before_last_and_after_next():
    """Said on Saturday 1 March 2025: "the thursday before last" is 20 February (before, it was
    read as a bare Thursday, 27 February, a week late, and after a return said on the 24th)."""
    base = dt.date(2025, 3, 1)
    text, _ = annotate("we flew over the thursday before last and got back monday", base)
    assert (
        text == "we flew over the thursday before last (on 20 February 2025) and got back monday (on 24 February 2025)"
    )
    for phrase, code in (
        ("the weekend before last", "2025-02-15/2025-02-16"),
        ("the week before last", "2025-02-15/2025-02-21"),
        ("the weekend after next", "2025-03-15/2025-03-16"),
        ("the month after next", "2025-05"),
        ("the year before last", "2023"),
    ):
        [found] = find_relative_dates(f"we went {phrase}", base)
        assert found.period.code == code, (phrase, found.period.code)


@settings(max_examples=200, deadline=None)
@given(base=days)
def test_weekends_are_saturdays_around_the_base(base):
    for phrase, low, high in (("last weekend", -13, -1), ("this weekend", -1, 6), ("next weekend", 0, 13)):
        [found] = find_relative_dates(phrase, base)
        assert found.day.weekday() == 5 and found.period.precision == "weekend"
        assert low <= (found.day - base).days <= high, (phrase, base, found.day)


@settings(max_examples=100, deadline=None)
@given(base=days)
def test_annotation_keeps_the_original_words(base):
    sentence = "I saw her yesterday and will call tomorrow."
    text, found = annotate(sentence, base)
    assert len(found) == 2
    assert text.replace(f" ({found[0].render()})", "").replace(f" ({found[1].render()})", "") == sentence


def test_someones_last_night_is_not_yesterday():
    base = dt.date(2023, 6, 9)
    assert find_relative_dates("The best meal was our last night in Porto.", base) == []
    assert find_relative_dates("Sam's last night at the hostel was loud.", base) == []
    [found] = find_relative_dates("We had pho last night.", base)
    assert found.period.code == "2023-06-08"


def test_a_would_of_reported_thought_leaves_a_report_in_the_past():
    from uac.extract.dates import tense

    assert tense("Did a spin class at lunch and came out thinking I would sign up.") is False


def test_may_and_march_in_lower_case_are_words():
    assert find_relative_dates("we may march on in the rain", dt.date(2023, 6, 9)) == []


@pytest.mark.parametrize(
    "sentence, said, code",
    [
        # the day number wins where it falls on the weekday: in the month ahead for a plan
        ("We're flying over on Friday the 8th, three nights.", "2024-10-26", "2024-11-08"),
        ("Work sends me to London, monday the 20th.", "2025-01-02", "2025-01-20"),
        # back for a report, and the month that agrees even when another is nearer
        ("We met on monday 21st and it was fun.", "2024-10-26", "2024-10-21"),
        ("I ran the race on Tuesday the 2nd.", "2024-10-26", "2024-07-02"),
        # no month within a year agrees: the day number in the nearest month that has it
        ("I'm going on Wednesday the 31st.", "2024-10-26", "2024-10-31"),
    ],
)
def test_a_weekday_with_its_day_number_is_that_day(sentence, said, code):
    [found] = find_relative_dates(sentence, dt.date.fromisoformat(said))
    assert found.period.code == code


def test_a_weekday_before_a_time_is_still_the_weekday():
    [found] = find_relative_dates("See you Friday 10.30 at the station.", dt.date(2024, 10, 26))
    assert found.phrase.strip() == "Friday"


def test_a_journey_told_in_the_progressive_without_its_subject_points_forward():
    from uac.extract.dates import find_relative_dates

    said = dt.date(2025, 3, 11)  # a Tuesday
    for text in ("Heading to the Algarve monday for a week.", "Flying out to Faro on Monday, so excited."):
        [found] = find_relative_dates(text, said)
        assert found.period.start == dt.date(2025, 3, 17), text
    [found] = find_relative_dates("We were heading to the Algarve on Monday when the car broke down.", said)
    assert found.period.start == dt.date(2025, 3, 10)


@pytest.mark.parametrize(
    ("sentence", "code"),
    [
        # said on Friday 9 June 2023: a day of this month, or of the next in a plan, of the last in a report
        ("We are going on the 22nd.", "2023-06-22"),
        ("We are going on the 3rd.", "2023-07-03"),
        ("We got back on the 22nd.", "2023-05-22"),
        ("We booked it, the 23rd to the 26th.", "2023-06-23/2023-06-26"),
        ("Khor Fakkan was so relaxing, 2 nights, 17th to 19th.", "2023-05-17/2023-05-19"),
        ("We have been in Bristol since the 24th.", "2023-05-24"),
        # days across two months, the second in the next year when it comes first
        ("We booked Sri Lanka, Jun 30 to Jul 3.", "2023-06-30/2023-07-03"),
        ("I booked my Christmas flight, Dec 20 to Jan 3.", "2023-12-20/2024-01-03"),
        ("We are away from 30 June to 3 July 2024.", "2024-06-30/2024-07-03"),
        # a week by its ISO number, as the Nordic lands count them
        ("We will be at the hytte in week 32.", "2023-08-07/2023-08-13"),
        ("In uke 7 we went skiing.", "2023-02-13/2023-02-19"),
    ],
)
def test_a_day_of_the_month_without_its_month(sentence, code):
    [found] = find_relative_dates(sentence, dt.date(2023, 6, 9))
    assert found.period.code == code


@pytest.mark.parametrize(
    "sentence",
    [
        "She lives on the 5th floor.",
        "It was my 22nd birthday.",
        "Dad insisted on Tek Sen the 1st night.",
        "I came 2nd in the race.",
        "Christmas we are going down to my parents', 23rd to 27th.",  # the holiday says the month
    ],
)
def test_an_ordinal_that_is_no_day_of_this_month(sentence):
    assert all(
        f.period.precision not in ("day", "range") or "Christmas" in sentence
        for f in find_relative_dates(sentence, dt.date(2023, 6, 9))
    )
    assert not [f for f in find_relative_dates(sentence, dt.date(2023, 6, 9)) if f.period.code.startswith("2023-06")]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("driving down thursday 17 and back", ("thursday 17", dt.date(2025, 4, 17))),
        ("going to daejeon sat the 14th", ("sat the 14th", dt.date(2025, 6, 14))),
        ("back wed 16th", ("wed 16th", dt.date(2025, 4, 16))),
    ],
)
def test_a_weekday_shortened_or_with_a_bare_day_number(text, expected):
    [found] = find_relative_dates(text, dt.date(2025, 4, 8))
    assert (found.phrase, found.period.start) == expected


@pytest.mark.parametrize(
    "text", ["at Paris Butter on friday, 3 years together", "ran monday 5k", "sat 20 minutes", "sun 2 nights"]
)
def test_a_number_after_a_weekday_that_is_no_day_of_the_month(text):
    assert not any(any(c.isdigit() for c in f.phrase) for f in find_relative_dates(text, dt.date(2025, 4, 8)))


def test_units_from_a_day_named():
    [found] = [f for f in find_relative_dates("doing jeonju two weeks from tomorrow", dt.date(2025, 3, 27))]
    assert found.period.start == dt.date(2025, 4, 11)


@pytest.mark.parametrize(
    "text, day",
    [
        ("I have a course in Nijmegen a week on Thursday", dt.date(2026, 3, 5)),
        ("a week tomorrow we fly", dt.date(2026, 3, 4)),
        ("see you Thursday week", dt.date(2026, 3, 5)),
    ],
)
def test_a_week_on_a_day_and_days_at_christmas(text, day):
    [found] = find_relative_dates(text, dt.date(2026, 2, 24))
    assert found.period.start == day


def test_days_at_christmas_are_in_december():
    [found] = find_relative_dates("Christmas we go to my mum in Zwolle, 25th to 27th.", dt.date(2025, 12, 2))
    assert (found.period.start, found.period.end) == (dt.date(2025, 12, 25), dt.date(2025, 12, 27))


@pytest.mark.parametrize(
    "text, day",
    [
        ("from 1 march I'm on the new team", dt.date(2026, 3, 1)),
        ("we fly on 3 may, can't wait", dt.date(2026, 5, 3)),
        ("the 6th of may works for me", dt.date(2026, 5, 6)),
        ("march 3rd we go", dt.date(2026, 3, 3)),
    ],
)
def test_march_and_may_in_lower_case_beside_a_day_are_months(text, day):
    [found] = find_relative_dates(text, dt.date(2026, 2, 19))
    assert found.period == Period.day(day)


@pytest.mark.parametrize("text", ["we march 10 miles with the scouts", "you may 2x the recipe", "it may 5 times a day"])
def test_march_and_may_as_verbs_beside_a_number_are_no_dates(text):
    assert find_relative_dates(text, dt.date(2026, 2, 19)) == []


@pytest.mark.parametrize(
    "text, said, first, last",
    [
        (
            "I'm flying to charlotte for onboarding, sunday to thursday.",
            dt.date(2025, 11, 2),
            "9 November",
            "13 November",
        ),
        ("we drove up friday to sunday, 2 nights", dt.date(2025, 11, 12), "7 November", "9 November"),
        # told in the past on Wednesday 12 November: the week before, not a Friday to come
        ("we went tuesday till friday, 3 nights", dt.date(2025, 11, 12), "4 November", "7 November"),
    ],
)
def test_a_span_s_end_told_by_its_weekday_is_the_first_such_day_after_its_start(text, said, first, last):
    days = [r.period for r in find_relative_dates(text, said)]
    assert len(days) == 2 and days[0].start < days[1].start <= days[0].start + dt.timedelta(days=6)
    written, _ = annotate(text, said)
    assert first in written and last in written


@pytest.mark.parametrize(
    "sentence, said_on, day",
    [
        ("suya with my dad on Boxing Day was the best", dt.date(2027, 1, 10), "2026-12-26"),
        ("we're going out on Valentine's", dt.date(2027, 1, 10), "2027-02-14"),
        ("we went out on valentines day", dt.date(2027, 3, 1), "2027-02-14"),
        ("Christmas Eve at mum's was lovely", dt.date(2027, 1, 3), "2026-12-24"),
        ("Hogmanay 2025 in Edinburgh was wild", dt.date(2027, 1, 3), "2025-12-31"),
    ],
)
def test_a_holiday_on_a_fixed_day_is_that_day(sentence, said_on, day):
    [found] = find_relative_dates(sentence, said_on)
    assert found.period.code == day


def test_a_holiday_weekend_is_not_the_holiday_itself():
    assert [d.phrase for d in find_relative_dates("valentine's weekend we went to Bath", dt.date(2027, 3, 1))] == []
