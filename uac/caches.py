"""Process-wide caches, each bounded, all listed in one place.

A long-lived process (the HTTP or MCP server, an agent holding many users'
memories) reads many projects; a cache keyed by project path that never
forgets would keep every project it ever showed.  Each process-wide cache is a
:class:`BoundedCache` (least recently used entries go first) registered here
by name, so :func:`caches` lists them and :func:`clear_all` empties them
(tests, or a server dropping what it holds).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, Iterator, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_REGISTRY: dict[str, "BoundedCache"] = {}
_REGISTRY_LOCK = threading.Lock()


class BoundedCache(Generic[K, V]):
    """A thread-safe mapping of at most ``maxsize`` entries, evicting the least recently used."""

    def __init__(self, name: str, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"cache {name!r} needs room for at least one entry, not {maxsize}")
        self.name = name
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        with _REGISTRY_LOCK:
            _REGISTRY[name] = self

    @overload
    def get(self, key: K) -> V | None: ...

    @overload
    def get(self, key: K, default: V) -> V: ...

    def get(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            if key not in self._data:
                return default
            self._data.move_to_end(key)
            return self._data[key]

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def __getitem__(self, key: K) -> V:
        with self._lock:
            value = self._data[key]
            self._data.move_to_end(key)
            return value

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            return iter(list(self._data))

    def items(self) -> list[tuple[K, V]]:
        """A snapshot of the entries, least recently used first."""
        with self._lock:
            return list(self._data.items())

    def pop(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            return self._data.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __repr__(self) -> str:
        return f"BoundedCache({self.name!r}, {len(self)}/{self.maxsize})"


def caches() -> dict[str, BoundedCache]:
    """Every process-wide cache by name (each module registers its own when imported)."""
    with _REGISTRY_LOCK:
        return dict(_REGISTRY)


def clear_all() -> None:
    """Empty every registered cache."""
    for cache in caches().values():
        cache.clear()
