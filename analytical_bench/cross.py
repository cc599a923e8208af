"""Cross-domain cases: questions that join two record types.

Each join draws both collections from the case's ``random.Random`` (so the
two collections share names or dates where the join needs them) and returns
``(primary type, primary records, related collections, Built)``, or ``None``
when the drawn data would give an empty or degenerate answer.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

from .patterns import ATTEMPTS, Built
from .record_types import RECORD_TYPES, Record

MONTHS = ("January February March April May June July August September October November December").split()

Joined = tuple[str, list[Record], dict[str, list[Record]], Built]


def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def meals_during_trips(rng: random.Random, n: int) -> Joined | None:
    trips = RECORD_TYPES["trips"].generate(rng, n)
    meals = RECORD_TYPES["meals"].generate(rng, n)
    during: list[Record] = []
    trips_used: list[Record] = []
    for meal in meals:
        day = _d(meal["date"])
        hosts = [t for t in trips if _d(t["start_date"]) <= day <= _d(t["end_date"])]
        if hosts:
            during.append(meal)
            trips_used.extend(t for t in hosts if t not in trips_used)
    if not during:
        return None
    question = (
        "How many of my meals have a date that falls within one of my trips "
        "(between the trip's start_date and end_date, inclusive)?"
    )
    support = [m["id"] for m in during] + sorted(t["id"] for t in trips_used)
    return "trips", trips, {"meals": meals}, Built(question, "int", len(during), support)


def month_spending(rng: random.Random, n: int) -> Joined | None:
    trips = RECORD_TYPES["trips"].generate(rng, n)
    meals = RECORD_TYPES["meals"].generate(rng, n)
    for _ in range(ATTEMPTS):
        anchor = rng.choice(trips)
        year, month = int(anchor["start_date"][:4]), int(anchor["start_date"][5:7])
        prefix = f"{year:04d}-{month:02d}"
        trips_in = [t for t in trips if t["start_date"].startswith(prefix)]
        meals_in = [m for m in meals if m["date"].startswith(prefix)]
        if not meals_in:
            continue
        total = round(sum(t["cost"] for t in trips_in) + sum(m["cost"] for m in meals_in), 2)
        question = (
            f"In {MONTHS[month - 1]} {year}, how much did I spend in total on trips (counted by start_date, "
            f"field cost) and meals (field cost) combined, in USD?"
        )
        support = [t["id"] for t in trips_in] + [m["id"] for m in meals_in]
        return "trips", trips, {"meals": meals}, Built(question, "float", total, support)
    return None


def workout_and_sleep_days(rng: random.Random, n: int) -> Joined | None:
    workouts = RECORD_TYPES["workouts"].generate(rng, n)
    sleep = RECORD_TYPES["sleep"].generate(rng, n)
    hours = rng.choice((6.5, 7.0, 7.5, 8.0))
    slept = {s["date"]: s for s in sleep if s["hours"] > hours}
    matching = [w for w in workouts if w["date"] in slept]
    if not matching:
        return None
    question = (
        f"On how many dates did I both log a workout and sleep more than {hours:.1f} hours "
        f"(a sleep record with the same date)?"
    )
    support = [w["id"] for w in matching] + [slept[w["date"]]["id"] for w in matching]
    return "workouts", workouts, {"sleep": sleep}, Built(question, "int", len(matching), support)


def meeting_minutes_by_relationship(rng: random.Random, n: int) -> Joined | None:
    contacts = RECORD_TYPES["contacts"].generate(rng, n)
    meetings = RECORD_TYPES["meetings"].generate(rng, n)
    for meeting in meetings:
        meeting["with_person"] = rng.choice(contacts)["name"]
    relationship = rng.choice(sorted({c["relationship"] for c in contacts}))
    people = {c["name"]: c for c in contacts if c["relationship"] == relationship}
    matching = [m for m in meetings if m["with_person"] in people]
    if not matching:
        return None
    total = sum(m["duration_min"] for m in matching)
    question = (
        f"How many minutes in total did I spend in meetings with people who are in my contacts with "
        f'relationship "{relationship}"?'
    )
    people_used = sorted({people[m["with_person"]]["id"] for m in matching})
    support = [m["id"] for m in matching] + people_used
    return "meetings", meetings, {"contacts": contacts}, Built(question, "int", total, support)


def quarter_spending(rng: random.Random, n: int) -> Joined | None:
    transactions = RECORD_TYPES["transactions"].generate(rng, n)
    purchases = RECORD_TYPES["purchases"].generate(rng, n)
    anchor = rng.choice(purchases)
    year, quarter = int(anchor["date"][:4]), (int(anchor["date"][5:7]) - 1) // 3 + 1

    def inside(record: Record) -> bool:
        return int(record["date"][:4]) == year and (int(record["date"][5:7]) - 1) // 3 + 1 == quarter

    txns = [t for t in transactions if inside(t)]
    bought = [p for p in purchases if inside(p)]
    total = round(sum(t["amount"] for t in txns) + sum(p["price"] * p["quantity"] for p in bought), 2)
    question = (
        f"What did I spend in total in Q{quarter} {year}, counting every transaction (field amount) and "
        f"every purchase (price times quantity), in USD?"
    )
    support = [t["id"] for t in txns] + [p["id"] for p in bought]
    return "transactions", transactions, {"purchases": purchases}, Built(question, "float", total, support)


JOINS: dict[str, Callable[[random.Random, int], Joined | None]] = {
    "meals_during_trips": meals_during_trips,
    "month_spending": month_spending,
    "workout_sleep_days": workout_and_sleep_days,
    "meeting_minutes_by_relationship": meeting_minutes_by_relationship,
    "quarter_spending": quarter_spending,
}
