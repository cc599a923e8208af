"""Read-only access to the loaded view: ``UserMemory.state``.

``memory.state["travel"].trips`` is a tuple of frozen dataclass instances;
``memory.state.travel.trips`` works too.  Values other than top-level lists
are returned as loaded.  ``memory.state.resolve(ref)`` returns the record a
:class:`~uac.refs.Ref` (or its ``"domain/id"`` text) names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from ..dialect.loader import LoadedDomain


class DomainState(Mapping[str, Any]):
    """One domain: its top-level names as attributes and as a mapping."""

    __slots__ = ("_name", "_values", "_classes")

    def __init__(self, loaded: LoadedDomain) -> None:
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in loaded.values.items()}
        object.__setattr__(self, "_name", loaded.name)
        object.__setattr__(self, "_values", MappingProxyType(values))
        object.__setattr__(self, "_classes", MappingProxyType(dict(loaded.classes)))

    @property
    def classes(self) -> Mapping[str, type]:
        """The domain's record classes by name."""
        return self._classes

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(
                f"domain {self._name!r} has no {name!r} (it has: {', '.join(self._values) or 'nothing'})"
            ) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the typed state is read-only")

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._values))

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}={len(v)} items" if isinstance(v, tuple) else k for k, v in self._values.items())
        return f"<domain {self._name}: {parts}>"


class StateView(Mapping[str, DomainState]):
    """Every domain of a project, loaded; read-only."""

    __slots__ = ("_domains",)

    def __init__(self, view: Mapping[str, LoadedDomain]) -> None:
        object.__setattr__(self, "_domains", MappingProxyType({n: DomainState(d) for n, d in sorted(view.items())}))

    def __getattr__(self, name: str) -> DomainState:
        try:
            return self._domains[name]
        except KeyError:
            raise AttributeError(f"no domain {name!r} (domains: {', '.join(self._domains) or 'none'})") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the typed state is read-only")

    def __getitem__(self, key: str) -> DomainState:
        return self._domains[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._domains)

    def __len__(self) -> int:
        return len(self._domains)

    def __repr__(self) -> str:
        return f"<state: {', '.join(self._domains) or 'no domains'}>"

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
        if domain not in self._domains:
            raise DomainNotFound(
                f"{domain}/{ident}: there is no domain {domain!r}", hint="Run `uac compile`, or check the reference."
            )
        for value in self._domains[domain].values():
            if isinstance(value, tuple):
                for record in value:
                    if getattr(record, "id", None) == ident:
                        return record
        raise NotFound(
            f"{domain}/{ident}: domain {domain!r} holds no record {ident!r}",
            hint="The record was retired, or the reference is wrong.",
        )
