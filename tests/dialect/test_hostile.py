"""Generated code is untrusted: hostile and broken sources are rejected with
precise messages, and nothing in them is ever executed."""

from __future__ import annotations

import pytest

from uac.dialect import limits
from uac.dialect.loader import load_sources
from uac.dialect.problems import CodeRejected
from uac.dialect.validate import validate_schema

GOOD_SCHEMA = '''"""Travel."""

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class Trip:
    city: str
    start: date
    cost: float = 0.0
    sources: list[str] = field(default_factory=list)
'''

GOOD_STATE = '''"""State."""

from datetime import date

from .schema import Trip

trips: list[Trip] = [Trip(city="Lisbon", start=date(2023, 5, 7), cost=12.5, sources=["f1"])]
'''


def rejected_schema(source: str | bytes) -> str:
    with pytest.raises(CodeRejected) as info:
        validate_schema(source, "domains/travel/schema.py")
    return str(info.value)


def rejected_state(state: str, schema: str = GOOD_SCHEMA) -> str:
    with pytest.raises(CodeRejected) as info:
        load_sources("travel", schema, state)
    return str(info.value)


def test_good_sources_load():
    loaded = load_sources("travel", GOOD_SCHEMA, GOOD_STATE)
    (trip,) = loaded.values["trips"]
    assert trip.city == "Lisbon" and trip.cost == 12.5 and trip.start.isoformat() == "2023-05-07"


