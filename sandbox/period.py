"""``Period``: a date with its precision, as agent code sees it in the sandbox.

A fact's ``event_date`` is a ``Period``: the days from ``.start`` to ``.end``
(both ``datetime.date``, both included) and a ``.precision`` (``day``, ``week``,
``weekend``, ``month``, ``season``, ``year`` or ``range``).  Periods compare by
``(start, end)`` with each other and with dates (a date is the period of that
one day), so ``sorted(...)``, ``min``/``max`` and ``p < date(2023, 6, 1)`` work;
an exact day equals its ``date``.  ``day in p`` tells whether a date falls in
it; ``p.overlaps(q)`` whether two periods share a day; ``str(p)`` says it the
way people do ("May 2023", "the week before 9 June 2023", "2022").

Its precision, stored form and words are ``uac.dates.Period``'s: both read
them from :mod:`sandbox.spans` (the sandbox never imports uac).  The wire form
is ``{"$period": ["2023-05-01", "2023-05-31"]}``.
"""

from __future__ import annotations

import datetime as _dt

from . import spans
from .readonly import ReadOnly


class Period(ReadOnly):
    """The days from ``start`` to ``end`` (see the module docstring)."""

    __slots__ = ("start", "end")
    start: _dt.date
    end: _dt.date

    def __init__(self, start: _dt.date, end: _dt.date | None = None) -> None:
        end = start if end is None else end
        if type(start) is not _dt.date or type(end) is not _dt.date:
            raise TypeError("Period(start, end) takes two datetime.date values")
        if end < start:
            raise ValueError("a period ends on or after its start")
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    @property
    def precision(self) -> str:
        return spans.precision_of(self.start, self.end)

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def overlaps(self, other: "Period | _dt.date") -> bool:
        o = _bounds(other)
        if o is None:
            raise TypeError("overlaps() takes a Period or a date")
        return self.start <= o[1] and o[0] <= self.end

    def __contains__(self, other: object) -> bool:
        o = _bounds(other)
        return o is not None and self.start <= o[0] and o[1] <= self.end

    def _key(self) -> tuple[_dt.date, _dt.date]:
        return (self.start, self.end)

    def __eq__(self, other: object) -> bool:
        o = _bounds(other)
        return NotImplemented if o is None else self._key() == o

    def __ne__(self, other: object) -> bool:
        o = _bounds(other)
        return NotImplemented if o is None else self._key() != o

    def __lt__(self, other: object) -> bool:
        o = _bounds(other)
        return NotImplemented if o is None else self._key() < o

    def __le__(self, other: object) -> bool:
        o = _bounds(other)
        return NotImplemented if o is None else self._key() <= o

    def __gt__(self, other: object) -> bool:
        o = _bounds(other)
        return NotImplemented if o is None else self._key() > o

    def __ge__(self, other: object) -> bool:
        o = _bounds(other)
        return NotImplemented if o is None else self._key() >= o

    def __hash__(self) -> int:
        return hash(self.start) if self.start == self.end else hash(self._key())

    @property
    def code(self) -> str:
        """The short stored form: ``2023-05-07``, ``2023-05``, ``2022``, ``2023-summer``, ``START/END``."""
        return spans.code_of(self.start, self.end)

    def __str__(self) -> str:
        return spans.render(self.start, self.end)

    def __repr__(self) -> str:
        return f"Period({self.code!r})"


def _bounds(value: object) -> tuple[_dt.date, _dt.date] | None:
    if isinstance(value, Period):
        return value._key()
    if isinstance(value, _dt.datetime):
        return (value.date(), value.date())
    if isinstance(value, _dt.date):
        return (value, value)
    return None


__all__ = ["Period"]
