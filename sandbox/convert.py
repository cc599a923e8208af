"""Conversion of the agent's ``result`` into a JSON value (runs in the worker).

Rules (documented in docs/sandbox.md):

* ``None``, ``bool``, ``int``, ``str`` and finite floats are kept; NaN and
  infinities become the strings ``"nan"``, ``"inf"``, ``"-inf"``;
* ``date``/``datetime``/``time`` become ISO strings, ``timedelta`` becomes
  ``str(td)`` (e.g. ``"3 days, 4:00:00"``), ``Decimal`` and ``Fraction``
  become strings;
* enum members become their value; a ``Ref`` its ``domain/id`` string;
* state records become ``{field: value}`` dicts;
* lists, tuples (named tuples too), deques, ranges and read-only
  collections become arrays; sets become arrays, sorted when the items
  are comparable;
* mappings (dict, Counter, defaultdict, ...) become objects; keys that are
  not strings are converted (ISO strings for dates, ``str()`` otherwise;
  ``None``/``True``/``False`` as ``"null"``/``"true"``/``"false"``);
* any other object becomes its ``repr()`` string.
"""

from __future__ import annotations

import collections
import datetime as _dt
import decimal
import enum
import fractions
import math
from collections.abc import Mapping
from typing import Any

from .period import Period
from .records import Record
from .refs import Ref


class ResultTooLarge(Exception):
    pass


class _Converter:
    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.active: set[int] = set()

    def spend(self, n: int) -> None:
        self.budget -= n
        if self.budget < 0:
            raise ResultTooLarge()

    def key(self, k: Any) -> str:
        if isinstance(k, str):
            return str.__str__(k)
        if k is None:
            return "null"
        if k is True:
            return "true"
        if k is False:
            return "false"
        if isinstance(k, (_dt.date, _dt.time)):
            return k.isoformat()
        if isinstance(k, (Period, Ref)):
            return k.code
        value = self.value(k)
        return value if isinstance(value, str) else str(k)

    def value(self, v: Any) -> Any:
        if v is None or v is True or v is False:
            self.spend(5)
            return v
        t = type(v)
        if t is str:
            self.spend(len(v) + 2)
            return v
        if t is int:
            self.spend(8)
            return v
        if t is float:
            self.spend(12)
            return v if math.isfinite(v) else repr(v)
        if isinstance(v, (_dt.date, _dt.time)):
            self.spend(26)
            return v.isoformat()
        if isinstance(v, Period):
            self.spend(26)
            return v.code
        if isinstance(v, Ref):
            self.spend(len(v.code) + 2)
            return v.code
        if isinstance(v, _dt.timedelta):
            self.spend(26)
            return str(v)
        if isinstance(v, enum.Enum):
            return self.value(v.value)
        if isinstance(v, (decimal.Decimal, fractions.Fraction)):
            text = str(v)
            self.spend(len(text))
            return text
        if isinstance(v, (bool, int)):  # bool/int subclasses (e.g. IntEnum-like)
            return self.value(int(v))
        if isinstance(v, float):
            return self.value(float(v))
        if isinstance(v, str):
            return self.value(str(v))
        oid = id(v)
        if oid in self.active:
            raise ValueError("result contains a reference cycle")
        self.active.add(oid)
        try:
            self.spend(2)
            if isinstance(v, Record):
                return {name: self.value(val) for name, val in v._asdict().items()}
            if isinstance(v, Mapping):
                out: dict[str, Any] = {}
                for k, val in v.items():
                    key = self.key(k)
                    self.spend(len(key) + 4)
                    out[key] = self.value(val)
                return out
            if isinstance(v, (list, tuple, range, collections.deque)):
                return [self.value(x) for x in v]
            if isinstance(v, (set, frozenset)):
                items = list(v)
                try:
                    items.sort()
                except TypeError:
                    pass
                return [self.value(x) for x in items]
        finally:
            self.active.discard(oid)
        text = repr(v)
        self.spend(len(text) + 2)
        return text


def to_json_value(value: Any, max_chars: int) -> Any:
    """Convert ``value``; raises ``ResultTooLarge`` past roughly ``max_chars``."""
    return _Converter(max_chars).value(value)
