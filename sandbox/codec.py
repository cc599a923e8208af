"""Wire format of the state sent to the worker (``uac-sandbox-state/1``).

The host calls :func:`encode_state` on ordinary Python objects (dataclass
records, lists, dicts, dates, enums, scalars) and gets a JSON-ready dict.  The
worker calls :func:`decode_state` to rebuild read-only objects from it.  See
``docs/sandbox.md`` for the full description.

Payload::

    {
      "format": "uac-sandbox-state/1",
      "types":  {"Trip": {"name": "Trip", "fields": ["city", "start", "cost"]}},
      "domains": {"travel": {"trips": <value>, ...}, ...},
      "facts": <value> | null
    }

Values are JSON scalars (str, int, finite float, bool, null), JSON arrays
(sequences, decoded as tuples; a top-level collection decodes as a
``ReadOnlyList``) or tagged objects with exactly one ``$`` key or the table
form::

    {"$date": "2024-05-01"}              datetime.date
    {"$period": ["2024-05-01", "2024-05-31"]}  sandbox.period.Period (first, last day)
    {"$datetime": "2024-05-01T10:00:00"} datetime.datetime (offset kept if any)
    {"$time": "10:30:00"}                datetime.time
    {"$timedelta": [days, seconds, microseconds]}
    {"$decimal": "12.50"}                decimal.Decimal
    {"$float": "nan" | "inf" | "-inf"}   non-finite float
    {"$set": [values]}                   frozenset
    {"$map": [[key, value], ...]}        read-only mapping (keys any value)
    {"$record": "Trip", "values": [...]} one record, values in field order
    {"$table": "Trip", "rows": [[...], ...]}  sequence of records of one type
    {"$enum": "TripStatus", "member": "BOOKED"}  one member of an enum type

The ``types`` keys are the tags used by ``$record``/``$table``/``$enum``; the
``name`` is the class name shown in ``repr``.  A record type lists its
``fields``; an enum type lists its ``members`` as ``[name, value]`` pairs
(values are JSON scalars) and is rebuilt as a ``StrEnum`` when every value is
a string, an ``IntEnum`` when every value is an integer, an ``Enum``
otherwise -- so ``t.status.value`` works and ``t.status == "booked"`` still
holds.  Two distinct classes with the same name get keys ``Name``,
``Name@2``...
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import decimal
import enum
import keyword
import math
from typing import Any, Iterable, Iterator, Mapping

from .period import Period
from .refs import Ref, RefTable, RefValue

FORMAT = "uac-sandbox-state/1"

_SCALARS = (str, int, bool, type(None))


def _check_identifier(kind: str, name: object) -> str:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise ValueError(f"invalid {kind} name {name!r}: must be a Python identifier without a leading underscore")
    return name


def _collections(dname: object, collections: object, error: type[Exception], must: str) -> Iterator[tuple[str, Any]]:
    """A domain's ``(collection name, value)`` pairs, the names checked; ``error`` says the domain ``must``
    be a mapping (in the words of the side reading it)."""
    _check_identifier("domain", dname)
    if not isinstance(collections, Mapping):
        raise error(f"domain {dname!r} must {must}")
    for cname, value in collections.items():
        yield _check_identifier("collection", cname), value


class _Encoder:
    def __init__(self) -> None:
        self.types: dict[str, dict[str, Any]] = {}
        self._keys: dict[type, tuple[str, tuple[str, ...]]] = {}
        self._names: dict[str, int] = {}

    def type_key(self, cls: type) -> tuple[str, tuple[str, ...]]:
        known = self._keys.get(cls)
        if known is not None:
            return known
        name = cls.__name__
        _check_identifier("record type", name)
        fields = tuple(_check_identifier("field", f.name) for f in dataclasses.fields(cls))
        count = self._names.get(name, 0) + 1
        self._names[name] = count
        key = name if count == 1 else f"{name}@{count}"
        self.types[key] = {"name": name, "fields": list(fields)}
        self._keys[cls] = (key, fields)
        return key, fields

    def enum_key(self, cls: type[enum.Enum]) -> str:
        known = self._keys.get(cls)
        if known is not None:
            return known[0]
        name = cls.__name__
        _check_identifier("enum type", name)
        members = []
        for member in cls:
            value = member.value
            if not isinstance(value, (str, int, float, bool)) or (
                isinstance(value, float) and not math.isfinite(value)
            ):
                raise TypeError(f"enum {name}.{member.name} has a value the sandbox cannot carry: {value!r}")
            members.append([_check_identifier("enum member", member.name), value])
        count = self._names.get(name, 0) + 1
        self._names[name] = count
        key = name if count == 1 else f"{name}@{count}"
        self.types[key] = {"name": name, "members": members}
        self._keys[cls] = (key, ())
        return key

    def record_row(self, obj: Any, fields: tuple[str, ...], path: str) -> list[Any]:
        return [self.value(getattr(obj, f), f"{path}.{f}") for f in fields]

    def value(self, obj: Any, path: str) -> Any:
        if isinstance(obj, enum.Enum):
            return {"$enum": self.enum_key(type(obj)), "member": obj.name}
        if isinstance(obj, _SCALARS):
            return obj
        if isinstance(obj, Period):
            return {"$period": [obj.start.isoformat(), obj.end.isoformat()]}
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"$float": repr(obj)}
        if isinstance(obj, _dt.datetime):
            return {"$datetime": obj.isoformat()}
        if isinstance(obj, _dt.date):
            return {"$date": obj.isoformat()}
        if isinstance(obj, _dt.time):
            return {"$time": obj.isoformat()}
        if isinstance(obj, _dt.timedelta):
            return {"$timedelta": [obj.days, obj.seconds, obj.microseconds]}
        if isinstance(obj, decimal.Decimal):
            return {"$decimal": str(obj)}
        if _is_host_period(obj):
            return {"$period": [obj.start.isoformat(), obj.end.isoformat()]}
        if isinstance(obj, RefValue):  # the sandbox's Ref and the host's (uac.refs.Ref is built on it)
            return {"$ref": f"{obj.domain}/{obj.id}"}
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            key, fields = self.type_key(type(obj))
            return {"$record": key, "values": self.record_row(obj, fields, path)}
        if isinstance(obj, (list, tuple)):
            return self.sequence(obj, path)
        if isinstance(obj, (set, frozenset)):
            return {"$set": [self.value(v, f"{path}[]") for v in obj]}
        if isinstance(obj, Mapping):
            return {
                "$map": [[self.value(k, f"{path}{{key}}"), self.value(v, f"{path}[{k!r}]")] for k, v in obj.items()]
            }
        raise TypeError(f"cannot encode {type(obj).__name__} at {path} for the sandbox")

    def sequence(self, items: Iterable[Any], path: str) -> Any:
        items = list(items)
        if items:
            first = type(items[0])
            if dataclasses.is_dataclass(first) and all(type(item) is first for item in items):
                key, fields = self.type_key(first)
                return {
                    "$table": key,
                    "rows": [self.record_row(item, fields, f"{path}[{i}]") for i, item in enumerate(items)],
                }
        return [self.value(v, f"{path}[{i}]") for i, v in enumerate(items)]


#: the host's period type (``uac.dates.Period``; the sandbox never imports uac), sent as a Period
_HOST_PERIOD = ("uac.dates", "Period")


def _is_host_period(obj: object) -> bool:
    cls = type(obj)
    return (
        (cls.__module__, cls.__name__) == _HOST_PERIOD
        and isinstance(getattr(obj, "start", None), _dt.date)
        and isinstance(getattr(obj, "end", None), _dt.date)
    )


_FACT_DATE_FIELDS = ("session_date", "valid_from", "invalid_at")


def _fact_value(name: str, value: Any) -> Any:
    if name in _FACT_DATE_FIELDS and isinstance(value, str):
        try:
            return _dt.date.fromisoformat(value)
        except ValueError:
            try:
                return _dt.datetime.fromisoformat(value)
            except ValueError:
                return value
    return value


def encode_state(domains: Mapping[str, Mapping[str, object]] | None, facts: list[dict] | None = None) -> dict:
    """Encode the user's state for the worker.

    ``domains`` maps a domain name to its collections (name -> value); values
    are dataclass instances, lists/tuples, dicts, sets, ``date``/``datetime``/
    ``time``/``timedelta``, ``Decimal``, periods (``sandbox.period.Period`` or
    the host's ``uac.dates.Period``, both rebuilt as ``sandbox.period.Period``),
    ``Enum`` members (rebuilt as members of an enum of the same name and
    values) and JSON scalars.  ``facts`` is an optional list of fact dicts; they
    become ``Fact`` records whose fields are the union of the keys in order of
    first appearance (missing keys are ``None``); ISO strings in
    ``session_date``/``valid_from``/``invalid_at`` become dates.

    Raises ``ValueError``/``TypeError`` for names that are not identifiers and
    for values that cannot be encoded.
    """
    enc = _Encoder()
    out_domains: dict[str, dict[str, Any]] = {}
    for dname, collections in (domains or {}).items():
        out_domains[dname] = {
            cname: enc.value(value, f"{dname}.{cname}")
            for cname, value in _collections(dname, collections, TypeError, "map collection names to values")
        }
    out_facts = None
    if facts is not None:
        names: dict[str, None] = {}
        for fact in facts:
            if not isinstance(fact, Mapping):
                raise TypeError("facts must be dicts")
            for key in fact:
                names.setdefault(_check_identifier("fact field", key), None)
        fields = list(names)
        key = "Fact" if "Fact" not in enc._names else "Fact@facts"
        enc.types[key] = {"name": "Fact", "fields": fields}
        out_facts = {
            "$table": key,
            "rows": [
                [enc.value(_fact_value(f, fact.get(f)), f"facts[{i}].{f}") for f in fields]
                for i, fact in enumerate(facts)
            ],
        }
    return {"format": FORMAT, "types": enc.types, "domains": out_domains, "facts": out_facts}


def is_encoded_state(obj: object) -> bool:
    """True if ``obj`` is a payload produced by :func:`encode_state`."""
    return isinstance(obj, Mapping) and obj.get("format") == FORMAT


# ---------------------------------------------------------------------------
# Decoding (runs in the worker)


class StateFormatError(ValueError):
    """The payload does not follow the wire format."""


class _Decoder:
    def __init__(self, types: Mapping[str, Any]) -> None:
        from .records import make_record_class

        if not isinstance(types, Mapping):
            raise StateFormatError("'types' must be an object")
        self.builders: dict[str, Any] = {}
        self.classes: dict[str, type] = {}
        self.enums: dict[str, type[enum.Enum]] = {}
        for key, spec in types.items():
            if isinstance(spec, Mapping) and isinstance(spec.get("members"), list):
                self.enums[key] = _enum_class(key, spec)
                continue
            if not isinstance(spec, Mapping) or not isinstance(spec.get("fields"), list):
                raise StateFormatError(f"bad type description for {key!r}")
            cls, build = make_record_class(spec.get("name", key), spec["fields"])
            self.classes[key] = cls
            self.builders[key] = build
        self.tags = {
            "$date": self._date,
            "$period": self._period,
            "$datetime": self._datetime,
            "$time": self._time,
            "$timedelta": self._timedelta,
            "$decimal": self._decimal,
            "$float": self._float,
            "$set": self._set,
            "$map": self._map,
            "$record": self._record,
            "$table": self._table,
            "$enum": self._enum,
            "$ref": self._ref,
        }
        #: what ``Ref.resolve()`` looks records up in (filled once the domains are decoded)
        self.refs = RefTable()

    # Scalars and lists are by far the most common values: keep this tight.
    def value(self, v: Any) -> Any:
        t = type(v)
        if t is list:
            dec = self.value
            return tuple([dec(x) if type(x) in _COMPOSITE else x for x in v])
        if t is dict:
            return self.tagged(v)
        return v

    def tagged(self, v: dict) -> Any:
        for key in v:
            handler = self.tags.get(key)
            if handler is not None:
                return handler(v)
            break
        raise StateFormatError(f"unknown tagged value with keys {sorted(v)[:5]}")

    def row(self, row: Any) -> list[Any]:
        if type(row) is not list:
            raise StateFormatError("record values must be an array")
        dec = self.value
        return [dec(x) if type(x) in _COMPOSITE else x for x in row]

    def _date(self, v: dict) -> _dt.date:
        return _dt.date.fromisoformat(v["$date"])

    def _ref(self, v: dict) -> Ref:
        target = v["$ref"]
        if type(target) is not str or len(target) > 200:
            raise StateFormatError("a $ref value must be a '<domain>/<id>' string")
        try:
            return Ref(target, self.refs)
        except ValueError as exc:
            raise StateFormatError(str(exc)) from None

    def _period(self, v: dict) -> Period:
        start, end = v["$period"]
        return Period(_dt.date.fromisoformat(start), _dt.date.fromisoformat(end))

    def _datetime(self, v: dict) -> _dt.datetime:
        return _dt.datetime.fromisoformat(v["$datetime"])

    def _time(self, v: dict) -> _dt.time:
        return _dt.time.fromisoformat(v["$time"])

    def _timedelta(self, v: dict) -> _dt.timedelta:
        days, seconds, micro = v["$timedelta"]
        return _dt.timedelta(days=days, seconds=seconds, microseconds=micro)

    def _decimal(self, v: dict) -> decimal.Decimal:
        return decimal.Decimal(v["$decimal"])

    def _float(self, v: dict) -> float:
        text = v["$float"]
        if text not in ("nan", "inf", "-inf"):
            raise StateFormatError(f"bad $float {text!r}")
        return float(text)

    def _set(self, v: dict) -> frozenset:
        return frozenset(self.value(x) for x in v["$set"])

    def _map(self, v: dict) -> Any:
        from .records import FrozenMap

        return FrozenMap((self.value(k), self.value(val)) for k, val in v["$map"])

    def _builder(self, key: Any) -> Any:
        build = self.builders.get(key)
        if build is None:
            raise StateFormatError(f"unknown record type {key!r}")
        return build

    def _record(self, v: dict) -> Any:
        return self._builder(v["$record"])(self.row(v["values"]))

    def _enum(self, v: dict) -> Any:
        cls = self.enums.get(v["$enum"])
        if cls is None:
            raise StateFormatError(f"unknown enum type {v['$enum']!r}")
        try:
            return cls[v["member"]]
        except KeyError:
            raise StateFormatError(f"enum {v['$enum']!r} has no member {v['member']!r}") from None

    def _table(self, v: dict) -> tuple:
        build = self._builder(v["$table"])
        row = self.row
        return tuple([build(row(r)) for r in v["rows"]])


_COMPOSITE = frozenset({list, dict})


def _enum_class(key: str, spec: Mapping[str, Any]) -> type[enum.Enum]:
    """An enum rebuilt in the worker: ``StrEnum``/``IntEnum`` when the values allow."""
    name = spec.get("name", key)
    _check_identifier("enum type", name)
    members = []
    for pair in spec["members"]:
        if not isinstance(pair, list) or len(pair) != 2 or type(pair[1]) not in (str, int, float, bool):
            raise StateFormatError(f"bad enum member in {key!r}")
        members.append((_check_identifier("enum member", pair[0]), pair[1]))
    if not members:
        raise StateFormatError(f"enum {key!r} has no members")
    values = [value for _, value in members]
    if all(type(value) is str for value in values):
        base: type = enum.StrEnum  # called below with a name known at run time: Enum's functional form
    elif all(type(value) is int for value in values):
        base = enum.IntEnum
    else:
        base = enum.Enum
    return base(name, members, module="state")


class DecodedState:
    """The rebuilt state: domain namespaces, bare collection globals, facts,
    enum types, and the collection names several domains share."""

    def __init__(
        self,
        domains: dict[str, Any],
        bare: dict[str, Any],
        facts: Any,
        record_types: dict[str, type],
        enums: dict[str, type[enum.Enum]] | None = None,
        shared: dict[str, list[str]] | None = None,
    ):
        self.domains = domains
        self.bare = bare
        self.facts = facts
        self.record_types = record_types
        #: enum types by class name (globals when the name is free)
        self.enums = enums or {}
        #: collection name -> the qualified names to use (``travel.events``, ...)
        self.shared = shared or {}

    def globals(self) -> dict[str, Any]:
        """Names the state contributes to the agent's global namespace."""
        names: dict[str, Any] = dict(self.enums)
        names.update(self.bare)
        names.update(self.domains)
        if self.facts is not None:
            names["facts"] = self.facts
        return names


def decode_state(payload: Mapping[str, Any] | None, reserved: Iterable[str] = ()) -> DecodedState:
    """Rebuild read-only objects from an :func:`encode_state` payload.

    A collection becomes a bare global only when its name is unique across
    domains and does not clash with a domain name, ``facts`` or a name in
    ``reserved`` (builtins); otherwise it is reachable as ``domain.name`` only.
    A list collection named like its own domain is the domain's global itself
    (a :class:`~sandbox.records.DomainCollection`: the list, which also answers
    ``domain.collection``), so the name reads the same as in ``state.py``.
    """
    from .records import DomainCollection, DomainNamespace, ReadOnlyList

    if payload is None:
        return DecodedState({}, {}, None, {})
    if not isinstance(payload, Mapping) or payload.get("format") != FORMAT:
        raise StateFormatError(f"state payload must have format {FORMAT!r}")
    dec = _Decoder(payload.get("types") or {})
    domains: dict[str, Any] = {}
    seen: dict[str, int] = {}
    values: dict[str, Any] = {}
    raw_domains = payload.get("domains") or {}
    if not isinstance(raw_domains, Mapping):
        raise StateFormatError("'domains' must be an object")
    for dname, collections in raw_domains.items():
        items: dict[str, Any] = {}
        for cname, raw in _collections(dname, collections, StateFormatError, "be an object"):
            value = dec.value(raw)
            if type(value) is tuple:
                value = ReadOnlyList(value)
            items[cname] = value
            seen[cname] = seen.get(cname, 0) + 1
            values[cname] = value
        dec.refs.domains[dname] = items
        namespace = DomainNamespace(dname, items)
        own = items.get(dname)
        domains[dname] = DomainCollection(own, namespace) if isinstance(own, ReadOnlyList) else namespace
    facts = None
    if payload.get("facts") is not None:
        facts = ReadOnlyList(dec.value(payload["facts"]))
    blocked = set(domains) | set(reserved) | {"facts", "result"}
    bare = {name: value for name, value in values.items() if seen[name] == 1 and name not in blocked}
    shared: dict[str, list[str]] = {}
    for dname, collections in raw_domains.items():
        for cname in collections:
            if seen[cname] > 1 and cname not in blocked:
                shared.setdefault(cname, []).append(f"{dname}.{cname}")
    taken = blocked | set(bare) | set(shared)
    enums: dict[str, type] = {}
    for cls in dec.enums.values():
        if cls.__name__ not in taken and cls.__name__ not in enums:
            enums[cls.__name__] = cls
    return DecodedState(domains, bare, facts, dec.classes, enums, shared)
