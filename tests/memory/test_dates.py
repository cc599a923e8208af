"""Relative dates resolved against the session date."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.extract.dates import annotate, find_relative_dates

MONDAY = dt.date(2023, 5, 8)  # 8 May 2023 was a Monday


@pytest.mark.parametrize(
    "phrase, day, rendered",
    [
        ("yesterday", dt.date(2023, 5, 7), "on 7 May 2023"),
        ("today", MONDAY, "on 8 May 2023"),
        ("tomorrow", dt.date(2023, 5, 9), "on 9 May 2023"),
        ("last night", dt.date(2023, 5, 7), "on 7 May 2023"),
        ("the day before yesterday", dt.date(2023, 5, 6), "on 6 May 2023"),
        ("two days ago", dt.date(2023, 5, 6), "on 6 May 2023"),
        ("3 weeks ago", dt.date(2023, 4, 17), "the week of 17 April 2023"),
        ("a few days ago", dt.date(2023, 5, 5), "around 5 May 2023"),
        ("last Friday", dt.date(2023, 5, 5), "on 5 May 2023"),
        ("next Friday", dt.date(2023, 5, 12), "on 12 May 2023"),
        ("last Monday", dt.date(2023, 5, 1), "on 1 May 2023"),
        ("last week", dt.date(2023, 5, 1), "the week of 1 May 2023"),
        ("next month", dt.date(2023, 6, 8), "in June 2023"),
        ("last month", dt.date(2023, 4, 8), "in April 2023"),
        ("last year", dt.date(2022, 5, 8), "in 2022"),
        ("this weekend", dt.date(2023, 5, 13), "the weekend of 13 May 2023"),
        ("last weekend", dt.date(2023, 5, 6), "the weekend of 6 May 2023"),
        ("a month ago", dt.date(2023, 4, 8), "in April 2023"),
    ],
)
def test_phrases(phrase, day, rendered):
    [found] = find_relative_dates(f"We talked about it {phrase}.", MONDAY)
    assert found.day == day
    assert found.render() == rendered


def test_annotate_writes_the_date_after_the_phrase():
    text, found = annotate("Caroline went to a support group yesterday and loved it.", MONDAY)
    assert text == "Caroline went to a support group yesterday (on 7 May 2023) and loved it."
    assert found[0].day == dt.date(2023, 5, 7)


def test_no_false_positives():
    assert find_relative_dates("The weekday schedule is fine and I like years of jazz.", MONDAY) == []
    text, found = annotate("Nothing dated here.", MONDAY)
    assert text == "Nothing dated here." and found == []


def test_month_arithmetic_clamps_day():
    [found] = find_relative_dates("next month", dt.date(2023, 1, 31))
    assert found.day == dt.date(2023, 2, 28)


days = st.dates(min_value=dt.date(1950, 1, 1), max_value=dt.date(2100, 12, 31))


@settings(max_examples=200, deadline=None)
@given(base=days, n=st.integers(min_value=1, max_value=12))
def test_days_ago_is_exact(base, n):
    [found] = find_relative_dates(f"it happened {n} days ago", base)
    assert found.day == base - dt.timedelta(days=n)
    [found] = find_relative_dates(f"it happens in {n} days", base)
    assert found.day == base + dt.timedelta(days=n)


@settings(max_examples=200, deadline=None)
@given(base=days, weekday=st.sampled_from(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]))
def test_last_and_next_weekday(base, weekday):
    [last] = find_relative_dates(f"last {weekday}", base)
    [nxt] = find_relative_dates(f"next {weekday}", base)
    assert last.day.strftime("%A") == weekday and nxt.day.strftime("%A") == weekday
    assert 1 <= (base - last.day).days <= 7
    assert 1 <= (nxt.day - base).days <= 7


@settings(max_examples=200, deadline=None)
@given(base=days)
def test_weekends_are_saturdays_around_the_base(base):
    for phrase, low, high in (("last weekend", -13, -1), ("this weekend", -1, 6), ("next weekend", 0, 13)):
        [found] = find_relative_dates(phrase, base)
        assert found.day.weekday() == 5
        assert low <= (found.day - base).days <= high, (phrase, base, found.day)


@settings(max_examples=100, deadline=None)
@given(base=days)
def test_annotation_keeps_the_original_words(base):
    sentence = "I saw her yesterday and will call tomorrow."
    text, found = annotate(sentence, base)
    assert len(found) == 2
    assert text.replace(f" ({found[0].render()})", "").replace(f" ({found[1].render()})", "") == sentence
