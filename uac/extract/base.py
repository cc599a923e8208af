"""What an extractor returns, and the extractor protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from ..dates import Period
from ..facts.model import Fact
from ..sessions.model import Session


@dataclass(frozen=True)
class ExtractedFact:
    text: str
    evidence: tuple[str, ...]
    speaker: str | None = None
    #: when the event happened, with its precision (a day, a week, a month, a year...)
    event_date: Period | None = None
    #: id of an earlier fact this one replaces
    supersedes: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class Extractor(Protocol):
    name: str

    def extract(self, session: Session, known: Sequence[Fact] = ()) -> list[ExtractedFact]:
        """Facts of ``session``; ``known`` are earlier facts it may supersede."""
        ...
