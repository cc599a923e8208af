"""``Period`` as a field type of the dialect: declared, written, validated,
interpreted (both paths), cached and rendered back, as a real uac.dates.Period."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.dates import Period
from uac.dialect import render
from uac.dialect.classes import build_classes, rebuild
from uac.dialect.codec import StateCodec
from uac.dialect.loader import load_sources
from uac.dialect.problems import CodeRejected
from uac.dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from uac.dialect.types import TypeSpec

from .test_fastload import both_paths, same

OPT_PERIOD = TypeSpec("union", (TypeSpec("period"), TypeSpec("none")))
LIST_STR = TypeSpec("list", (TypeSpec("str"),))
TRIP = ClassSpec(
    "Trip",
    "dataclass",
    (
        FieldSpec("city", TypeSpec("str")),
        FieldSpec("when", OPT_PERIOD, "value", None),
        FieldSpec("said_on", TypeSpec("union", (TypeSpec("date"), TypeSpec("none"))), "value", None),
        FieldSpec("sources", LIST_STR, "list"),
    ),
    doc="One trip.",
)
SCHEMA = SchemaSpec((TRIP,), "Trips.")
TRIPS = TypeSpec("list", (TypeSpec("class", name="Trip"),))


def _state(values: list[tuple[str, TypeSpec, object]]) -> tuple[str, str]:
    return render.render_schema(SCHEMA), render.render_state("State.", SCHEMA, values)


def _trips() -> list:
    cls = build_classes(SCHEMA, "t")["Trip"]
    return [
        cls(city="Rome", when=Period("2023-05"), said_on=dt.date(2023, 6, 9), sources=["f1"]),
        cls(city="Lima", when=Period("2023-06-02/2023-06-08"), sources=["f2"]),
        cls(city="Oslo"),
        cls(city="Nice", when=Period("2022"), sources=["f3"]),
        cls(city="Bath", when=Period("2023-summer")),
        cls(city="Kyiv", when=Period("2023-05-07")),
    ]


def test_schema_imports_period_from_uac_dates_and_state_writes_its_stored_form():
    schema_text, state_text = _state([("trips", TRIPS, _trips()), ("span", OPT_PERIOD, Period("2019/2021"))])
    assert "from uac.dates import Period\n" in schema_text
    assert "    when: Period | None = None\n" in schema_text
    assert "from uac.dates import Period\n" in state_text
    assert 'Trip(city="Rome", when=Period("2023-05"), said_on=date(2023, 6, 9), sources=["f1"])' in state_text
    assert 'when=Period("2023-06-02/2023-06-08")' in state_text and 'when=Period("2023-summer")' in state_text
    assert 'span: Period | None = Period("2019-01-01/2021-12-31")' in state_text
    loaded = load_sources("travel", schema_text, state_text)
    trips = loaded.values["trips"]
    assert [t.when for t in trips] == [t.when for t in _trips()]
    assert all(type(t.when) is Period for t in trips if t.when is not None)
    assert trips[1].when.render() == "the week before 9 June 2023" and trips[1].when.precision == "week"
    # comparable with dates, sortable with None kept apart
    assert trips[0].when > dt.date(2023, 4, 30) and dt.date(2023, 5, 9) in trips[0].when
    assert sorted(t.city for t in trips if t.when and t.when.start.year == 2023) == ["Bath", "Kyiv", "Lima", "Rome"]
    # a period is a value, not a record: not counted, not cited
    assert loaded.record_count() == 6
    # rendering again gives the same text
    assert (
        render.render_state("State.", SCHEMA, list(zip(loaded.values, loaded.types.values(), loaded.values.values())))
        == state_text
    )


def test_fast_path_and_interpreter_agree_on_periods():
    schema_text, state_text = _state([("trips", TRIPS, _trips())])
    fast, slow = both_paths(schema_text, state_text)
    assert fast is not None and slow != "rejected" and same(fast, slow)


def test_cache_codec_round_trips_periods():
    schema_text, state_text = _state([("trips", TRIPS, _trips()), ("span", OPT_PERIOD, Period("2022"))])
    loaded = load_sources("travel", schema_text, state_text)
    codec = StateCodec(loaded.classes)
    for name, value in loaded.values.items():
        encoded = codec.encode(value, loaded.types[name])
        assert codec.decode(encoded, loaded.types[name]) == value
    assert codec.encode(loaded.values["trips"][1], TypeSpec("class", name="Trip"))[1] == "2023-06-02/2023-06-08"
    # typed Any (or a multi-type union): the tagged form
    assert codec.tagged(Period("2023-summer")) == {"$period": "2023-summer"}
    assert codec.untagged({"$period": "2023-summer"}) == Period("2023-summer")
    # classes rebuilt for a changed schema keep the period as it is
    rebuilt = rebuild(loaded.values["trips"][0], build_classes(SCHEMA, "t2"))
    assert rebuilt.when is loaded.values["trips"][0].when


def test_a_day_written_as_date_reads_as_the_period_of_that_day():
    schema_text, state_text = _state([("span", OPT_PERIOD, Period("2022"))])
    state_text = state_text.replace('Period("2022")', "date(2023, 5, 7)").replace(
        "from uac.dates", "from datetime import date\nfrom uac.dates"
    )
    span = load_sources("travel", schema_text, state_text).values["span"]
    assert type(span) is Period and span == Period.day(dt.date(2023, 5, 7))


@pytest.mark.parametrize(
    "literal, message",
    [
        ('Period("next week")', "is not a period; write YYYY-MM-DD"),
        ('Period("2023-13")', "is not a period"),
        ("Period(2022)", "takes one string literal"),
        ('Period(code="2022")', "takes one string literal"),
        ('Period("2022", "2023")', "takes one string literal"),
        ('Period(f"{1}")', "takes one string literal"),
    ],
)
def test_bad_period_literals_are_refused_with_the_forms(literal, message):
    schema_text, state_text = _state([("span", OPT_PERIOD, Period("2022"))])
    bad = state_text.replace('Period("2022")', literal)
    with pytest.raises(CodeRejected, match=message):
        load_sources("travel", schema_text, bad)
    fast, slow = both_paths(schema_text, bad)
    assert fast is None and slow == "rejected"


def test_period_must_be_imported_and_only_from_uac_dates():
    schema_text, state_text = _state([("span", OPT_PERIOD, Period("2022"))])
    with pytest.raises(CodeRejected, match="from uac.dates import"):
        load_sources("travel", schema_text, state_text.replace("from uac.dates import Period\n", ""))
    with pytest.raises(CodeRejected, match="not imported"):
        load_sources("travel", schema_text.replace("from uac.dates import Period\n", ""), state_text)
    for line in (
        "from uac.dates import parse_period",
        "from uac import Period",
        "from uac.dates import Period as P",
        "import uac.dates",
    ):
        with pytest.raises(CodeRejected):
            load_sources("travel", schema_text.replace("from uac.dates import Period", line), state_text)


LEGACY_SCHEMA = '''"""A schema written before Period was a type."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Period:
    name: str


@dataclass(frozen=True)
class Cycle:
    period: Period | None = None
'''


def test_a_schema_with_its_own_class_period_keeps_meaning_it():
    state = (
        '"""s"""\n\nfrom .schema import Cycle, Period\n\ncycles: list[Cycle] = [Cycle(period=Period(name="luteal"))]\n'
    )
    fast, slow = both_paths(LEGACY_SCHEMA, state)
    assert slow != "rejected" and fast is not None and same(fast, slow)
    assert slow[0].value[0].period.name == "luteal"
    with pytest.raises(CodeRejected, match="rebinds an allowed name"):
        load_sources(
            "h", LEGACY_SCHEMA.replace("from dataclasses", "from uac.dates import Period\nfrom dataclasses"), state
        )
