"""What an encoded state holds, read from the payload itself (host side).

:func:`catalog` walks an :func:`~sandbox.codec.encode_state` payload without
decoding it and lists, per domain, each collection with its size, record type
and fields (with the kind of value each field holds in the first record that
has one), the enum types with their members, the fact list, and which
collection names several domains share -- the same rules
:func:`~sandbox.codec.decode_state` applies in the worker, so the tool
description built from it (:mod:`sandbox.tool`) names exactly what exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

_TAG_KINDS = {
    "$date": "date",
    "$period": "Period",
    "$ref": "Ref",
    "$datetime": "datetime",
    "$time": "time",
    "$timedelta": "timedelta",
    "$decimal": "Decimal",
    "$float": "float",
    "$set": "frozenset",
    "$map": "mapping",
    "$table": "list",
}


@dataclass
class CollectionInfo:
    domain: str
    name: str
    #: number of items (None: a single value, not a sequence)
    count: int | None
    #: record type name, when every item is a record of one type
    type_name: str | None = None
    #: (field, kind) pairs of the record type
    fields: list[tuple[str, str]] = field(default_factory=list)
    #: kind of a single value ("str", "mapping", ...)
    kind: str | None = None
    #: the bare global this collection is also reachable as
    global_name: str | None = None

    @property
    def qualified(self) -> str:
        return f"{self.domain}.{self.name}"


@dataclass
class StateCatalog:
    collections: list[CollectionInfo] = field(default_factory=list)
    #: collection name -> qualified names, for names several domains share
    shared: dict[str, list[str]] = field(default_factory=dict)
    #: enum type name -> member names
    enums: dict[str, list[str]] = field(default_factory=dict)
    #: the enum types that are also globals (their name is not taken)
    enum_globals: list[str] = field(default_factory=list)
    facts_count: int | None = None
    fact_fields: list[tuple[str, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.collections and self.facts_count is None


def _kind(value: Any, types: Mapping[str, Any]) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float, str)):
        return type(value).__name__
    if isinstance(value, list):
        return "tuple"
    if isinstance(value, dict):
        for tag in value:
            if tag == "$enum":
                spec = types.get(str(value.get("$enum")), {})
                return str(spec.get("name", value.get("$enum")))
            if tag == "$record":
                spec = types.get(str(value.get("$record")), {})
                return str(spec.get("name", value.get("$record")))
            return _TAG_KINDS.get(tag, "value")
    return "value"


def _fields(type_key: str, rows: list[Any], types: Mapping[str, Any]) -> list[tuple[str, str]]:
    spec = types.get(type_key) or {}
    names = [str(n) for n in spec.get("fields") or []]
    kinds: list[str | None] = [None] * len(names)
    for row in rows:
        if not isinstance(row, list):
            continue
        for i, value in enumerate(row[: len(names)]):
            if kinds[i] is None and value is not None:
                kinds[i] = _kind(value, types)
        if all(k is not None for k in kinds):
            break
    return [(name, kind or "None in every row here") for name, kind in zip(names, kinds)]


def catalog(payload: Mapping[str, Any] | None, reserved: set[str] | frozenset[str] = frozenset()) -> StateCatalog:
    """Describe ``payload`` (``reserved``: names the collections may not take as globals)."""
    out = StateCatalog()
    if not payload:
        return out
    types = payload.get("types") or {}
    domains = payload.get("domains") or {}
    seen: dict[str, int] = {}
    for collections in domains.values():
        for cname in collections:
            seen[cname] = seen.get(cname, 0) + 1
    blocked = set(domains) | set(reserved) | {"facts", "result"}
    for dname, collections in domains.items():
        for cname, raw in collections.items():
            info = CollectionInfo(dname, cname, None)
            if isinstance(raw, dict) and "$table" in raw:
                info.count = len(raw.get("rows") or [])
                info.type_name = str((types.get(raw["$table"]) or {}).get("name", raw["$table"]))
                info.fields = _fields(raw["$table"], raw.get("rows") or [], types)
            elif isinstance(raw, list):
                info.count = len(raw)
                kinds = sorted({_kind(v, types) for v in raw})
                info.kind = "/".join(kinds) if kinds else None
            else:
                info.kind = _kind(raw, types)
            if cname == dname and info.count is not None:
                info.global_name = dname
            elif seen[cname] == 1 and cname not in blocked:
                info.global_name = cname
            elif seen[cname] > 1 and cname not in blocked:
                out.shared.setdefault(cname, []).append(info.qualified)
            out.collections.append(info)
    for key, spec in types.items():
        if isinstance(spec, dict) and isinstance(spec.get("members"), list):
            out.enums.setdefault(str(spec.get("name", key)), [str(m[0]) for m in spec["members"]])
    taken = blocked | {c.global_name for c in out.collections if c.global_name} | set(out.shared)
    out.enum_globals = [name for name in out.enums if name not in taken]
    facts = payload.get("facts")
    if isinstance(facts, dict) and "$table" in facts:
        out.facts_count = len(facts.get("rows") or [])
        out.fact_fields = _fields(facts["$table"], facts.get("rows") or [], types)
    return out
