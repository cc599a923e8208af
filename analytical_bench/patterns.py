"""The ten question patterns: each turns one collection into a question with
an unambiguous gold answer and the ids of the records the gold is computed from.

A pattern builder draws its parameters (a category value, a year, a window,
a threshold) from the case's ``random.Random``; when the drawn parameters
would make the gold ambiguous (a tie in a top-k or min/max, an empty filter,
no change in a trend) it draws again, and after :data:`ATTEMPTS` failures it
returns ``None`` so the generator re-draws the records themselves.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .record_types import Record, RecordType

ATTEMPTS = 40

PATTERNS = (
    "count",
    "sum",
    "average",
    "group_by",
    "time_window",
    "multi_condition",
    "top_k",
    "min_max",
    "threshold",
    "trend",
)


@dataclass(frozen=True)
class Built:
    question: str
    answer_kind: str
    gold: Any
    support: list[str]


Builder = Callable[[RecordType, list[Record], random.Random], "Built | None"]


def _year(rtype: RecordType, record: Record) -> int:
    return int(record[rtype.date_field][:4])


def _years(rtype: RecordType, records: list[Record], minimum: int = 1) -> list[int]:
    counts: dict[int, int] = {}
    for record in records:
        year = _year(rtype, record)
        counts[year] = counts.get(year, 0) + 1
    return sorted(year for year, count in counts.items() if count >= minimum)


def _values(records: list[Record], field: str) -> list[str]:
    return sorted({str(record[field]) for record in records})


def _round_measure(rtype: RecordType, value: float) -> float | int:
    if rtype.measure.kind == "int":
        return int(value)
    return round(value, 2)


def _ids(records: list[Record]) -> list[str]:
    return [record["id"] for record in records]


def _counted(question: str, matching: list[Record]) -> Built | None:
    """``question`` answered by how many records match it; ``None`` (draw again) when none does."""
    return Built(question, "int", len(matching), _ids(matching)) if matching else None


def _q(text: str) -> str:
    return f'"{text}"'


def _a(label: str) -> str:
    """``label`` with its indefinite article."""
    return f"{'an' if label[:1] in 'aeiou' else 'a'} {label}"


def build_count(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    value = rng.choice(_values(records, rtype.category))
    matching = [r for r in records if r[rtype.category] == value]
    return _counted(f"How many {rtype.plural} in my records have {rtype.category_label} {_q(value)}?", matching)


def build_sum(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    year = rng.choice(_years(rtype, records))
    matching = [r for r in records if _year(rtype, r) == year]
    total = _round_measure(rtype, sum(r[rtype.measure.field] for r in matching))
    question = f"What is the total {rtype.measure.label} of all my {rtype.plural} with a {rtype.date_field} in {year}?"
    return Built(question, rtype.measure.kind, total, _ids(matching))


def build_average(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    value = rng.choice(_values(records, rtype.category))
    matching = [r for r in records if r[rtype.category] == value]
    mean = round(sum(r[rtype.measure.field] for r in matching) / len(matching), 2)
    question = (
        f"What is the average {rtype.measure.label} of my {rtype.plural} with {rtype.category_label} "
        f"{_q(value)}? Round to two decimals."
    )
    return Built(question, "float", mean, _ids(matching))


def build_group_by(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    by_total = rng.random() < 0.5
    groups: dict[str, float] = {}
    for record in records:
        key = str(record[rtype.category])
        groups[key] = groups.get(key, 0) + (record[rtype.measure.field] if by_total else 1)
    best = max(groups.values())
    winners = sorted(key for key, value in groups.items() if value == best)
    if len(groups) < 2 or len(winners) > 1:
        return None  # re-draw rather than rely on the tie-break wording alone
    if by_total:
        question = (
            f"Grouping my {rtype.plural} by {rtype.category_label}, which {rtype.category_label} has the "
            f"highest total {rtype.measure.label}? If tied, answer the alphabetically first."
        )
    else:
        question = (
            f"Grouping my {rtype.plural} by {rtype.category_label}, which {rtype.category_label} has the "
            f"most {rtype.plural}? If tied, answer the alphabetically first."
        )
    return Built(question, "string", winners[0], _ids(records))


def build_time_window(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    first = rtype.date_of(records[0])
    last = rtype.date_of(records[-1])
    span = (last - first).days
    length = rng.randint(30, 180)
    start = first + dt.timedelta(days=rng.randint(0, max(0, span - length)))
    end = start + dt.timedelta(days=length)
    matching = [r for r in records if start <= rtype.date_of(r) <= end]
    question = (
        f"How many {rtype.plural} do I have with a {rtype.date_field} between {start.isoformat()} and "
        f"{end.isoformat()}, inclusive?"
    )
    return _counted(question, matching)


def build_multi_condition(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    anchor = rng.choice(records)
    v1, v2 = anchor[rtype.category], anchor[rtype.category2]
    both = [r for r in records if r[rtype.category] == v1 and r[rtype.category2] == v2]
    values = sorted(r[rtype.measure.field] for r in both)
    threshold = values[int(len(values) * rng.uniform(0.0, 0.6))]
    threshold = int(threshold) if rtype.measure.kind == "int" else float(int(threshold))
    matching = [r for r in both if r[rtype.measure.field] > threshold]
    question = (
        f"How many {rtype.plural} have {rtype.category_label} {_q(v1)}, {rtype.category2_label} {_q(v2)} "
        f"and {_a(rtype.measure.label)} above {rtype.measure.fmt(threshold)}?"
    )
    return _counted(question, matching)


def build_top_k(rtype: RecordType, records: list[Record], rng: random.Random, k: int = 3) -> Built | None:
    year = rng.choice(_years(rtype, records, minimum=k + 1) or [0])
    in_year = [r for r in records if _year(rtype, r) == year]
    if len(in_year) < k + 1:
        return None
    # ties in the measure are broken by the entity, alphabetically (stated in the question)
    ranked = sorted(in_year, key=lambda r: (-r[rtype.measure.field], str(r[rtype.entity])))
    names = [str(r[rtype.entity]) for r in ranked[:k]]
    if len(set(n.lower() for n in names)) < k:
        return None  # the same name twice in the answer reads as a mistake; re-draw
    question = (
        f"Among my {rtype.plural} with a {rtype.date_field} in {year}, list the {rtype.entity_label} of the "
        f"{k} with the highest {rtype.measure.label}, highest first (break ties by {rtype.entity_label}, "
        f"alphabetically)."
    )
    return Built(question, "list", names, _ids(in_year))


def build_min_max(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    value = rng.choice(_values(records, rtype.category))
    lowest = rng.random() < 0.5
    matching = [r for r in records if r[rtype.category] == value]
    measures = [r[rtype.measure.field] for r in matching]
    extreme = min(measures) if lowest else max(measures)
    answer = sorted(str(r[rtype.entity]) for r in matching if r[rtype.measure.field] == extreme)[0]
    word = "lowest" if lowest else "highest"
    question = (
        f"Among my {rtype.plural} with {rtype.category_label} {_q(value)}, which one has the {word} "
        f"{rtype.measure.label}? Answer with its {rtype.entity_label}; if tied, the alphabetically first."
    )
    return Built(question, "string", answer, _ids(matching))


def build_threshold(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    distinct = sorted({r[rtype.measure.field] for r in records}, reverse=True)
    if len(distinct) < 2:
        return None
    cut = rng.randint(1, min(5, len(distinct) - 1))
    while True:  # keep the answer a short list where the measure allows it
        threshold = distinct[cut]
        matching = [r for r in records if r[rtype.measure.field] > threshold]
        if len(matching) <= 12 or cut == 1:
            break
        cut -= 1
    names = sorted({str(r[rtype.entity]) for r in matching})
    question = (
        f"Which {rtype.entity_label} values appear among my {rtype.plural} with {_a(rtype.measure.label)} "
        f"above {rtype.measure.fmt(threshold)}? List each distinct value once."
    )
    return Built(question, "set", names, _ids(matching))


def _quarter(month: int) -> int:
    return (month - 1) // 3 + 1


def build_trend(rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    year = rng.choice(_years(rtype, records))
    quarter = rng.randint(1, 3)
    first = [r for r in records if _year(rtype, r) == year and _quarter(rtype.date_of(r).month) == quarter]
    second = [r for r in records if _year(rtype, r) == year and _quarter(rtype.date_of(r).month) == quarter + 1]
    if len(first) == len(second):
        return None
    gold = "increase" if len(second) > len(first) else "decrease"
    question = (
        f"Counting my {rtype.plural} by {rtype.date_field}, did their number increase or decrease from "
        f'Q{quarter} to Q{quarter + 1} of {year}? Answer "increase" or "decrease".'
    )
    return Built(question, "string", gold, _ids(first + second))


BUILDERS: dict[str, Builder] = {
    "count": build_count,
    "sum": build_sum,
    "average": build_average,
    "group_by": build_group_by,
    "time_window": build_time_window,
    "multi_condition": build_multi_condition,
    "top_k": build_top_k,
    "min_max": build_min_max,
    "threshold": build_threshold,
    "trend": build_trend,
}


def build(pattern: str, rtype: RecordType, records: list[Record], rng: random.Random) -> Built | None:
    """Draw parameters until the gold is unambiguous; ``None`` after :data:`ATTEMPTS` tries."""
    builder = BUILDERS[pattern]
    for _ in range(ATTEMPTS):
        built = builder(rtype, records, rng)
        if built is not None:
            return built
    return None
