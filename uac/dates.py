"""Dates: parsing the days users type (``--as-of``, ``--date``), :class:`Period`,
a date with its precision (a day, a week, a month, a season, a year or a range),
and :func:`read_period`, the one reader of the dates and periods a model writes.

A period's precision, stored form and words are worked out by :mod:`sandbox.spans`,
which the sandbox's own ``Period`` reads too (the sandbox never imports uac, so what
both need lives there; it imports only the standard library)."""

from __future__ import annotations

import calendar
import datetime as _dt
import functools
import re
from typing import Any, Callable

from sandbox import spans
from sandbox.readonly import ReadOnly

from .errors import InputError


def parse_day(value: "_dt.date | str | None", *, what: str = "date") -> _dt.date | None:
    """``None``, a :class:`date`, a :class:`datetime` or an ISO ``YYYY-MM-DD`` string.

    ``what`` names the input the value came from (``as_of``, ``date``); a bad
    value is an :class:`~uac.errors.InputError` whose hint names that input.
    """
    if value is None or value == "":
        return None
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    try:
        return _dt.date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise InputError(
            f"{value!r} is not a date.", hint=f"Give {{opt:{what}}} in the ISO form YYYY-MM-DD, e.g. 2024-05-01."
        ) from None


# -- periods: a date with its precision -------------------------------------------------

SEASONS = tuple(spans.SEASON_START)
_SEASON_ALIASES = {"fall": "autumn"}
PRECISIONS = ("day", "week", "weekend", "month", "season", "year", "range")

#: ``7 May 2023``
format_day = spans.format_day
#: the season the days ``start`` to ``end`` are exactly (``summer``), or ``None``
season_of = spans.season_of


def season_bounds(name: str, year: int) -> tuple[_dt.date, _dt.date]:
    """First and last day of a season of ``year`` (winter ``year`` is December ``year`` to February);
    ``name`` in any case, ``fall`` for autumn."""
    name = _SEASON_ALIASES.get(name.lower(), name.lower())
    return spans.season_bounds(name, year)


@functools.total_ordering
class DaySpan(ReadOnly):
    """The days from ``start`` to ``end`` (both included), compared by ``(start, end)``
    with other spans and with dates (a date is the span of that one day); read-only.

    What a :class:`Period` is as a value: its bounds, their order and what they hold.
    """

    __slots__ = ("start", "end")

    start: _dt.date
    end: _dt.date

    @property
    def is_day(self) -> bool:
        return self.start == self.end

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def __contains__(self, day: object) -> bool:
        if isinstance(day, DaySpan):
            return self.start <= day.start and day.end <= self.end
        if isinstance(day, _dt.date):
            return self.start <= _as_day(day) <= self.end
        return False

    def overlaps(self, other: "Period | _dt.date") -> bool:
        span = as_period(other)
        return self.start <= span.end and span.start <= self.end

    # -- equality and ordering (``<=``, ``>`` and ``>=`` follow from ``<`` and ``==``) --------
    def __eq__(self, other: object) -> bool:
        """Equal to a span with the same bounds; an exact day also equals that ``date``."""
        o = _bounds(other)
        return NotImplemented if o is None else self._key() == o

    def __hash__(self) -> int:
        return hash(self.start) if self.start == self.end else hash((self.start, self.end))

    def _key(self) -> tuple[_dt.date, _dt.date]:
        return (self.start, self.end)

    def __lt__(self, other: object) -> bool:
        o = _bounds(other)
        return NotImplemented if o is None else self._key() < o


