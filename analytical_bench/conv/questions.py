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
from dataclasses import asdict, dataclass, replace
from typing import Any, Callable, Iterable

from .ledger import Event, Ledger
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


#: picks what a question is about from a ledger (``None``: the ledger has nothing to ask about)
Draw = Callable[[Ledger, random.Random], Any]

#: how a question words the value of a filter that is a day or a month
_WORDED = {"month": _month, "until": _day, "on": _day, "at": _day}


@dataclass(frozen=True)
class _Template:
    """One question a ledger may be asked.

    ``text`` is a ``str.format`` template over the ledger's ``{currency}`` and ``{rates}``.
    Without ``about`` the question is the same for every ledger and ``query`` is its reference
    program.  ``about`` is ``(filter, draw)``: ``draw`` picks what the question is about, ``{}``
    in ``text`` names it (a day or a month in words) and ``query`` gets the filter ``(filter,
    value)`` after its own (the filter ``at`` is the day of the op ``at``).
    """

    text: str
    answer_kind: str
    query: Query
    about: tuple[str, Draw] | None = None

    def ask(self, ledger: Ledger, rng: random.Random) -> tuple[str, Query] | None:
        """The question's text and reference program for ``ledger`` (``None``: nothing to ask about)."""
        words = {"currency": ledger.currency, "rates": _rates(ledger)}
        if self.about is None:
            return self.text.format(**words), self.query
        name, draw = self.about
        value = draw(ledger, rng)
        if not value:
            return None
        say = _WORDED.get(name, str)
        text = self.text.format(say(value), **words)
        if name == "at":
            return text, replace(self.query, at=value)
        return text, replace(self.query, where=(*self.query.where, (name, value)))


# --- what a question is about, drawn from the ledger --------------------------------------


def _pick(rng: random.Random, values: Iterable[Any]) -> Any:
    """One of the distinct non-empty ``values``, drawn from them sorted (``None``: there are none)."""
    choices = sorted(set(v for v in values if v))
    return rng.choice(choices) if choices else None


def _done_trips(ledger: Ledger) -> list[Event]:
    return [e for e in ledger.of_kind("trip") if e.get("status") == "done"]


def _companions(events: list[Event]) -> list[str]:
    return [p for e in events for p in e.get("with", []) or []]


def _activity(ledger: Ledger, rng: random.Random) -> Any:
    return _pick(rng, [e.get("activity") for e in ledger.of_kind("workout")])


def _trip_year(ledger: Ledger, rng: random.Random) -> Any:
    return _pick(rng, [int(str(e.get("start"))[:4]) for e in _done_trips(ledger) if e.get("start")])


def _purchase_year(ledger: Ledger, rng: random.Random) -> Any:
    return _pick(rng, [int(str(e.get("date"))[:4]) for e in ledger.of_kind("purchase") if e.get("date")])


def _meal_month(ledger: Ledger, rng: random.Random) -> Any:
    dates = [str(e.get("date")) for e in ledger.of_kind("meal") if e.get("date")]
    return _pick(rng, [date[:7] for date in dates if len(date) >= 7])


def _meal_place(ledger: Ledger, rng: random.Random) -> Any:
    """A place eaten at more than once (any place when there is none)."""
    counts = Counter(e.get("place") for e in ledger.of_kind("meal"))
    return _pick(rng, [p for p, n in counts.items() if n > 1] or list(counts))


def _destination(ledger: Ledger, rng: random.Random) -> Any:
    return _pick(rng, [e.get("destination") for e in _done_trips(ledger)])


def _meal_companion(ledger: Ledger, rng: random.Random) -> Any:
    return _pick(rng, _companions(ledger.of_kind("meal")))


def _trip_companion(ledger: Ledger, rng: random.Random) -> Any:
    return _pick(rng, _companions(_done_trips(ledger)))


def _before_an_end(kind: str) -> Draw:
    """A day 1 to 19 days before one ``kind`` (a job, a home) that has ended."""

    def draw(ledger: Ledger, rng: random.Random) -> Any:
        ended = [e for e in ledger.of_kind(kind) if e.get("end")]
        if not ended:
            return None
        end = _dt.date.fromisoformat(str(rng.choice(ended).get("end")))
        return (end - _dt.timedelta(days=rng.randrange(1, 20))).isoformat()

    return draw


