"""JSON encoding of loaded state for the cache under ``.uac/`` (never pickle).

Values are encoded against their declared :class:`TypeSpec`, so the common
case costs nothing: strings, numbers, booleans and ``None`` are stored as they
are, a record is the list of its field values in schema order, dates are ISO
strings, periods their stored form (``2023-05``).  Values typed ``Any`` or as a union of several non-``None`` types use
a tagged form (``{"$date": ...}``, ``{"$period": "2023-05"}``, ``{"$record": "Trip", "values": [...]}``,
...).  Decoding rebuilds the same objects with the classes of :mod:`.classes`.
"""

from __future__ import annotations

import abc
import dataclasses
import datetime as _dt
import enum
import functools
from typing import Any, Callable, Mapping

from ..dates import Period, parse_period
from ..refs import Ref
from .classes import field_specs
from .types import TypeSpec

Codec = Callable[[Any], Any] | None  # None: the identity


def _isoformat(value: _dt.date | _dt.time) -> str:
    return value.isoformat()


def _timedelta_code(value: _dt.timedelta) -> list[int]:
    return [value.days, value.seconds, value.microseconds]


def _read_timedelta(code: list[int]) -> _dt.timedelta:
    return _dt.timedelta(days=code[0], seconds=code[1], microseconds=code[2])


@functools.lru_cache(maxsize=4096)
def _period_code(value: Period) -> str:
    return value.code


def _ref_code(value: Ref) -> str:
    return value.code


@functools.lru_cache(maxsize=4096)
def _read_period(code: str) -> Period:
    period = parse_period(code)
    if period is None:
        raise ValueError("an empty period in the cache")
    return period


@dataclasses.dataclass(frozen=True)
class Leaf:
    """A kind of value stored as one JSON value: its class, how it is written and read back,
    and its tag where the type does not say (``Any`` or a union: ``{"$date": "2023-05-07"}``)."""

    kind: str
    type: type
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]

    @property
    def tag(self) -> str:
        return "$" + self.kind


#: the one table both directions read, typed and tagged
LEAVES: dict[str, Leaf] = {
    leaf.kind: leaf
    for leaf in (
        Leaf("date", _dt.date, _isoformat, _dt.date.fromisoformat),
        Leaf("datetime", _dt.datetime, _isoformat, _dt.datetime.fromisoformat),
        Leaf("time", _dt.time, _isoformat, _dt.time.fromisoformat),
        Leaf("timedelta", _dt.timedelta, _timedelta_code, _read_timedelta),
        Leaf("period", Period, _period_code, _read_period),
        Leaf("ref", Ref, _ref_code, Ref),
    )
}
#: a tagged value's leaf by its exact class (a datetime is not tagged as a date)
_LEAF_OF_TYPE = {leaf.type: leaf for leaf in LEAVES.values()}
_LEAF_OF_TAG = {leaf.tag: leaf for leaf in LEAVES.values()}


class _Direction(abc.ABC):
    """One direction of the codec, writing or reading: the codec of each type spec, made
    once.  What both directions do alike is said here (plain values stay as they are, a
    leaf takes its entry of :data:`LEAVES`, an optional value keeps its ``None``); how a
    record, an enum member, a container and a value of no precise type are written or
    read, each direction says."""

    def __init__(self, classes: Mapping[str, Any]) -> None:
        self.classes = classes
        self._made: dict[TypeSpec, Codec] = {}

    def of(self, spec: TypeSpec) -> Codec:
        if spec not in self._made:
            self._made[spec] = self._make(spec)
        return self._made[spec]

    def apply(self, value: Any, spec: TypeSpec) -> Any:
        codec = self.of(spec)
        return value if codec is None else codec(value)

    def _make(self, spec: TypeSpec) -> Codec:
        kind = spec.kind
        if kind in ("str", "int", "float", "bool", "none"):
            return None
        if kind in LEAVES:
            return self.leaf(LEAVES[kind])
        if kind == "class":
            cls = self.classes[spec.name]
            return self.member(cls) if issubclass(cls, enum.Enum) else self.record(cls)
        if kind in ("list", "set", "tuple") and (kind != "tuple" or spec.variadic):
            return self.sequence(kind, self.of(spec.args[0]))
        if kind == "tuple":
            return self.fixed_tuple([self.of(a) for a in spec.args])
        if kind == "dict":
            return self.mapping(self.of(spec.args[0]), self.of(spec.args[1]))
        if kind == "union":
            members = [a for a in spec.args if a.kind != "none"]
            if len(members) == 1:
                inner = self.of(members[0])
                if inner is None:
                    return None
                return lambda v: None if v is None else inner(v)
        return self.untyped

    @abc.abstractmethod
    def leaf(self, leaf: Leaf) -> Codec:
        """A date, time, period or ref."""

    @abc.abstractmethod
    def member(self, cls: type[enum.Enum]) -> Codec:
        """A member of an enum class (stored by name)."""

    @abc.abstractmethod
    def record(self, cls: type) -> Codec:
        """A record (stored as the list of its field values, in schema order)."""

    @abc.abstractmethod
    def sequence(self, kind: str, each: Codec) -> Codec:
        """A list, set or ``tuple[T, ...]`` (stored as a list)."""

    @abc.abstractmethod
    def fixed_tuple(self, items: list[Codec]) -> Codec:
        """A tuple of fixed length, one codec per position (stored as a list)."""

    @abc.abstractmethod
    def mapping(self, key: Codec, value: Codec) -> Codec:
        """A dict (stored as a list of ``[key, value]`` pairs)."""

    @abc.abstractmethod
    def untyped(self, value: Any) -> Any:
        """A value typed ``Any`` or as a union of several types (the tagged form)."""