class Period(DaySpan):
    """A date with its precision: the days from ``start`` to ``end`` (both included).

    ``Period(start, end)`` from two dates, or ``Period("2023-05")`` from the
    stored form (:attr:`code`), as a generated ``state.py`` writes it.

    The precision follows from the bounds: one day; a week (seven days); a
    weekend (a Saturday and its Sunday); a calendar month; a season; a
    calendar year; any other span is a range.  Periods compare by
    ``(start, end)``, with each other and with dates (a date is the period of
    that one day), so they sort on a timeline.  :meth:`render` says it the way
    people do ("7 May 2023", "the week before 9 June 2023", "May 2023",
    "summer 2023", "2022"); :attr:`code` is the stored form (``2023-05-07``,
    ``2023-06-02/2023-06-08``, ``2023-05``, ``2023-summer``, ``2022``).
    """

    __slots__ = ()

    def __init__(self, start: "_dt.date | str", end: _dt.date | None = None) -> None:
        # a plain immutable value, not a dataclass: code that walks records
        # (``dataclasses.is_dataclass``) must never mistake a period for one
        if end is None and isinstance(start, str):
            # ``Period("2023-05")``: the stored form, as generated state.py writes it
            parsed = parse_period(start)
            if parsed is None:
                raise ValueError(
                    "Period('') names no days; write YYYY-MM-DD, YYYY-MM, YYYY, YYYY-<season> or START/END"
                )
            start, end = parsed.start, parsed.end
        if not isinstance(start, _dt.date) or not isinstance(end, _dt.date):
            raise TypeError("a period's start and end are dates")
        start, end = _as_day(start), _as_day(end)
        if end < start:
            raise ValueError(f"a period ends on or after its start ({start} .. {end})")
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    def __reduce__(self) -> tuple[type, tuple[_dt.date, _dt.date]]:
        return (Period, (self.start, self.end))

    def __repr__(self) -> str:
        return f"Period({self.code!r})"

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def day(cls, day: _dt.date) -> "Period":
        return cls(day, day)

    @classmethod
    def month(cls, year: int, month: int) -> "Period":
        return cls(_dt.date(year, month, 1), spans.month_end(year, month))

    @classmethod
    def year(cls, year: int) -> "Period":
        return cls(_dt.date(year, 1, 1), _dt.date(year, 12, 31))

    @classmethod
    def season(cls, name: str, year: int) -> "Period":
        return cls(*season_bounds(name, year))

    @classmethod
    def week_of(cls, day: _dt.date) -> "Period":
        """The Monday-to-Sunday week holding ``day``."""
        monday = day - _dt.timedelta(days=day.weekday())
        return cls(monday, monday + _dt.timedelta(days=6))

    @classmethod
    def week_before(cls, day: _dt.date) -> "Period":
        """The seven days before ``day`` ("last week" said on ``day``)."""
        return cls(day - _dt.timedelta(days=7), day - _dt.timedelta(days=1))

    # -- what it is -------------------------------------------------------------------
    @property
    def precision(self) -> str:
        return spans.precision_of(self.start, self.end)

    # -- text -------------------------------------------------------------------------
    @property
    def code(self) -> str:
        """The stored form (see the class docstring); :func:`parse_period` reads it back."""
        return spans.code_of(self.start, self.end)

    def render(self) -> str:
        """The period as people say it: ``7 May 2023``, ``the week before 9 June 2023``,
        ``the week of 5 June 2023``, ``the weekend of 27 May 2023``, ``May 2023``,
        ``summer 2023``, ``2022``, ``between 3 and 9 May 2023``."""
        return spans.render(self.start, self.end)

    def phrase(self) -> str:
        """:meth:`render` with the preposition a sentence needs: ``on 7 May 2023``,
        ``in May 2023``, ``in 2022``, ``the week before 9 June 2023``."""
        precision = self.precision
        text = self.render()
        if precision == "day":
            return f"on {text}"
        if precision in ("month", "season", "year"):
            return f"in {text}"
        return text

    def label(self) -> str:
        """An exact day as ``2023-05-07`` (beside the ISO dates a listing shows),
        anything else as :meth:`render` says it."""
        return self.start.isoformat() if self.is_day else self.render()

    def __str__(self) -> str:
        return self.render()

    def to_json(self) -> str:
        return self.code


def _as_day(value: _dt.date) -> _dt.date:
    return value.date() if isinstance(value, _dt.datetime) else value


