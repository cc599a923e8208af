"""``Ref``: a reference to a record by ``domain/id``, as agent code sees it in the sandbox.

A field of type ``Ref`` names a record, usually of another domain (the partner
of a run is the person ``relationships/person-2``).  ``ref.domain`` and
``ref.id`` say which; ``ref.resolve()`` returns that record from the state the
code runs on, or raises ``LookupError`` when the state holds no such record
(it was retired, or the reference is wrong).  ``str(ref)`` is
``relationships/person-2``; references compare and hash by their target.

:class:`RefValue` is what every reference is, here and on the host: the
target and how references compare.  ``uac.refs.Ref`` is built on it (uac
calls the sandbox; the sandbox never imports uac); the wire form is
``{"$ref": "relationships/person-2"}``.
"""

from __future__ import annotations

from typing import Any

from .readonly import ReadOnly


class RefTable:
    """The records of a decoded state by (domain, id), built on the first lookup."""

    __slots__ = ("domains", "_index")

    def __init__(self) -> None:
        self.domains: dict[str, dict[str, Any]] = {}
        self._index: dict[tuple[str, str], Any] | None = None

    def find(self, domain: str, ident: str) -> Any:
        if self._index is None:
            index: dict[tuple[str, str], Any] = {}
            for name, items in self.domains.items():
                for value in items.values():
                    if isinstance(value, (tuple, list)) or type(value).__name__ == "ReadOnlyList":
                        for record in value:
                            key = getattr(record, "id", None)
                            if isinstance(key, str):
                                index.setdefault((name, key), record)
            self._index = index
        return self._index.get((domain, ident))


class RefValue(ReadOnly):
    """A reference's target, ``domain`` and ``id``: read-only, and compared, ordered and hashed by
    the target among references of one kind (``str(ref)`` is ``domain/id``)."""

    __slots__ = ("domain", "id")
    domain: str
    id: str

    def __init__(self, domain: str, ident: str) -> None:
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "id", ident)

    @property
    def code(self) -> str:
        """The stored form, ``relationships/person-2``."""
        return f"{self.domain}/{self.id}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RefValue) or type(other) is not type(self):
            return False
        return (self.domain, self.id) == (other.domain, other.id)

    def __lt__(self, other: "RefValue") -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (self.domain, self.id) < (other.domain, other.id)

    def __hash__(self) -> int:
        return hash(("Ref", self.domain, self.id))

    def __repr__(self) -> str:
        return f"Ref({self.code!r})"

    def __str__(self) -> str:
        return self.code


class Ref(RefValue):
    """A reference to the record ``id`` of ``domain`` (see the module docstring)."""

    __slots__ = ("_table",)
    _table: RefTable | None

    def __init__(self, target: str, table: RefTable | None = None) -> None:
        if type(target) is not str or target.count("/") != 1:
            raise ValueError(f"{target!r} is not a reference; write '<domain>/<record id>'")
        super().__init__(*target.split("/"))
        object.__setattr__(self, "_table", table)

    def resolve(self) -> Any:
        """The record this names in the state, or ``LookupError``."""
        table = object.__getattribute__(self, "_table")
        record = table.find(self.domain, self.id) if table is not None else None
        if record is None:
            raise LookupError(f"{self.code}: the state holds no record {self.id!r} in domain {self.domain!r}")
        return record


__all__ = ["Ref", "RefTable", "RefValue"]
