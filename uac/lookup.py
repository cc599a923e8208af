"""``find_named``: one item of a report found by its name, or ``KeyError``."""

from __future__ import annotations

from typing import Callable, Iterable, TypeVar

T = TypeVar("T")


def find_named(items: Iterable[T], name: str, key: Callable[[T], str]) -> T:
    """The first of ``items`` whose ``key`` is ``name``; ``KeyError(name)`` when none is.

    How a report looks up one of its parts: ``DoctorReport.check``,
    ``CompileReport.domain``, ``Session.turn``.
    """
    for item in items:
        if key(item) == name:
            return item
    raise KeyError(name)
