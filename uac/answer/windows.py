"""Archive excerpts that overlap, shown once.

The archive is indexed in windows of a few turns that overlap (a stride shorter than
the window), so the excerpts retrieved for one question often repeat turns of each
other.  The reader gets each session's overlapping windows as one excerpt: the turns
they cover together, each once, in the session's order, under the ids of the windows
it joins (``s1/c2+c3``), where the best of them ranked.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from ..index.texts import chunk_text
from ..sessions.model import Session
from .model import EvidenceItem

#: the archived session of an id, or None when it cannot be read
ReadSession = Callable[[str], "Session | None"]


def merge_windows(items: list[EvidenceItem], read_session: ReadSession) -> list[EvidenceItem]:
    """``items`` (archive excerpts, best first) with the overlapping windows of each
    session joined into one excerpt at the place of its best-ranked window."""
    groups: list[list[EvidenceItem]] = []
    for item in items:
        joined = [g for g in groups if g[0].session_id == item.session_id and _overlaps(g, item)]
        if not joined or not item.session_id:
            groups.append([item])
            continue
        first = joined[0]
        first.append(item)
        for other in joined[1:]:  # the new window bridges groups: they become one
            first.extend(other)
            groups.remove(other)
    sessions: dict[str, Session | None] = {}
    out: list[EvidenceItem] = []
    for group in groups:
        session_id = group[0].session_id
        if len(group) > 1 and session_id:
            if session_id not in sessions:
                sessions[session_id] = read_session(session_id)
            excerpt = _joined(group, sessions[session_id])
            if excerpt is not None:
                out.append(excerpt)
                continue
        out.extend(group)
    return out


def _overlaps(group: list[EvidenceItem], item: EvidenceItem) -> bool:
    turns = set(item.evidence)
    return any(turns.intersection(member.evidence) for member in group)


def _joined(group: list[EvidenceItem], session: Session | None) -> EvidenceItem | None:
    """The group as one excerpt; None when the archive cannot say its turns."""
    if session is None:
        return None
    position = {turn.turn_id: n for n, turn in enumerate(session.turns)}
    covered = sorted({position[t] for member in group for t in member.evidence if t in position})
    if not covered or covered != list(range(covered[0], covered[-1] + 1)):
        return None  # the windows no longer match the archive
    start, end = covered[0], covered[-1] + 1
    members = sorted(group, key=lambda m: min((position.get(t, end) for t in m.evidence), default=end))
    return dataclasses.replace(
        group[0],
        id="+".join([members[0].id, *(m.id.rsplit("/", 1)[-1] for m in members[1:])]),
        text=chunk_text(session, start, end),
        score=max(m.score for m in group),
        evidence=tuple(turn.turn_id for turn in session.turns[start:end]),
    )


__all__ = ["merge_windows"]
