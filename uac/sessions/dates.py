"""Parsing the date of a session from the forms inputs use.

Accepted: ISO dates and date-times (``2024-03-01``, ``2024-03-01T10:30``),
LoCoMo's ``1:56 pm on 8 May, 2023``, and ``8 May 2023`` / ``May 8, 2023``
with or without a time before them.
"""

from __future__ import annotations

import datetime as _dt
import re

from ..dates import MONTHS

_MONTH = r"(?P<month>[A-Za-z]{3,9})\.?"
_DAY_FIRST = re.compile(rf"(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(?P<year>\d{{4}})")
_MONTH_FIRST = re.compile(rf"{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})")
_ISO = re.compile(r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})")


def parse_date(text: str) -> _dt.date | None:
    """The calendar date in ``text``, or ``None`` if it holds no recognisable date."""
    text = str(text).strip()
    match = _ISO.search(text)
    if match:
        try:
            return _dt.date(int(match["year"]), int(match["month"]), int(match["day"]))
        except ValueError:
            return None
    for pattern in (_DAY_FIRST, _MONTH_FIRST):
        match = pattern.search(text)
        if match:
            month = MONTHS.get(match["month"].lower())
            if month is None:
                continue
            try:
                return _dt.date(int(match["year"]), month, int(match["day"]))
            except ValueError:
                return None
    return None
