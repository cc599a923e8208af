"""Relative dates ("yesterday", "two weeks ago", "last Friday", "next month")
resolved against the session date.

:func:`find_relative_dates` returns every phrase it understood with the day it
points at and how precise that is (day, week, weekend, month, year);
:func:`annotate` writes the resolved date into the sentence right after the
phrase -- ``"yesterday"`` -> ``"yesterday (on 7 May 2023)"`` -- and returns the
first resolved day as the fact's event date.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from dataclasses import dataclass

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a couple": 2,
    "couple of": 2, "a few": 3, "few": 3, "several": 3,
}
_APPROX = {"a few", "few", "several", "a couple of", "a couple", "couple of"}

_NUM = r"(?P<num>\d{1,3}|a couple of|a couple|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WD = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"

# order matters: longer phrases first
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("before_yesterday", re.compile(r"\b(?:the\s+)?day\s+before\s+yesterday\b", re.I)),
    ("after_tomorrow", re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.I)),
    ("ago", re.compile(rf"\b{_NUM}\s+{_UNIT}\s+ago\b", re.I)),
    ("in_n", re.compile(rf"\bin\s+{_NUM}\s+{_UNIT}\b", re.I)),
    ("rel_weekday", re.compile(rf"\b(?P<rel>last|next|this|this past|this coming|past)\s+{_WD}\b", re.I)),
    ("rel_weekend", re.compile(r"\b(?P<rel>last|next|this|this past|this coming|past)\s+weekend\b", re.I)),
    ("rel_unit", re.compile(r"\b(?P<rel>last|next|this|this past|this coming|past)\s+(?P<unit>week|month|year)\b", re.I)),
    ("yesterday", re.compile(r"\b(?:yesterday|last\s+night)\b", re.I)),
    ("tomorrow", re.compile(r"\btomorrow\b", re.I)),
    ("today", re.compile(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", re.I)),
]


@dataclass(frozen=True)
class RelativeDate:
    start: int
    end: int
    phrase: str
    day: _dt.date
    #: day | week | weekend | month | year
    granularity: str
    approximate: bool = False

    def render(self) -> str:
        if self.granularity == "day":
            return f"{'around' if self.approximate else 'on'} {format_day(self.day)}"
        if self.granularity == "week":
            monday = self.day - _dt.timedelta(days=self.day.weekday())
            return f"{'around ' if self.approximate else ''}the week of {format_day(monday)}"
        if self.granularity == "weekend":
            saturday = self.day - _dt.timedelta(days=self.day.weekday() - 5)
            return f"the weekend of {format_day(saturday)}"
        if self.granularity == "month":
            return f"{'around ' if self.approximate else 'in '}{calendar.month_name[self.day.month]} {self.day.year}"
        return f"{'around ' if self.approximate else 'in '}{self.day.year}"


def format_day(day: _dt.date) -> str:
    return f"{day.day} {calendar.month_name[day.month]} {day.year}"


def _shift_months(day: _dt.date, months: int) -> _dt.date:
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return _dt.date(year, month + 1, min(day.day, last))


def _shift_years(day: _dt.date, years: int) -> _dt.date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return day.replace(year=day.year + years, day=28)


def _shift(day: _dt.date, unit: str, amount: int) -> _dt.date:
    unit = unit.lower()
    if unit == "day":
        return day + _dt.timedelta(days=amount)
    if unit == "week":
        return day + _dt.timedelta(weeks=amount)
    if unit == "month":
        return _shift_months(day, amount)
    return _shift_years(day, amount)


def _number(text: str) -> tuple[int, bool]:
    key = " ".join(text.lower().split())
    if key.isdigit():
        return int(key), False
    return NUMBER_WORDS[key], key in _APPROX


def _resolve(kind: str, match: re.Match[str], base: _dt.date) -> tuple[_dt.date, str, bool] | None:
    if kind == "before_yesterday":
        return base - _dt.timedelta(days=2), "day", False
    if kind == "after_tomorrow":
        return base + _dt.timedelta(days=2), "day", False
    if kind == "yesterday":
        return base - _dt.timedelta(days=1), "day", False
    if kind == "tomorrow":
        return base + _dt.timedelta(days=1), "day", False
    if kind == "today":
        return base, "day", False
    if kind in ("ago", "in_n"):
        amount, approx = _number(match["num"])
        unit = match["unit"].lower()
        sign = -1 if kind == "ago" else 1
        return _shift(base, unit, sign * amount), unit, approx
    rel = " ".join(match["rel"].lower().split())
    if kind == "rel_weekday":
        target = WEEKDAYS.index(match["weekday"].lower())
        current = base.weekday()
        if rel in ("last", "past", "this past"):
            delta = (current - target) % 7 or 7
            return base - _dt.timedelta(days=delta), "day", False
        if rel in ("next", "this coming"):
            delta = (target - current) % 7 or 7
            return base + _dt.timedelta(days=delta), "day", False
        # "this friday": the one in the current week
        return base + _dt.timedelta(days=target - current), "day", False
    if kind == "rel_weekend":
        saturday_this_week = base + _dt.timedelta(days=5 - base.weekday())
        if rel in ("last", "past", "this past"):
            saturday = saturday_this_week - _dt.timedelta(days=7)
        elif rel in ("next", "this coming"):
            saturday = saturday_this_week + _dt.timedelta(days=7) if base.weekday() >= 5 else saturday_this_week
        else:
            saturday = saturday_this_week
        return saturday, "weekend", False
    unit = match["unit"].lower()
    offset = {"last": -1, "past": -1, "this past": -1, "next": 1, "this coming": 1, "this": 0}[rel]
    return _shift(base, unit, offset), unit, False


def find_relative_dates(text: str, base: _dt.date) -> list[RelativeDate]:
    """Every relative-date phrase in ``text`` (non-overlapping, in order)."""
    found: list[RelativeDate] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            span = match.span()
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            resolved = _resolve(kind, match, base)
            if resolved is None:
                continue
            day, granularity, approx = resolved
            found.append(RelativeDate(span[0], span[1], match.group(0), day, granularity, approx))
            taken.append(span)
    found.sort(key=lambda r: r.start)
    return found


def annotate(text: str, base: _dt.date) -> tuple[str, list[RelativeDate]]:
    """``text`` with each relative date followed by its resolution in parentheses."""
    found = find_relative_dates(text, base)
    if not found:
        return text, []
    out, last = [], 0
    for item in found:
        out.append(text[last : item.end])
        out.append(f" ({item.render()})")
        last = item.end
    out.append(text[last:])
    return "".join(out), found
