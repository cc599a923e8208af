"""Field types of generated schemas: the annotation grammar and value checks.

An annotation in ``schema.py`` or ``state.py`` is parsed (from its ``ast``
node, never evaluated) into a :class:`TypeSpec`.  The accepted grammar::

    T := str | int | float | bool | None | Any
       | date | datetime | time | timedelta
       | Period                         (a date with its precision, uac.dates.Period)
       | Ref                            (a record of a domain by id, uac.refs.Ref)
       | list[T] | set[T] | dict[T, T] | tuple[T, ...] | tuple[T, T, ...]
       | List[T] | Set[T] | Dict[T, T] | Tuple[...]          (typing spellings)
       | Optional[T] | Union[T, T, ...] | T | T
       | ClassName                      (a class defined in the same schema)

:func:`check_value` checks a Python value against a spec (``int`` is accepted
and converted where ``float`` is expected; a ``date`` where ``Period`` is
expected becomes the period of that one day; ``bool`` is not an ``int``).

``Period`` is imported in generated code as ``from uac.dates import Period``;
a schema that defines its own class ``Period`` (and does not import it) keeps
meaning that class.  ``Ref`` (``from uac.refs import Ref``) is the same kind of
value type.
"""

from __future__ import annotations

import ast
import datetime as _dt
import enum
import typing
from dataclasses import dataclass
from types import GenericAlias
from typing import Any, Mapping

from ..dates import Period
from ..refs import Ref

SCALARS = {"str": str, "int": int, "float": float, "bool": bool}
TEMPORAL = {"date": _dt.date, "datetime": _dt.datetime, "time": _dt.time, "timedelta": _dt.timedelta}
#: the date-with-precision type: its name in annotations and the module it is imported from
PERIOD_NAME = "Period"
PERIOD_MODULE = "uac.dates"
#: the typed reference to a record by ``domain/id``: its name and module (like Period's)
REF_NAME = "Ref"
REF_MODULE = "uac.refs"
GENERIC = {
    "list": "list",
    "List": "list",
    "set": "set",
    "Set": "set",
    "dict": "dict",
    "Dict": "dict",
    "tuple": "tuple",
    "Tuple": "tuple",
}