SCHEMA_ATTACKS = {
    "decorator other than dataclass": (
        GOOD_SCHEMA.replace("@dataclass(frozen=True)", "@evil"),
        "only a literal @dataclass",
    ),
    "decorator call with code": (
        GOOD_SCHEMA.replace("@dataclass(frozen=True)", "@dataclass(frozen=print('x'))"),
        "only a literal @dataclass",
    ),
    "two decorators": (
        GOOD_SCHEMA.replace("@dataclass(frozen=True)", "@dataclass\n@dataclass"),
        "exactly one decorator",
    ),
    "metaclass": (
        GOOD_SCHEMA.replace("class Trip:", "class Trip(metaclass=Meta):"),
        "metaclass",
    ),
    "base class": (
        GOOD_SCHEMA.replace("class Trip:", "class Trip(dict):"),
        "base classes are not allowed",
    ),
    "__init_subclass__": (
        GOOD_SCHEMA.replace("    city: str\n", "    city: str\n\n    def __init_subclass__(cls):\n        pass\n"),
        "method __init_subclass__()",
    ),
    "method": (
        GOOD_SCHEMA.replace("    city: str\n", "    city: str\n\n    def total(self):\n        return 1\n"),
        "method total()",
    ),
    "class-body statement": (
        GOOD_SCHEMA.replace("    city: str\n", "    city: str\n    print('hi')\n"),
        "only annotated fields",
    ),
    "class-body assignment": (
        GOOD_SCHEMA.replace("    city: str\n", "    city: str\n    x = 1\n"),
        "only annotated fields",
    ),
    "lambda default": (
        GOOD_SCHEMA.replace("cost: float = 0.0", "cost: float = (lambda: 0.0)()"),
        "calls are not allowed in defaults",
    ),
    "bare lambda default": (
        GOOD_SCHEMA.replace("cost: float = 0.0", "cost: float = lambda: 0.0"),
        "lambdas are not allowed",
    ),
    "call in default": (
        GOOD_SCHEMA.replace("cost: float = 0.0", "cost: float = float('1')"),
        "calls are not allowed in defaults",
    ),
    "call in annotation": (
        GOOD_SCHEMA.replace("cost: float = 0.0", "cost: print('x') = 0.0"),
        "Call is not allowed in an annotation",
    ),
    "default_factory with code": (
        GOOD_SCHEMA.replace(
            "field(default_factory=list)", "field(default_factory=lambda: __import__('os').system('x'))"
        ),
        "default_factory=list",
    ),
    "default_factory other callable": (
        GOOD_SCHEMA.replace("field(default_factory=list)", "field(default_factory=set)"),
        "default_factory=list",
    ),
    "rebinding date": (
        GOOD_SCHEMA + "\ndate = 1\n",
        "only imports and class definitions",
    ),
    "import os": ("import os\n" + GOOD_SCHEMA, "`import module` is not allowed"),
    "from os import system": ("from os import system\n" + GOOD_SCHEMA, "import from 'os' is not allowed"),
    "aliased import": (
        GOOD_SCHEMA.replace(
            "from dataclasses import dataclass, field", "from dataclasses import dataclass as d, field"
        ),
        "aliased import",
    ),
    "non-allowlisted name": (
        GOOD_SCHEMA.replace("from datetime import date", "from datetime import date, tzinfo"),
        "may not be imported from datetime",
    ),
    "star import": ("from typing import *\n" + GOOD_SCHEMA, "import *"),
    "relative import in schema": ("from .state import trips\n" + GOOD_SCHEMA, "relative imports"),
    "cyrillic look-alike identifier": (
        GOOD_SCHEMA.replace("    city: str", "    \u0441ity: str"),
        "non-ASCII character",
    ),
    "full-width identifier (NFKC)": (
        GOOD_SCHEMA.replace("start: date", "start: \uff44ate"),
        "non-ASCII character",
    ),
    "coding line": ("# -*- coding: latin-1 -*-\n" + GOOD_SCHEMA, "encoding declarations"),
    "coding colon": ("# coding: utf-8\n" + GOOD_SCHEMA, "encoding declarations"),
    "leading underscore": (GOOD_SCHEMA.replace("    city: str", "    _city: str"), "starts with an underscore"),
    "dunder class name": (GOOD_SCHEMA.replace("class Trip:", "class __Trip:"), "starts with an underscore"),
    "f-string default": (GOOD_SCHEMA.replace("cost: float = 0.0", "cost: str = f'{1}'"), "f-strings"),
    "mutable default": (GOOD_SCHEMA.replace("cost: float = 0.0", "cost: list[int] = []"), "mutable defaults"),
    "unknown type": (GOOD_SCHEMA.replace("cost: float", "cost: Decimal"), "unknown type 'Decimal'"),
    "string annotation": (GOOD_SCHEMA.replace("cost: float", "cost: 'float'"), "string"),
    "attribute in annotation": (GOOD_SCHEMA.replace("cost: float", "cost: os.path"), "Attribute is not allowed"),
    "top-level call": (GOOD_SCHEMA + "\nprint('x')\n", "only imports and class definitions"),
    "exec of __import__": (GOOD_SCHEMA + "\n__import__('os').system('x')\n", "only imports and class definitions"),
    "default type mismatch": (
        GOOD_SCHEMA.replace("cost: float = 0.0", "cost: float = 'free'"),
        "expects float, got str",
    ),
    "field without default after default": (
        GOOD_SCHEMA.replace("    sources: list[str]", "    late: int\n    sources: list[str]"),
        "has no default but follows",
    ),
    "class name rebinds allowed name": (GOOD_SCHEMA.replace("class Trip:", "class date:"), "rebinds an allowed name"),
    "walrus in default": (
        GOOD_SCHEMA.replace("cost: float = 0.0", "cost: float = (x := 1.0)"),
        "default must be a literal",
    ),
}


@pytest.mark.parametrize("name", sorted(SCHEMA_ATTACKS))
def test_hostile_schema_rejected(name):
    source, expected = SCHEMA_ATTACKS[name]
    message = rejected_schema(source)
    assert expected in message, message
    assert "domains/travel/schema.py:" in message


def test_rejection_names_the_line():
    source = GOOD_SCHEMA.replace("    city: str\n", "    city: str\n    print('hi')\n")
    message = rejected_schema(source)
    line = source.splitlines().index("    print('hi')") + 1
    assert f"domains/travel/schema.py:{line}:" in message


