"""Real Python classes for a validated schema: frozen dataclasses and enums.

:func:`build_classes` turns a :class:`SchemaSpec` into classes with
:func:`dataclasses.make_dataclass` (always frozen) and :class:`enum.Enum`;
each record class keeps its declared field types (:func:`field_specs`).
:func:`rebuild` re-creates loaded objects with freshly built classes.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
from typing import Any, Mapping

from ..dates import Period
from ..errors import CompileError
from ..refs import Ref
from .spec import ClassSpec, SchemaSpec
from .types import TypeSpec, python_type


def field_specs(cls: type) -> dict[str, TypeSpec]:
    """Declared field types of a loaded record class (name -> spec, in order)."""
    return cls.__dict__["__uac_types__"]


#: enum.Enum, called in its functional form with a name known only at run time
_ENUM: type = enum.Enum


def build_classes(schema: SchemaSpec, module: str) -> dict[str, type]:
    """Build real (frozen) classes from a validated schema."""
    classes: dict[str, type] = {}
    for spec in schema.classes:
        if spec.kind == "enum":
            cls: type = _ENUM(spec.name, [(m, v) for m, v in spec.members], module=module)
            if spec.doc:
                cls.__doc__ = spec.doc
        else:
            cls = _dataclass(spec, classes, module)
        classes[spec.name] = cls
    return classes


def _dataclass(spec: ClassSpec, classes: Mapping[str, type], module: str) -> type:
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in spec.fields:
        annotation = python_type(f.type, classes)
        if f.default_kind == "required":
            fields.append((f.name, annotation))
        elif f.default_kind == "value":
            fields.append((f.name, annotation, dataclasses.field(default=f.default)))
        else:
            factory = list if f.default_kind == "list" else dict
            fields.append((f.name, annotation, dataclasses.field(default_factory=factory)))
    namespace: dict[str, Any] = {"__uac_types__": {f.name: f.type for f in spec.fields}}
    if spec.doc:
        namespace["__doc__"] = spec.doc
    try:
        cls = dataclasses.make_dataclass(spec.name, fields, frozen=True, namespace=namespace)
    except (TypeError, ValueError) as exc:
        raise CompileError(f"schema class {spec.name} cannot be built: {exc}.") from None
    cls.__module__ = module
    return cls


def rebuild(value: Any, classes: dict[str, Any]) -> Any:
    """Re-create loaded objects with freshly built classes (same names).

    A field the new class gained takes its default; one without a default is
    set to ``""`` (the caller fills it, e.g. a record id)."""
    kind = type(value)
    if (
        kind in (str, int, float, bool)
        or value is None
        or kind in (_dt.date, _dt.datetime, _dt.time, _dt.timedelta, Period, Ref)
    ):
        return value
    if isinstance(value, enum.Enum):
        return classes[kind.__name__][value.name]
    if kind is list:
        return [rebuild(v, classes) for v in value]
    if kind is tuple:
        return tuple(rebuild(v, classes) for v in value)
    if kind is set:
        return {rebuild(v, classes) for v in value}
    if kind is dict:
        return {rebuild(k, classes): rebuild(v, classes) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        target = classes[kind.__name__]
        present = value.__dict__
        fields: dict[str, Any] = {}
        for f in dataclasses.fields(target):
            if f.name in present:
                fields[f.name] = rebuild(present[f.name], classes)
            elif f.default is not dataclasses.MISSING:
                fields[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                fields[f.name] = f.default_factory()
            else:
                fields[f.name] = ""
        obj: Any = object.__new__(target)
        obj.__dict__.update(fields)
        return obj
    raise TypeError(kind.__name__)


__all__ = ["build_classes", "field_specs", "rebuild"]
