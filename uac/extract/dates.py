"""Dates in what people say ("yesterday", "last year", "next month", "on Saturday",
"May 6", "the week before 9 June 2023") resolved against the session date.

:func:`find_relative_dates` returns every phrase it understood with the
:class:`~uac.dates.Period` it points at: a day, a week, a weekend, a month, a
season, a year or a range ("a few years ago" said in 2023 is 2019-2021), never
an invented exact day.  :func:`annotate` writes the resolved period into the
sentence right after a phrase that does not already say it --
``"yesterday"`` -> ``"yesterday (on 7 May 2023)"``, ``"last year"`` ->
``"last year (in 2022)"`` -- and returns what it found; the first period is the
fact's event date.

A phrase without a direction ("on Saturday", "in May", "May 6") is read from the
sentence's tense: a plan points forward, a report backward.  The next one when
the sentence speaks of the future ("will", "going to", "planning", "off to",
"booked ... for June"), the last one when it reports ("went", "got back",
"was", a past participle); a bare month or season in a sentence with neither
("Kyoto in June sounds lovely") is the one of the session's year (this month,
or a month still to come, is never moved a year back).  The period keeps its
precision (a month stays a month).
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as _dt
import re
from dataclasses import dataclass

from ..dates import MONTH_NAMES, MONTHS, Period, format_day
from .numbers import cardinals_up_to

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

NUMBER_WORDS = {
    **cardinals_up_to(12),
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_APPROX = {"a few", "few", "several", "a couple of", "a couple", "couple of"}

_NUM = r"(?P<num>\d{1,3}|a couple of|a couple|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WD = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_WEEKDAY_WORD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_REL = r"(?P<rel>last|next|this|this past|this coming|past|coming)"
# month names are matched capitalised: "may" is a verb, "march" too; chats write the others in
# lower case as well ("the first weekend of august"), which no English word spells
_MONTH_WORDS = "|".join(sorted((name.capitalize() for name in MONTHS), key=len, reverse=True))
_LOWER_MONTHS = "|".join(
    [name.lower() for name in MONTH_NAMES if name not in ("March", "May")]
    # and the short forms a phone types ("nov 15-18"), which no English word spells; not "jan"
    # (a name), "mar" (a verb)
    + ["sept", "feb", "apr", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
)


def _month_name(name: str = "month") -> str:
    return rf"(?P<{name}>(?-i:{_MONTH_WORDS}|{_LOWER_MONTHS}))(?![a-z])"


def _day_num(name: str = "day") -> str:
    return rf"(?P<{name}>[0-3]?\d)(?:st|nd|rd|th)?(?!\d)"


#: no measure after the number ("we march 10 miles")
_NO_UNIT = r"(?!\s*(?:miles?|km|k\b|kilomet\w+|minutes?|mins?|hours?|hrs?|people|times|steps|laps|blocks|kg|lbs?)\b)"


def _day_and_month(prefix: str = "") -> str:
    """``6 May``, ``6th of May`` or ``May 6th`` (group names ``day1``/``month1`` or ``day2``/``month2``).
    Beside a day's number "march" in lower case is the month ("from 1 march", "march 3rd"), and so
    is "may" after one ("on 6 may"; "may 6" may be a verb before a number)."""
    return (
        rf"(?:{_day_num(prefix + 'day1')}\s+(?:of\s+)?(?P<{prefix}month1>(?-i:{_MONTH_WORDS}|{_LOWER_MONTHS}|march|may))(?![a-z])"
        rf"|(?P<{prefix}month2>(?-i:{_MONTH_WORDS}|{_LOWER_MONTHS}|march))(?![a-z])\s+{_day_num(prefix + 'day2')}{_NO_UNIT})"
    )


_MONTH_NAME = _month_name()
#: "march" and "may" in lower case are the months before a year ("since march 2019") or after a
#: word that only dates ("since may", "until march", "end of may"); never "in march", "by may"
_MONTH_ANY_CASE = rf"(?P<month>(?-i:{_MONTH_WORDS}|{_LOWER_MONTHS}|march|may))(?![a-z])"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"

#: holidays on a fixed day of the year, as people name them: (month, day)
_FIXED_HOLIDAYS = {
    r"christmas\s+day": (12, 25),
    r"christmas\s+eve": (12, 24),
    r"boxing\s+day": (12, 26),
    r"new\s+year['’]?s\s+eve|hogmanay": (12, 31),
    r"new\s+year['’]?s\s+day": (1, 1),
    r"valentine['’]?s(?:\s+day)?": (2, 14),
    r"st\.?\s+patrick['’]?s\s+day|paddy['’]?s\s+day": (3, 17),
    r"halloween": (10, 31),
    r"bonfire\s+night|guy\s+fawkes\s+night": (11, 5),
    r"(?:the\s+)?(?:fourth|4th)\s+of\s+july": (7, 4),
}
_FIXED_HOLIDAY_WORDS = "|".join(rf"(?i:{k})" for k in _FIXED_HOLIDAYS)


def _fixed_holiday(m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """ "on Boxing Day": the holiday's day this year, or the next one in a plan and the last one
    in a report when this year's lies the wrong way (with no tense, the nearest)."""
    said = m["holiday"]
    month, day = next(v for k, v in _FIXED_HOLIDAYS.items() if re.fullmatch(k, said, re.I))
    if m["year"]:
        return Period.day(_dt.date(int(m["year"]), month, day))
    return Period.day(_month_day_of(month, day, base, future) or _dt.date(base.year, month, day))


