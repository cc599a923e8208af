"""Questions about a ledger, each with its exact gold and its reference program (a :class:`~.query.Query`).

Question kinds: ``count``, ``sum`` (money at the ledger's stated rates),
``max``/``min``, ``distinct``, the filters ``time``, ``place`` and
``company``, ``as_of``, ``current``, and ``recall`` (one fact, the control).
:func:`make_questions` asks, for any ledger (generated or hand-written), the
questions whose golds it can compute, with parameters drawn from a seeded
stream; :func:`check_question` refuses a question whose gold cannot be
computed or is not the one stated.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Callable

from .ledger import Ledger
from .query import GoldError, Query, ledger_items
from .view_score import normalize
from .words import MONTHS

QUESTION_KINDS = ("count", "sum", "max", "min", "distinct", "time", "place", "company", "as_of", "current", "recall")


@dataclass(frozen=True)
class Question:
    id: str
    kind: str  # one of QUESTION_KINDS
    text: str
    answer_kind: str  # int | float | string | set (analytical_bench.scoring)
    query: Query
    gold: Any

    def to_json(self) -> dict[str, Any]:
        """Its fields in order, the query in its own JSON form."""
        return {**asdict(self), "query": self.query.to_json()}


def gold_of(query: Query, ledger: Ledger) -> Any:
    return query.evaluate(ledger_items(ledger, query.kind), ledger, strict=True)


def check_question(value: dict[str, Any], ledger: Ledger) -> Question:
    """A question read from a file, its gold recomputed from ``ledger`` (refused when it differs)."""
    where = f"question {value.get('id', '?')!r}"
    if value.get("kind") not in QUESTION_KINDS or value.get("answer_kind") not in ("int", "float", "string", "set"):
        raise GoldError(
            f"{where}: kind must be one of {', '.join(QUESTION_KINDS)} and answer_kind int/float/string/set."
        )
    query = Query.from_json(value.get("query") or {})
    try:
        gold = gold_of(query, ledger)
    except GoldError as exc:
        raise GoldError(
            f"{where}: its gold cannot be computed from the ledger: {exc}", hint="Fix the question or the ledger."
        ) from exc
    if "gold" in value and _plain(value["gold"]) != _plain(gold):
        raise GoldError(
            f"{where}: the stated gold {value['gold']!r} is not the ledger's {gold!r}.",
            hint="Regenerate the questions from the ledger.",
        )
    return Question(str(value["id"]), value["kind"], str(value["text"]), value["answer_kind"], query, gold)


def _plain(value: Any) -> Any:
    return sorted(normalize(v) for v in value) if isinstance(value, list) else value


def _rates(ledger: Ledger) -> str:
    if not ledger.rates:
        return ""
    parts = [f"1 {code} = {rate:g} {ledger.currency}" for code, rate in sorted(ledger.rates.items())]
    return f" (convert at {' and '.join(parts)})"


def _month(text: str) -> str:
    year, month = text.split("-")
    return f"{MONTHS[int(month) - 1]} {year}"


def _day(day: str) -> str:
    d = _dt.date.fromisoformat(day)
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


Template = Callable[[Ledger, random.Random], "tuple[str, str, str, Query] | None"]


def _templates() -> list[Template]:
    def done_trips(ledger):
        return [e for e in ledger.of_kind("trip") if e.get("status") == "done"]

    def pick(rng, values):
        values = sorted(set(v for v in values if v))
        return rng.choice(values) if values else None

    def months(events, name):
        return [str(e.get(name))[:7] for e in events if e.get(name) and len(str(e.get(name))) >= 7]

    def t_trips(ledger, rng):
        return "count", "How many trips have I taken?", "int", Query("trip", "count", (("status", "done"),))

    def t_meals(ledger, rng):
        return "count", "How many times have I eaten out?", "int", Query("meal", "count")

    def t_books(ledger, rng):
        return "count", "How many books have I finished?", "int", Query("book", "count")

    def t_cancelled(ledger, rng):
        return (
            "count",
            "How many trips did I plan and then cancel?",
            "int",
            Query("trip", "count", (("status", "cancelled"),)),
        )

    def t_activity(ledger, rng):
        activity = pick(rng, [e.get("activity") for e in ledger.of_kind("workout")])
        return activity and (
            "count",
            f"How many {activity} workouts have I done?",
            "int",
            Query("workout", "count", (("key", activity),)),
        )

    def t_nights(ledger, rng):
        return (
            "sum",
            "How many nights have I spent away on trips in total?",
            "int",
            Query("trip", "sum", (("status", "done"),), "nights"),
        )

    def t_meal_money(ledger, rng):
        return (
            "sum",
            f"How much have I spent on meals out in total, in {ledger.currency}{_rates(ledger)}?",
            "float",
            Query("meal", "sum", (), "amount"),
        )

    def t_purchase_money(ledger, rng):
        return (
            "sum",
            (
                f"How much have I spent on purchases in total, in {ledger.currency}{_rates(ledger)}, "
                "not counting what I returned?"
            ),
            "float",
            Query("purchase", "sum", (("returned", False),), "amount"),
        )

    def t_distance(ledger, rng):
        activity = pick(rng, [e.get("activity") for e in ledger.of_kind("workout")])
        return activity and (
            "sum",
            f"How many kilometres have I covered in total in my {activity} workouts?",
            "float",
            Query("workout", "sum", (("key", activity),), "distance_km"),
        )

    def t_longest_trip(ledger, rng):
        return (
            "max",
            "Where did I go on my longest trip (the most nights)?",
            "string",
            Query("trip", "argmax", (("status", "done"),), "nights"),
        )

    def t_priciest_meal(ledger, rng):
        return (
            "max",
            f"What is the most I have spent on one meal out, in {ledger.currency}{_rates(ledger)}?",
            "float",
            Query("meal", "max", (), "amount"),
        )

    def t_longest_workout(ledger, rng):
        activity = pick(rng, [e.get("activity") for e in ledger.of_kind("workout")])
        return activity and (
            "max",
            f"How long, in km, was my longest {activity} workout?",
            "float",
            Query("workout", "max", (("key", activity),), "distance_km"),
        )

    def t_cheapest(ledger, rng):
        return (
            "min",
            f"What is the cheapest thing I have bought{_rates(ledger)}? Name the item.",
            "string",
            Query("purchase", "argmin", (), "amount"),
        )

    def t_shortest_trip(ledger, rng):
        return (
            "min",
            "What was the fewest nights I spent away on one trip?",
            "int",
            Query("trip", "min", (("status", "done"),), "nights"),
        )

    def t_places(ledger, rng):
        return (
            "distinct",
            "Which places have I travelled to? List them.",
            "set",
            Query("trip", "distinct", (("status", "done"),)),
        )

    def t_repeated(ledger, rng):
        return (
            "distinct",
            "Which restaurants have I been to more than once? List them.",
            "set",
            Query("meal", "repeated"),
        )

    def t_authors(ledger, rng):
        return (
            "distinct",
            "Which authors have I finished a book by? List them.",
            "set",
            Query("book", "distinct", (), "author"),
        )

    def t_trips_year(ledger, rng):
        year = pick(rng, [str(e.get("start"))[:4] for e in done_trips(ledger) if e.get("start")])
        return year and (
            "time",
            f"How many trips did I take in {year}?",
            "int",
            Query("trip", "count", (("status", "done"), ("year", int(year)))),
        )

    def t_meals_month(ledger, rng):
        month = pick(rng, months(ledger.of_kind("meal"), "date"))
        return month and (
            "time",
            f"How many times did I eat out in {_month(month)}?",
            "int",
            Query("meal", "count", (("month", month),)),
        )

    def t_spend_year(ledger, rng):
        year = pick(rng, [str(e.get("date"))[:4] for e in ledger.of_kind("purchase") if e.get("date")])
        return year and (
            "time",
            f"How much did I spend on purchases in {year}, in {ledger.currency}{_rates(ledger)}, returns included?",
            "float",
            Query("purchase", "sum", (("year", int(year)),), "amount"),
        )

    def t_place_meals(ledger, rng):
        counts = Counter(e.get("place") for e in ledger.of_kind("meal"))
        place = pick(rng, [p for p, n in counts.items() if n > 1] or list(counts))
        return place and (
            "place",
            f"How many times have I eaten at {place}?",
            "int",
            Query("meal", "count", (("key", place),)),
        )

    def t_place_trips(ledger, rng):
        dest = pick(rng, [e.get("destination") for e in done_trips(ledger)])
        return dest and (
            "place",
            f"How many nights have I spent in {dest} in all?",
            "int",
            Query("trip", "sum", (("status", "done"), ("key", dest)), "nights"),
        )

    def t_company_meals(ledger, rng):
        friend = pick(rng, [p for e in ledger.of_kind("meal") for p in e.get("with", []) or []])
        return friend and (
            "company",
            f"How many times have I eaten out with {friend}?",
            "int",
            Query("meal", "count", (("with", friend),)),
        )

    def t_company_trips(ledger, rng):
        friend = pick(rng, [p for e in done_trips(ledger) for p in e.get("with", []) or []])
        return friend and (
            "company",
            f"How many trips have I taken with {friend}?",
            "int",
            Query("trip", "count", (("status", "done"), ("with", friend))),
        )

    def t_job_at(ledger, rng):
        jobs = [e for e in ledger.of_kind("job") if e.get("end")]
        if not jobs:
            return None
        job = rng.choice(jobs)
        day = _dt.date.fromisoformat(str(job.get("end"))) - _dt.timedelta(days=rng.randrange(1, 20))
        return (
            "as_of",
            f"Where was I working on {_day(day.isoformat())}?",
            "string",
            Query("job", "at", at=day.isoformat()),
        )

    def t_home_at(ledger, rng):
        homes = [e for e in ledger.of_kind("home") if e.get("end")]
        if not homes:
            return None
        home = rng.choice(homes)
        day = _dt.date.fromisoformat(str(home.get("end"))) - _dt.timedelta(days=rng.randrange(1, 20))
        return (
            "as_of",
            f"Which city did I live in on {_day(day.isoformat())}?",
            "string",
            Query("home", "at", at=day.isoformat()),
        )

    def t_trips_by(ledger, rng):
        ends = sorted(str(e.get("end")) for e in done_trips(ledger) if e.get("end") and len(str(e.get("end"))) == 10)
        if len(ends) < 2:
            return None
        day = ends[len(ends) // 2]
        return (
            "as_of",
            f"How many trips had I taken by the end of {_day(day)}?",
            "int",
            Query("trip", "count", (("status", "done"), ("until", day))),
        )

    def t_employer(ledger, rng):
        return "current", "Who do I work for now?", "string", Query("job", "current")

    def t_title(ledger, rng):
        return "current", "What is my job title now?", "string", Query("job", "current", (), "title")

    def t_city(ledger, rng):
        return "current", "Which city do I live in now?", "string", Query("home", "current")

    def t_recall_nights(ledger, rng):
        counts = Counter(e.get("destination") for e in done_trips(ledger))
        dest = pick(rng, [d for d, n in counts.items() if n == 1])
        return dest and (
            "recall",
            f"How many nights did my trip to {dest} last?",
            "int",
            Query("trip", "field", (("status", "done"), ("key", dest)), "nights"),
        )

    def t_recall_meal(ledger, rng):
        days = Counter(e.get("date") for e in ledger.of_kind("meal") if e.get("date"))
        day = pick(rng, [d for d, n in days.items() if n == 1 and len(str(d)) == 10])
        return day and (
            "recall",
            f"Where did I eat out on {_day(day)}?",
            "string",
            Query("meal", "field", (("on", day),)),
        )

    def t_recall_author(ledger, rng):
        title = pick(rng, [e.get("title") for e in ledger.of_kind("book") if e.get("author")])
        return title and (
            "recall",
            f"Who wrote {title}, the book I finished?",
            "string",
            Query("book", "field", (("key", title),), "author"),
        )

    return [
        t_trips,
        t_meals,
        t_books,
        t_cancelled,
        t_activity,
        t_nights,
        t_meal_money,
        t_purchase_money,
        t_distance,
        t_longest_trip,
        t_priciest_meal,
        t_longest_workout,
        t_cheapest,
        t_shortest_trip,
        t_places,
        t_repeated,
        t_authors,
        t_trips_year,
        t_meals_month,
        t_spend_year,
        t_place_meals,
        t_place_trips,
        t_company_meals,
        t_company_trips,
        t_job_at,
        t_home_at,
        t_trips_by,
        t_employer,
        t_title,
        t_city,
        t_recall_nights,
        t_recall_meal,
        t_recall_author,
    ]


def make_questions(ledger: Ledger, seed: int, *, prefix: str = "q") -> list[Question]:
    """Every template's question whose gold ``ledger`` can compute (golds of 0 and empty lists left out:
    a memory that holds nothing would get them right)."""
    rng = random.Random(f"uac-conv-questions:{seed}")
    out = []
    for template in _templates():
        made = template(ledger, rng)
        if not made:
            continue
        kind, text, answer_kind, query = made
        try:
            gold = gold_of(query, ledger)
        except GoldError:
            continue
        if gold in (0, 0.0, [], None, ""):
            continue
        out.append(Question(f"{prefix}{len(out) + 1:02d}", kind, text, answer_kind, query, gold))
    return out
