"""A domain's classes and records as a compile prompt shows them: data, one line of JSON each,
in the shapes the model answers in -- a class as an ``add_class`` operation writes it, a record
with its values as an ``add`` gives them (dates ``"YYYY-MM-DD"``, periods by their code, enum
members by name, a reference as ``{"ref": "<domain>/<id>"}``, a duration in hours and minutes)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
from typing import Any

from ..dates import Period
from ..dialect.render import _record_items  # the fields a record's constructor call writes
from ..dialect.spec import ClassSpec
from ..refs import Ref
from ..templating import json_line

#: the fields uac adds to every record class and fills itself
MANAGED = ("id", "notes", "sources")


def value_json(value: Any) -> Any:
    """``value`` in the form an operation writes it."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Period):
        return value.code
    if isinstance(value, Ref):
        return {"ref": value.code}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (_dt.date, _dt.time)):  # a datetime is a date
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return _duration(value)
    if isinstance(value, dict):
        return {str(key): value_json(item) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((value_json(item) for item in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [value_json(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: value_json(item) for name, item in _record_items(value)}
    return str(value)


def _duration(value: _dt.timedelta) -> dict[str, int | float]:
    hours, rest = divmod(value.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = {"days": value.days, "hours": hours, "minutes": minutes, "seconds": seconds + value.microseconds / 1e6}
    given = {name: (int(n) if float(n).is_integer() else n) for name, n in parts.items() if n}
    return given or {"seconds": 0}


def record_json(record: Any) -> dict[str, Any]:
    """A record: its id, its class, then the values it holds (defaults left out)."""
    values = {name: value_json(value) for name, value in _record_items(record) if name != "id"}
    return {"id": getattr(record, "id", None), "class": type(record).__name__, **values}


def record_line(record: Any) -> str:
    """One record as the model sees it: :func:`record_json` on one line."""
    return json_line(record_json(record))


def ref_line(domain: str, record: Any) -> str:
    """A record of another domain: the reference to it (``{"ref": "<domain>/<id>"}``), its class
    and its values."""
    shown = record_json(record)
    return json_line({"ref": f"{domain}/{shown.pop('id')}", **shown})


def revisit_line(record: Any, why: str) -> str:
    """A record to update or retire, with why."""
    return json_line({"record": record_json(record), "why": why})


def class_json(spec: ClassSpec) -> dict[str, Any]:
    """A class as an ``add_class`` operation writes it (the fields uac manages left out)."""
    if spec.kind == "enum":
        return {"name": spec.name, "members": [name for name, _ in spec.members]}
    fields = []
    for field in spec.fields:
        if field.name in MANAGED:
            continue
        shown: dict[str, Any] = {"name": field.name, "type": field.type.source()}
        if field.default_kind == "value":
            shown["default"] = value_json(field.default)
        elif field.default_kind in ("list", "dict"):
            shown["default"] = [] if field.default_kind == "list" else {}
        fields.append(shown)
    return {"name": spec.name, **({"doc": spec.doc} if spec.doc else {}), "fields": fields}


def class_lines(specs: list[ClassSpec]) -> list[str]:
    """The domain's classes, one :func:`class_json` line each."""
    return [json_line(class_json(spec)) for spec in specs]


__all__ = [
    "MANAGED",
    "class_json",
    "class_lines",
    "record_json",
    "record_line",
    "ref_line",
    "revisit_line",
    "value_json",
]
