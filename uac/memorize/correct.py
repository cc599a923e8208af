"""Corrections: a fact the user writes themselves, replacing facts that are wrong.

A correction is stored like any other memory, so every reader (search, ask,
the sandbox, the evidence chain) sees it without special cases:

* the text becomes a one-turn session ``correction-<time>-<hash>`` in the
  archive (source ``correction``, spoken by the user), so the fact's evidence
  points at a real turn;
* its fact is appended to the log with ``meta = {"correction": true,
  "corrected_at": <ISO time>, "supersedes": [...]}``;
* each named fact gets a supersession record with the relation ``corrects``
  (``invalid_at`` = the day of the correction, ``superseded_by`` = the new
  fact), so it stops being valid now and the next compile revisits the records
  that cite it, told that a value was corrected.

All of it is one session commit under the project lock: a crash leaves either
the whole correction or none of it.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from dataclasses import dataclass, field
from typing import Any, Iterable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..context import MemoryContext
from ..errors import FactNotFound, InputError
from ..facts.log import Supersession
from ..facts.model import Fact
from ..index.catchup import catch_up
from ..sessions.archive import Archive
from ..sessions.model import Session, Turn

#: the ``source`` of a correction's session, and the mark in its fact's ``meta``
CORRECTION = "correction"
#: longest correction text accepted (a correction is one statement, not a document)
MAX_TEXT = 4000


@dataclass
class CorrectionReport:
    fact: Fact
    session_id: str
    superseded: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"fact": self.fact.to_json(), "session_id": self.session_id, "superseded": list(self.superseded)}


def is_correction(fact: Fact) -> bool:
    return bool(fact.meta.get(CORRECTION))


def _now(ctx: MemoryContext) -> _dt.datetime:
    try:
        zone: _dt.tzinfo = ZoneInfo(ctx.project.config.user.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = _dt.timezone.utc
    return _dt.datetime.now(zone).replace(microsecond=0)


def correct(ctx: MemoryContext, text: str, *, supersedes: Iterable[str] = ()) -> CorrectionReport:
    """Append the user's correction ``text``, superseding the facts ``supersedes``."""
    text = (text or "").strip()
    if not text:
        raise InputError(
            "a correction needs its text; nothing was written.",
            hint="Write the corrected statement (one short sentence).",
        )
    if len(text) > MAX_TEXT:
        raise InputError(
            f"a correction is at most {MAX_TEXT} characters (this one has {len(text)}); nothing was written.",
            hint="Write one short statement per correction.",
        )
    wanted = list(dict.fromkeys(str(s) for s in supersedes))
    project = ctx.project
    log = ctx.fact_log()
    archive = Archive(project.paths.sessions)
    with project.lock("correct"):
        before = log.read()
        for fact_id in wanted:
            old = before.facts.get(fact_id)
            if old is None:
                raise FactNotFound(
                    f"no fact {fact_id!r} in this project's log; nothing was written.", hint="{do:find_facts}."
                )
            if old.invalid_at is not None:
                raise InputError(
                    f"fact {fact_id!r} was already superseded by {old.superseded_by or 'another fact'}; nothing was written.",
                    hint="Name the fact that is valid now ({do:find_facts}).",
                )
        now = _now(ctx)
        digest = hashlib.sha256(f"{now.isoformat()}\n{text}\n{wanted}".encode("utf-8")).hexdigest()[:8]
        session_id = f"correction-{now.strftime('%Y%m%dT%H%M%S')}-{digest}"
        speaker = project.config.user.name or "user"
        turn = Turn(turn_id=f"{session_id}:1", speaker=speaker, text=text)
        session = Session(
            session_id=session_id,
            date=now.date(),
            date_text=now.isoformat(),
            turns=(turn,),
            source=CORRECTION,
            meta={CORRECTION: True, "supersedes": wanted},
        )
        # what was misstated was never in force: each old fact ends where it began, and the
        # correction holds from the earliest of them (a fact with no date ends today)
        starts = {fact_id: before.facts[fact_id].valid_from or before.facts[fact_id].session_date for fact_id in wanted}
        begins = min([now.date(), *(d for d in starts.values() if d is not None)])
        fact = Fact(
            id=f"{session_id}-f1",
            text=text,
            session_id=session_id,
            session_date=now.date(),
            evidence=(turn.turn_id,),
            speaker=speaker,
            valid_from=begins,
            meta={CORRECTION: True, "corrected_at": now.isoformat(), "supersedes": wanted},
        )
        supersessions = [
            Supersession(old, fact.id, starts[old] or now.date(), session_id, "corrects") for old in wanted
        ]
        archive.write(session)
        log.append_session(session_id, [fact], supersessions, session_hash=session.content_hash(), extractor=CORRECTION)
        catch_up(ctx.index, log.read(), archive, log, previous=before)
    return CorrectionReport(fact=fact, session_id=session_id, superseded=wanted)


__all__ = ["CORRECTION", "CorrectionReport", "correct", "is_correction"]
