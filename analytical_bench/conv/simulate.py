"""A seeded life: what a person did over ``size`` chat sessions, and which session tells what.

:func:`simulate` walks the session dates in order.  Each session the user
reports what happened since the last one (a trip just finished, meals out,
purchases, workouts, a book finished), makes plans (a trip that a later
session reports as taken or called off), corrects what they said earlier
(a trip's nights), returns a purchase, changes job or home.  Every report is
a :class:`Mention` of an event in a session; the teller
(:mod:`.teller`) puts mentions into words.  The events, with the sessions that
mention them, are the ledger's.

Distractors -- things said that must not count -- are mentions too, of no
event.  Everything comes from one ``random.Random`` seeded with the seed and
the size, so the same arguments give the same life.
"""

from __future__ import annotations

import datetime as _dt
import random
from dataclasses import dataclass, field
from typing import Any

from . import names as N
from .ledger import LedgerError

MIN_SESSIONS, MAX_SESSIONS = 10, 500
FIRST_DAY = _dt.date(2022, 1, 10)
#: a plan is resolved (taken or called off) this many sessions after it was made, at most
PLAN_HORIZON = 6


@dataclass
class Mention:
    """One thing a session tells: ``what`` happened to event ``event`` (None for a distractor)."""

    session: int
    what: str
    event: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Life:
    seed: int
    user: str
    currency: str
    rates: dict[str, float]
    days: list[_dt.date]
    events: dict[str, dict[str, Any]]  # id -> ledger fields (kind included), in creation order
    mentions: list[Mention]

    def session_id(self, index: int) -> str:
        return f"s{index + 1:03d}"


def _iso(day: _dt.date) -> str:
    return day.isoformat()


