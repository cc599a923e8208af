"""Read-only data types the state is rebuilt into inside the worker.

Everything here is immutable from agent code: records reject attribute
assignment, collections are tuples, mappings have no mutators and do not
subclass ``dict`` (so ``dict.update(m, ...)`` cannot reach them), and the
classes cannot be subclassed from agent code.
"""

from __future__ import annotations

import collections.abc
import keyword
from typing import Any, Callable, Iterable


class ReadOnlyError(TypeError):
    """Raised when agent code tries to change the shared state."""


_BUILD_TOKEN = object()


def _check_field_name(name: object) -> str:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise ValueError(f"invalid field name {name!r}: fields must be identifiers without a leading underscore")
    return name


class Record:
    """Base of the per-type record classes built by :func:`make_record_class`."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _type_name: str = "Record"

    def __init_subclass__(cls, token: object = None, **kwargs: Any) -> None:
        if token is not _BUILD_TOKEN:
            raise TypeError("state record types cannot be subclassed")
        super().__init_subclass__(**kwargs)

    def __setattr__(self, name: str, value: object) -> None:
        raise ReadOnlyError(f"'{self._type_name}' records are read-only (the state cannot be changed)")

    def __delattr__(self, name: str) -> None:
        raise ReadOnlyError(f"'{self._type_name}' records are read-only (the state cannot be changed)")

    # No __getattr__ here on purpose: it would disable CPython's fast path for
    # slot reads.  The worker rewrites AttributeErrors on records into
    # "'Trip' record has no field 'x'; fields: ..." (see missing_field_message).

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def _asdict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._fields}

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self._type_name}({inner})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __ne__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() != other._values()

    def __hash__(self) -> int:
        return hash((self._type_name, self._values()))

    def __reduce__(self) -> Any:
        raise TypeError("state records cannot be pickled")


def missing_field_message(obj: Record, name: str) -> str:
    """The friendly message for reading a field a record does not have."""
    fields = ", ".join(obj._fields) or "(none)"
    return f"'{obj._type_name}' record has no field '{name}'; fields: {fields}"


def make_record_class(name: str, fields: Iterable[str]) -> tuple[type[Record], Callable[[list[Any]], Record]]:
    """Build an immutable record class and a fast constructor from a value list.

    The constructor takes a list of already decoded values in field order.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"invalid record type name {name!r}")
    field_names = tuple(_check_field_name(f) for f in fields)
    if len(set(field_names)) != len(field_names):
        raise ValueError(f"duplicate field names in record type {name!r}")
    namespace = {
        "__slots__": field_names,
        "_fields": field_names,
        "_type_name": name,
        "__match_args__": field_names,
        "__module__": "state",
        "__qualname__": name,
    }
    cls = type(name, (Record,), namespace, token=_BUILD_TOKEN)
    setters = tuple(cls.__dict__[f].__set__ for f in field_names)
    count = len(field_names)
    new = object.__new__

    def build(values: list[Any]) -> Record:
        if len(values) != count:
            raise ValueError(f"record {name!r} expects {count} values, got {len(values)}")
        obj: Record = new(cls)
        for setter, value in zip(setters, values):
            setter(obj, value)
        return obj

    return cls, build


class ReadOnlyList(tuple):
    """An immutable sequence for state collections.

    It is a ``tuple`` (indexing, slicing, ``len``, iteration, ``in``, ``sorted``
    and ``list`` all work at native speed); mutators give a clear error.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name in {"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"}:
            raise ReadOnlyError(
                f"state collections are read-only: cannot {name}(); copy first, e.g. items = list(collection)"
            )
        raise AttributeError(f"'ReadOnlyList' object has no attribute '{name}'")

    def __repr__(self) -> str:
        return f"ReadOnlyList({list(self)!r})"


class DomainCollection(ReadOnlyList):
    """A collection named like its own domain (``medical`` in domain ``medical``).

    The global ``medical`` is then this collection -- what ``state.py`` declares
    (``medical: list[Visit]``) works as written: ``len(medical)``, ``medical[0]``,
    ``for v in medical`` -- and it also answers attribute access like the domain
    namespace does: ``medical.medical`` and ``medical.<other collection>``.
    """

    def __new__(cls, items: Iterable[Any], domain: "DomainNamespace") -> "DomainCollection":
        obj = super().__new__(cls, items)
        object.__setattr__(obj, "_domain", domain)
        return obj

    def __getattribute__(self, name: str) -> Any:
        # the domain's collections come first, also over tuple methods: a collection
        # named `index` or `count` is reached as `medical.index`, as in state.py
        if name[:1] != "_":
            items = object.__getattribute__(object.__getattribute__(self, "_domain"), "_items")
            if name in items:
                return items[name]
        return super().__getattribute__(name)

    def __getattr__(self, name: str) -> Any:
        return ReadOnlyList.__getattr__(self, name)

    def __setattr__(self, name: str, value: object) -> None:
        raise ReadOnlyError("domains and their collections are read-only (the state cannot be changed)")

    def __delattr__(self, name: str) -> None:
        raise ReadOnlyError("domains and their collections are read-only (the state cannot be changed)")

    def __reduce__(self) -> Any:
        raise TypeError("domains cannot be pickled")


class FrozenMap(collections.abc.Mapping):
    """An immutable, hashable mapping (dict values inside the state)."""

    __slots__ = ("_data", "_hash")
    _data: dict[Any, Any]
    _hash: int | None

    def __init__(self, items: Iterable[tuple[Any, Any]] = ()) -> None:
        object.__setattr__(self, "_data", dict(items))
        object.__setattr__(self, "_hash", None)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("FrozenMap cannot be subclassed")

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __setattr__(self, name: str, value: object) -> None:
        raise ReadOnlyError("state mappings are read-only; copy first, e.g. d = dict(mapping)")

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            value = hash(frozenset(self._data.items()))
            object.__setattr__(self, "_hash", value)
        return value

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def __reduce__(self) -> Any:
        raise TypeError("FrozenMap cannot be pickled")


class DomainNamespace:
    """The read-only namespace of one domain, e.g. ``travel.trips``."""

    __slots__ = ("_name", "_items")

    def __init__(self, name: str, items: dict[str, Any]) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_items", dict(items))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("DomainNamespace cannot be subclassed")

    def __getattr__(self, name: str) -> Any:
        items = object.__getattribute__(self, "_items")
        try:
            return items[name]
        except KeyError:
            dname = object.__getattribute__(self, "_name")
            raise AttributeError(
                f"domain '{dname}' has no collection '{name}'; collections: {', '.join(items) or '(none)'}"
            ) from None

    def __setattr__(self, name: str, value: object) -> None:
        raise ReadOnlyError("domains are read-only (the state cannot be changed)")

    def __delattr__(self, name: str) -> None:
        raise ReadOnlyError("domains are read-only (the state cannot be changed)")

    def __repr__(self) -> str:
        parts = []
        for key, value in self._items.items():
            parts.append(f"{key} ({len(value)})" if isinstance(value, tuple) else key)
        return f"<domain {self._name}: {', '.join(parts) or 'empty'}>"

    def __reduce__(self) -> Any:
        raise TypeError("domains cannot be pickled")