def test_schema_encoding_and_bytes_checks():
    assert "not valid UTF-8" in rejected_schema(GOOD_SCHEMA.encode() + b"\xff\xfe")
    assert "NUL" in rejected_schema(GOOD_SCHEMA + "\x00")
    assert "byte-order mark" in rejected_schema(b"\xef\xbb\xbf" + GOOD_SCHEMA.encode())
    assert "limit" in rejected_schema("#" * (limits.MAX_SCHEMA_BYTES + 1))


def test_unicode_in_strings_and_comments_is_fine():
    source = GOOD_SCHEMA.replace('"""Travel."""', '"""Reisen – café ☕."""') + "# kommentar über\n"
    assert validate_schema(source).get("Trip") is not None


STATE_ATTACKS = {
    "__import__": ("x: int = __import__('os').system('echo hacked')", "only calls of schema classes"),
    "bare __import__ name": ("x: int = __import__", "'__import__' is not allowed"),
    "attribute on non-enum": ("x: str = Trip.__class__", "attribute access is only allowed"),
    "dunder attribute chain": ("x: str = ''.__class__", "attribute access is only allowed"),
    "f-string": ('x: str = f"{1+1}"', "f-strings not allowed"),
    "walrus": ("x: int = (y := 1)", "walrus"),
    "list comprehension": ("x: list[int] = [i for i in [1, 2]]", "comprehensions not allowed"),
    "dict comprehension": ("x: dict[str, int] = {k: 1 for k in 'ab'}", "comprehensions not allowed"),
    "generator": ("x: list[int] = list(i for i in [1])", "call of 'list' is not allowed"),
    "lambda": ("x: int = (lambda: 1)()", "only calls of schema classes"),
    "bare lambda": ("x: Any = lambda: 1", "lambdas not allowed"),
    "binary operator": ("x: int = 1 + 1", "operators not allowed"),
    "subscript": ("x: int = [1][0]", "subscripts not allowed"),
    "name reference": ("x: int = y", "bare name 'y'"),
    "eval call": ("x: int = eval('1')", "call of 'eval' is not allowed"),
    "positional record args": ('x: list[Trip] = [Trip("Lisbon", date(2023, 1, 1))]', "keyword arguments only"),
    "unknown field": (
        'x: list[Trip] = [Trip(city="a", start=date(2023, 1, 1), colour="red")]',
        "has no field 'colour'",
    ),
    "missing required": ('x: list[Trip] = [Trip(city="a")]', "missing required field(s): start"),
    "kwargs unpacking": ("x: list[Trip] = [Trip(**{})]", "** unpacking"),
    "date with non-literal": ("x: date = date(2023, 1, int('1'))", "literal int arguments"),
    "invalid date": ("x: date = date(2023, 2, 30)", "invalid date(...)"),
    "rebinding date": ("date: int = 1", "rebinds an allowed or imported name"),
    "plain assignment": ("x = 1", "only `name: Type = value`"),
    "import os": ("import os", "`import module` is not allowed"),
    "from os import system": ("from os import system", "import from 'os' is not allowed"),
    "aliased import": ("from datetime import date as d", "aliased import"),
    "class definition": ("class X:\n    pass", "only `name: Type = value`"),
    "expression statement": ("print('x')", "only `name: Type = value`"),
    "huge string": ('x: str = "' + "a" * (limits.MAX_STR_LEN + 1) + '"', "exceeds the limit"),
    "huge int": ("x: int = " + "9" * 60, "larger than 128 bits"),
    "bytes literal": ("x: Any = b'x'", "bytes literals are not allowed"),
    "ellipsis": ("x: Any = ...", "ellipsis literals are not allowed"),
    "type mismatch": (
        'trips2: list[Trip] = [Trip(city="a", start=date(2023, 1, 1), cost="cheap")]',
        "field 'cost' expects float, got str",
    ),
    "datetime for date": (
        't: list[Trip] = [Trip(city="a", start=datetime(2023, 1, 1, 0, 0))]',
        "field 'start' expects date, got datetime",
    ),
    "bool for int": ("n: int = True", "expects int, got bool"),
    "non-ASCII name": ("\u0445: int = 1", "non-ASCII character"),
    "underscore name": ("_x: int = 1", "starts with an underscore"),
    "conditional": ("x: int = 1 if True else 2", "conditional expressions not allowed"),
    "starred": ("x: list[int] = [*[1]]", "unpacking"),
    "unary not": ("x: bool = not True", "only unary minus"),
    "nested unary": ("x: int = -(-1)", "only unary minus"),
}


