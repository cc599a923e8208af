"""How the user says dates, amounts, distances, numbers and company, each in several styles.

Every helper returns ``(text, style)``: the words, and the name of the style
chosen, which is part of a sentence's shape (:mod:`.teller` counts shapes).
"""

from __future__ import annotations

import datetime as _dt
import random

from .names import CURRENCY_WORDS, SYMBOLS

NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = tuple("January February March April May June July August September October November December".split())


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def calendar(day: _dt.date, today: _dt.date, rng: random.Random) -> tuple[str, str]:
    """``12 May`` / ``May 12`` (the year added when it is not today's)."""
    year = f" {day.year}" if day.year != today.year else ""
    if rng.random() < 0.5:
        return f"{day.day} {MONTHS[day.month - 1]}{year}", "dmy"
    return f"{MONTHS[day.month - 1]} {day.day}{',' if year else ''}{year}", "mdy"


def when_past(day: _dt.date, today: _dt.date, rng: random.Random, *, evening: bool = False) -> tuple[str, str]:
    """A past ``day`` said from ``today``: relative where natural, else a calendar date."""
    delta = (today - day).days
    options: list[tuple[str, str]] = []
    if delta == 0:
        options += [("today", "today"), ("this morning", "this_morning"), ("earlier today", "earlier_today")]
    elif delta == 1:
        options += [
            ("yesterday", "yesterday"),
            ("yesterday evening" if evening else "yesterday morning", "yesterday_part"),
        ]
        if evening:
            options.append(("last night", "last_night"))
    elif delta == 2:
        options += [("two days ago", "n_days_ago"), ("the day before yesterday", "day_before")]
    if 2 <= delta <= 6:
        weekday = WEEKDAYS[day.weekday()]
        options += [(f"on {weekday}", "weekday"), (f"this past {weekday}", "past_weekday")]
        if delta > 2:
            options.append((f"{NUMBER_WORDS[delta]} days ago", "n_days_ago"))
    text, style = calendar(day, today, rng)
    options.append((f"on {text}", f"on_{style}"))
    if day.month == today.month and day.year == today.year and delta > 1:
        options.append((f"on the {ordinal(day.day)}", "on_the_nth"))
    return rng.choice(options)


def when_future(day: _dt.date, today: _dt.date, rng: random.Random) -> tuple[str, str]:
    delta = (day - today).days
    options: list[tuple[str, str]] = []
    if delta == 1:
        options.append(("tomorrow", "tomorrow"))
    if 2 <= delta <= 6:
        options.append((f"on {WEEKDAYS[day.weekday()]}", "weekday"))
    text, style = calendar(day, today, rng)
    options += [(f"on {text}", f"on_{style}")] * 2
    if day.month == today.month and day.year == today.year and delta > 1:
        options.append((f"on the {ordinal(day.day)}", "on_the_nth"))
    return rng.choice(options)


def date_range(start: _dt.date, end: _dt.date, today: _dt.date, rng: random.Random) -> tuple[str, str]:
    year = f" {end.year}" if end.year != today.year else ""
    if start.month == end.month and start.year == end.year:
        month = MONTHS[start.month - 1]
        return rng.choice(
            [
                (f"from {start.day} to {end.day} {month}{year}", "from_to_same_month"),
                (f"{month} {start.day}-{end.day}{year}", "m_d_d"),
            ]
        )
    a, _ = calendar(start, today, random.Random(0))
    b, _ = calendar(end, today, random.Random(0))
    return f"from {a} to {b}", "from_to"


def count(n: int, unit: str, rng: random.Random, *, plural: str | None = None) -> tuple[str, str]:
    """``5 nights`` / ``five nights`` / ``a week`` (7 nights)."""
    word = unit if n == 1 else (plural or unit + "s")
    options = [(f"{n} {word}", "digits")]
    if n < len(NUMBER_WORDS):
        options.append((f"{NUMBER_WORDS[n]} {word}", "words"))
    if unit == "night" and n == 7:
        options.append(("a week", "a_week"))
    return rng.choice(options)


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def money(amount: float, currency: str, rng: random.Random) -> tuple[str, str]:
    """``£42`` / ``42 pounds`` / ``EUR 42.50`` / ``42.50 EUR``."""
    number = _number(amount)
    word, code = CURRENCY_WORDS[currency]
    return rng.choice(
        [
            (f"{SYMBOLS[currency]}{number}", "symbol"),
            (f"{number} {word}", "word"),
            (f"{code} {number}", "code_first"),
            (f"{number} {code}", "code_last"),
        ]
    )


def distance(km: float, rng: random.Random) -> tuple[str, str]:
    text = f"{km:g}"
    return rng.choice([(f"{text} km", "km"), (f"{text}km", "km_tight"), (f"{text} kilometres", "kilometres")])


def people(names: list[str], rng: random.Random) -> tuple[str, str]:
    """``with Chloe`` / ``with Chloe and Tom`` / ``alongside Chloe`` ('' when alone)."""
    if not names:
        return rng.choice([("", "alone"), (" on my own", "on_my_own"), (" by myself", "by_myself")])
    joined = " and ".join(names)
    return rng.choice([(f" with {joined}", "with"), (f" together with {joined}", "together_with")])


def subject(names: list[str], rng: random.Random) -> tuple[str, str]:
    """The sentence's subject: ``I`` alone, else ``Chloe and I`` / ``me and Chloe``."""
    if not names:
        return "I", "i"
    joined = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    return rng.choice([(f"{joined} and I", "x_and_i"), (f"I and {joined}", "i_and_x")])
