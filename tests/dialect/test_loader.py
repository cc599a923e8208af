"""Loading a domain package from source text: nested types, frozen classes."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from uac.dialect.classes import build_classes
from uac.dialect.loader import load_sources
from uac.dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from uac.dialect.types import TypeSpec

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


def test_build_classes_reports_bad_defaults():
    spec = SchemaSpec(
        (ClassSpec("A", fields=(FieldSpec("x", TypeSpec("int"), "value", 1), FieldSpec("y", TypeSpec("int")))),)
    )
    from uac.errors import CompileError

    with pytest.raises(CompileError, match="cannot be built"):
        build_classes(spec, "m")