@dataclass(frozen=True)
class TypeSpec:
    """One node of a parsed annotation.

    ``kind`` is one of ``str int float bool none any date datetime time
    timedelta period list set dict tuple union class``; ``args`` holds the element
    specs; ``name`` the class name for ``class``; ``variadic`` marks
    ``tuple[T, ...]``.
    """

    kind: str
    args: tuple["TypeSpec", ...] = ()
    name: str = ""
    variadic: bool = False

    def to_json(self) -> Any:
        if self.kind == "class":
            return {"class": self.name}
        if not self.args:
            return self.kind
        data: dict[str, Any] = {"kind": self.kind, "args": [a.to_json() for a in self.args]}
        if self.variadic:
            data["variadic"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> "TypeSpec":
        if isinstance(data, str):
            return cls(data)
        if "class" in data:
            return cls("class", name=data["class"])
        return cls(data["kind"], tuple(cls.from_json(a) for a in data["args"]), variadic=bool(data.get("variadic")))

    @property
    def optional(self) -> bool:
        return self.kind == "none" or (self.kind == "union" and any(a.kind == "none" for a in self.args))

    def source(self) -> str:
        """Canonical annotation source (``X | None`` for optionals)."""
        if self.kind == "class":
            return self.name
        if self.kind == "none":
            return "None"
        if self.kind == "any":
            return "Any"
        if self.kind == "period":
            return PERIOD_NAME
        if self.kind == "ref":
            return REF_NAME
        if self.kind in ("list", "set"):
            return f"{self.kind}[{self.args[0].source()}]"
        if self.kind == "dict":
            return f"dict[{self.args[0].source()}, {self.args[1].source()}]"
        if self.kind == "tuple":
            inner = ", ".join(a.source() for a in self.args)
            return f"tuple[{inner}, ...]" if self.variadic else f"tuple[{inner}]"
        if self.kind == "union":
            return " | ".join(a.source() for a in self.args)
        return self.kind

    def class_names(self) -> set[str]:
        names = {self.name} if self.kind == "class" else set()
        for arg in self.args:
            names |= arg.class_names()
        return names


NONE = TypeSpec("none")


class AnnotationError(ValueError):
    """An annotation outside the grammar; ``node`` locates it."""

    def __init__(self, message: str, node: ast.AST) -> None:
        super().__init__(message)
        self.node = node


def union(members: list[TypeSpec]) -> TypeSpec:
    flat: list[TypeSpec] = []
    for member in members:
        for item in member.args if member.kind == "union" else (member,):
            if item not in flat:
                flat.append(item)
    # None goes last, so `X | None` is the canonical spelling
    flat.sort(key=lambda spec: spec.kind == "none")
    return flat[0] if len(flat) == 1 else TypeSpec("union", tuple(flat))


def parse_annotation(node: ast.expr, class_names: set[str], names: set[str]) -> TypeSpec:
    """Parse an annotation node; ``names`` are the typing/datetime names imported."""
    if isinstance(node, ast.Constant) and node.value is None:
        return NONE
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        raise AnnotationError("string (forward-reference) annotations are not allowed; name the class directly", node)
    if isinstance(node, ast.Name):
        ident = node.id
        if ident in SCALARS:
            return TypeSpec(ident)
        if ident in TEMPORAL:
            if ident not in names:
                raise AnnotationError(f"'{ident}' is used but not imported from datetime", node)
            return TypeSpec(ident)
        if ident in class_names:
            return TypeSpec("class", name=ident)
        if ident == PERIOD_NAME:
            if ident not in names:
                raise AnnotationError(
                    f"'{ident}' is used but not imported (add `from {PERIOD_MODULE} import {ident}`)", node
                )
            return TypeSpec("period")
        if ident == REF_NAME:
            if ident not in names:
                raise AnnotationError(
                    f"'{ident}' is used but not imported (add `from {REF_MODULE} import {ident}`)", node
                )
            return TypeSpec("ref")
        if ident == "Any":
            if "Any" not in names:
                raise AnnotationError("'Any' is used but not imported from typing", node)
            return TypeSpec("any")
        if ident in GENERIC:
            return TypeSpec(
                GENERIC[ident],
                (TypeSpec("any"),) * (2 if GENERIC[ident] == "dict" else 1),
                variadic=GENERIC[ident] == "tuple",
            )
        raise AnnotationError(
            f"unknown type '{ident}' (allowed: builtin scalars, date/datetime/time/timedelta, Period, Ref, list/dict/tuple/set, Optional/Union/Any, classes of this schema)",
            node,
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union(
            [parse_annotation(node.left, class_names, names), parse_annotation(node.right, class_names, names)]
        )
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        head = node.value.id
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head in ("List", "Dict", "Set", "Tuple", "Optional", "Union") and head not in names:
            raise AnnotationError(f"'{head}' is used but not imported from typing", node)
        if head == "Optional":
            if len(items) != 1:
                raise AnnotationError("Optional[...] takes exactly one type", node)
            return union([parse_annotation(items[0], class_names, names), NONE])
        if head == "Union":
            return union([parse_annotation(i, class_names, names) for i in items])
        kind = GENERIC.get(head)
        if kind in ("list", "set"):
            if len(items) != 1:
                raise AnnotationError(f"{head}[...] takes exactly one type", node)
            return TypeSpec(kind, (parse_annotation(items[0], class_names, names),))
        if kind == "dict":
            if len(items) != 2:
                raise AnnotationError(f"{head}[...] takes a key and a value type", node)
            return TypeSpec("dict", tuple(parse_annotation(i, class_names, names) for i in items))
        if kind == "tuple":
            if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis:
                return TypeSpec("tuple", (parse_annotation(items[0], class_names, names),), variadic=True)
            if not items:
                raise AnnotationError("tuple[...] needs element types", node)
            return TypeSpec("tuple", tuple(parse_annotation(i, class_names, names) for i in items))
        raise AnnotationError(f"'{head}[...]' is not an allowed generic type", node)
    raise AnnotationError(f"{type(node).__name__} is not allowed in an annotation", node)


def describe(value: Any) -> str:
    """Short type name of a value, for messages."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return type(value).__name__


def python_type(spec: TypeSpec, classes: Mapping[str, type]) -> Any:
    """A real typing object for ``spec`` (used as dataclass annotations)."""
    kind = spec.kind
    if kind in SCALARS:
        return SCALARS[kind]
    if kind in TEMPORAL:
        return TEMPORAL[kind]
    if kind == "period":
        return Period
    if kind == "ref":
        return Ref
    if kind == "none":
        return type(None)
    if kind == "any":
        return Any
    if kind == "class":
        return classes[spec.name]
    args = tuple(python_type(a, classes) for a in spec.args)
    if kind == "list":
        return GenericAlias(list, args[0])
    if kind == "set":
        return GenericAlias(set, args[0])
    if kind == "dict":
        return GenericAlias(dict, (args[0], args[1]))
    if kind == "tuple":
        return GenericAlias(tuple, (args[0], ...) if spec.variadic else args)
    if kind == "union":
        return typing.Union[args]
    raise ValueError(kind)


class Mismatch(ValueError):
    """A value does not match its declared type."""


def check_value(value: Any, spec: TypeSpec, classes: Mapping[str, type], where: str = "") -> Any:
    """Return ``value`` (``int`` widened to ``float`` where declared) or raise :class:`Mismatch`."""
    kind = spec.kind
    if kind == "any":
        return value
    if kind == "str" or kind == "bool":
        if type(value) is (str if kind == "str" else bool):
            return value
    elif kind == "int":
        if type(value) is int:
            return value
    elif kind == "float":
        if type(value) is float:
            return value
        if type(value) is int:
            return float(value)
    elif kind == "none":
        if value is None:
            return value
    elif kind in TEMPORAL:
        if type(value) is TEMPORAL[kind]:
            return value
    elif kind == "period":
        if type(value) is Period:
            return value
        if type(value) is _dt.date:
            return Period(value, value)
    elif kind == "ref":
        if type(value) is Ref:
            return value
    elif kind == "class":
        if type(value) is classes.get(spec.name):
            return value
    elif kind == "list":
        if type(value) is list:
            inner = spec.args[0]
            if inner.kind == "any":
                return value
            return [check_value(v, inner, classes, f"{where}[{i}]") for i, v in enumerate(value)]
    elif kind == "set":
        if type(value) is set:
            return {check_value(v, spec.args[0], classes, f"{where}{{}}") for v in value}
    elif kind == "tuple":
        if type(value) is tuple:
            if spec.variadic:
                return tuple(check_value(v, spec.args[0], classes, f"{where}[{i}]") for i, v in enumerate(value))
            if len(value) != len(spec.args):
                raise Mismatch(f"{where or 'value'} expects a tuple of {len(spec.args)} items, got {len(value)}")
            return tuple(check_value(v, s, classes, f"{where}[{i}]") for i, (v, s) in enumerate(zip(value, spec.args)))
    elif kind == "dict":
        if type(value) is dict:
            key_spec, value_spec = spec.args
            return {
                check_value(k, key_spec, classes, f"{where} key"): check_value(
                    v, value_spec, classes, f"{where}[{k!r}]"
                )
                for k, v in value.items()
            }
    elif kind == "union":
        for member in spec.args:
            try:
                return check_value(value, member, classes, where)
            except Mismatch:
                continue
    raise Mismatch(f"{where + ' ' if where else ''}expects {spec.source()}, got {describe(value)}")
