"""The records of the offline kinds of events: a kind, a sighting, an assembled record
(see :mod:`uac.compile.kinds`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...dialect.spec import ClassSpec


@dataclass(frozen=True)
class Kind:
    """One kind of record: where it lives and what it looks like."""

    #: singular name (``trip``)
    name: str
    #: the domain whose package holds it (``travel``)
    domain: str
    #: the collection in that domain's ``state.py`` (``trips``)
    collection: str
    #: the record class (periods typed ``TypeSpec("period")``)
    cls: "ClassSpec"
    #: enums the class uses (``TripStatus``), declared before it
    enums: tuple["ClassSpec", ...] = ()
    #: one sentence saying what belongs here (docs and routing by meaning)
    description: str = ""


@dataclass(frozen=True)
class Sighting:
    """What one fact says about one record of a kind."""

    kind: str
    fact_id: str
    #: field name -> value (str, int, float, list[str], a Period, an enum member's name);
    #: names starting with "_" are the rules' own notes for assembling, never record fields:
    #: ``_doubt`` (why the fact is left on the timeline, unclear: "a place the gazetteer does
    #: not know"; such a sighting is never assembled) and ``_support`` (it only helps other
    #: sightings, "applied for a job at Brightwater Energy" gives a full name: never unclear)
    fields: dict[str, Any] = field(default_factory=dict)
    #: sightings of one kind with equal keys may describe the same record (a trip's destination)
    key: str | None = None


@dataclass
class Assembled:
    """One record ready to write: its field values (``sources`` and ``said_on`` included)."""

    kind: str
    fields: dict[str, Any]
    sources: list[str]
