"""How a records collection's type follows the files imported into it.

Next month's export of the same records often differs a little from the first:
a column that held whole numbers now holds ``89.50``, dates become months, a
column is new or gone.  :func:`evolve` merges the collection's record class
with the class inferred from the new file, field by field:

* the same type: kept;
* ``int`` and ``float``: ``float`` (whole numbers beyond 2**53 are refused: a
  float cannot hold them exactly);
* ``date`` and ``Period``: ``Period`` (a day is the period of that one day);
* anything and ``Any``: ``Any`` (each value exactly as given);
* a ``str`` field and a CSV file, or strings that read as dates: ``str`` (the
  text stays as written);
* a field new in the file: added as an optional field (``T | None = None``);
* a field the file lacks: kept, and optional from now on;
* any other change -- text where numbers were, ``bool`` where ``int`` was,
  ``datetime`` where ``date`` was -- would reinterpret data, and is refused with
  a message naming each field.

Every change is reported (:class:`FieldChange`); values already in the
collection are converted to the merged type, so the view stays one type per
field.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, replace
from typing import Any

from ..dates import Period
from ..dialect.spec import ClassSpec, FieldSpec
from ..dialect.types import TypeSpec, union
from ..errors import UserError

NONE = TypeSpec("none")
#: the largest integer a float holds exactly
_EXACT = 2**53


@dataclass(frozen=True)
class FieldChange:
    """One change of a record class: ``added``, ``widened`` or ``optional``."""

    field: str
    change: str
    before: str | None
    after: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "change": self.change,
            "from": self.before,
            "to": self.after,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Evolution:
    """The merged class, what changed, and the fields that could not be merged."""

    spec: ClassSpec
    changes: tuple[FieldChange, ...]
    conflicts: tuple[str, ...]


def _core(spec: TypeSpec) -> tuple[TypeSpec, bool]:
    """A type without ``None``, and whether ``None`` was allowed."""
    if spec.kind == "union" and NONE in spec.args:
        rest = [a for a in spec.args if a != NONE]
        return (rest[0] if len(rest) == 1 else TypeSpec("union", tuple(rest))), True
    return spec, False


def merge_core(old: TypeSpec, new: TypeSpec, *, csv: bool) -> TypeSpec | None:
    """The type that holds both, without reinterpreting a value; None when there is none."""
    if old == new or old.kind == "any":
        return old
    if new.kind == "any":
        return new
    kinds = {old.kind, new.kind}
    if kinds == {"int", "float"}:
        return TypeSpec("float")
    if kinds == {"date", "period"}:
        return TypeSpec("period")
    if old.kind == "str" and (csv or new.kind in ("date", "datetime", "period")):
        return old  # the cells (or the JSON strings) stay text, as written
    return None


def evolve(old: ClassSpec, new: ClassSpec, *, csv: bool, own: tuple[str, ...], file_name: str) -> Evolution:
    """Merge ``old`` (the collection's class) with ``new`` (inferred from ``file_name``)."""
    old_fields = {f.name: f for f in old.fields if f.name not in own}
    new_fields = {f.name: f for f in new.fields if f.name not in own}
    changes: list[FieldChange] = []
    conflicts: list[str] = []
    required: list[FieldSpec] = []
    optional: list[FieldSpec] = []
    for name, before in old_fields.items():
        core, nullable = _core(before.type)
        if name not in new_fields:
            if not nullable:
                after = union([core, NONE])
                changes.append(
                    FieldChange(name, "optional", before.type.source(), after.source(), f"missing from {file_name}")
                )
                optional.append(FieldSpec(name, after, "value", None))
            else:
                optional.append(before)
            continue
        file_core, file_nullable = _core(new_fields[name].type)
        merged = merge_core(core, file_core, csv=csv)
        if merged is None:
            conflicts.append(
                f"field {name}: {before.type.source()} in the collection, {new_fields[name].type.source()} in the file"
            )
            continue
        if merged != core:
            shown = union([merged, NONE]) if nullable else merged
            changes.append(FieldChange(name, "widened", before.type.source(), shown.source(), f"values of {file_name}"))
        if nullable or file_nullable or before.default_kind == "value":
            after = union([merged, NONE]) if merged.kind != "any" else merged
            if not nullable and merged.kind != "any":
                changes.append(
                    FieldChange(name, "optional", before.type.source(), after.source(), f"empty values in {file_name}")
                )
            optional.append(FieldSpec(name, after, "value", None))
        else:
            required.append(FieldSpec(name, merged))
    for name, added in new_fields.items():
        if name in old_fields:
            continue
        core, _ = _core(added.type)
        after = union([core, NONE]) if core.kind != "any" else core
        changes.append(FieldChange(name, "added", None, after.source(), f"new in {file_name}"))
        optional.append(FieldSpec(name, after, "value", None))
    own_fields = [f for f in old.fields if f.name in own]
    spec = replace(old, fields=tuple(required + optional + own_fields))
    return Evolution(spec, tuple(changes), tuple(conflicts))


def lossless(value: Any, spec: TypeSpec) -> Any:
    """``value`` (already of its old type) as a value of ``spec``; ValueError if it would change."""
    if value is None:
        return None
    core, _ = _core(spec)
    if core.kind == "float" and type(value) is int:
        if abs(value) > _EXACT:
            raise ValueError(f"{value} is too large for a float to hold exactly")
        return float(value)
    if core.kind == "period" and isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        return Period.day(value)
    return value


def widen_values(value: Any, record_type: str, widened: dict[str, TypeSpec], where: str) -> Any:
    """``value`` (rebuilt with the merged classes) with every ``record_type`` record's
    ``widened`` fields converted to their new types, wherever in ``value`` it sits.

    Records are rebuilt objects of frozen classes: their fields are set in place,
    as :func:`uac.dialect.classes.rebuild` makes them."""
    if not widened:
        return value
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple, set)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            if type(item).__name__ == record_type:
                for name, spec in widened.items():
                    try:
                        item.__dict__[name] = lossless(item.__dict__.get(name), spec)
                    except ValueError as exc:
                        raise UserError(
                            f"{where}: field {name} cannot become {spec.source()}: {exc}.",
                            hint="Import the file into a new collection ({opt:collection}), or give {opt:replace}.",
                        ) from None
            stack.extend(item.__dict__.values())
    return value
