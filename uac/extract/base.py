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
    #: id of an earlier fact this one replaces, or the ids of several ("I left Acme" ends
    #: the job, the salary and the job search)
    supersedes: str | tuple[str, ...] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def superseded_ids(self) -> tuple[str, ...]:
        """The ids this fact replaces (none, one or several), in the order given."""
        if not self.supersedes:
            return ()
        if isinstance(self.supersedes, str):
            return (self.supersedes,)
        return tuple(dict.fromkeys(self.supersedes))


class Extractor(Protocol):
    name: str

    def extract(self, session: Session, known: Sequence[Fact] = ()) -> list[ExtractedFact]:
        """Facts of ``session``; ``known`` are earlier facts it may supersede."""
        ...
