"""One reader for the dates and periods a model writes: extraction (``read_date``)
and compile (a ``date`` or ``Period`` field) read the same forms to the same days."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.ops import OpRejected, coerce
from uac.dates import MONTHS, Period, read_day, read_period
from uac.dialect.types import TypeSpec
from uac.extract.coerce import read_date

SESSION_DAY = dt.date(2023, 5, 8)

#: every form extraction's or compile's tests write, with the stored form it is read as
#: (either reader read each of these before; both read all of them now)
ABSOLUTE = [
    ("2023-05-07", "2023-05-07"),
    ("2023-05-07T18:00:00Z", "2023-05-07"),
    ("2023-05-07T10:30:00", "2023-05-07"),
    ("May 7, 2023", "2023-05-07"),
    ("May 7 2023", "2023-05-07"),
    ("May 07, 2023", "2023-05-07"),
    ("7 May 2023", "2023-05-07"),
    ("Sunday, 7 May 2023", "2023-05-07"),
    ("7th of May 2023", "2023-05-07"),
    ("Sept 3 2023", "2023-09-03"),
    ("2023/05/07", "2023-05-07"),
    ("20230507", "2023-05-07"),
    ("07.05.2023", "2023-05-07"),
    ("25/05/2023", "2023-05-25"),
    ("May 2023", "2023-05"),
    ("May, 2023", "2023-05"),
    ("in May, 2023", "2023-05"),
    ("Sept. 2023", "2023-09"),
    ("2023 May", "2023-05"),
    ("2023-05", "2023-05"),
    ("2023", "2023"),
    ("2022", "2022"),
    ("in the year 2022", "2022"),
    ("2023-summer", "2023-summer"),
    ("summer 2023", "2023-summer"),
    ("2023-W22", "2023-05-29/2023-06-04"),
    ("the week before 9 June 2023", "2023-06-02/2023-06-08"),
    ("the week of 5 June 2023", "2023-06-05/2023-06-11"),
    ("the weekend of 27 May 2023", "2023-05-27/2023-05-28"),
    ("weekend of 27 May 2023", "2023-05-27/2023-05-28"),
    ("May 3-9, 2023", "2023-05-03/2023-05-09"),
    ("2023-06-02/2023-06-08", "2023-06-02/2023-06-08"),
    ("2023-06-02 to 2023-06-08", "2023-06-02/2023-06-08"),
    ("2023-05-07 \u2013 2023-05-09", "2023-05-07/2023-05-09"),
    ("between 3 May 2023 and 9 May 2023", "2023-05-03/2023-05-09"),
    ("between 2021 and 2022", "2021-01-01/2022-12-31"),
    ("from May 2023 until July 2023", "2023-05-01/2023-07-31"),
    ("May 2023 - June 2023", "2023-05-01/2023-06-30"),
    ("2022 - 2023", "2022-01-01/2023-12-31"),
    ({"start": "2022", "end": "2023"}, "2022-01-01/2023-12-31"),
    ({"start": "2023-05", "end": "2023-06"}, "2023-05-01/2023-06-30"),
    ({"from": "2022"}, "2022"),
]
#: forms only extraction reads: they need the day the conversation took place
RELATIVE = [("yesterday", "2023-05-07"), ("next spring", "2024-spring")]
#: what neither reads, and why it is refused
REFUSED = [
    ("05/06/2023", "ambiguous"),
    ("2023-02-30", "not a real date"),
    ("summer", "not a date"),
    ("the day after the party", "not a date"),
]
#: the exact days a ``date`` field takes (each form compile's date field read before)
DAYS = [form for form, code in ABSOLUTE if isinstance(form, str) and len(code) == 10] + ["2023-W22"]

PERIOD = TypeSpec("period")
DATE = TypeSpec("date")


@pytest.mark.parametrize("form, code", ABSOLUTE, ids=[str(form) for form, _ in ABSOLUTE])
def test_extraction_and_compile_read_every_form_either_read_before(form, code):
    expected = Period(code)
    assert read_period(form) == expected and read_period(form).code == expected.code
    assert read_date(form, SESSION_DAY).period.code == code
    assert coerce(None, form, PERIOD, "trip.when").code == code


@pytest.mark.parametrize("form", DAYS)
def test_a_date_field_reads_every_exact_day(form):
    expected = Period(read_period(form).code).start
    assert read_day(form) == expected and coerce(None, form, DATE, "trip.on") == expected


@pytest.mark.parametrize("form, code", RELATIVE)
def test_relative_dates_need_the_day_they_were_said(form, code):
    assert read_date(form, SESSION_DAY).period.code == code
    with pytest.raises(ValueError, match="is not a date"):
        read_period(form)
    with pytest.raises(OpRejected, match="expects a period"):
        coerce(None, form, PERIOD, "trip.when")


@pytest.mark.parametrize("form, why", REFUSED)
def test_what_names_no_day_is_refused_with_the_reason(form, why):
    with pytest.raises(ValueError, match=why):
        read_period(form)
    assert why in read_date(form, SESSION_DAY).problem
    with pytest.raises(OpRejected):
        coerce(None, form, PERIOD, "trip.when")


@pytest.mark.parametrize("form", [None, "", "N/A", "unknown", {"start": None, "end": "null"}])
def test_no_date_is_none(form):
    assert read_period(form) is None and read_date(form, SESSION_DAY).period is None


def test_one_month_table_with_names_and_abbreviations():
    assert MONTHS["january"] == 1 and MONTHS["jan"] == 1 and MONTHS["sept"] == MONTHS["sep"] == 9
    assert sorted(set(MONTHS.values())) == list(range(1, 13))
