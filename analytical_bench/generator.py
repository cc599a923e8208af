"""The seeded dataset generator.

Layout of the default dataset (``analytical-v1``, seed 20260101):

* ``paper`` suite -- 100 cases, one per (record type, pattern) pair.  Record
  type number ``t`` and pattern number ``p`` (both in the order of
  :data:`TYPE_ORDER` and :data:`~analytical_bench.patterns.PATTERNS`) get
  ``N = PAPER_TIERS[(t + p) % 5]``: a Latin-square layout in which every tier
  holds 20 cases, with every pattern twice and every record type twice.
* ``cross`` suite -- 10 cases joining two record types: each of the five joins
  in :data:`~analytical_bench.cross.JOINS` at two tiers (join number ``j`` at
  ``PAPER_TIERS[j]`` and ``PAPER_TIERS[(j + 2) % 5]`` records per collection).
* ``extended`` suite (only with ``extended=True``) -- 40 cases at
  ``N = 1000, 2000, 5000, 10000``: pattern ``p`` at extended tier ``i`` uses
  record type ``(p + i) % 10``, so each tier holds all ten patterns.

Records and questions come from ``random.Random`` instances seeded with
strings (hashed with SHA-512 by the standard library, independent of
``PYTHONHASHSEED``), so the dataset is byte-identical across runs and
machines.  The records of a (suite, record type, N) collection are drawn
from ``"<seed>:records:<suite>-<type>-n<N>"``: in the paper layout each such
collection is one user's records and receives two questions (its two
patterns), as a user asks several questions of one memory.  A question's
parameters are drawn from ``"<seed>:<case id>"``; if no unambiguous question
exists for the shared records, that case re-draws its own records from
``"<seed>:<case id>:<attempt>"``.
"""

from __future__ import annotations

import random

from uac import CompileError

from .cases import DATASET_VERSION, EXTENDED_TIERS, PAPER_TIERS, Case, Dataset
from .cross import JOINS
from .patterns import PATTERNS, build
from .record_types import RECORD_TYPES

DEFAULT_SEED = 20260101
DATASET_NAME = "analytical"

TYPE_ORDER = (
    "trips",
    "contacts",
    "meals",
    "transactions",
    "sleep",
    "workouts",
    "books",
    "medical_visits",
    "meetings",
    "purchases",
)

#: how many times a case re-draws its records before giving up (never reached in practice)
MAX_REDRAWS = 25


def paper_tier(type_index: int, pattern_index: int) -> int:
    return PAPER_TIERS[(type_index + pattern_index) % len(PAPER_TIERS)]


def _single_case(seed: int, suite: str, record_type: str, pattern: str, n: int) -> Case:
    case_id = f"{suite}-{record_type}-{pattern}-n{n}"
    rtype = RECORD_TYPES[record_type]
    for attempt in range(MAX_REDRAWS):
        if attempt == 0:
            # one user's collection per (suite, record type, N), shared by the questions asked of it
            records = rtype.generate(random.Random(f"{seed}:records:{suite}-{record_type}-n{n}"), n)
            rng = random.Random(f"{seed}:{case_id}")
        else:
            rng = random.Random(f"{seed}:{case_id}:{attempt}")
            records = rtype.generate(rng, n)
        built = build(pattern, rtype, records, rng)
        if built is not None:
            return Case(
                id=case_id,
                suite=suite,
                record_type=record_type,
                n=n,
                question_id=f"{record_type}.{pattern}",
                pattern=pattern,
                question=built.question,
                answer_kind=built.answer_kind,
                gold=built.gold,
                records=records,
                support=built.support,
            )
    raise CompileError(f"case {case_id}: no unambiguous question after {MAX_REDRAWS} record draws.")


def _cross_case(seed: int, join: str, n: int) -> Case:
    case_id = f"cross-{join}-n{n}"
    for attempt in range(MAX_REDRAWS):
        rng = random.Random(f"{seed}:{case_id}" + (f":{attempt}" if attempt else ""))
        joined = JOINS[join](rng, n)
        if joined is not None:
            record_type, records, related, built = joined
            return Case(
                id=case_id,
                suite="cross",
                record_type=record_type,
                n=n,
                question_id=f"cross.{join}",
                pattern="join",
                question=built.question,
                answer_kind=built.answer_kind,
                gold=built.gold,
                records=records,
                support=built.support,
                related=related,
            )
    raise CompileError(f"case {case_id}: no usable join after {MAX_REDRAWS} record draws.")


def paper_cases(seed: int = DEFAULT_SEED) -> list[Case]:
    cases = []
    for t, record_type in enumerate(TYPE_ORDER):
        for p, pattern in enumerate(PATTERNS):
            cases.append(_single_case(seed, "paper", record_type, pattern, paper_tier(t, p)))
    return sorted(cases, key=lambda c: (c.n, TYPE_ORDER.index(c.record_type), PATTERNS.index(c.pattern)))


def cross_cases(seed: int = DEFAULT_SEED) -> list[Case]:
    cases = []
    for j, join in enumerate(JOINS):
        for n in (PAPER_TIERS[j % 5], PAPER_TIERS[(j + 2) % 5]):
            cases.append(_cross_case(seed, join, n))
    return sorted(cases, key=lambda c: (c.n, c.id))


def extended_cases(seed: int = DEFAULT_SEED) -> list[Case]:
    cases = []
    for i, n in enumerate(EXTENDED_TIERS):
        for p, pattern in enumerate(PATTERNS):
            cases.append(_single_case(seed, "extended", TYPE_ORDER[(p + i) % len(TYPE_ORDER)], pattern, n))
    return cases


def generate(seed: int = DEFAULT_SEED, *, extended: bool = False, cross: bool = True) -> Dataset:
    """The benchmark dataset: the paper's 100 cases, the cross-domain cases, optionally the extended tiers."""
    cases = paper_cases(seed)
    if cross:
        cases += cross_cases(seed)
    if extended:
        cases += extended_cases(seed)
    name = f"{DATASET_NAME}-{'extended' if extended else 'standard'}"
    return Dataset(name=name, version=DATASET_VERSION, seed=seed, cases=cases)
