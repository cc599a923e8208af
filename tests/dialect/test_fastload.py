"""The JSON fast path for state.py must agree with the ast interpreter: it
either returns exactly the same values or declines (returns None)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac.dialect import render
from uac.dialect.classes import build_classes
from uac.dialect.fastload import fast_values
from uac.dialect.interpret import StateInterpreter
from uac.dialect.precheck import precheck_split
from uac.dialect.problems import CodeRejected
from uac.dialect.syntax import parse_python
from uac.dialect.validate import validate_schema

from .test_hostile import GOOD_SCHEMA, GOOD_STATE, STATE_ATTACKS
from .test_loader import NESTED_SCHEMA, NESTED_STATE


def both_paths(schema_text: str, state_text: str):
    schema = validate_schema(schema_text)
    classes = build_classes(schema, "t")
    try:
        text, code, strings = precheck_split(state_text, "state.py", max_bytes=10**9)
    except CodeRejected:
        return None, "rejected"
    fast = fast_values(code, strings, schema, classes, "state.py")
    try:
        slow = StateInterpreter("state.py", schema, classes).run(parse_python(text, "state.py"))
    except CodeRejected:
        slow = "rejected"
    return fast, slow


def same(fast, slow) -> bool:
    return [(v.name, v.type, repr(v.value)) for v in fast] == [(v.name, v.type, repr(v.value)) for v in slow]


@pytest.mark.parametrize("schema_text,state_text", [(GOOD_SCHEMA, GOOD_STATE), (NESTED_SCHEMA, NESTED_STATE)])
def test_fast_path_is_taken_and_agrees(schema_text, state_text):
    fast, slow = both_paths(schema_text, state_text)
    assert fast is not None and same(fast, slow)


@pytest.mark.parametrize("name", sorted(STATE_ATTACKS))
def test_fast_path_never_accepts_what_the_interpreter_rejects(name):
    body, _expected = STATE_ATTACKS[name]
    header = "from datetime import date, datetime\nfrom typing import Any\n\nfrom .schema import Trip\n\n"
    fast, slow = both_paths(GOOD_SCHEMA, header + body + "\n")
    assert slow == "rejected"
    assert fast is None


SCHEMA = '''"""Mixed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from enum import Enum
from typing import Any


class Kind(Enum):
    A = "a"
    B = 2


@dataclass(frozen=True)
class Leg:
    city: str
    day: date | None = None


@dataclass(frozen=True)
class Rec:
    name: str
    count: int
    score: float
    ok: bool
    day: date
    at: datetime | None = None
    wake: time | None = None
    span: timedelta | None = None
    kind: Kind | None = None
    tags: list[str] = field(default_factory=list)
    nums: list[int] = field(default_factory=list)
    legs: list[Leg] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    pair: tuple[int, str] | None = None
    sources: list[str] = field(default_factory=list)
'''

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=15)
ANY = st.recursive(
    st.one_of(TEXT, st.integers(-(2**40), 2**40), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none(), st.dates()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3), st.tuples(inner, inner)),
    max_leaves=8,
)


@st.composite
def records(draw):
    schema = validate_schema(SCHEMA)
    classes = build_classes(schema, "t")
    rec, leg, kind = classes["Rec"], classes["Leg"], classes["Kind"]
    out = []
    for _ in range(draw(st.integers(0, 4))):
        out.append(
            rec(
                name=draw(TEXT),
                count=draw(st.integers(-(2**63), 2**63)),
                score=draw(st.floats(allow_nan=False, allow_infinity=False)),
                ok=draw(st.booleans()),
                day=draw(st.dates()),
                at=draw(st.none() | st.datetimes()),
                wake=draw(st.none() | st.times()),
                span=draw(st.none() | st.timedeltas()),
                kind=draw(st.none() | st.sampled_from(list(kind))),
                tags=draw(st.lists(TEXT, max_size=3)),
                nums=draw(st.lists(st.integers(-5, 5), max_size=3)),
                legs=[leg(city=draw(TEXT), day=draw(st.none() | st.dates())) for _ in range(draw(st.integers(0, 2)))],
                extra=draw(st.dictionaries(TEXT, ANY, max_size=3)),
                pair=draw(st.none() | st.tuples(st.integers(-9, 9), TEXT)),
                sources=draw(st.lists(TEXT, max_size=2)),
            )
        )
    return schema, out


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_fast_path_agrees_on_random_states(data):
    schema, recs = data
    from uac.dialect.types import TypeSpec

    text = render.render_state("S.", schema, [("recs", TypeSpec("list", (TypeSpec("class", name="Rec"),)), recs)])
    fast, slow = both_paths(SCHEMA, text)
    assert slow != "rejected"
    if fast is not None:
        assert same(fast, slow)


SNIPPETS = [
    "__import__('os')", "+1", "lambda: 0", " x", ".real", "(", ")", "=", " True", '"s"', ",", "1j", " if 1 else 2",
    "*", "[0]", "# c\n", "\\\n", "\n", "{", "}", ":", "Kind.A", "Rec(", "date(", "-", " not ", "..", "0x1", "1_0",
    "'q'", "r'x'", "b'x'", "f'x'", "null", "true", "NaN", "{'c': 'Rec'}", '{"k": "name"}', "= 1", "==",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records(), st.data())
def test_fast_path_never_accepts_mutations_the_interpreter_rejects(data, draw):
    schema, recs = data
    from uac.dialect.types import TypeSpec

    text = render.render_state("S.", schema, [("recs", TypeSpec("list", (TypeSpec("class", name="Rec"),)), recs)])
    body_start = text.index("recs:")
    for _ in range(draw.draw(st.integers(1, 3))):
        position = draw.draw(st.integers(body_start, len(text)))
        text = text[:position] + draw.draw(st.sampled_from(SNIPPETS)) + text[position:]
    fast, slow = both_paths(SCHEMA, text)
    if fast is not None:
        assert slow != "rejected", text
        assert same(fast, slow), text


def test_large_import_uses_the_fast_path(memory, tmp_path):
    import json

    rows = [{"city": f"c{i}", "day": (dt.date(2020, 1, 1) + dt.timedelta(days=i)).isoformat(), "n": i, "x": i / 3} for i in range(500)]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows))
    memory.import_records(path, domain="big", collection="rows")
    directory = memory.project.paths.domains / "big"
    fast, slow = both_paths((directory / "schema.py").read_text(), (directory / "state.py").read_text())
    assert fast is not None and same(fast, slow)