@pytest.mark.parametrize("name", sorted(STATE_ATTACKS))
def test_hostile_state_rejected(name):
    body, expected = STATE_ATTACKS[name]
    header = "from datetime import date, datetime\nfrom typing import Any\n\nfrom .schema import Trip\n\n"
    message = rejected_state(header + body + "\n")
    assert expected in message, message
    assert "domains/travel/state.py:" in message


def test_type_error_message_is_precise():
    state = GOOD_STATE.replace("cost=12.5", 'cost="12.5"')
    message = rejected_state(state)
    assert "domains/travel/state.py:7: Trip(...) field 'cost' expects float, got str" in message


def test_nesting_bomb_is_refused_before_parsing():
    depth = 100_000
    message = rejected_state("x: list[Any] = " + "[" * depth + "]" * depth + "\n")
    assert f"nested deeper than {limits.MAX_BRACKET_DEPTH}" in message
    message = rejected_schema(GOOD_SCHEMA + "\nX = " + "(" * depth + ")" * depth + "\n")
    assert "nested deeper" in message


def test_operator_chains_do_not_crash_the_parser():
    message = rejected_state("x: int = " + "- " * 100_000 + "1\n")
    assert "too deeply nested" in message or "only unary minus" in message
    message = rejected_state("x: int = 1" + "+1" * 100_000 + "\n")
    assert "too deeply nested" in message or "operators not allowed" in message
    message = rejected_schema(GOOD_SCHEMA + "\nX: int = a" + ".b" * 100_000 + "\n")
    assert "deeply nested" in message or "deeper than" in message or "Attribute" in message


def test_unbalanced_brackets():
    assert "unbalanced" in rejected_state("x: list[int] = [1, 2\n")


def test_coding_line_in_state():
    assert "encoding declarations" in rejected_state("# vim: set fileencoding=latin-1 :\n" + GOOD_STATE)


def test_nothing_is_executed(tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    evil = f"from .schema import Trip\n\nx: int = __import__('pathlib').Path({str(marker)!r}).touch()\n"
    with pytest.raises(CodeRejected):
        load_sources("travel", GOOD_SCHEMA, evil)
    assert not marker.exists()


def test_enum_members_and_attribute_access():
    schema = GOOD_SCHEMA.replace("from datetime import date", "from datetime import date\nfrom enum import Enum") + (
        '\n\nclass Status(Enum):\n    PLANNED = "planned"\n    DONE = "done"\n'
    )
    state = '"""S."""\n\nfrom .schema import Status\n\nstatus: Status = Status.DONE\n'
    loaded = load_sources("travel", schema, state)
    assert loaded.values["status"].value == "done"
    assert "has no member 'NOPE'" in rejected_state(state.replace("DONE", "NOPE"), schema)
    assert "attribute access" in rejected_state(state.replace("Status.DONE", "Status.DONE.value"), schema)
    bad_enum = schema.replace('DONE = "done"', "DONE = print()")
    assert "members must be" in rejected_schema(bad_enum)


def test_class_reference_order_and_self_reference():
    schema = GOOD_SCHEMA + "\n\n@dataclass\nclass Leg:\n    trip: Trip\n"
    assert validate_schema(schema).get("Leg") is not None
    forward = (
        GOOD_SCHEMA.replace("    cost: float = 0.0\n", "    cost: float = 0.0\n    leg: Leg | None = None\n")
        + "\n\n@dataclass\nclass Leg:\n    n: int\n"
    )
    assert "refers to Leg, which is defined later" in rejected_schema(forward)
    own = GOOD_SCHEMA.replace("    cost: float = 0.0\n", "    cost: float = 0.0\n    parent: Trip | None = None\n")
    assert "refers to its own class" in rejected_schema(own)
