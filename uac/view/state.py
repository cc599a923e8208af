"""Read-only access to the loaded view: ``UserMemory.state``.

``memory.state["travel"].trips`` is a tuple of frozen dataclass instances;
``memory.state.travel.trips`` works too.  Values other than top-level lists
are returned as loaded.  ``memory.state.resolve(ref)`` returns the record a
:class:`~uac.refs.Ref` (or its ``"domain/id"`` text) names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from ..dialect.loader import LoadedDomain

V = TypeVar("V")


class _ReadOnly(Mapping[str, V]):
    """A read-only mapping whose keys are attributes too; ``_items`` holds it."""

    __slots__ = ("_items",)
    _items: Mapping[str, V]

    def _missing(self, name: str) -> str:
        """The error for an attribute ``name`` that is not a key."""
        raise NotImplementedError

    def __getattr__(self, name: str) -> V:
        try:
            return self._items[name]
        except KeyError:
            raise AttributeError(self._missing(name)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the typed state is read-only")

    def __getitem__(self, key: str) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class DomainState(_ReadOnly[Any]):
    """One domain: its top-level names as attributes and as a mapping."""

    __slots__ = ("_name", "_classes")

    def __init__(self, loaded: LoadedDomain) -> None:
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in loaded.values.items()}
        object.__setattr__(self, "_name", loaded.name)
        object.__setattr__(self, "_items", MappingProxyType(values))
        object.__setattr__(self, "_classes", MappingProxyType(dict(loaded.classes)))

    @property
    def classes(self) -> Mapping[str, type]:
        """The domain's record classes by name."""
        return self._classes

    def _missing(self, name: str) -> str:
        return f"domain {self._name!r} has no {name!r} (it has: {', '.join(self._items) or 'nothing'})"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._items))

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}={len(v)} items" if isinstance(v, tuple) else k for k, v in self._items.items())
        return f"<domain {self._name}: {parts}>"


class StateView(_ReadOnly[DomainState]):
    """Every domain of a project, loaded; read-only."""

    __slots__ = ()

    def __init__(self, view: Mapping[str, LoadedDomain]) -> None:
        object.__setattr__(self, "_items", MappingProxyType({n: DomainState(d) for n, d in sorted(view.items())}))

    def _missing(self, name: str) -> str:
        return f"no domain {name!r} (domains: {', '.join(self._items) or 'none'})"

    def __repr__(self) -> str:
        return f"<state: {', '.join(self._items) or 'no domains'}>"

    def resolve(self, ref: Any) -> Any:
        """The record a reference names: a :class:`~uac.refs.Ref` or ``"relationships/person-2"``.
        Raises :class:`~uac.errors.NotFound` when no such record is in the view."""
        from ..errors import DomainNotFound, InputError, NotFound

        if isinstance(ref, str) and ref.count("/") == 1:
            domain, ident = ref.split("/")
        elif isinstance(getattr(ref, "domain", None), str) and isinstance(getattr(ref, "id", None), str):
            domain, ident = ref.domain, ref.id
        else:
            raise InputError(
                f"{ref!r} is not a reference",
                hint='Give a Ref or "<domain>/<record id>", e.g. "relationships/person-2".',
            )
        if domain not in self._items:
            raise DomainNotFound(
                f"{domain}/{ident}: there is no domain {domain!r}", hint="Run `uac compile`, or check the reference."
            )
        for value in self._items[domain].values():
            if isinstance(value, tuple):
                for record in value:
                    if getattr(record, "id", None) == ident:
                        return record
        raise NotFound(
            f"{domain}/{ident}: domain {domain!r} holds no record {ident!r}",
            hint="The record was retired, or the reference is wrong.",
        )
