"""The ledger of a person's life: what really happened, against which a memory is scored.

A ledger is the gold beside a chat history: every trip, meal out, purchase,
job, workout, book and home the user reported, with the sessions that told
it, and the distractors the chats contain that must not count (other
people's trips, wishes, things looked at but not bought, meals cooked at
home, the assistant's suggestions).  Hand-written evaluation sets and the
generated conversational benchmark share this one format (``ledger.json``)::

    {"format": "uac-ledger/1", "user": "Maya", "currency": "GBP",
     "rates": {"EUR": 0.86, "USD": 0.79},
     "events": [{"id": "trip-lisbon", "kind": "trip", "status": "done",
                 "destination": "Lisbon", "country": "PT",
                 "start": "2024-03-02", "end": "2024-03-07", "nights": 5,
                 "with": ["Chloe"], "planned_on": "2024-01-20",
                 "sessions": ["s03", "s05"]}, ...],
     "distractors": [{"session": "s04", "text": "I'd love to see Japan one day",
                      "why": "wish"}]}

Dates are ISO and may be partial (``2024-03-02``, ``2024-03``, ``2024``); a
job or home without ``end`` is the current one.  ``rates`` convert other
currencies into ``currency`` for sums.  :func:`load_ledger` refuses a ledger
that cannot be a gold: an unknown kind or field, a missing required field, a
date that is not one, a trip that starts before it was planned, a cancelled
trip with nights, an end before its start, two trips taken at once, two
current homes, a done trip ending after ``today`` (the history's last day, when given).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uac import UserError

FORMAT = "uac-ledger/1"

#: kind -> (required fields, optional fields); every event also has ``id`` and ``sessions``
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "trip": (("status", "destination"), ("country", "start", "end", "nights", "with", "planned_on", "purpose")),
    "meal": (("place",), ("date", "amount", "currency", "with", "meal")),
    "purchase": (("item",), ("date", "amount", "currency", "where", "returned")),
    "job": (("employer",), ("title", "start", "end")),
    "workout": (("activity",), ("date", "distance_km", "duration_min")),
    "book": (("title",), ("author", "finished")),
    "home": (("city",), ("country", "start", "end")),
}
TRIP_STATUSES = ("done", "planned", "cancelled")
DISTRACTOR_REASONS = (
    "wish",
    "other_person",
    "looked_not_bought",
    "cooked_at_home",
    "assistant",
    "hypothetical",
    "small_talk",
    "other",
)
_DATE_FIELDS = ("start", "end", "date", "finished", "planned_on")
_NUMBER_FIELDS = ("nights", "amount", "distance_km", "duration_min")
_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


class LedgerError(UserError):
    """A ledger that cannot serve as a gold (the message names the event and the fix)."""


@dataclass(frozen=True)
class Span:
    """A partial ISO date as the days it covers: ``2024-03`` is 1 to 31 March."""

    text: str
    first: _dt.date
    last: _dt.date

    @classmethod
    def parse(cls, text: str, where: str) -> "Span":
        match = _DATE.match(text.strip()) if isinstance(text, str) else None
        if not match:
            raise LedgerError(f"{where}: {text!r} is not a date.", hint="Write YYYY-MM-DD, YYYY-MM or YYYY.")
        year, month, day = match.group(1), match.group(2), match.group(3)
        try:
            if day:
                first = last = _dt.date(int(year), int(month), int(day))
            elif month:
                first = _dt.date(int(year), int(month), 1)
                nxt = _dt.date(first.year + (first.month == 12), first.month % 12 + 1, 1)
                last = nxt - _dt.timedelta(days=1)
            else:
                first, last = _dt.date(int(year), 1, 1), _dt.date(int(year), 12, 31)
        except ValueError as exc:
            raise LedgerError(f"{where}: {text!r} is not a date ({exc}).") from exc
        return cls(text.strip(), first, last)

    def overlaps(self, first: _dt.date, last: _dt.date, slack_days: int = 0) -> bool:
        slack = _dt.timedelta(days=slack_days)
        return self.first - slack <= last and first <= self.last + slack


@dataclass(frozen=True)
class Event:
    """One thing that happened (or was planned): its kind, fields and the sessions telling it."""

    id: str
    kind: str
    fields: dict[str, Any]
    sessions: tuple[str, ...] = ()

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def span(self, name: str) -> Span | None:
        value = self.fields.get(name)
        return Span.parse(value, f"event {self.id!r} field {name!r}") if value else None

    @property
    def current(self) -> bool:
        """A job or home without an end is the current one."""
        return self.kind in ("job", "home") and not self.fields.get("end")


@dataclass(frozen=True)
class Distractor:
    """Something a session says that must not count, and why (one of :data:`DISTRACTOR_REASONS`)."""

    session: str
    text: str
    why: str

    @classmethod
    def parse(cls, raw: Any, where: str) -> "Distractor":
        """A distractor from its JSON value (``where`` names it in an error)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
            raise LedgerError(f'{where} needs a "text".')
        why = raw.get("why", "other")
        if why not in DISTRACTOR_REASONS:
            raise LedgerError(f"{where}: why {why!r} is none of {', '.join(DISTRACTOR_REASONS)}.")
        return cls(str(raw.get("session", "")), raw["text"], why)

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "text": self.text, "why": self.why}


