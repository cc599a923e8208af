"""Loader, cache and the deterministic, black-stable renderer."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import black
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac.structure import render, store
from uac.structure.loader import build_classes, load_domain_dir, load_sources
from uac.structure.spec import ClassSpec, FieldSpec, SchemaSpec
from uac.structure.types import TypeSpec
from uac.structure.validate import CodeRejected

from .test_hostile import GOOD_SCHEMA, GOOD_STATE

NESTED_SCHEMA = '''"""Nested types."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from enum import Enum
from typing import Any, Optional


class Mood(Enum):
    GOOD = "good"
    BAD = "bad"


@dataclass
class Place:
    name: str
    visited: list[date] = field(default_factory=list)


@dataclass(frozen=True)
class Day:
    date: date
    place: Optional[Place] = None
    mood: Mood | None = None
    at: datetime | None = None
    wake: time | None = None
    length: timedelta | None = None
    scores: dict[str, float] = field(default_factory=dict)
    pair: tuple[int, str] | None = None
    extra: Any = None
    tags: set[str] | None = None
    sources: list[str] = field(default_factory=list)
'''

NESTED_STATE = '''"""State."""

from datetime import date, datetime, time, timedelta

from .schema import Day, Mood, Place

days: list[Day] = [
    Day(
        date=date(2024, 2, 29),
        place=Place(name="Oslo", visited=[date(2023, 1, 1)]),
        mood=Mood.GOOD,
        at=datetime(2024, 2, 29, 10, 30, 5, 7),
        wake=time(7, 15),
        length=timedelta(days=1, seconds=5),
        scores={"a": 1, "b": 2.5},
        pair=(1, "x"),
        extra={"k": [1, (2, 3), {4}]},
        tags={"b", "a"},
        sources=["f1", "f2"],
    ),
    Day(date=date(2024, 3, 1), extra=-3.5),
]
count: int = -2
ratio: float = 3
'''


def write_domain_dir(root, name, schema, state, init='"""Domain."""\n'):
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "schema.py").write_text(schema)
    (directory / "state.py").write_text(state)
    (directory / "__init__.py").write_text(init)
    return directory


def test_nested_types_load_and_are_frozen():
    loaded = load_sources("life", NESTED_SCHEMA, NESTED_STATE)
    first, second = loaded.values["days"]
    assert first.place.name == "Oslo" and first.place.visited == [dt.date(2023, 1, 1)]
    assert first.mood.name == "GOOD"
    assert first.at == dt.datetime(2024, 2, 29, 10, 30, 5, 7)
    assert first.length == dt.timedelta(days=1, seconds=5)
    assert first.scores == {"a": 1.0, "b": 2.5} and type(first.scores["a"]) is float
    assert first.tags == {"a", "b"}
    assert second.place is None and second.extra == -3.5
    assert loaded.values["count"] == -2
    assert loaded.values["ratio"] == 3.0 and type(loaded.values["ratio"]) is float
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.mood = None
    assert loaded.record_count() == 3
    assert loaded.cited_ids() == {"f1", "f2"}


def test_cache_round_trip_is_equal_and_used(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "life", NESTED_SCHEMA, NESTED_STATE)
    cache = tmp_path / "cache"
    cold = load_domain_dir(directory, cache_dir=cache)
    assert not cold.from_cache
    data = json.loads((cache / "life.json").read_text())
    assert data["key"] == cold.source_hash
    warm = load_domain_dir(directory, cache_dir=cache)
    assert warm.from_cache
    assert render.render_state("x", warm.schema, [(n, warm.types[n], v) for n, v in warm.values.items()]) == render.render_state(
        "x", cold.schema, [(n, cold.types[n], v) for n, v in cold.values.items()]
    )
    assert warm.values["days"][0].tags == cold.values["days"][0].tags
    # an edit invalidates the cache (keyed by the sources' hash)
    (directory / "state.py").write_text(NESTED_STATE.replace("count: int = -2", "count: int = 7"))
    edited = load_domain_dir(directory, cache_dir=cache)
    assert not edited.from_cache and edited.values["count"] == 7


def test_cache_is_never_trusted_over_a_bad_source(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "travel", GOOD_SCHEMA, GOOD_STATE)
    cache = tmp_path / "cache"
    load_domain_dir(directory, cache_dir=cache)
    (directory / "state.py").write_text(GOOD_STATE + "\nimport os\n")
    with pytest.raises(CodeRejected):
        load_domain_dir(directory, cache_dir=cache)
    (directory / "state.py").write_text(GOOD_STATE)
    (cache / "travel.json").write_text("{not json")
    assert load_domain_dir(directory, cache_dir=cache).values["trips"][0].city == "Lisbon"


def test_init_py_is_checked(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "travel", GOOD_SCHEMA, GOOD_STATE, init="import os\n")
    with pytest.raises(CodeRejected, match="__init__.py may only hold"):
        load_domain_dir(directory)


def test_missing_file_is_reported(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "travel", GOOD_SCHEMA, GOOD_STATE)
    (directory / "state.py").unlink()
    with pytest.raises(CodeRejected, match="state.py: file missing"):
        load_domain_dir(directory)


def test_render_is_deterministic_and_black_stable():
    loaded = load_sources("life", NESTED_SCHEMA, NESTED_STATE)
    entries = [(n, loaded.types[n], v) for n, v in loaded.values.items()]
    first = render.render_state("Life.", loaded.schema, entries)
    assert first == render.render_state("Life.", loaded.schema, entries)
    assert black.format_str(first, mode=black.Mode()) == first
    schema_text = render.render_schema(loaded.schema)
    assert black.format_str(schema_text, mode=black.Mode()) == schema_text
    reloaded = load_sources("life", schema_text, first)
    # (sets print in hash order, so compare the canonical rendering, which sorts them)
    assert render.render_state("Life.", reloaded.schema, [(n, reloaded.types[n], v) for n, v in reloaded.values.items()]) == first


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
SCALARS = st.one_of(
    TEXT,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.dates(),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(TEXT, inner, max_size=4)), max_leaves=25)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(VALUES, max_size=8))
def test_pretty_printer_is_black_stable_and_round_trips(values):
    schema = SchemaSpec(())
    entries = [(f"v{i}", TypeSpec("any"), v) for i, v in enumerate(values)]
    text = render.render_state("Values.", schema, entries)
    assert black.format_str(text, mode=black.Mode()) == text
    if any(isinstance(v, dt.date) or _has_date(v) for v in values):
        pass
    loaded = load_sources("vals", '"""S."""\n', text.replace('"""Values."""', '"""Values."""', 1))
    assert [loaded.values[f"v{i}"] for i in range(len(values))] == values


def _has_date(value):
    if isinstance(value, list):
        return any(_has_date(v) for v in value)
    if isinstance(value, dict):
        return any(_has_date(v) for v in value.values())
    return isinstance(value, dt.date)


def test_string_literal_quote_rules():
    for value in ["plain", "it's", 'say "hi"', "both ' and \"", "both '' and \"", "back\\slash'", "\n\t\x00\u2028é"]:
        literal = render.string_literal(value)
        assert eval(literal) == value  # noqa: S307 - a test of our own literal writer on constant strings
        assert black.format_str(f"x = {literal}\n", mode=black.Mode()) == f"x = {literal}\n"


def test_build_classes_reports_bad_defaults():
    spec = SchemaSpec((ClassSpec("A", fields=(FieldSpec("x", TypeSpec("int"), "value", 1), FieldSpec("y", TypeSpec("int")))),))
    from uac.errors import CompileError

    with pytest.raises(CompileError, match="cannot be built"):
        build_classes(spec, "m")


def test_load_view_and_state_api(memory):
    directory = memory.project.paths.domains
    write_domain_dir(directory, "travel", GOOD_SCHEMA, GOOD_STATE)
    view = store.load_view(memory.project)
    assert list(view) == ["travel"]
    state = memory.state
    assert isinstance(state["travel"].trips, tuple)
    assert state.travel.trips[0].city == "Lisbon"
    with pytest.raises(AttributeError, match="read-only"):
        state.travel.trips = ()
    with pytest.raises(AttributeError, match="has no 'meals'"):
        state.travel.meals
    sandbox = memory.sandbox_state()
    assert list(sandbox) == ["travel"] and sandbox["travel"]["trips"][0].start == dt.date(2023, 5, 7)