class _Encoder(_Direction):
    def leaf(self, leaf: Leaf) -> Codec:
        return leaf.encode

    def member(self, cls: type[enum.Enum]) -> Codec:
        return lambda v: v.name

    def record(self, cls: type) -> Codec:
        fields = dataclasses.fields(cls)
        names = [f.name for f in fields]
        parts = [(name, self.of(field_specs(cls)[name])) for name in names]

        def record(v: Any) -> list[Any]:
            data = v.__dict__
            return [data[n] if fn is None else fn(data[n]) for n, fn in parts]

        return record

    def sequence(self, kind: str, each: Codec) -> Codec:
        if each is None:
            return None if kind == "list" else list
        return lambda v: [each(x) for x in v]

    def fixed_tuple(self, items: list[Codec]) -> Codec:
        return lambda v: [x if fn is None else fn(x) for x, fn in zip(v, items)]

    def mapping(self, key: Codec, value: Codec) -> Codec:
        return lambda v: [[k if key is None else key(k), x if value is None else value(x)] for k, x in v.items()]

    def untyped(self, value: Any) -> Any:
        if value is None or type(value) in (str, int, float, bool):
            return value
        if isinstance(value, enum.Enum):
            return {"$enum": [type(value).__name__, value.name]}
        leaf = _LEAF_OF_TYPE.get(type(value))
        if leaf is not None:
            return {leaf.tag: leaf.encode(value)}
        if type(value) is list:
            return [self.untyped(v) for v in value]
        if type(value) is tuple:
            return {"$tuple": [self.untyped(v) for v in value]}
        if type(value) is set:
            return {"$set": [self.untyped(v) for v in value]}
        if type(value) is dict:
            return {"$dict": [[self.untyped(k), self.untyped(v)] for k, v in value.items()]}
        if dataclasses.is_dataclass(value):
            return {
                "$record": type(value).__name__,
                "values": [self.untyped(getattr(value, f.name)) for f in dataclasses.fields(value)],
            }
        raise TypeError(f"cannot cache a {type(value).__name__}")


class _Decoder(_Direction):
    def leaf(self, leaf: Leaf) -> Codec:
        return leaf.decode

    def member(self, cls: type[enum.Enum]) -> Codec:
        return cls.__getitem__

    def record(self, cls: type) -> Codec:
        specs = field_specs(cls)
        names = list(specs)
        fixes = [(i, fn) for i, fn in enumerate(self.of(specs[n]) for n in names) if fn is not None]
        new = object.__new__

        def record(row: list[Any]) -> Any:
            if fixes:
                row = list(row)
                for index, fn in fixes:
                    row[index] = fn(row[index])
            obj: object = new(cls)
            obj.__dict__.update(zip(names, row))
            return obj

        return record

    def sequence(self, kind: str, each: Codec) -> Codec:
        wrap = {"list": list, "set": set, "tuple": tuple}[kind]
        if each is None:
            return None if kind == "list" else wrap
        if kind == "list":
            return lambda v: [each(x) for x in v]
        return lambda v: wrap(each(x) for x in v)

    def fixed_tuple(self, items: list[Codec]) -> Codec:
        return lambda v: tuple(x if fn is None else fn(x) for x, fn in zip(v, items))

    def mapping(self, key: Codec, value: Codec) -> Codec:
        return lambda v: {(k if key is None else key(k)): (x if value is None else value(x)) for k, x in v}

    def untyped(self, data: Any) -> Any:
        if type(data) is list:
            return [self.untyped(v) for v in data]
        if type(data) is not dict:
            return data
        (tag, payload), *_ = data.items()
        if tag == "$enum":
            return self.classes[payload[0]][payload[1]]
        leaf = _LEAF_OF_TAG.get(tag)
        if leaf is not None:
            return leaf.decode(payload)
        if tag == "$tuple":
            return tuple(self.untyped(v) for v in payload)
        if tag == "$set":
            return {self.untyped(v) for v in payload}
        if tag == "$dict":
            return {self.untyped(k): self.untyped(v) for k, v in payload}
        if tag == "$record":
            cls = self.classes[payload]
            values = [self.untyped(v) for v in data["values"]]
            obj: Any = object.__new__(cls)
            obj.__dict__.update(zip([f.name for f in dataclasses.fields(cls)], values))
            return obj
        raise ValueError(f"unknown cache tag {tag!r}")


class StateCodec:
    """Loaded values to JSON and back, against their declared types."""

    def __init__(self, classes: Mapping[str, Any]) -> None:
        self.classes = classes
        self._encoder = _Encoder(classes)
        self._decoder = _Decoder(classes)

    def encode(self, value: Any, spec: TypeSpec) -> Any:
        return self._encoder.apply(value, spec)

    def decode(self, data: Any, spec: TypeSpec) -> Any:
        return self._decoder.apply(data, spec)

    def tagged(self, value: Any) -> Any:
        """``value`` in the tagged form (what a value typed ``Any`` is stored as)."""
        return self._encoder.untyped(value)

    def untagged(self, data: Any) -> Any:
        return self._decoder.untyped(data)