@dataclass(frozen=True)
class Ledger:
    user: str
    currency: str
    rates: dict[str, float]
    events: tuple[Event, ...]
    distractors: tuple[Distractor, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def of_kind(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def convert(self, amount: float, currency: str | None) -> float:
        """``amount`` in the ledger's currency (a currency without a rate is refused)."""
        if not currency or currency == self.currency:
            return float(amount)
        if currency not in self.rates:
            raise LedgerError(
                f"no exchange rate for {currency} in the ledger.", hint=f'Add "rates": {{"{currency}": ...}}.'
            )
        return float(amount) * self.rates[currency]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "user": self.user,
            "currency": self.currency,
            "rates": dict(self.rates),
            "events": [{"id": e.id, "kind": e.kind, **e.fields, "sessions": list(e.sessions)} for e in self.events],
            "distractors": [d.to_json() for d in self.distractors],
            **self.extra,
        }


def _check_event(raw: Any, index: int) -> Event:
    where = f"event {index + 1}"
    if not isinstance(raw, dict):
        raise LedgerError(f"{where} is not an object.")
    event_id = raw.get("id")
    if not isinstance(event_id, str) or not event_id:
        raise LedgerError(f'{where} has no "id".')
    where = f"event {event_id!r}"
    kind = raw.get("kind")
    if kind not in KINDS:
        raise LedgerError(f"{where}: unknown kind {kind!r}.", hint=f"Use one of {', '.join(KINDS)}.")
    required, optional = KINDS[kind]
    fields = {k: v for k, v in raw.items() if k not in ("id", "kind", "sessions")}
    unknown = sorted(set(fields) - set(required) - set(optional))
    if unknown:
        raise LedgerError(
            f"{where}: unknown field(s) {', '.join(unknown)} for a {kind}.",
            hint=f"A {kind} has {', '.join(required + optional)}.",
        )
    missing = [name for name in required if fields.get(name) in (None, "")]
    if missing:
        raise LedgerError(f"{where}: a {kind} needs {', '.join(missing)}.")
    for name in _DATE_FIELDS:
        if fields.get(name) is not None:
            Span.parse(fields[name], f"{where} field {name!r}")
    for name in _NUMBER_FIELDS:
        value = fields.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            raise LedgerError(f"{where}: {name} must be a number of at least 0, not {value!r}.")
    if fields.get("amount") is not None and not re.fullmatch(r"[A-Z]{3}", str(fields.get("currency") or "")):
        raise LedgerError(f"{where}: an amount needs its currency as an ISO 4217 code (EUR, GBP, USD).")
    sessions = raw.get("sessions", [])
    if not isinstance(sessions, list) or not all(isinstance(s, str) for s in sessions):
        raise LedgerError(f'{where}: "sessions" must be a list of session ids.')
    event = Event(event_id, kind, fields, tuple(sessions))
    start, end = event.span("start"), event.span("end")
    if start and end and end.last < start.first:
        raise LedgerError(f"{where}: it ends ({end.text}) before it starts ({start.text}).")
    if kind == "trip":
        if fields["status"] not in TRIP_STATUSES:
            raise LedgerError(f"{where}: status {fields['status']!r} is none of {', '.join(TRIP_STATUSES)}.")
        if fields["status"] == "cancelled" and fields.get("nights"):
            raise LedgerError(
                f"{where}: a cancelled trip has no nights ({fields['nights']}).",
                hint='Drop "nights" or make the trip done or planned.',
            )
        planned = event.span("planned_on")
        if planned and start and start.last < planned.first:
            raise LedgerError(f"{where}: the trip starts ({start.text}) before it was planned ({planned.text}).")
    return event


def _check_together(events: tuple[Event, ...], source: str, today: Any) -> None:
    """What no single event shows: two trips taken at once, two current homes, a trip
    taken after the history's last day (``today``)."""
    done = sorted(
        (
            (e.span("start"), e.span("end"), e)
            for e in events
            if e.kind == "trip" and e.get("status") == "done" and e.get("start") and e.get("end")
        ),
        key=lambda t: t[0].first,
    )
    for (_s1, end1, first), (start2, _e2, second) in zip(done, done[1:]):
        if len(end1.text) == len(start2.text) == 10 and start2.first < end1.last:
            raise LedgerError(
                f"{source}: trips {first.id!r} and {second.id!r} were both taken on {start2.text}.",
                hint="A person takes one trip at a time: fix the dates.",
            )
    homes = [e.id for e in events if e.kind == "home" and e.current]
    if len(homes) > 1:
        raise LedgerError(
            f"{source}: {', '.join(homes)} are all current homes.", hint='Give every home but the current one an "end".'
        )
    if today is not None:
        last = Span.parse(today, f"{source} field 'today'")
        for event in events:
            if event.kind == "trip" and event.get("status") == "done" and event.get("end"):
                if event.span("end").first > last.last:
                    raise LedgerError(
                        f"{source}: trip {event.id!r} is done but ends ({event.get('end')}) after "
                        f"the history's last day ({today}).",
                        hint="Make it planned, or fix its dates.",
                    )


def parse_ledger(value: Any, source: str = "ledger") -> Ledger:
    """A checked :class:`Ledger` from its JSON value (see the module doc)."""
    if not isinstance(value, dict):
        raise LedgerError(f"{source} is not a JSON object.")
    if value.get("format") != FORMAT:
        raise LedgerError(f"{source}: format is {value.get('format')!r}, not {FORMAT!r}.")
    user = value.get("user")
    if not isinstance(user, str) or not user:
        raise LedgerError(f'{source} names no "user".')
    currency = value.get("currency", "EUR")
    rates = value.get("rates", {})
    if not isinstance(rates, dict) or not all(isinstance(r, (int, float)) and r > 0 for r in rates.values()):
        raise LedgerError(f'{source}: "rates" must map currency codes to positive numbers.')
    raw_events = value.get("events")
    if not isinstance(raw_events, list):
        raise LedgerError(f'{source} has no "events" list.')
    events = tuple(_check_event(raw, i) for i, raw in enumerate(raw_events))
    seen: set[str] = set()
    for event in events:
        if event.id in seen:
            raise LedgerError(f"{source}: event id {event.id!r} appears twice.")
        seen.add(event.id)
    _check_together(events, source, value.get("today"))
    distractors = [
        Distractor.parse(raw, f"{source}: distractor {i + 1}") for i, raw in enumerate(value.get("distractors", []))
    ]
    known = {"format", "user", "currency", "rates", "events", "distractors"}  # "today" and others: extra
    extra = {k: v for k, v in value.items() if k not in known}
    return Ledger(user, currency, {k: float(v) for k, v in rates.items()}, events, tuple(distractors), extra)


def load_ledger(path: str | Path) -> Ledger:
    path = Path(path)
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LedgerError(f"cannot read the ledger {path}: {exc.strerror or exc}.") from exc
    except json.JSONDecodeError as exc:
        raise LedgerError(f"{path} is not JSON ({exc.msg} at line {exc.lineno}).") from exc
    return parse_ledger(value, str(path))