def _bounds(other: object) -> tuple[_dt.date, _dt.date] | None:
    """(start, end) of a span or a date (its one day); ``None`` for anything else."""
    if isinstance(other, DaySpan):
        return other._key()
    if isinstance(other, _dt.date):
        day = _as_day(other)
        return (day, day)
    return None


def as_period(value: "Period | _dt.date") -> Period:
    if isinstance(value, Period):
        return value
    day = _as_day(value)
    return Period(day, day)


_CODE_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_CODE_MONTH = re.compile(r"^(\d{4})-(\d{1,2})$")
_CODE_YEAR = re.compile(r"^(\d{4})$")
_CODE_SEASON = re.compile(r"^(\d{4})-(spring|summer|autumn|fall|winter)$", re.I)
_CODE_SEASON_WORDS = re.compile(r"^(spring|summer|autumn|fall|winter),?\s+(?:of\s+)?(\d{4})$", re.I)
_CODE_WEEK = re.compile(r"^(\d{4})-W(\d{2})$", re.I)


def parse_period(value: "Period | _dt.date | str | None") -> Period | None:
    """A period from its stored form (:attr:`Period.code`), a ``date`` or an ISO day;
    ``None`` for ``None``/empty; :class:`ValueError` for anything else.

    Also read: ``2023-W22`` (an ISO week), ``summer 2023`` and ``start..end``.
    """
    if value is None or value == "":
        return None
    if isinstance(value, Period):
        return value
    if isinstance(value, _dt.date):
        return as_period(value)
    text = str(value).strip()
    for separator in ("/", ".."):
        if separator in text:
            left, right = text.split(separator, 1)
            first, last = parse_period(left), parse_period(right)
            if first is None or last is None:
                raise ValueError(f"{value!r} is not a period")
            return Period(first.start, last.end)
    match = _CODE_DAY.match(text[:10]) if len(text) >= 10 and text[10:11] in ("", "T") else None
    if match:
        return Period.day(_dt.date.fromisoformat(text[:10]))
    match = _CODE_MONTH.match(text)
    if match:
        return Period.month(int(match[1]), int(match[2]))
    match = _CODE_YEAR.match(text)
    if match:
        return Period.year(int(match[1]))
    match = _CODE_SEASON.match(text)
    if match:
        return Period.season(match[2], int(match[1]))
    match = _CODE_SEASON_WORDS.match(text)
    if match:
        return Period.season(match[1], int(match[2]))
    match = _CODE_WEEK.match(text)
    if match:
        monday = _dt.date.fromisocalendar(int(match[1]), int(match[2]), 1)
        return Period(monday, monday + _dt.timedelta(days=6))
    raise ValueError(f"{value!r} is not a period (write YYYY-MM-DD, YYYY-MM, YYYY, YYYY-<season> or START/END)")


# -- reading the dates and periods a model writes ----------------------------------------

