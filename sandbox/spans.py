"""What the days from ``start`` to ``end`` (both included) are: their precision,
their stored form and their words.

Both period types read them here: ``sandbox.period.Period``, what agent code
sees, and ``uac.dates.Period``, what the host stores and says, so the two
agree by construction.  This module uses the standard library only and nothing
else of the sandbox: the host imports it without loading the sandbox's
machinery.
"""

from __future__ import annotations

import calendar
import datetime as _dt

#: first month of each season (meteorological, northern hemisphere); winter runs December-February
SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}


def month_end(year: int, month: int) -> _dt.date:
    """The last day of ``month`` of ``year``."""
    return _dt.date(year, month, calendar.monthrange(year, month)[1])


def season_bounds(name: str, year: int) -> tuple[_dt.date, _dt.date]:
    """First and last day of season ``name`` (a key of :data:`SEASON_START`) of ``year``;
    winter ``year`` runs from December ``year`` to February."""
    first = SEASON_START[name]
    last = first + 2
    end = month_end(year + 1, last - 12) if last > 12 else month_end(year, last)
    return _dt.date(year, first, 1), end


def season_of(start: _dt.date, end: _dt.date) -> str | None:
    """The season the days ``start`` to ``end`` are exactly (``summer``), or ``None``."""
    if start.day != 1:
        return None
    for name, first in SEASON_START.items():
        if start.month == first and season_bounds(name, start.year) == (start, end):
            return name
    return None


def _whole_years(start: _dt.date, end: _dt.date) -> bool:
    return (start.month, start.day) == (1, 1) and (end.month, end.day) == (12, 31)


def precision_of(start: _dt.date, end: _dt.date) -> str:
    """``day``, ``month``, ``year``, ``season``, ``week`` (seven days), ``weekend``
    (a Saturday and its Sunday) or, for any other span, ``range``."""
    if start == end:
        return "day"
    if start.day == 1 and end == month_end(start.year, start.month):
        return "month"
    if _whole_years(start, end) and start.year == end.year:
        return "year"
    if season_of(start, end) is not None:
        return "season"
    span = (end - start).days
    if span == 6:
        return "week"
    if span == 1 and start.weekday() == 5:
        return "weekend"
    return "range"


def code_of(start: _dt.date, end: _dt.date) -> str:
    """The stored form: ``2023-05-07``, ``2023-05``, ``2022``, ``2023-summer`` or ``START/END``."""
    precision = precision_of(start, end)
    if precision == "day":
        return start.isoformat()
    if precision == "month":
        return f"{start.year:04d}-{start.month:02d}"
    if precision == "year":
        return f"{start.year:04d}"
    if precision == "season":
        return f"{start.year:04d}-{season_of(start, end)}"
    return f"{start.isoformat()}/{end.isoformat()}"


def format_day(day: _dt.date) -> str:
    """``7 May 2023``."""
    return f"{day.day} {calendar.month_name[day.month]} {day.year}"


def render(start: _dt.date, end: _dt.date) -> str:
    """The days as people say them: ``7 May 2023``, ``the week before 9 June 2023``,
    ``the week of 5 June 2023``, ``the weekend of 27 May 2023``, ``May 2023``,
    ``summer 2023``, ``2022``, ``between 3 and 9 May 2023``."""
    precision = precision_of(start, end)
    if precision == "day":
        return format_day(start)
    if precision == "month":
        return f"{calendar.month_name[start.month]} {start.year}"
    if precision == "year":
        return str(start.year)
    if precision == "season":
        return f"{season_of(start, end)} {start.year}"
    if precision == "week":
        if start.weekday() == 0:
            return f"the week of {format_day(start)}"
        return f"the week before {format_day(end + _dt.timedelta(days=1))}"
    if precision == "weekend":
        return f"the weekend of {format_day(start)}"
    if _whole_years(start, end):
        return f"between {start.year} and {end.year}"
    if start.day == 1 and end == month_end(end.year, end.month):
        first = calendar.month_name[start.month] + ("" if start.year == end.year else f" {start.year}")
        return f"between {first} and {calendar.month_name[end.month]} {end.year}"
    if (start.year, start.month) == (end.year, end.month):
        return f"between {start.day} and {format_day(end)}"
    return f"between {format_day(start)} and {format_day(end)}"


__all__ = [
    "SEASON_START",
    "code_of",
    "format_day",
    "month_end",
    "precision_of",
    "render",
    "season_bounds",
    "season_of",
]