# order matters: longer phrases first; a later pattern never overlaps an earlier match
_PHRASES: list[tuple[str, str]] = [
    (
        "week_around",
        rf"\bthe\s+(?P<side>week|weekend)\s+(?P<dir>before|after|of)\s+{_day_and_month()},?\s+{_YEAR}\b",
    ),
    # "the 14th to the 18th of April", "from 3 to 7 May", "14-18 April 2025": the days of one month, day first
    (
        "day_range",
        rf"\b(?:from\s+)?(?:the\s+)?{_day_num('first')}\s*(?:-|–|to|until|till)\s*(?:the\s+)?{_day_num('last')}"
        rf"\s+(?:of\s+)?{_MONTH_NAME}(?:,?\s+{_YEAR})?(?![\w'])",
    ),
    # "Mar 30 to Apr 3", "Dec 20 to Jan 3", "30 March to 3 April": days across two months
    (
        "month_span",
        rf"\b(?:from\s+)?{_day_and_month('a')}\s*(?:-|–|to|until|till)\s*{_day_and_month('b')}(?:,?\s+{_YEAR})?(?![\w'])",
    ),
    ("absolute_day", rf"\b(?:on\s+)?(?:{_WEEKDAY_WORD},?\s+)?{_day_and_month()},?\s+{_YEAR}\b"),
    (
        "nth_weekend",
        rf"\b(?:the\s+)?(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last)\s+weekend\s+(?:of|in)\s+{_MONTH_NAME}(?![\w'])",
    ),
    # "on Boxing Day", "Christmas Eve", "Valentine's": a holiday on a fixed day of the year
    (
        "fixed_holiday",
        rf"\b(?:on\s+)?(?P<holiday>{_FIXED_HOLIDAY_WORDS})(?:,?\s+{_YEAR})?(?![\w'’]|\s+(?:weekend|week)\b)",
    ),
    ("before_yesterday", r"\b(?:the\s+)?day\s+before\s+yesterday\b"),
    ("after_tomorrow", r"\b(?:the\s+)?day\s+after\s+tomorrow\b"),
    # "the thursday before last", "the weekend after next": one step further than last or next
    (
        "two_away",
        rf"\b(?:the\s+)?(?P<what>{_WEEKDAY_WORD}|weekend|week|month|year)\s+(?P<way>before\s+last|after\s+next)\b",
    ),
    # "in week 32", "uke 7": a week by its ISO number, as the Nordic lands and Germany count them
    (
        "week_number",
        r"\b(?<!this\s)(?<!last\s)(?<!next\s)(?<!per\s)(?<!each\s)(?<!every\s)(?<!that\s)(?<!a\s)(?<!the\s)"
        r"(?:in\s+|during\s+)?(?i:week|uke|vecka|uge|woche|kw)\s+(?P<week>[1-5]?\d)(?![\w,:]|\.\d)"
        r"(?!\s*(?:times|x\b|days?|hours?|hrs?|nights?|weeks?|months?|in\s+a\s+row|of\b))",
    ),
    ("ago", rf"\b{_NUM}\s+{_UNIT}\s+ago\b"),
    # "a week on Thursday", "a week tomorrow", "Thursday week": the day named, a week later
    (
        "week_on",
        rf"\ba\s+week\s+(?:on\s+{_WD}|(?P<tomorrow>tomorrow|today))\b|\b{_WD.replace('weekday', 'weekday2')}\s+week\b(?!\s*(?:end|day|night))",
    ),
    # "two weeks from tomorrow", "a month from today": that many units from the day named
    ("n_from", rf"\b(?:in\s+)?{_NUM}\s+{_UNIT}\s+from\s+(?P<anchor>tomorrow|today|now)\b"),
    ("in_n", rf"\bin\s+{_NUM}\s+{_UNIT}\b"),
    ("rel_weekday", rf"\b{_REL}\s+{_WD}\b"),
    ("rel_weekend", rf"\b{_REL}\s+weekend\b"),
    ("rel_season", rf"\b{_REL}\s+{_SEASON}\b"),
    ("rel_month_name", rf"\b{_REL}\s+{_MONTH_NAME}"),
    ("rel_unit", rf"\b{_REL}\s+(?P<unit>week|month|year)\b"),
    ("season_year", rf"\b(?:in\s+)?(?:the\s+)?{_SEASON}\s+(?:of\s+)?{_YEAR}\b"),
    ("month_year", rf"\b(?:in\s+)?{_MONTH_ANY_CASE},?\s+(?:of\s+)?{_YEAR}\b"),
    (
        "month_day",
        rf"\b(?:on\s+)?(?:{_WEEKDAY_WORD},?\s+)?{_day_and_month()}"
        # "Nov 15-18", "May 3 to 6": the days of one month
        rf"(?:\s*(?:-|–|to|until|till)\s*(?P<last>[0-3]?\d)(?:st|nd|rd|th)?(?![\d:]))?\b(?!\s*(?:am|pm|%|:))",
    ),
    (
        "in_month",
        rf"\b(?P<prep>in|during|since|for|until|till|by|early|late|mid|end\s+of|beginning\s+of)\s+(?:-\s*)?{_MONTH_NAME}(?![\w'])"
        rf"|\b(?P<prep2>since|until|till|end\s+of|beginning\s+of)\s+(?-i:(?P<month3>march|may))\b(?!\s+(?:be|have|not|go|come|need)\b)",
    ),
    (
        "in_season",
        rf"\b(?:in|during|over)\s+the\s+{_SEASON}\b|\bin\s+{_SEASON.replace('season', 'season2')}\b",
    ),
    ("in_year", rf"\b(?:in|back\s+in|during|since)\s+{_YEAR}\b(?![-/]\d)"),
    # "Friday the 8th", "monday 20th": a weekday with its day number, before the bare weekday
    (
        "weekday_nth",
        # "thursday 17", "sat the 14th", "wed 18th": a weekday as chats shorten it, and a bare day number after it
        rf"\b(?:on\s+)?(?P<weekday>{_WEEKDAY_WORD}|mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)"
        rf"(?:,?\s+the\s+(?P<nth>[0-3]?\d)(?:st|nd|rd|th)?|,?\s+(?P<nth2>[0-3]?\d)(?:st|nd|rd|th)|\s+(?P<nth3>[0-3]?\d))"
        r"(?![\w:]|\.\d|\s*(?:-|–|to)\s*\d)"
        r"(?!\s*(?:am|pm|h|hrs?|hours?|mins?|minutes|km|k|miles?|mi|%|people|nights?|days?|weeks?|times|x)\b)",
    ),
    # "on the 22nd", "from the 23rd to the 26th", "17th to 19th": a day of this month or a next or last one
    (
        "bare_nth",
        r"\b(?:(?P<prep>on|from)\s+)?(?:(?P<the>the)\s+)?(?P<first>[0-3]?\d)(?:st|nd|rd|th)"
        r"(?:\s*(?P<to>-|–|to|until|till)\s*(?:the\s+)?(?P<last>[0-3]?\d)(?:st|nd|rd|th)?)?(?![\w'’-])"
        r"(?!\s+(?:of\s+)?(?:floor|anniversary|birthday|bday|century|time|place|row|grade|year|percentile|street|st|"
        r"avenue|ave|minute|round|edition|wedding|attempt|try|marathon|lap|mile|km|day|week|month|centenary|jubilee|"
        r"night|morning|afternoon|evening|date|stop|leg|half|course|step|thing|game|match|episode|chapter|book|kid|"
        r"child|son|daughter|one|person|pick|choice|option|place|position|seat|gen|generation|hole|set|shift|thought)s?\b)",
    ),
    ("on_weekday", rf"\b(?:on\s+)?{_WD}(?:\s+(?:night|morning|afternoon|evening))?\b"),
    # "Sam's last night in Lisbon", "our last night": the trip's, not yesterday
    ("yesterday", r"\b(?:yesterday|(?<!['’]s\s)(?<!\bour\s)(?<!\bmy\s)(?<!\bthe\s)last\s+night)\b"),
    ("tomorrow", r"\btomorrow\b"),
    ("today", r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b"),
]
#: each kind's pattern, compiled once, case-insensitive (the month names keep their own rule, above)
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [(kind, re.compile(pattern, re.I)) for kind, pattern in _PHRASES]
#: kinds whose phrase already says the date: nothing is written after them
_ABSOLUTE = {"absolute_day", "week_around", "season_year", "month_year", "in_year"}

_FUTURE = re.compile(
    r"\b(?:will|won't|shall|going\s+to|gonna|plan(?:s|ning|ned)?\s+to|planning|intends?|hopes?\s+to|hoping\s+to|"
    r"wants?|wanna|(?:is|are|am|'m|'re)\s+getting\s+(?:married|engaged)|can't\s+wait|looking\s+forward|upcoming|about\s+to|'ll|next|tomorrow|soon|scheduled|"
    r"thinking\s+(?:of|about)\s+\w+ing|considering\s+\w+ing|off\s+to|(?:am|is|are|'m|'re)\s+(?:flying|heading|going|"
    r"leaving|travell?ing|driving|visiting)|(?<!was\s)(?<!were\s)(?:flying|heading|driving|leaving)\s+(?:out\s+|off\s+|"
    r"down\s+|up\s+|over\s+|back\s+|home\s+)?(?:to|for)|booked|planned|we're\s+doing|countdown|can't\s+wait|starts?|begins?|"
    # "Akinyi and I leave for Diani on Thursday": a departure in the present is one ahead
    r"leaves?\s+for(?=\s+(?-i:[A-Z]))|"
    r"(?:last|first)\s+day\b[^.,;]*\bis)\b",
    re.I,
)
#: a report of what happened: past forms that no plan uses
_PAST = re.compile(
    r"\b(?:was|were|went|got\s+back|came\s+back|had|did|came|flew|drove|spent|bought|ate|saw|took|made|left|stayed|"
    r"visited|returned|loved|enjoyed|finished|ran|read|moved|started|tried|paid|found|met|ago|last(?!\s+day)|yesterday|"
    r"(?!(?:booked|planned|scheduled|excited|interested|supposed|used|tired|based|need|feed|seed|bled|red|bed|wed|shed|"
    r"sled|speed|indeed|proceed|exceed|succeed|breed)\b)[a-z]{3,}ed)\b",
    re.I,
)


@dataclass(frozen=True)
class RelativeDate:
    start: int
    end: int
    phrase: str
    period: Period
    #: the words already say the full date (nothing to write after them)
    absolute: bool = False

    @property
    def granularity(self) -> str:
        """The period's precision (day, week, weekend, month, season, year, range)."""
        return self.period.precision

    @property
    def day(self) -> _dt.date:
        """The first day of the period."""
        return self.period.start

    def render(self) -> str:
        """The period with its preposition: ``on 7 May 2023``, ``in 2022``,
        ``the week before 9 June 2023``."""
        return self.period.phrase()


def _shift_months(day: _dt.date, months: int) -> _dt.date:
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return _dt.date(year, month + 1, min(day.day, last))


def _unit_period(day: _dt.date, unit: str) -> Period:
    """The calendar unit holding ``day``."""
    if unit == "day":
        return Period.day(day)
    if unit == "week":
        return Period.week_of(day)
    if unit == "month":
        return Period.month(day.year, day.month)
    return Period.year(day.year)


def _shift(day: _dt.date, unit: str, amount: int) -> _dt.date:
    if unit == "day":
        return day + _dt.timedelta(days=amount)
    if unit == "week":
        return day + _dt.timedelta(weeks=amount)
    if unit == "month":
        return _shift_months(day, amount)
    return _shift_months(day, 12 * amount)


def _number(text: str) -> tuple[int, bool]:
    key = " ".join(text.lower().split())
    if key.isdigit():
        return int(key), False
    return NUMBER_WORDS[key], key in _APPROX


def _month(text: str) -> int:
    return MONTHS[text.lower().rstrip(".")]


def _safe_day(year: int, month: int, day: int) -> _dt.date | None:
    try:
        return _dt.date(year, month, day)
    except ValueError:
        return None


def _direction(rel: str) -> int:
    rel = " ".join(rel.lower().split())
    return {"last": -1, "past": -1, "this past": -1, "next": 1, "this coming": 1, "coming": 1, "this": 0}[rel]


def _weekday_nth(m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """ "Friday the 8th": the day of that number, in the nearest month (ahead in a plan, back
    in a report, either otherwise) where it falls on that weekday; when none within a year
    does, the day number wins, in the nearest month that has it."""
    number = int(m["nth"] or m["nth2"] or m["nth3"])
    if not 1 <= number <= 31:
        return None
    said = m["weekday"].lower()
    target = next(i for i, name in enumerate(WEEKDAYS) if name.startswith(said[:3]))
    steps = (1,) if future else (-1,) if future is False else (1, -1)
    days = []
    for offset in range(12):
        for step in steps:
            first = _shift_months(base.replace(day=1), offset * step)
            day = _safe_day(first.year, first.month, number)
            if day is not None and (day >= base if step > 0 else day <= base):
                days.append(day)
    if not days:
        return None
    days.sort(key=lambda d: abs((d - base).days))
    return Period.day(next((d for d in days if d.weekday() == target), days[0]))


#: kinds resolved apart from :func:`_resolve`
_RESOLVERS = {"weekday_nth": _weekday_nth, "fixed_holiday": _fixed_holiday}


def _resolve(kind: str, m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """The period of one phrase; ``future``: the sentence plans (True), reports (False)
    or says neither (None, read as a report except for a bare month or season)."""
    if kind == "before_yesterday":
        return Period.day(base - _dt.timedelta(days=2))
    if kind == "after_tomorrow":
        return Period.day(base + _dt.timedelta(days=2))
    if kind == "yesterday":
        return Period.day(base - _dt.timedelta(days=1))
    if kind == "tomorrow":
        return Period.day(base + _dt.timedelta(days=1))
    if kind == "today":
        return Period.day(base)
    if kind == "absolute_day":
        return _absolute_day(m)
    if kind == "day_range":
        return _day_range(m, base, future)
    if kind == "month_span":
        return _month_span(m, base, future)
    if kind == "week_number":
        return _week_number(m, base, future)
    if kind == "week_around":
        return _week_around(m)
    if kind == "week_on":
        if m["tomorrow"]:
            return Period.day(base + _dt.timedelta(days=8 if m["tomorrow"].lower() == "tomorrow" else 7))
        target = WEEKDAYS.index((m["weekday"] or m["weekday2"]).lower())
        ahead = (target - base.weekday()) % 7 or 7
        return Period.day(base + _dt.timedelta(days=ahead + 7))
    if kind == "n_from":
        anchor = base + _dt.timedelta(days=1) if m["anchor"].lower() == "tomorrow" else base
        amount, approx = _number(m["num"])
        day = _shift(anchor, m["unit"].lower(), amount)
        return (
            Period.day(day)
            if m["unit"].lower() in ("day", "week") and not approx
            else _unit_period(day, m["unit"].lower())
        )
    if kind in ("ago", "in_n"):
        return _units_away(m, base, -1 if kind == "ago" else 1)
    if kind == "two_away":
        return _two_away(m, base)
    if kind == "rel_weekday":
        return _rel_weekday(m, base)
    if kind == "on_weekday":
        return _on_weekday(m, base, future)
    if kind == "rel_weekend":
        return _rel_weekend(m, base)
    if kind == "rel_season":
        return _season(m["season"], base, _direction(m["rel"]))
    if kind == "in_season":
        name = m["season"] or m["season2"]
        return _season(name, base, -1 if future is False else 1, nearest=True)
    if kind == "season_year":
        return Period.season(m["season"], int(m["year"]))
    if kind == "rel_month_name":
        return _rel_month_name(m, base)
    if kind == "rel_unit":
        return _rel_unit(m, base)
    if kind == "month_year":
        return Period.month(int(m["year"]), _month(m["month"]))
    if kind == "in_year":
        return Period.year(int(m["year"]))
    if kind == "nth_weekend":
        return _nth_weekend(m, base, future)
    if kind == "in_month":
        return _in_month(m, base, future)
    if kind == "month_day":
        return _month_day(m, base, future)
    if kind == "bare_nth":
        return _bare_nth(m, base, future)
    return None


#: a sentence that names its month or a holiday: its bare ordinals are days of that, not of this month
_NAMED_TIME = re.compile(
    rf"{_MONTH_NAME}|\b(?:christmas|xmas|easter|new\s+year|eid|diwali|thanksgiving|memorial\s+day|labou?r\s+day|"
    r"half[-\s]term|bank\s+holiday|hanukkah|ramadan|carnival|spring\s+break)\b",
    re.I,
)


def _bare_nth(m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """ "on the 22nd", "the 23rd to the 26th", "17th to 19th": the day of this month, or of the next
    month in a plan (of the last in a report) when this month's lies the wrong way; with no tense,
    the nearest.  A bare ordinal ("22nd") needs "the", "on" or a second day to be a date."""
    if not m["the"] and not m["last"] and not m["prep"]:
        return None
    named = [x.group(0).lower() for x in _NAMED_TIME.finditer(m.string)]
    christmas = bool(named) and all(x in ("christmas", "xmas") for x in named)
    if named and not christmas:
        return None  # "Easter at my parents', 23rd to 27th", "memorial day weekend, the 23rd to the 26th"
    if re.search(r"\bsince\s+$", m.string[: m.start()], re.I):
        future = False  # "been in Bristol since the 24th": a day gone by
    first = int(m["first"])
    last = int(m["last"]) if m["last"] else None
    if not 1 <= first <= 31 or (last is not None and not first < last <= 31):
        return None
    months = [_shift_months(base.replace(day=1), k) for k in (-1, 0, 1)]
    if christmas:
        # "Christmas we go to my mum in Zwolle, 25th to 27th": the days of a December
        months = [_dt.date(base.year + k, 12, 1) for k in (-1, 0, 1)]
    days = [d for d in (_safe_day(x.year, x.month, first) for x in months) if d is not None]
    if future is True:
        ahead = [d for d in days if d >= base]
        day = ahead[0] if ahead else None
    elif future is False:
        behind = [d for d in days if d <= base]
        day = behind[-1] if behind else None
    else:
        day = min(days, key=lambda d: abs((d - base).days)) if days else None
    if day is None:
        return None
    end = _safe_day(day.year, day.month, last) if last is not None else None
    return Period(day, end) if end is not None else Period.day(day)


def _week_around(m: re.Match[str]) -> Period | None:
    """ "the week before 3 May 2024", "the weekend after ...", "the week of ...": around a dated day."""
    around = _absolute_day(m)
    if around is None:
        return None
    anchor = around.start
    if m["side"].lower() == "weekend":
        saturday = anchor + _dt.timedelta(days=(5 - anchor.weekday()) % 7)
        if m["dir"].lower() == "before":
            saturday = anchor - _dt.timedelta(days=(anchor.weekday() - 5) % 7 or 7)
        return Period(saturday, saturday + _dt.timedelta(days=1))
    direction = m["dir"].lower()
    if direction == "before":
        return Period.week_before(anchor)
    if direction == "after":
        return Period(anchor + _dt.timedelta(days=1), anchor + _dt.timedelta(days=7))
    return Period.week_of(anchor)


def _units_away(m: re.Match[str], base: _dt.date, sign: int) -> Period:
    """ "three weeks ago" (``sign`` -1), "in two months" (+1): the unit that many away."""
    amount, approx = _number(m["num"])
    unit = m["unit"].lower()
    if approx:  # "a few years ago": the span of the units around it
        first = _unit_period(_shift(base, unit, sign * (amount + 1)), unit)
        last = _unit_period(_shift(base, unit, sign * max(amount - 1, 1)), unit)
        if sign > 0:
            first, last = last, first
        return Period(first.start, last.end)
    return _unit_period(_shift(base, unit, sign * amount), unit)


def _rel_weekday(m: re.Match[str], base: _dt.date) -> Period:
    """ "last friday", "next monday", "this friday" (this week's)."""
    return _weekday_away(WEEKDAYS.index(m["weekday"].lower()), base, _direction(m["rel"]))


def _weekday_away(target: int, base: _dt.date, direction: int) -> Period:
    current = base.weekday()
    if direction < 0:
        return Period.day(base - _dt.timedelta(days=(current - target) % 7 or 7))
    if direction > 0:
        return Period.day(base + _dt.timedelta(days=(target - current) % 7 or 7))
    return Period.day(base + _dt.timedelta(days=target - current))  # "this friday": this week's


def _on_weekday(m: re.Match[str], base: _dt.date, future: bool | None) -> Period:
    """ "on friday": the next one in a plan, else the last one."""
    target = WEEKDAYS.index(m["weekday"].lower())
    current = base.weekday()
    if future:
        return Period.day(base + _dt.timedelta(days=(target - current) % 7 or 7))
    return Period.day(base - _dt.timedelta(days=(current - target) % 7 or 7))


def _rel_weekend(m: re.Match[str], base: _dt.date) -> Period:
    """ "last weekend", "next weekend", "this weekend": its Saturday and Sunday."""
    return _weekend_away(base, _direction(m["rel"]))


def _weekend_away(base: _dt.date, direction: int) -> Period:
    saturday_this_week = base + _dt.timedelta(days=5 - base.weekday())
    if direction < 0:
        saturday = saturday_this_week - _dt.timedelta(days=7)
    elif direction > 0:
        saturday = saturday_this_week + _dt.timedelta(days=7) if base.weekday() >= 5 else saturday_this_week
    else:
        saturday = saturday_this_week
    return Period(saturday, saturday + _dt.timedelta(days=1))


def _two_away(m: re.Match[str], base: _dt.date) -> Period:
    """ "the thursday before last" (a week before last Thursday), "the weekend after next",
    "the week before last", "the month after next": one step further than "last" or "next"."""
    sign = -1 if m["way"].lower().startswith("before") else 1
    what = m["what"].lower()
    week = _dt.timedelta(days=7 * sign)
    if what in WEEKDAYS:
        return Period.day(_weekday_away(WEEKDAYS.index(what), base, sign).start + week)
    if what == "weekend":
        one = _weekend_away(base, sign)
        return Period(one.start + week, one.end + week)
    if what == "week":
        return Period.week_before(base + week) if sign < 0 else Period.week_of(base + 2 * week)
    return _unit_period(_shift(base, what, 2 * sign), what)


def _rel_month_name(m: re.Match[str], base: _dt.date) -> Period:
    """ "last March", "next May", "this June": the month in the year the word points to."""
    month = _month(m["month"])
    direction = _direction(m["rel"])
    year = base.year
    if direction < 0 and month >= base.month:
        year -= 1
    elif direction > 0 and month <= base.month:
        year += 1
    return Period.month(year, month)


def _rel_unit(m: re.Match[str], base: _dt.date) -> Period:
    """ "last week", "next month", "this year"."""
    unit = m["unit"].lower()
    direction = _direction(m["rel"])
    if unit == "week":
        if direction < 0:
            return Period.week_before(base)
        if direction > 0:
            return Period.week_of(base + _dt.timedelta(days=7))
        return Period.week_of(base)
    return _unit_period(_shift(base, unit, direction), unit)


def _nth_weekend(m: re.Match[str], base: _dt.date, future: bool | None) -> Period:
    """ "the first weekend of August": that month's first Saturday and Sunday, in the year the tense points to."""
    month = _month(m["month"])
    year = base.year
    if future and month < base.month:
        year += 1
    elif future is False and month > base.month:
        year -= 1
    first_day = _dt.date(year, month, 1)
    saturday = first_day + _dt.timedelta(days=(5 - first_day.weekday()) % 7)
    nth = m["nth"].lower()
    if nth == "last":
        following = _dt.date(year + (month == 12), month % 12 + 1, 1)
        saturday = following - _dt.timedelta(days=(following.weekday() - 5) % 7 or 7)
    else:
        saturday += _dt.timedelta(weeks={"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2}.get(nth, 3))
    return Period(saturday, saturday + _dt.timedelta(days=1))


def _in_month(m: re.Match[str], base: _dt.date, future: bool | None) -> Period:
    """ "in March", "until May": the month ahead in a plan or after "for/until/till/by", back in a report."""
    month = _month(m["month"] or m["month3"])
    year = base.year
    forward = future or (m["prep"] or m["prep2"] or "").lower() in ("for", "until", "till", "by")
    if forward and month < base.month:
        year += 1
    elif future is False and not forward and month > base.month:
        year -= 1
    return Period.month(year, month)


def _month_day(m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """ "March 3rd", "the 3rd of March", "Nov 15-18": this year's, or next year's in a plan
    (last year's in a report) when this year's lies more than a month the wrong way; with no
    tense ("Halifax is Nov 15-18"), the nearest of last, this and next year's."""
    day = _month_day_of(_month(m["month1"] or m["month2"]), int(m["day1"] or m["day2"]), base, future)
    if day is None:
        return None
    last = _safe_day(day.year, day.month, int(m["last"])) if m["last"] else None
    return Period(day, last) if last is not None and last > day else Period.day(day)


def _month_day_of(month: int, number: int, base: _dt.date, future: bool | None) -> _dt.date | None:
    """The day ``number`` of ``month`` that a sentence of this tense means (see :func:`_month_day`)."""
    day = _safe_day(base.year, month, number)
    if day is None:
        return None
    if future is None:
        near = [d for d in (_safe_day(base.year + k, month, number) for k in (-1, 1)) if d is not None]
        day = min([day, *near], key=lambda d: abs((d - base).days))
    elif future and day < base - _dt.timedelta(days=31):
        day = _safe_day(base.year + 1, month, number)
    elif not future and day > base + _dt.timedelta(days=31):
        day = _safe_day(base.year - 1, month, number)
    return day


def _day_range(m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """ "the 14th to the 18th of April": its days, in the year given, else the year a bare
    month day would be in (:func:`_month_day`)."""
    month, first, last = _month(m["month"]), int(m["first"]), int(m["last"])
    if m["year"]:
        start, end = _safe_day(int(m["year"]), month, first), _safe_day(int(m["year"]), month, last)
    else:
        found = _month_day_of(month, first, base, future)
        start = found
        end = _safe_day(found.year, month, last) if found is not None else None
    if start is None or end is None or end <= start:
        return None
    return Period(start, end)


def _week_number(m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """ "in week 32": Monday to Sunday of that ISO week, this year's, or the next year's in a plan
    (last year's in a report) when this year's lies the wrong way; with no tense, the nearest."""
    week = int(m["week"])
    if not 1 <= week <= 53:
        return None

    def of(year: int) -> Period | None:
        try:
            monday = _dt.date.fromisocalendar(year, week, 1)
        except ValueError:
            return None
        return Period(monday, monday + _dt.timedelta(days=6))

    options = [p for p in (of(base.year - 1), of(base.year), of(base.year + 1)) if p is not None]
    if future is True:
        ahead = [p for p in options if p.end >= base]
        return ahead[0] if ahead else None
    if future is False:
        behind = [p for p in options if p.start <= base]
        return behind[-1] if behind else None
    return min(options, key=lambda p: abs((p.start - base).days)) if options else None


def _month_span(m: re.Match[str], base: _dt.date, future: bool | None) -> Period | None:
    """ "Mar 30 to Apr 3": from a day of one month to a day of a later one (the next year's when the
    second month comes first: "Dec 20 to Jan 3"), the first day in the year a bare month day is in."""
    first_month, last_month = _month(m["amonth1"] or m["amonth2"]), _month(m["bmonth1"] or m["bmonth2"])
    first_day, last_day = int(m["aday1"] or m["aday2"]), int(m["bday1"] or m["bday2"])
    if m["year"]:
        start = _safe_day(int(m["year"]), first_month, first_day)
    else:
        start = _month_day_of(first_month, first_day, base, future)
    if start is None or first_month == last_month:
        return None
    end = _safe_day(start.year + (1 if last_month < first_month else 0), last_month, last_day)
    if end is None or end <= start or (end - start).days > 62:
        return None
    return Period(start, end)


def _absolute_day(m: re.Match[str]) -> Period | None:
    day = _safe_day(int(m["year"]), _month(m["month1"] or m["month2"]), int(m["day1"] or m["day2"]))
    return Period.day(day) if day else None


def _season(name: str, base: _dt.date, direction: int, *, nearest: bool = False) -> Period:
    """The season ``name`` last (-1), this (0) or next (+1) relative to ``base``."""
    year = base.year
    current = Period.season(name, year)
    if base.month <= 2 and name.lower() == "winter":  # January of 2024 is in winter 2023
        current = Period.season(name, year - 1)
    if direction == 0:
        return current
    if direction < 0:
        if base in current and nearest:
            return current
        if current.start <= base:
            return current if current.end < base else Period.season(name, current.start.year - 1)
        return Period.season(name, current.start.year - 1)
    if base in current and nearest:
        return current
    if current.start > base:
        return current
    return Period.season(name, current.start.year + 1)


def tense(text: str) -> bool | None:
    """True when ``text`` plans (the future), False when it reports (the past), None for neither."""
    if _FUTURE.search(text):
        return True
    if _PAST.search(text):
        return False
    return None


#: where a clause ends: the tense of the clause a date phrase sits in decides its direction
_CLAUSE_END = re.compile(r"[,;:]\s+|\s+(?:and|but|so|then)\s+")


#: words that point a date in their own clause forward, whatever the sentence's tense: "starting
#: May 6" (news told as a list), "asked if Ana would teach in the fall" -- not the sentence's tense,
#: which a "would" of reported thought ("did a class and thought I would") must not turn into a plan
_AHEAD = re.compile(r"\b(?:starting(?!\s+to\b)|would(?!\s+have\b|'ve\b))\b", re.I)


#: a date a present-tense clause starts from ("from January 1st my title is", "as of the 1st")
_FROM_BEFORE = re.compile(r"\b(?:from|as\s+of|effective)\s+(?:the\s+)?$", re.I)
_PRESENT = re.compile(r"\b(?:is|are|am|becomes?|starts?|begins?)\b", re.I)


def _clause_tense(text: str, start: int, end: int, sentence: bool | None) -> bool | None:
    """The tense of the clause around ``text[start:end]`` ("Ana said yes, Ana starts in
    May": the second clause plans); the sentence's when the clause says neither."""
    bounds = [0] + [m.end() for m in _CLAUSE_END.finditer(text)] + [len(text)]
    left = max((b for b in bounds if b <= start), default=0)
    right = min((m.start() for m in _CLAUSE_END.finditer(text) if m.start() >= end), default=len(text))
    if _AHEAD.search(text[left:right]):
        return True
    local = tense(text[left:right])
    clause = text[left:right]
    if local is None and _FROM_BEFORE.search(text[left:start]) and (sentence is not False or _PRESENT.search(clause)):
        return True  # "from January 1st my title is ...": a start said in the present points forward
    return sentence if local is None else local


def find_relative_dates(text: str, base: _dt.date) -> list[RelativeDate]:
    """Every date phrase in ``text`` (non-overlapping, in order) with its period."""
    found: list[RelativeDate] = []
    taken: list[tuple[int, int]] = []
    sentence = tense(text)
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            span = match.span()
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            ahead = sentence is not None or _AHEAD.search(text) is not None
            future = _clause_tense(text, span[0], span[1], sentence) if ahead else None
            try:
                period = (
                    _RESOLVERS[kind](match, base, future) if kind in _RESOLVERS else _resolve(kind, match, base, future)
                )
            except (ValueError, OverflowError):
                period = None
            if period is None:
                continue
            found.append(RelativeDate(span[0], span[1], match.group(0), period, kind in _ABSOLUTE))
            taken.append(span)
    found.sort(key=lambda r: r.start)
    return _weekday_ends(text, found, base, sentence)


#: "sunday to thursday", "fri - sun": a span whose end is told by its weekday alone
_SPAN_JOINT = re.compile(r"\s*(?:to|till|til|until|thru|through|-|–)\s*$", re.I)
_BARE_WEEKDAY = re.compile(r"^(?:on\s+)?(?:the\s+)?(mon|tue|wed|thu|fri|sat|sun)[a-z]*$", re.I)


def _weekday_ends(text: str, found: list[RelativeDate], base: _dt.date, past: bool | None) -> list[RelativeDate]:
    """A span's end told by a weekday alone is the first such day after its start: "sunday (16
    November) to thursday" ends on the 20th, whichever way the sentence's tense pointed each; a
    span told in the past that would end after the day it was said is the week before ("we went
    tuesday till friday", said on a Wednesday: the Tuesday and Friday of the week before)."""
    for index in range(1, len(found)):
        first, then = found[index - 1], found[index]
        bare = _BARE_WEEKDAY.match(then.phrase.strip())
        if bare is None or not first.period.is_day or not then.period.is_day:
            continue
        if not _SPAN_JOINT.fullmatch(text[first.end : then.start]):
            continue
        target = next(i for i, name in enumerate(WEEKDAYS) if name.startswith(bare.group(1).lower()))
        day = first.period.start + _dt.timedelta(days=(target - first.period.start.weekday()) % 7 or 7)
        if past is False and day > base:
            week = _dt.timedelta(days=7)
            found[index - 1] = dataclasses.replace(first, period=Period.day(first.period.start - week))
            day -= week
        if day != then.period.start:
            found[index] = dataclasses.replace(then, period=Period.day(day))
    return found


def annotate(text: str, base: _dt.date) -> tuple[str, list[RelativeDate]]:
    """``text`` with each relative date followed by its resolution in parentheses
    (phrases that already say the full date are left as they are)."""
    found = find_relative_dates(text, base)
    if not found:
        return text, []
    out, last = [], 0
    for item in found:
        out.append(text[last : item.end])
        if not item.absolute:
            out.append(f" ({item.render()})")
        last = item.end
    out.append(text[last:])
    return "".join(out), found


__all__ = ["RelativeDate", "annotate", "find_relative_dates", "format_day"]
