"""``Period``: a date with its precision, as agent code sees it in the sandbox.

A fact's ``event_date`` is a ``Period``: the days from ``.start`` to ``.end``
(both ``datetime.date``, both included) and a ``.precision`` (``day``, ``week``,
``weekend``, ``month``, ``season``, ``year`` or ``range``).  Periods compare by
``(start, end)`` with each other and with dates (a date is the period of that
one day), so ``sorted(...)``, ``min``/``max`` and ``p < date(2023, 6, 1)`` work;
an exact day equals its ``date``.  ``day in p`` tells whether a date falls in
it; ``p.overlaps(q)`` whether two periods share a day; ``str(p)`` says it the
way people do ("May 2023", "the week before 9 June 2023", "2022").

This mirrors ``uac.dates.Period`` (the sandbox never imports uac); the wire
form is ``{"$period": ["2023-05-01", "2023-05-31"]}``.
"""

from __future__ import annotations

import calendar
import datetime as _dt

from .readonly import ReadOnly

_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}


def _month_end(year: int, month: int) -> _dt.date:
    return _dt.date(year, month, calendar.monthrange(year, month)[1])


def _season_end(first: _dt.date) -> _dt.date:
    last = first.month + 2
    return _month_end(first.year + 1, last - 12) if last > 12 else _month_end(first.year, last)


def _day_text(day: _dt.date) -> str:
    return f"{day.day} {calendar.month_name[day.month]} {day.year}"


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
        start, end = self.start, self.end
        if start == end:
            return "day"
        if start.day == 1 and end == _month_end(start.year, start.month):
            return "month"
        if (start.month, start.day, end.month, end.day) == (1, 1, 12, 31) and start.year == end.year:
            return "year"
        if self._season():
            return "season"
        span = (end - start).days
        if span == 6:
            return "week"
        if span == 1 and start.weekday() == 5:
            return "weekend"
        return "range"

    def _season(self) -> str:
        if self.start.day == 1:
            for name, month in _SEASON_START.items():
                if self.start.month == month and self.end == _season_end(self.start):
                    return name
        return ""

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
        precision = self.precision
        if precision == "day":
            return self.start.isoformat()
        if precision == "month":
            return f"{self.start.year:04d}-{self.start.month:02d}"
        if precision == "year":
            return f"{self.start.year:04d}"
        if precision == "season":
            return f"{self.start.year:04d}-{self._season()}"
        return f"{self.start.isoformat()}/{self.end.isoformat()}"

    def __str__(self) -> str:
        start, end = self.start, self.end
        precision = self.precision
        if precision == "day":
            return _day_text(start)
        if precision == "month":
            return f"{calendar.month_name[start.month]} {start.year}"
        if precision == "year":
            return str(start.year)
        if precision == "season":
            return f"{self._season()} {start.year}"
        if precision == "week":
            if start.weekday() == 0:
                return f"the week of {_day_text(start)}"
            return f"the week before {_day_text(end + _dt.timedelta(days=1))}"
        if precision == "weekend":
            return f"the weekend of {_day_text(start)}"
        if (start.month, start.day, end.month, end.day) == (1, 1, 12, 31):
            return f"between {start.year} and {end.year}"
        if start.day == 1 and end == _month_end(end.year, end.month):
            first = calendar.month_name[start.month] + ("" if start.year == end.year else f" {start.year}")
            return f"between {first} and {calendar.month_name[end.month]} {end.year}"
        if (start.year, start.month) == (end.year, end.month):
            return f"between {start.day} and {_day_text(end)}"
        return f"between {_day_text(start)} and {_day_text(end)}"

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