#: month names and their abbreviations (``sept`` too), lower case, to their numbers
MONTHS: dict[str, int] = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
#: the twelve full month names, January first, in English whatever the locale
MONTH_NAMES: tuple[str, ...] = tuple(
    "January February March April May June July August September October November December".split()
)
#: the seven weekday names, Monday first (``date.weekday()`` indexes them), in English
WEEKDAY_NAMES: tuple[str, ...] = tuple("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())

#: what a model writes for "no date"
NO_DATE = frozenset(
    {
        "",
        "null",
        "none",
        "n/a",
        "na",
        "nil",
        "unknown",
        "not specified",
        "unspecified",
        "-",
        "--",
        "?",
        "no date",
        "undated",
    }
)
_MAX_TEXT = 200

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"
_DAY_FORMS = (
    re.compile(rf"^{_WEEKDAY}(?:the\s+)?(?P<day>\d{{1,2}}){_ORD}(?:\s+of)?\s+{_MONTH},?\s+(?P<year>\d{{4}})$", re.I),
    re.compile(rf"^{_WEEKDAY}{_MONTH}\s+(?P<day>\d{{1,2}}){_ORD},?\s+(?P<year>\d{{4}})$", re.I),
    re.compile(r"^(?P<year>\d{4})[/.](?P<month>\d{1,2})[/.](?P<day>\d{1,2})$"),
    re.compile(r"^(?P<year>\d{4})(?P<month>\d{2})(?P<day>\d{2})$"),
    # day first when dotted: 07.05.2023 is 7 May
    re.compile(r"^(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4})$"),
)
_MONTH_FORMS = (
    re.compile(rf"^(?:in\s+)?{_MONTH},?\s+(?P<year>\d{{4}})$", re.I),
    re.compile(rf"^(?P<year>\d{{4}}),?\s+{_MONTH}$", re.I),
)
_YEAR_FORM = re.compile(r"^(?:in\s+)?(?:the\s+year\s+)?(?P<year>\d{4})$", re.I)
_NUMERIC = re.compile(r"^(?P<a>\d{1,2})[/-](?P<b>\d{1,2})[/-](?P<year>\d{4})$")
_ISO_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}\S*)?$")
_WEEK_WORDS = re.compile(r"^(?:the\s+)?(?P<how>week before|week of|weekend of)\s+(?P<day>.+)$", re.I)
_SAME_MONTH_SPAN = re.compile(
    rf"^{_MONTH}\s+(?P<d1>\d{{1,2}})\s*(?:-|\u2013|to)\s*(?P<d2>\d{{1,2}}),?\s+(?P<year>\d{{4}})$", re.I
)
_BETWEEN = re.compile(r"^(?:between|from)\s+(?P<a>.+?)\s+(?:and|to|until|till|through|-|\u2013)\s+(?P<b>.+)$", re.I)
_SPAN = re.compile(
    r"^(?P<a>.+?)\s*(?:/|\.\.|\u2013|\u2014|\s+to\s+|\s+through\s+|\s+until\s+|\s+and\s+|\s+-\s+)\s*(?P<b>.+)$", re.I
)


def _month_number(text: str) -> int:
    text = text.lower().rstrip(".")
    return int(text) if text.isdigit() else MONTHS[text]


def read_day(text: str) -> _dt.date | None:
    """The exact day ``text`` names in a form a model writes (``2023-05-07``,
    ``2023-05-07T18:00Z``, ``7 May 2023``, ``Sunday, the 7th of May 2023``,
    ``May 7, 2023``, ``Sept 3 2023``, ``2023/05/07``, ``20230507``,
    ``07.05.2023``, ``25/05/2023``); ``None`` when it is no such form.

    A form that names no real day (``2023-02-30``) or could be two
    (``05/06/2023``) is a :class:`ValueError` that says so.
    """
    text = " ".join(str(text).split())
    if _ISO_PREFIX.match(text):
        try:
            return _dt.date.fromisoformat(text[:10])
        except ValueError:
            raise ValueError(f"{text!r} is not a real date") from None
    for pattern in _DAY_FORMS:
        match = pattern.match(text)
        if match:
            try:
                return _dt.date(int(match["year"]), _month_number(match["month"]), int(match["day"]))
            except ValueError:
                raise ValueError(f"{text!r} is not a real date") from None
    numeric = _NUMERIC.match(text)
    if numeric:
        a, b, year = int(numeric["a"]), int(numeric["b"]), int(numeric["year"])
        readings = set()
        for month, day in ((a, b), (b, a)):
            try:
                readings.add(_dt.date(year, month, day))
            except ValueError:
                continue
        if len(readings) == 1:
            return readings.pop()
        raise ValueError(f"{text!r} is ambiguous (day/month or month/day?); write YYYY-MM-DD")
    try:
        return _dt.datetime.fromisoformat(text).date()
    except ValueError:
        return None


