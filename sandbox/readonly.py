"""``ReadOnly``: the base of the values agent code gets and may not change (``Period``, ``Ref``)."""

from __future__ import annotations

from typing import Any


class ReadOnly:
    """Attributes are set once, by the constructor (``object.__setattr__``), and never again."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a {type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a {type(self).__name__} is read-only")


__all__ = ["ReadOnly"]