def _middle_trip_end(ledger: Ledger, rng: random.Random) -> Any:
    """The day the middle one of the done trips (two at least) ended."""
    ends = sorted(str(e.get("end")) for e in _done_trips(ledger) if e.get("end") and len(str(e.get("end"))) == 10)
    return ends[len(ends) // 2] if len(ends) >= 2 else None


def _lone_destination(ledger: Ledger, rng: random.Random) -> Any:
    """A place travelled to once."""
    counts = Counter(e.get("destination") for e in _done_trips(ledger))
    return _pick(rng, [d for d, n in counts.items() if n == 1])


def _lone_meal_day(ledger: Ledger, rng: random.Random) -> Any:
    """A day with one meal out."""
    days = Counter(e.get("date") for e in ledger.of_kind("meal") if e.get("date"))
    return _pick(rng, [d for d, n in days.items() if n == 1 and len(str(d)) == 10])


def _book_title(ledger: Ledger, rng: random.Random) -> Any:
    return _pick(rng, [e.get("title") for e in ledger.of_kind("book") if e.get("author")])


# --- the questions, in the order they are asked ------------------------------------------------

_DONE = ("status", "done")

#: the questions of each kind, in the order they are asked
_TEMPLATES: dict[str, tuple[_Template, ...]] = {
    "count": (
        _Template("How many trips have I taken?", "int", Query("trip", "count", (_DONE,))),
        _Template("How many times have I eaten out?", "int", Query("meal", "count")),
        _Template("How many books have I finished?", "int", Query("book", "count")),
        _Template(
            "How many trips did I plan and then cancel?", "int", Query("trip", "count", (("status", "cancelled"),))
        ),
        _Template("How many {} workouts have I done?", "int", Query("workout", "count"), ("key", _activity)),
    ),
    "sum": (
        _Template(
            "How many nights have I spent away on trips in total?", "int", Query("trip", "sum", (_DONE,), "nights")
        ),
        _Template(
            "How much have I spent on meals out in total, in {currency}{rates}?",
            "float",
            Query("meal", "sum", (), "amount"),
        ),
        _Template(
            "How much have I spent on purchases in total, in {currency}{rates}, not counting what I returned?",
            "float",
            Query("purchase", "sum", (("returned", False),), "amount"),
        ),
        _Template(
            "How many kilometres have I covered in total in my {} workouts?",
            "float",
            Query("workout", "sum", (), "distance_km"),
            ("key", _activity),
        ),
    ),
    "max": (
        _Template(
            "Where did I go on my longest trip (the most nights)?",
            "string",
            Query("trip", "argmax", (_DONE,), "nights"),
        ),
        _Template(
            "What is the most I have spent on one meal out, in {currency}{rates}?",
            "float",
            Query("meal", "max", (), "amount"),
        ),
        _Template(
            "How long, in km, was my longest {} workout?",
            "float",
            Query("workout", "max", (), "distance_km"),
            ("key", _activity),
        ),
    ),
    "min": (
        _Template(
            "What is the cheapest thing I have bought{rates}? Name the item.",
            "string",
            Query("purchase", "argmin", (), "amount"),
        ),
        _Template(
            "What was the fewest nights I spent away on one trip?", "int", Query("trip", "min", (_DONE,), "nights")
        ),
    ),
    "distinct": (
        _Template("Which places have I travelled to? List them.", "set", Query("trip", "distinct", (_DONE,))),
        _Template("Which restaurants have I been to more than once? List them.", "set", Query("meal", "repeated")),
        _Template(
            "Which authors have I finished a book by? List them.", "set", Query("book", "distinct", (), "author")
        ),
    ),
    "time": (
        _Template("How many trips did I take in {}?", "int", Query("trip", "count", (_DONE,)), ("year", _trip_year)),
        _Template("How many times did I eat out in {}?", "int", Query("meal", "count"), ("month", _meal_month)),
        _Template(
            "How much did I spend on purchases in {}, in {currency}{rates}, returns included?",
            "float",
            Query("purchase", "sum", (), "amount"),
            ("year", _purchase_year),
        ),
    ),
    "place": (
        _Template("How many times have I eaten at {}?", "int", Query("meal", "count"), ("key", _meal_place)),
        _Template(
            "How many nights have I spent in {} in all?",
            "int",
            Query("trip", "sum", (_DONE,), "nights"),
            ("key", _destination),
        ),
    ),
    "company": (
        _Template("How many times have I eaten out with {}?", "int", Query("meal", "count"), ("with", _meal_companion)),
        _Template(
            "How many trips have I taken with {}?", "int", Query("trip", "count", (_DONE,)), ("with", _trip_companion)
        ),
    ),
    "as_of": (
        _Template("Where was I working on {}?", "string", Query("job", "at"), ("at", _before_an_end("job"))),
        _Template("Which city did I live in on {}?", "string", Query("home", "at"), ("at", _before_an_end("home"))),
        _Template(
            "How many trips had I taken by the end of {}?",
            "int",
            Query("trip", "count", (_DONE,)),
            ("until", _middle_trip_end),
        ),
    ),
    "current": (
        _Template("Who do I work for now?", "string", Query("job", "current")),
        _Template("What is my job title now?", "string", Query("job", "current", (), "title")),
        _Template("Which city do I live in now?", "string", Query("home", "current")),
    ),
    "recall": (
        _Template(
            "How many nights did my trip to {} last?",
            "int",
            Query("trip", "field", (_DONE,), "nights"),
            ("key", _lone_destination),
        ),
        _Template("Where did I eat out on {}?", "string", Query("meal", "field"), ("on", _lone_meal_day)),
        _Template(
            "Who wrote {}, the book I finished?", "string", Query("book", "field", (), "author"), ("key", _book_title)
        ),
    ),
}


def make_questions(ledger: Ledger, seed: int, *, prefix: str = "q") -> list[Question]:
    """Every template's question whose gold ``ledger`` can compute (golds of 0 and empty lists left out:
    a memory that holds nothing would get them right)."""
    rng = random.Random(f"uac-conv-questions:{seed}")
    out = []
    for kind, templates in _TEMPLATES.items():
        for template in templates:
            asked = template.ask(ledger, rng)
            if asked is None:
                continue
            text, query = asked
            try:
                gold = gold_of(query, ledger)
            except GoldError:
                continue
            if gold in (0, 0.0, [], None, ""):
                continue
            out.append(Question(f"{prefix}{len(out) + 1:02d}", kind, text, template.answer_kind, query, gold))
    return out
