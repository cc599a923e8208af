"""Period: a date with its precision, stored short, said the way people say it."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.dates import Period, parse_period


@pytest.mark.parametrize(
    "code, precision, rendered, phrase",
    [
        ("2023-05-07", "day", "7 May 2023", "on 7 May 2023"),
        ("2023-06-02/2023-06-08", "week", "the week before 9 June 2023", "the week before 9 June 2023"),
        ("2023-06-05/2023-06-11", "week", "the week of 5 June 2023", "the week of 5 June 2023"),
        ("2023-05-27/2023-05-28", "weekend", "the weekend of 27 May 2023", "the weekend of 27 May 2023"),
        ("2023-05", "month", "May 2023", "in May 2023"),
        ("2023-summer", "season", "summer 2023", "in summer 2023"),
        ("2023-winter", "season", "winter 2023", "in winter 2023"),
        ("2022", "year", "2022", "in 2022"),
        ("2023-05-03/2023-05-20", "range", "between 3 and 20 May 2023", "between 3 and 20 May 2023"),
        ("2019-01-01/2021-12-31", "range", "between 2019 and 2021", "between 2019 and 2021"),
    ],
)
def test_precision_code_and_words(code, precision, rendered, phrase):
    period = parse_period(code)
    assert period.precision == precision
    assert period.code == code
    assert period.render() == rendered == str(period)
    assert period.phrase() == phrase


def test_other_spellings_normalise_to_the_stored_form():
    assert parse_period("2019/2021").code == "2019-01-01/2021-12-31"
    assert parse_period("2023-W22").code == "2023-05-29/2023-06-04"
    assert parse_period("summer 2023").code == "2023-summer"
    assert parse_period("2023-05-01/2023-05-31").code == "2023-05"
    assert parse_period("2023-05-07T10:00:00").code == "2023-05-07"
    assert parse_period(dt.date(2023, 5, 7)).code == "2023-05-07"
    assert parse_period(None) is None and parse_period("") is None
    for bad in ("next tuesday", "2023-13", "2023-06-08/2023-06-01", "2023-05-07 to 2023-05-09"):
        with pytest.raises(ValueError):
            parse_period(bad)


def test_comparable_with_periods_and_dates():
    may, year = parse_period("2023-05"), parse_period("2023")
    assert parse_period("2022") < may < parse_period("2023-06")
    assert may > dt.date(2023, 4, 30) and may < dt.date(2023, 5, 2)
    assert sorted([parse_period("2023-06-02/2023-06-08"), dt.date(2023, 1, 1), may])[0] == dt.date(2023, 1, 1)
    assert dt.date(2023, 5, 9) in may and may in year and year not in may
    assert may.overlaps(parse_period("2023-04-20/2023-05-02")) and not may.overlaps(dt.date(2023, 6, 1))
    # an exact day is its date (and hashes like it)
    assert Period.day(dt.date(2023, 5, 7)) == dt.date(2023, 5, 7)
    assert {Period.day(dt.date(2023, 5, 7)): 1}[dt.date(2023, 5, 7)] == 1
    assert may != dt.date(2023, 5, 1)
    assert (may.start, may.end, may.days) == (dt.date(2023, 5, 1), dt.date(2023, 5, 31), 31)


def test_label_keeps_exact_days_in_iso():
    assert parse_period("2023-05-07").label() == "2023-05-07"
    assert parse_period("2022").label() == "2022"
    assert parse_period("2023-06-02/2023-06-08").label() == "the week before 9 June 2023"


def test_a_period_cannot_end_before_it_starts():
    with pytest.raises(ValueError):
        Period(dt.date(2023, 5, 2), dt.date(2023, 5, 1))


days = st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2200, 12, 31))


@settings(max_examples=300, deadline=None)
@given(first=days, length=st.integers(min_value=0, max_value=800))
def test_the_stored_form_reads_back_to_the_same_days(first, length):
    period = Period(first, first + dt.timedelta(days=length))
    again = parse_period(period.code)
    assert (again.start, again.end) == (period.start, period.end)
    assert again.render() == period.render()
