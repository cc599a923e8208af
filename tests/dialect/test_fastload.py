"""The JSON fast path for state.py must agree with the ast interpreter: it
either returns exactly the same values or declines (returns None)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac.dates import Period
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
from uac.dates import Period


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
    when: Period | None = None
    sources: list[str] = field(default_factory=list)
'''

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=15)
PERIODS = st.builds(
    lambda day, length: Period(day, day + dt.timedelta(days=length)),
    st.dates(max_value=dt.date(9000, 1, 1)),
    st.sampled_from([0, 1, 6, 29, 30, 90, 364, 800]),
)
ANY = st.recursive(
    st.one_of(
        TEXT,
        st.integers(-(2**40), 2**40),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.none(),
        st.dates(),
        PERIODS,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3), st.tuples(inner, inner)
    ),
    max_leaves=8,
)


_PARSED: dict[str, tuple] = {}


def _schema_and_classes():
    """:data:`SCHEMA` validated and its classes built, once (the examples only read them)."""
    if "schema" not in _PARSED:
        schema = validate_schema(SCHEMA)
        _PARSED["schema"] = (schema, build_classes(schema, "t"))
    return _PARSED["schema"]


def _fast_and_strict(state_text: str):
    """Like :func:`both_paths` for :data:`SCHEMA`, with the schema validated once."""
    schema, classes = _schema_and_classes()
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


@st.composite
def records(draw):
    schema, classes = _schema_and_classes()
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
                when=draw(st.none() | PERIODS),
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
    fast, slow = _fast_and_strict(text)
    assert slow != "rejected"
    if fast is not None:
        assert same(fast, slow)


SNIPPETS = [
    'Period("2023")',
    "Period(",
    'Period("x")',
    "__import__('os')",
    "+1",
    "lambda: 0",
    " x",
    ".real",
    "(",
    ")",
    "=",
    " True",
    '"s"',
    ",",
    "1j",
    " if 1 else 2",
    "*",
    "[0]",
    "# c\n",
    "\\\n",
    "\n",
    "{",
    "}",
    ":",
    "Kind.A",
    "Rec(",
    "date(",
    "-",
    " not ",
    "..",
    "0x1",
    "1_0",
    "'q'",
    "r'x'",
    "b'x'",
    "f'x'",
    "null",
    "true",
    "NaN",
    "{'c': 'Rec'}",
    '{"k": "name"}',
    "= 1",
    "==",
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
    fast, slow = _fast_and_strict(text)
    if fast is not None:
        assert slow != "rejected", text
        assert same(fast, slow), text


def test_large_import_uses_the_fast_path(memory, tmp_path):
    import json

    rows = [
        {"city": f"c{i}", "day": (dt.date(2020, 1, 1) + dt.timedelta(days=i)).isoformat(), "n": i, "x": i / 3}
        for i in range(500)
    ]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows))
    memory.import_records(path, domain="big", collection="rows")
    directory = memory.project.paths.domains / "big"
    fast, slow = both_paths((directory / "schema.py").read_text(), (directory / "state.py").read_text())
    assert fast is not None and same(fast, slow)


# --- differential: mutations of valid multi-statement files ------------------------------
#
# The loader takes the fast path when it accepts and the interpreter otherwise, so
# together they must accept exactly what the interpreter accepts, with the same
# values.  The files have several statements of several kinds, so a mutation can
# split a value across two statements, drop or double a bracket or a comma, or
# move a statement into the middle of another.

MUTATION_SNIPPETS = [
    ",",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "\n",
    " ",
    ":",
    "=",
    "[,]",
    "(,)",
    "{,}",
    ",,",
    ", ",
    "0",
    "-1",
    "1.5",
    '"x"',
    "None",
    "True",
    "Kind.A",
    "date(2020, 1, 1)",
    'Leg(city="c")',
    "n: int = ",
    "\nn: int = 1\n",
    "\nm: int = ",
    "t: tuple[int, ...] = ",
    "\\\n",
    "#",
    "*",
    "...",
    "x=",
    "name=",
]


def _statements(draw) -> tuple[object, list]:
    from uac.dialect.types import TypeSpec

    schema, recs = draw.draw(records())
    spec = lambda text: TypeSpec.from_json(text)  # noqa: E731
    entries = [
        ("recs", TypeSpec("list", (TypeSpec("class", name="Rec"),)), recs),
        ("count", TypeSpec("int"), draw.draw(st.integers(-(2**40), 2**40))),
        ("label", TypeSpec("str"), draw.draw(TEXT)),
        (
            "pair",
            TypeSpec("tuple", (TypeSpec("int"), TypeSpec("str"))),
            (draw.draw(st.integers(-9, 9)), draw.draw(TEXT)),
        ),
        ("nums", TypeSpec("list", (TypeSpec("int"),)), draw.draw(st.lists(st.integers(-9, 9), max_size=4))),
        (
            "table",
            TypeSpec("dict", (TypeSpec("str"), TypeSpec("int"))),
            draw.draw(st.dictionaries(TEXT, st.integers(-9, 9), max_size=3)),
        ),
        ("when", TypeSpec("date"), draw.draw(st.dates())),
    ]
    del spec
    chosen = draw.draw(st.lists(st.sampled_from(range(len(entries))), min_size=2, max_size=5, unique=True))
    return schema, [entries[i] for i in sorted(chosen)]


_STRUCTURAL = "[](){},=:\n"
#: what a value is replaced with (a whole statement value)
VALUES = ["[,]", "(,)", "{,}", "[1,,2]", "[1,]", "(1,)", "[]", "1, 2", "1,", "[1", "2]"]


def _position(text: str, draw, start: int) -> int:
    """A position in ``text[start:]``: uniform, or next to a bracket, comma, colon or newline."""
    spots = [i for i in range(start, len(text)) if text[i] in _STRUCTURAL]
    if spots and draw.draw(st.booleans()):
        return draw.draw(st.sampled_from(spots)) + draw.draw(st.sampled_from([0, 1]))
    return draw.draw(st.integers(start, len(text)))


def _mutate(text: str, draw, start: int) -> str:
    # the structural operators more often: they make files that are nearly valid
    kind = draw.draw(
        st.sampled_from(["insert", "delete", "duplicate", "move_line", "newline"] + ["split", "tuple", "value"] * 3)
    )
    head, lines = text[:start], text[start:].split("\n")
    statements = [n for n, line in enumerate(lines) if line[:1].isalpha() and " = " in line]
    if kind == "split" and len(statements) >= 2:
        # move the last character of one statement to the end of the line before the next-but-one
        # statement (e.g. a closing bracket): the value now runs into the next statement
        first = draw.draw(st.integers(0, len(statements) - 2))
        end = statements[first + 1] - 1
        last = (statements[first + 2] - 1) if first + 2 < len(statements) else len(lines) - 1
        while end > statements[first] and not lines[end].strip():
            end -= 1
        while last > statements[first + 1] and not lines[last].strip():
            last -= 1
        moved, lines[end] = lines[end][-1:], lines[end][:-1]
        lines[last] += moved
        return head + "\n".join(lines)
    if kind == "tuple" and statements:
        n = draw.draw(st.sampled_from(statements))
        lines[n] += draw.draw(st.sampled_from([", 4", ",", ", 'x'"]))
        return head + "\n".join(lines)
    if kind == "value" and statements:
        n = draw.draw(st.sampled_from(statements))
        lines[n] = lines[n][: lines[n].index(" = ") + 3] + draw.draw(st.sampled_from(VALUES))
        return head + "\n".join(lines)
    position = _position(text, draw, start)
    if kind == "insert":
        return text[:position] + draw.draw(st.sampled_from(MUTATION_SNIPPETS)) + text[position:]
    if kind == "delete":
        return text[:position] + text[position + draw.draw(st.integers(1, 4)) :]
    if kind == "duplicate":
        size = draw.draw(st.integers(1, 12))
        return text[:position] + text[position : position + size] * 2 + text[position + size :]
    if kind == "newline":
        return text[:position] + "\n" + text[position:]
    line = lines.pop(draw.draw(st.integers(0, len(lines) - 1)))
    cut = draw.draw(st.integers(0, len(lines)))
    return head + "\n".join(lines[:cut] + [line] + lines[cut:])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_fast_path_accepts_exactly_what_the_interpreter_accepts(draw):
    """The loader takes the fast path when it accepts and the interpreter otherwise:
    so whenever the fast path accepts, the interpreter accepts too, with the same values."""
    schema, entries = _statements(draw)
    text = render.render_state("S.", schema, entries)
    start = text.index(entries[0][0] + ":")
    for _ in range(draw.draw(st.integers(1, 3))):
        text = _mutate(text, draw, start)
        if draw.draw(st.booleans()):
            break
    fast, slow = _fast_and_strict(text)
    if fast is not None:
        assert slow != "rejected", text
        assert same(fast, slow), text


@pytest.mark.parametrize(
    "body",
    [
        "recs: list[Rec] = [,]\n",
        "nums: list[int] = [,]\nn: int = 1\n",
        "a: list[int] = [1\nb: int = 2]\nc: int = 3, 4\n",
        "a: list[int] = [\nb: list[int] = []]\nc: int = 3, 4\n",
        "t: tuple[int, str] = (1\nn: int = 2, 'x')\nm: int = 3, 4\n",
    ],
)
def test_fast_path_declines_what_the_interpreter_rejects(body):
    header = "from datetime import date\n\nfrom .schema import Rec\n\n"
    fast, slow = both_paths(SCHEMA, header + body)
    assert slow == "rejected"
    assert fast is None
