"""The parsed form of a domain's ``schema.py``: classes, fields, enum members.

A :class:`SchemaSpec` is what the validator extracts from the source and what
the loader builds classes from; it round-trips through JSON for the cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .types import TypeSpec

#: marker for "no default" in :class:`FieldSpec`
REQUIRED = "required"


@dataclass(frozen=True)
class FieldSpec:
    name: str
    type: TypeSpec
    #: ``"required"``, ``"value"`` (literal ``default``) or ``"list"``/``"dict"`` (default_factory)
    default_kind: str = REQUIRED
    default: Any = None

    @property
    def required(self) -> bool:
        return self.default_kind == REQUIRED

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type.to_json(),
            "default_kind": self.default_kind,
            "default": self.default,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FieldSpec":
        return cls(data["name"], TypeSpec.from_json(data["type"]), data["default_kind"], data["default"])


@dataclass(frozen=True)
class ClassSpec:
    name: str
    #: ``"dataclass"`` or ``"enum"``
    kind: str = "dataclass"
    fields: tuple[FieldSpec, ...] = ()
    #: enum members: (name, literal value)
    members: tuple[tuple[str, Any], ...] = ()
    frozen: bool = True
    doc: str = ""

    def field(self, name: str) -> FieldSpec | None:
        for spec in self.fields:
            if spec.name == name:
                return spec
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "fields": [f.to_json() for f in self.fields],
            "members": [list(m) for m in self.members],
            "frozen": self.frozen,
            "doc": self.doc,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ClassSpec":
        return cls(
            data["name"],
            data["kind"],
            tuple(FieldSpec.from_json(f) for f in data["fields"]),
            tuple((m[0], m[1]) for m in data["members"]),
            data["frozen"],
            data.get("doc", ""),
        )


@dataclass(frozen=True)
class SchemaSpec:
    classes: tuple[ClassSpec, ...] = ()
    doc: str = ""
    #: names imported from datetime/typing (what state.py may also use)
    imports: tuple[str, ...] = field(default=())

    def get(self, name: str) -> ClassSpec | None:
        for spec in self.classes:
            if spec.name == name:
                return spec
        return None

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.classes]

    def to_json(self) -> dict[str, Any]:
        return {"doc": self.doc, "imports": list(self.imports), "classes": [c.to_json() for c in self.classes]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SchemaSpec":
        return cls(
            tuple(ClassSpec.from_json(c) for c in data["classes"]), data.get("doc", ""), tuple(data.get("imports", ()))
        )