def read_period(value: object, *, relative: "Callable[[str], Period | None] | None" = None) -> Period | None:
    """The period a model wrote, in any form it writes one; ``None`` for no date
    (``None``, ``""``, ``"N/A"``, ``"unknown"``, ...).

    Read: the stored forms (:func:`parse_period`), an exact day (:func:`read_day`),
    ``May 2023``, ``in May, 2023``, ``2023 May``, ``in the year 2022``, ``summer 2023``,
    ``the week before 9 June 2023``, ``the week of 5 June 2023``, ``the weekend of
    27 May 2023``, ``May 3-9, 2023``, ranges (``between A and B``, ``from A until B``,
    ``A to B``, ``A - B``, ``A..B``, ``A/B``) and ``{"start": ..., "end": ...}``
    (also ``from``/``date`` and ``to``/``until``; a missing end is the start's own period).
    ``relative`` reads what the reader cannot alone ("yesterday", "last year") into
    a period, or ``None``.  Anything else is a :class:`ValueError` that says why.
    """
    if value is None or isinstance(value, Period):
        return value
    if isinstance(value, _dt.date):
        return as_period(value)
    if isinstance(value, dict):
        return _read_bounds(value, relative)
    raw = str(value)
    text = " ".join(raw.split()).strip().strip(".")
    if text.lower() in NO_DATE:
        return None
    if len(text) > _MAX_TEXT:
        raise ValueError(f"{raw[:40]!r}... is too long for a date")
    try:
        period = parse_period(text)
    except ValueError:
        period = None
    if period is not None:
        return period
    day = read_day(text)
    if day is not None:
        return Period.day(day)
    period = _read_month_or_year(text)
    if period is None and relative is not None:
        period = relative(text)
    if period is None:
        period = _read_week(text)
    if period is None:
        period = _read_span(text, relative)
    if period is None:
        raise ValueError(f"{raw!r} is not a date; write YYYY-MM-DD, YYYY-MM, YYYY, START/END or null")
    return period


def _read_month_or_year(text: str) -> Period | None:
    for pattern in _MONTH_FORMS:
        match = pattern.match(text)
        if match:
            return Period.month(int(match["year"]), _month_number(match["month"]))
    match = _YEAR_FORM.match(text)
    return Period.year(int(match["year"])) if match else None


def _read_week(text: str) -> Period | None:
    match = _WEEK_WORDS.match(text)
    if not match:
        return None
    day = read_day(match["day"])
    if day is None:
        return None
    how = match["how"].lower()
    if how == "week before":
        return Period.week_before(day)
    return Period(day, day + _dt.timedelta(days=6 if how == "week of" else 1))


def _read_span(text: str, relative: "Callable[[str], Period | None] | None") -> Period | None:
    same_month = _SAME_MONTH_SPAN.match(text)
    if same_month:
        year, month = int(same_month["year"]), _month_number(same_month["month"])
        try:
            return Period(_dt.date(year, month, int(same_month["d1"])), _dt.date(year, month, int(same_month["d2"])))
        except ValueError:
            raise ValueError(f"{text!r} is not a real date range") from None
    for pattern in (_BETWEEN, _SPAN):
        match = pattern.match(text)
        if not match:
            continue
        try:
            first, last = read_period(match["a"], relative=relative), read_period(match["b"], relative=relative)
        except ValueError:
            continue
        if first is not None and last is not None and first.start <= last.end:
            return Period(first.start, last.end)
    return None


def _read_bounds(value: dict[str, Any], relative: "Callable[[str], Period | None] | None") -> Period | None:
    lowered = {str(key).lower(): item for key, item in value.items()}
    first = read_period(lowered.get("start") or lowered.get("from") or lowered.get("date"), relative=relative)
    last = read_period(lowered.get("end") or lowered.get("to") or lowered.get("until"), relative=relative)
    if first is None and last is None:
        return None
    given = [p for p in (first, last) if p is not None]
    start, end = given[0].start, given[-1].end
    if end < start:
        raise ValueError(f"{value!r} ends before it starts")
    return Period(start, end)