class _Simulator:
    def __init__(self, seed: int, size: int) -> None:
        self.rng = random.Random(f"uac-conv:{seed}:{size}")
        rng = self.rng
        self.user = rng.choice(N.USERS)
        self.currency = rng.choice(tuple(N.CURRENCIES))
        self.rates = {code: rate for code, rate in N.CURRENCIES[self.currency].items()}
        day = FIRST_DAY + _dt.timedelta(days=rng.randrange(0, 60))
        self.days = []
        for _ in range(size):
            self.days.append(day)
            day += _dt.timedelta(days=rng.choice((2, 3, 3, 4, 5, 6)))
        self.events: dict[str, dict[str, Any]] = {}
        self.mentions: list[Mention] = []
        self.counter = 0
        self.friends = rng.sample(N.FRIENDS, 6)
        self.regulars = rng.sample(N.RESTAURANTS, 4)  # places the user goes back to
        self.pending: dict[int, list[tuple[str, str]]] = {}  # session -> (action, event id)
        self.busy_until = FIRST_DAY  # no new trip overlaps one already taken or planned
        self.job: str | None = None
        self.home: str | None = None
        self.used_destinations: list[str] = []

    # -- helpers ------------------------------------------------------------------------

    def new_id(self, kind: str) -> str:
        self.counter += 1
        return f"{kind}-{self.counter:04d}"

    def add(self, kind: str, **fields: Any) -> str:
        event_id = self.new_id(kind)
        # ``with_`` stands for the ledger's ``with`` (a Python keyword)
        self.events[event_id] = {"kind": kind, **{k.rstrip("_"): v for k, v in fields.items() if v is not None}}
        return event_id

    def mention(self, session: int, what: str, event: str | None = None, **data: Any) -> None:
        self.mentions.append(Mention(session, what, event, data))

    def later(self, session: int, action: str, event_id: str) -> None:
        self.pending.setdefault(session, []).append((action, event_id))

    def company(self) -> list[str]:
        roll = self.rng.random()
        if roll < 0.35:
            return []
        if roll < 0.8:
            return [self.rng.choice(self.friends)]
        return sorted(self.rng.sample(self.friends, 2))

    def past_day(self, i: int) -> _dt.date:
        """A day since the previous session (at most 6 days back), never before it."""
        gap = (self.days[i] - self.days[i - 1]).days if i else 6
        return self.days[i] - _dt.timedelta(days=self.rng.randrange(0, min(gap, 6) + 1))

    def amount(self, low: float, high: float, *, cents: bool = False) -> float:
        value = self.rng.uniform(low, high)
        return round(value, 2) if cents else float(round(value))

    def foreign(self) -> str:
        return self.rng.choice(tuple(self.rates))

    # -- the kinds ----------------------------------------------------------------------

    def intro(self) -> None:
        employer, title = self.rng.choice(N.EMPLOYERS), self.rng.choice(N.TITLES)
        since = self.days[0].year - self.rng.randrange(1, 5)
        self.job = self.add("job", employer=employer, title=title, start=str(since))
        self.mention(0, "job_intro", self.job)
        city, country = self.rng.choice(N.CITIES)
        self.home = self.add("home", city=city, country=country, start=str(since - self.rng.randrange(0, 3)))
        self.mention(0, "home_intro", self.home)

    def trip_done(self, i: int) -> None:
        end = self.past_day(i)
        nights = self.rng.choice((2, 3, 3, 4, 5, 6, 7))
        start = end - _dt.timedelta(days=nights)
        if start <= self.busy_until:
            return
        place = self.destination()
        told = nights
        corrected = self.rng.random() < 0.15 and i + 1 < len(self.days)
        if corrected:
            told = nights + self.rng.choice((-1, 1))
        trip = self.add_trip("done", place, start, end, nights)
        self.mention(i, "trip_done", trip, nights=told)
        if corrected:
            self.later(min(i + self.rng.randrange(1, 3), len(self.days) - 1), "trip_correct", trip)

    def destination(self) -> tuple[str, str]:
        fresh = [d for d in N.DESTINATIONS if d[0] not in self.used_destinations[-6:]]
        dest = self.rng.choice(fresh)
        self.used_destinations.append(dest[0])
        return dest

    def add_trip(
        self, status: str, place: tuple[str, str], start: _dt.date, end: _dt.date, nights: int, **more: Any
    ) -> str:
        """A trip to ``place`` (destination, country) from ``start`` to ``end``, with company drawn last;
        no later trip starts before it ends."""
        destination, country = place
        trip = self.add(
            "trip",
            status=status,
            destination=destination,
            country=country,
            start=_iso(start),
            end=_iso(end),
            nights=nights,
            **more,
            with_=self.company(),
        )
        self.busy_until = end
        return trip

    def trip_plan(self, i: int) -> None:
        ahead = self.rng.randrange(2, PLAN_HORIZON + 1)
        nights = self.rng.choice((2, 3, 4, 5, 7))
        start = self.days[i] + _dt.timedelta(days=self.rng.randrange(4, 4 + 3 * ahead))
        if start <= self.busy_until + _dt.timedelta(days=1):
            return
        end = start + _dt.timedelta(days=nights)
        place = self.destination()
        outcome = i + ahead  # the session that reports the trip's fate
        while outcome < len(self.days) and self.days[outcome] <= end:
            outcome += 1
        if outcome >= len(self.days) and start <= self.days[-1]:
            return  # its fate would fall after the last session: no plan that the chats leave hanging
        trip = self.add_trip("planned", place, start, end, nights, planned_on=_iso(self.days[i]))
        self.mention(i, "trip_plan", trip)
        if outcome < len(self.days):
            cancel = self.rng.random() < 0.3
            # a plan is called off before it starts: in the last session between the plan and the start
            before = [j for j in range(i + 1, outcome) if self.days[j] < start]
            if cancel and before:
                self.later(before[-1], "trip_cancel", trip)
            else:
                self.later(outcome, "trip_taken", trip)

    def meal(self, i: int) -> None:
        place = self.rng.choice(self.regulars) if self.rng.random() < 0.45 else self.rng.choice(N.RESTAURANTS)
        currency = self.currency if self.rng.random() < 0.85 else self.foreign()
        meal = self.add(
            "meal",
            place=place,
            date=_iso(self.past_day(i)),
            amount=self.amount(12, 95),
            currency=currency,
            meal=self.rng.choice(("lunch", "dinner", "dinner", "brunch")),
            with_=self.company(),
        )
        self.mention(i, "meal", meal)

    def purchase(self, i: int) -> None:
        item, low, high, where = self.rng.choice(N.ITEMS)
        currency = self.currency if self.rng.random() < 0.75 else self.foreign()
        bought = self.add(
            "purchase",
            item=item,
            date=_iso(self.past_day(i)),
            amount=self.amount(low, high, cents=True),
            currency=currency,
            where=where,
        )
        self.mention(i, "purchase", bought)
        if self.rng.random() < 0.15 and i + 1 < len(self.days):
            self.events[bought]["returned"] = False
            self.later(min(i + self.rng.randrange(1, 4), len(self.days) - 1), "purchase_return", bought)

    def workout(self, i: int) -> None:
        activity, low, high, pace = self.rng.choice(N.ACTIVITIES)
        distance = round(self.rng.uniform(low, high), 1)
        workout = self.add(
            "workout",
            activity=activity,
            date=_iso(self.past_day(i)),
            distance_km=distance,
            duration_min=int(round(distance * pace * self.rng.uniform(0.9, 1.1))),
        )
        self.mention(i, "workout", workout)

    def book(self, i: int) -> None:
        read = {e["title"] for e in self.events.values() if e["kind"] == "book"}
        left = [b for b in N.BOOKS if b[0] not in read]
        if not left:
            return
        title, author = self.rng.choice(left)
        book = self.add("book", title=title, author=author, finished=_iso(self.past_day(i)))
        self.mention(i, "book", book)

    @staticmethod
    def settled(old: dict[str, Any], change: _dt.date) -> bool:
        """Whether a job or home begun on ``old["start"]`` can end before ``change`` (a month at least)."""
        start = str(old["start"])
        return len(start) < 10 or _dt.date.fromisoformat(start) + _dt.timedelta(days=30) < change

    def job_change(self, i: int) -> None:
        old = self.events[self.job]
        employer = self.rng.choice([e for e in N.EMPLOYERS if e != old["employer"]])
        start = self.past_day(i)
        if not self.settled(old, start):
            return
        old["end"] = _iso(start - _dt.timedelta(days=1))
        self.job = self.add("job", employer=employer, title=self.rng.choice(N.TITLES), start=_iso(start))
        self.mention(i, "job_change", self.job, previous=old["employer"])

    def move(self, i: int) -> None:
        old = self.events[self.home]
        city, country = self.rng.choice([c for c in N.CITIES if c[0] != old["city"]])
        start = self.past_day(i)
        if not self.settled(old, start):
            return
        old["end"] = _iso(start - _dt.timedelta(days=1))
        self.home = self.add("home", city=city, country=country, start=_iso(start))
        self.mention(i, "move", self.home, previous=old["city"])

    def distractor(self, i: int) -> None:
        why = self.rng.choice(("other_person", "wish", "looked_not_bought", "cooked_at_home", "hypothetical"))
        self.mention(i, why)

    # -- the walk -----------------------------------------------------------------------

    def run(self) -> Life:
        rng = self.rng
        self.intro()
        choices = (
            (self.meal, 30),
            (self.purchase, 16),
            (self.workout, 16),
            (self.trip_done, 9),
            (self.trip_plan, 7),
            (self.book, 7),
            (self.distractor, 12),
        )
        actions, weights = zip(*choices)
        for i in range(len(self.days)):
            for action, event_id in self.pending.pop(i, []):
                self.resolve(i, action, event_id)
            for _ in range(rng.choice((1, 2, 2, 3))):
                rng.choices(actions, weights)[0](i)
            if i > 3 and rng.random() < 0.025:
                self.job_change(i)
            elif i > 3 and rng.random() < 0.015:
                self.move(i)
            if rng.random() < 0.5:
                self.mention(i, "small_talk")
        return Life(0, self.user, self.currency, self.rates, self.days, self.events, self.mentions)

    def resolve(self, i: int, action: str, event_id: str) -> None:
        event = self.events[event_id]
        if action == "trip_taken":
            event["status"] = "done"
            self.mention(i, "trip_taken", event_id)
        elif action == "trip_cancel":
            event["status"] = "cancelled"
            event.pop("nights", None)
            self.mention(i, "trip_cancel", event_id)
        elif action == "trip_correct":
            self.mention(i, "trip_correct", event_id, told=self.told_nights(event_id))
        elif action == "purchase_return":
            event["returned"] = True
            self.mention(i, "purchase_return", event_id)

    def told_nights(self, event_id: str) -> int:
        return next(m.data["nights"] for m in self.mentions if m.event == event_id and m.what == "trip_done")


def simulate(seed: int, size: int) -> Life:
    """The life told in ``size`` sessions (``MIN_SESSIONS`` to ``MAX_SESSIONS``), seeded by ``seed``."""
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SESSIONS <= size <= MAX_SESSIONS:
        raise LedgerError(
            f"a history has {MIN_SESSIONS} to {MAX_SESSIONS} sessions, not {size!r}.",
            hint="Choose sizes such as 10,50,200.",
        )
    life = _Simulator(seed, size).run()
    life.seed = seed
    return life
