"""A case's records as User-as-Code typed state, and checks on that state.

:func:`build_typed_state` writes each collection of a case to a JSON file in
a temporary user project and imports it with ``UserMemory.import_records``
(one call per collection, no per-record work here); the typed values come
back from ``UserMemory.sandbox_state()`` (for the sandbox) and
``UserMemory.state`` (the public view).  :func:`check_fidelity` verifies
that every record and field of the input is in the view with the right
Python type (ISO dates as ``datetime.date``), and :func:`coverage` is the
share of a case's support records present in it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uac import UserMemory

    from .cases import Case

#: the life domain each record type is imported into
DOMAINS = {
    "trips": "travel",
    "contacts": "people",
    "meals": "dining",
    "transactions": "finance",
    "sleep": "wellbeing",
    "workouts": "fitness",
    "books": "reading",
    "medical_visits": "health",
    "meetings": "work",
    "purchases": "shopping",
}

#: the record class name each collection is imported as
CLASS_NAMES = {
    "trips": "Trip",
    "contacts": "Contact",
    "meals": "Meal",
    "transactions": "Transaction",
    "sleep": "SleepRecord",
    "workouts": "Workout",
    "books": "Book",
    "medical_visits": "MedicalVisit",
    "meetings": "Meeting",
    "purchases": "Purchase",
}

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass
class TypedState:
    memory: "UserMemory"
    #: domain -> collection -> loaded values (``UserMemory.sandbox_state()``)
    state: dict[str, dict[str, Any]]

    def collection(self, name: str) -> list[Any]:
        """The typed records of collection ``name`` as the sandbox receives them."""
        return list(self.state.get(DOMAINS.get(name, name), {}).get(name, []))

    def view_collection(self, name: str) -> list[Any]:
        """The typed records of collection ``name`` through ``UserMemory.state`` (the public view)."""
        view = self.memory.state
        domain = DOMAINS.get(name, name)
        try:
            return list(getattr(view[domain], name))
        except (KeyError, AttributeError):
            return []


def build_typed_state(case: "Case", workdir: Path) -> TypedState:
    """Import every collection of ``case`` into a fresh project under ``workdir``."""
    from uac import UserMemory

    workdir = Path(workdir)
    memory = UserMemory.create(workdir / "user", user_name="Benchmark User")
    for name, records in case.collections.items():
        source = workdir / f"{name}.json"
        source.write_text(json.dumps(records, ensure_ascii=False), "utf-8")
        memory.import_records(
            source, domain=DOMAINS.get(name, name), collection=name, record_type=CLASS_NAMES.get(name)
        )
    return TypedState(memory, memory.sandbox_state())


def _field_value(obj: Any, name: str) -> tuple[bool, Any]:
    if isinstance(obj, dict):
        return (name in obj, obj.get(name))
    if hasattr(obj, name):
        return True, getattr(obj, name)
    return False, None


def expected_value(value: Any) -> Any:
    """The Python value an input JSON value must become in the typed state."""
    if isinstance(value, str) and _ISO_DATE.match(value):
        return dt.date.fromisoformat(value)
    return value


def _same(expected: Any, actual: Any) -> bool:
    if type(expected) is not type(actual):
        # an int where the input had a whole float (or the reverse) is still the wrong type
        return False
    return expected == actual


@dataclass
class Fidelity:
    """How many of a case's input records, and of their fields, the typed state holds exactly."""

    records: int = 0
    records_exact: int = 0
    fields: int = 0
    fields_exact: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.records > 0 and self.records == self.records_exact

    def to_json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "records_exact": self.records_exact,
            "fields": self.fields,
            "fields_exact": self.fields_exact,
            "ok": self.ok,
            "problems": self.problems[:5],
        }


def check_fidelity(case: "Case", typed: TypedState) -> Fidelity:
    """Compare every input record and field with the typed state (``UserMemory.state``), in order."""
    result = Fidelity()
    for name, records in case.collections.items():
        loaded = typed.view_collection(name)
        if len(loaded) != len(records):
            result.problems.append(f"{name}: {len(loaded)} typed records for {len(records)} input records")
        for index, record in enumerate(records):
            result.records += 1
            result.fields += len(record)
            if index >= len(loaded):
                continue
            obj = loaded[index]
            exact = True
            for key, raw in record.items():
                present, actual = _field_value(obj, key)
                expected = expected_value(raw)
                if present and _same(expected, actual):
                    result.fields_exact += 1
                else:
                    exact = False
                    if len(result.problems) < 5:
                        shown = repr(actual) if present else "missing"
                        result.problems.append(
                            f"{name}[{index}].{key}: expected {expected!r} ({type(expected).__name__}), got {shown}"
                        )
            if exact:
                result.records_exact += 1
    return result


def coverage(case: "Case", typed: TypedState) -> float:
    """Share of the case's support records whose id is in the typed state."""
    if not case.support:
        return 1.0
    ids: set[str] = set()
    for name in case.collections:
        for obj in typed.collection(name):
            present, value = _field_value(obj, "id")
            if present:
                ids.add(str(value))
    return sum(1 for rid in case.support if rid in ids) / len(case.support)


def _type_name(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return "datetime"
    if isinstance(value, dt.date):
        return "date"
    return type(value).__name__


def schema_summary(typed: TypedState) -> list[dict[str, Any]]:
    """Per collection: domain, name, record type and field types (for the prompt)."""
    out = []
    for domain, collections in typed.state.items():
        for name, values in collections.items():
            values = list(values) if isinstance(values, (list, tuple)) else []
            first = values[0] if values else None
            if first is not None and dataclasses.is_dataclass(first):
                fields = [
                    {"name": f.name, "type": _type_name(getattr(first, f.name))} for f in dataclasses.fields(first)
                ]
                type_name = type(first).__name__
            elif isinstance(first, dict):
                fields = [{"name": k, "type": _type_name(v)} for k, v in first.items()]
                type_name = "dict"
            else:
                fields, type_name = [], type(first).__name__ if first is not None else "?"
            out.append(
                {"domain": domain, "collection": name, "count": len(values), "type_name": type_name, "fields": fields}
            )
    return out
