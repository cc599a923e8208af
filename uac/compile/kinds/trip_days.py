"""The days of a trip: a weekday told in the report of a trip means that weekday of the trip.

"Kuching review: ... Friday morning went for the laksa at Choon Hui, RM8" is told a week
after the trip; the extractor, reading "Friday" alone, dates the laksa to the Friday before
the day it was said, which is after the trip ended.  Once the trips are assembled, a meal,
a purchase or a workout of a person is moved to the day of the trip when:

- its date is one day, written by the extractor for a weekday said alone ("on Saturday",
  "Friday morning"; never "last Friday", "this Saturday" or a day of the month);
- a trip of the same person, taken, with its first and last day (or, for a weekday said with
  "the", its last day alone: the week before it holds each weekday once), is told in the same session,
  at most :data:`NEAR` sentences before the record's (or earlier in the same message), and ended before that day and no more
  than :data:`WITHIN_DAYS` before it ("We celebrated Friday at the Omaha Steakhouse", told
  further on, is a dinner at home), and that sentence tells no return ("Back from Enugu since
  the 15th. Friday I had dinner with Emeka at The Lagos Grill": the Friday after, at home)
  other than the way back of the days it tells whole ("flew out Monday the 17th and back on
  Saturday the 22nd"), unless the weekday is said with "the", as of a day of the trip told ("We
  got back from Amsterdam last Friday ... a rijsttafel at Blauw on the Wednesday night");
- the trip's days hold that weekday exactly once (a fortnight away has two Fridays: the
  date stays as it was).

Nothing else is moved.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import TYPE_CHECKING, Any

from ...dates import Period, read_period

if TYPE_CHECKING:
    from ...facts.model import Fact
    from .model import Assembled

#: the kinds whose records are dated by a day of a trip (a run or a swim is as often done at home
#: the week after: workouts keep their date)
KINDS = ("meal", "purchase")
#: the record's sentence follows one of the trip's in its session by at most this many sentences
NEAR = 3
#: a trip ended at most this many days before the weekday's date
WITHIN_DAYS = 14
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: a weekday said alone, and the day the extractor wrote after it
_WEEKDAY = re.compile(
    r"(?<!\blast\s)(?<!\bthis\s)(?<!\bnext\s)(?<!\bthat\s)\b(?P<day>(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
    r"(?:\s+(?:morning|afternoon|evening|night|lunch|arvo))?\s+\((?:on\s+)(?P<when>[^()]+)\)",
    re.I,
)


def _weekday_said(fact: "Fact", day: _dt.date) -> tuple[int, bool] | None:
    """The weekday (0 = Monday) said alone in ``fact`` and written as ``day``, and whether it was
    said with "the" ("on the Wednesday night"), else None."""
    for match in _WEEKDAY.finditer(fact.text):
        told = read_period(match.group("when"))
        if isinstance(told, Period) and told.start == told.end == day:
            weekday = _DAYS.index(match.group("day").lower())
            the = re.search(r"\bthe\s+$", fact.text[: match.start()], re.I) is not None
            return (weekday, the) if weekday == day.weekday() else None
    return None


#: a return told: the days after it are days at home
_RETURN = re.compile(
    r"\b(?:back\s+(?:from|since|home|on)|got\s+back|came\s+back|returned|got\s+home|flew\s+home|home\s+since)\b", re.I
)


#: the trip's days told whole, its way out and back: "flew out Monday the 17th and back on Saturday the
#: 22nd" (the days of the trip, not a return the days after it follow)
_OUT_AND_BACK = re.compile(
    r"\b(?:flew|drove|went|headed|set)\s+(?:out|off|up|down|over)\b[^.;!?]{0,60}?\band\s+(?:flew\s+|drove\s+|came\s+)?back\s+on\b",
    re.I,
)


def _order(fact_id: str) -> int:
    """The place of a fact in its session's log ("s3-f12" -> 12)."""
    match = re.search(r"-f(\d+)$", fact_id)
    return int(match.group(1)) if match else -(10**6)


def _span(trip: dict[str, Any]) -> tuple[_dt.date, _dt.date] | None:
    """The first and last day of a trip: its start and end, or its start told as days ("26 to 29 June")."""
    start, end, nights = trip.get("start"), trip.get("end"), trip.get("nights")
    if isinstance(nights, int) and 0 < nights < 31:
        # "back on the 3rd, 4 nights in Palermo": the nights before its end, or after its start
        if isinstance(end, Period) and not isinstance(start, Period) and end.start == end.end:
            return end.end - _dt.timedelta(days=nights), end.end
        if isinstance(start, Period) and end is None and start.start == start.end:
            return start.start, start.start + _dt.timedelta(days=nights)
    if not isinstance(start, Period):
        return None
    if isinstance(end, Period):
        return start.start, end.end
    return (start.start, start.end) if start.end > start.start and (start.end - start.start).days < 31 else None


def date_within_trips(assembled: dict[str, list["Assembled"]], facts: dict[str, "Fact"]) -> int:
    """Move the records dated by a weekday of a trip to that day (see the module); returns how many."""
    trips = []
    for trip in assembled.get("trip", []):
        span, guessed = _span(trip.fields), False
        end = trip.fields.get("end")
        if span is None and isinstance(end, Period) and end.start == end.end:
            # "We got back from Amsterdam last Friday": its days unknown, the week before its end holds
            # each weekday once -- read only for a weekday said with "the" ("on the Wednesday night")
            span, guessed = (end.end - _dt.timedelta(days=6), end.end), True
        if trip.fields.get("status") == "done" and span is not None:
            # a return told in the session ("Back from Enugu since the 15th") says the days after it were at home
            told = {
                (
                    facts[s].session_id,
                    _order(s),
                    facts[s].evidence[:1],
                    not _RETURN.search(facts[s].text) or bool(_OUT_AND_BACK.search(facts[s].text)),
                )
                for s in trip.sources
                if s in facts
            }
            trips.append((trip.fields.get("person"), span, told, guessed))
    if not trips:
        return 0
    moved = 0
    for kind in KINDS:
        for record in assembled.get(kind, []):
            when = record.fields.get("when")
            if not isinstance(when, Period) or when.start != when.end or not record.sources:
                continue
            fact = facts.get(record.sources[0])
            if fact is None:
                continue
            said = _weekday_said(fact, when.start)
            if said is None:
                continue
            weekday, the = said
            at = _order(fact.id)
            candidates = [
                (first, last)
                for person, (first, last), told, guessed in trips
                if person == record.fields.get("person")
                and (the or not guessed)
                and any(
                    session == fact.session_id
                    and (away or the)  # "on the Wednesday" after a return told is still the trip's Wednesday
                    and (0 <= at - order <= NEAR or (turn == fact.evidence[:1] and at > order))
                    for session, order, turn, away in told
                )
                and last < when.start <= last + _dt.timedelta(days=WITHIN_DAYS)
            ]
            if not candidates:
                continue
            first, last = max(candidates, key=lambda span: span[1])
            days = [first + _dt.timedelta(days=n) for n in range((last - first).days + 1)]
            matching = [d for d in days if d.weekday() == weekday]
            if len(matching) == 1:
                record.fields["when"] = Period.day(matching[0])
                moved += 1
    return moved
