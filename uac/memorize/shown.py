"""The earlier facts an LLM extraction is shown: those in force that the session may change.

A session that says "I left Acme" may end a job, a salary and a job search stated
two years before; a window of the most recent facts would have lost them long
ago.  So the facts shown are found by what the session mentions -- each turn is
looked up in reconcile's :class:`~.topics.TopicIndex` (its speaker, the people,
places and named things it names, its content words), the best candidates of
every turn taken in turn -- and the rest of the room goes to the latest facts
in force.  At most ``known_facts`` facts and :data:`SHOWN_CHARS` characters of
them are shown, in log order.

What a session is shown is what was committed before it: a snapshot
(:meth:`Reconciler.shown_after <.reconcile.Reconciler.shown_after>`) taken when
session ``n - lag`` was committed (``lag`` = ``[extract] parallel_sessions``)
holds the index up to that session's facts and the facts ended until then, so
it never depends on how fast the workers run.  Sessions extracted side by side
do not see each other's facts (they are not written yet): what such a fact
changes is settled by reconcile at the commit, which sees every fact committed
before it, the earlier sessions of the same input included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet

from ..facts.model import Fact
from ..sessions.model import Session
from .topics import TopicIndex

#: at most this many characters of known facts are shown to one extraction
SHOWN_CHARS = 6_000
#: candidates taken per turn before the next turn's
PER_TURN = 6


@dataclass(frozen=True)
class ShownFacts:
    """The facts in force committed before a session, as reconcile's index held them."""

    index: TopicIndex
    #: facts at positions before this one were committed
    before: int
    #: facts of the index ended by the sessions committed so far
    ended: AbstractSet[str]

    def for_session(self, session: Session, limit: int, *, chars: int = SHOWN_CHARS) -> list[Fact]:
        """The facts to show with ``session``: about what it mentions first, then the latest."""
        if limit <= 0:
            return []
        ranked: list[list[Fact]] = []
        for turn in session.turns:
            probe = Fact("", turn.full_text, session.session_id, session.date, speaker=turn.speaker or None)
            found = self.index.candidates(probe, PER_TURN, before=self.before, exclude=self.ended)
            if found:
                ranked.append(found)
        chosen: dict[str, Fact] = {}
        used = 0

        def take(fact: Fact) -> bool:
            nonlocal used
            if fact.id in chosen:
                return True
            size = len(fact.id) + len(fact.text) + 4
            if len(chosen) >= limit or used + size > chars:
                return False
            chosen[fact.id] = fact
            used += size
            return True

        full = False
        for rank in range(PER_TURN):
            for found in ranked:
                if rank < len(found) and not take(found[rank]):
                    full = True
                    break
            if full:
                break
        if not full:
            for fact in self.index.latest(limit, before=self.before, exclude=self.ended):
                if not take(fact):
                    break
        position = self.index.position
        return sorted(chosen.values(), key=lambda f: position.get(f.id, -1))


__all__ = ["PER_TURN", "SHOWN_CHARS", "ShownFacts"]
