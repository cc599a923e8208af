"""What the rule model records for one fact when it compiles: a trip, an event, or nothing.

A fact saying someone flew, travelled, drove or went to a capitalised place
is a *trip* (its destination, the day it happened and who travelled: the name
just before the verb, else the speaker; nobody for "he", "she", "they"); any other fact is an *event* (its
text, day and speaker).  A fact of fewer than three words is left out as too
short to record where the protocol allows leaving facts out.  Both compile
responders -- the operations protocol and the bounded whole-file one -- use
these rules, so the two modes record the same things.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .request import FactLine

TRIP = re.compile(
    r"(?:\b(?P<who>[A-Z][a-z]+) (?:also |just |finally )?)?"
    r"\b(?:flew|flown|travel(?:l)?ed|drove|went|took a trip|took a flight|(?:a |the )?trip) to "
    r"(?P<place>[A-Z][\w'-]+(?: [A-Z][\w'-]+)*)"
)
#: capitalised words before a travel verb that name nobody else: the speaker travelled
_SPEAKER_WORDS = {
    "We",
    "The",
    "Then",
    "And",
    "But",
    "So",
    "Also",
    "Yesterday",
    "Today",
    "Recently",
    "Finally",
    "Last",
    "This",
}
#: pronouns of someone else: who travelled is not known
_OTHER_WORDS = {"He", "She", "They"}
TOO_SHORT = "too short to record"
MIN_WORDS = 3


@dataclass(frozen=True)
class Shape:
    """A record class the rule model creates: its kind, docstring and fields; the class
    is named for the kind (``Trip``) and its records go in the kind's plural (``trips``)."""

    kind: str
    doc: str
    #: (name, type, required)
    fields: tuple[tuple[str, str, bool], ...]

    @property
    def name(self) -> str:
        return self.kind.capitalize()

    @property
    def collection(self) -> str:
        return self.kind + "s"

    def field_names(self) -> list[str]:
        return [name for name, _, _ in self.fields]

    def date_fields(self) -> set[str]:
        return {name for name, kind, _ in self.fields if kind.startswith("date")}


TRIP_SHAPE = Shape(
    "trip",
    "One trip: where to, the day it began and who travelled.",
    (("destination", "str", True), ("start_date", "date | None", False), ("traveller", "str | None", False)),
)
EVENT_SHAPE = Shape(
    "event",
    "Something that happened or was said, with its day when known.",
    (("text", "str", True), ("day", "date | None", False), ("speaker", "str | None", False)),
)
SHAPES = {shape.kind: shape for shape in (TRIP_SHAPE, EVENT_SHAPE)}


@dataclass(frozen=True)
class Planned:
    """What one fact becomes: ``kind`` "trip", "event" or "skip", with JSON values (dates as text)."""

    kind: str
    values: dict[str, Any]
    reason: str = ""


def classify(fact: FactLine, *, may_skip: bool = True) -> Planned:
    day = fact.day.isoformat() if fact.day else None
    trip = TRIP.search(fact.text)
    if trip:
        who = trip.group("who")
        if who in _OTHER_WORDS:
            traveller = None
        else:
            traveller = fact.speaker if who is None or who in _SPEAKER_WORDS else who
        return Planned(
            "trip", _present({"destination": trip.group("place"), "start_date": day, "traveller": traveller})
        )
    if may_skip and len(fact.text.split()) < MIN_WORDS:
        return Planned("skip", {}, TOO_SHORT)
    return Planned("event", _present({"text": fact.text, "day": day, "speaker": fact.speaker}))


def _present(values: dict[str, Any]) -> dict[str, Any]:
    """The values that are known (unknown ones take the fields' defaults)."""
    return {key: value for key, value in values.items() if value is not None}


__all__ = ["EVENT_SHAPE", "MIN_WORDS", "SHAPES", "TOO_SHORT", "TRIP", "TRIP_SHAPE", "Planned", "Shape", "classify"]
