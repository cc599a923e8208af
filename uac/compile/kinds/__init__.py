"""Kinds of events the offline compiler recognises: trips, meals out, jobs, purchases,
workouts, books and homes.

Without a model, ``uac compile`` turns facts into typed records of a few common
kinds, each with its own collection and fields, in its own domain; what fits
no kind stays in the domain's dated timeline (``events``).  This package is
the contract between the two halves of that work:

* the *rules* (one module per kind) read one fact and say what it tells about
  a record of their kind -- a :class:`Sighting` -- and then assemble the
  sightings of all facts into records (a plan that a later session reports as
  done becomes one ``done`` trip, not two);
* the *offline compiler* (:mod:`uac.compile.offline`) declares each kind's
  class in the domain's ``schema.py`` and writes the assembled records to its
  collection in ``state.py``.

Every record keeps when it happened (a :class:`~uac.dates.Period`, with its
precision) apart from when it was said (``said_on``, the session date of its
first source) and cites its sources (fact ids).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .context import localise
from .model import Assembled, Kind, Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

__all__ = ["Assembled", "Kind", "Sighting", "assemble", "detect", "doubt", "localise", "registry"]


def registry() -> tuple[Kind, ...]:
    """Every kind the rules know, in a stable order."""
    global _REGISTRY
    if _REGISTRY is None:
        from . import books, homes, jobs, meals, purchases, trips, workouts

        _REGISTRY = (
            Kind(trips.NAME, "travel", "trips", trips.CLASS, (trips.STATUS_ENUM,), trips.DESCRIPTION),
            Kind(meals.NAME, "food", "meals", meals.CLASS, (), meals.DESCRIPTION),
            Kind(jobs.NAME, "work", "jobs", jobs.CLASS, (), jobs.DESCRIPTION),
            Kind(purchases.NAME, "finance", "purchases", purchases.CLASS, (), purchases.DESCRIPTION),
            Kind(workouts.NAME, "health", "workouts", workouts.CLASS, (), workouts.DESCRIPTION),
            Kind(books.NAME, "hobbies", "books", books.CLASS, (), books.DESCRIPTION),
            Kind(homes.NAME, "general", "homes", homes.CLASS, (), homes.DESCRIPTION),
        )
    return _REGISTRY


_REGISTRY: tuple[Kind, ...] | None = None


def _rules(name: str) -> Any:
    from . import books, homes, jobs, meals, purchases, trips, workouts

    return {
        "trip": trips,
        "meal": meals,
        "job": jobs,
        "purchase": purchases,
        "workout": workouts,
        "book": books,
        "home": homes,
    }[name]


_BOUGHT = re.compile(r"\b(?:bought|purchased)\b", re.I)


def detect(fact: "Fact") -> list[Sighting]:
    """What ``fact`` says about records of the known kinds (often nothing).

    A fact may feed several kinds ("bought flights to Tokyo for $900" is a
    planned trip and a purchase); a meal out is never also a trip ("went to
    Nopa for dinner").
    """
    from . import books, homes, jobs, meals, purchases, trips, workouts

    found = meals.detect(fact)
    found += trips.detect(fact, meal=bool(found))
    found += jobs.detect(fact)
    # "got pad thai at Thipsamai, 300 baht": the meal's bill, not also a purchase of the dish
    bills = {s.fields.get("amount") for s in found if s.kind == "meal" and s.fields.get("amount")}
    if _BOUGHT.search(fact.text):
        bills = set()  # "ate at Cafe Javas ..., and bought a bark-cloth handbag for $25": a thing bought too
    found += [s for s in purchases.detect(fact) if not bills or s.fields.get("amount") not in bills]
    found += workouts.detect(fact)
    found += books.detect(fact)
    found += homes.detect(fact)
    return found


def assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, "Fact"]) -> list[Assembled]:
    """The records of ``kind`` from all its sightings (``facts`` by id, for dates and order).

    Sightings of other kinds, and of facts not in ``facts``, are ignored.  Every
    record's fields hold ``said_on`` (the session date of its first source) and
    ``sources`` (fact ids, in the order they were said).
    """
    mine = [s for s in sightings if s.kind == kind.name and s.fact_id in facts and "_doubt" not in s.fields]
    return _rules(kind.name).assemble(kind, mine, facts)


def doubt(sighting: Sighting) -> str | None:
    """Why the rules left this sighting's fact on the timeline, unclear (None: a sighting
    meant to become, or help, a record)."""
    return sighting.fields.get("_doubt")
