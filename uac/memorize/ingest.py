"""Ingest: sessions into the archive, their facts into the log, both into the indexes.

Per new session, under the project lock: extract its facts, write the
archived session, append its facts (and supersessions) with a commit line and
fsync.  A session already committed to the log is skipped (re-ingest is a
no-op).  Then the new facts and archive chunks are added to the indexes.
Input errors surface while reading the file, before anything is written.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..context import MemoryContext
from ..errors import InputError
from ..extract.base import Extractor
from ..extract.llm import LLMExtractor
from ..extract.rules import RuleExtractor
from ..index.maintain import index_sessions
from ..sessions.archive import Archive
from ..sessions.model import Session
from ..facts.log import Supersession
from ..facts.model import Fact

EXTRACTORS = ("auto", "rules", "llm")


@dataclass
class IngestReport:
    file: str | None
    format: str | None
    extractor: str
    sessions_added: list[str] = field(default_factory=list)
    sessions_skipped: list[str] = field(default_factory=list)
    facts_appended: int = 0
    supersessions: int = 0
    chunks_indexed: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def skipped(self) -> bool:
        """True when every session of the input was already in the memory."""
        return not self.sessions_added and bool(self.sessions_skipped)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "format": self.format,
            "extractor": self.extractor,
            "sessions_added": list(self.sessions_added),
            "sessions_skipped": list(self.sessions_skipped),
            "skipped": self.skipped,
            "facts_appended": self.facts_appended,
            "supersessions": self.supersessions,
            "chunks_indexed": self.chunks_indexed,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


def make_extractor(ctx: MemoryContext, name: str | None) -> Extractor:
    name = name or "auto"
    if name not in EXTRACTORS:
        raise InputError(f"unknown extractor {name!r}.", hint="Use rules or llm.")
    if name == "rules" or (name == "auto" and ctx.llm is None):
        return RuleExtractor()
    return LLMExtractor(ctx.require_llm("LLM fact extraction"))


def to_facts(session: Session, extracted: Sequence[Any], start: int = 1) -> tuple[list[Fact], list[Supersession]]:
    facts: list[Fact] = []
    supersessions: list[Supersession] = []
    for number, item in enumerate(extracted, start):
        fact = Fact(
            id=f"{session.session_id}-f{number}",
            text=item.text,
            session_id=session.session_id,
            session_date=session.date,
            evidence=tuple(item.evidence),
            speaker=item.speaker,
            event_date=item.event_date,
            valid_from=session.date,
            meta=dict(item.meta),
        )
        facts.append(fact)
        if item.supersedes:
            supersessions.append(Supersession(item.supersedes, fact.id, session.date, session.session_id))
    return facts, supersessions


def ingest_sessions(
    ctx: MemoryContext,
    sessions: Sequence[Session],
    *,
    extractor: str | None = None,
    file: str | Path | None = None,
    format: str | None = None,
) -> IngestReport:
    chosen = make_extractor(ctx, extractor)
    report = IngestReport(str(file) if file is not None else None, format, chosen.name)
    project = ctx.project
    log = ctx.fact_log()
    archive = Archive(project.paths.sessions)
    added: list[tuple[Session, list[Fact]]] = []
    timings = {"extract": 0.0, "write": 0.0, "index": 0.0}
    with project.lock("ingest"):
        for session in sessions:
            state = log.read()
            if session.session_id in state.sessions:
                report.sessions_skipped.append(session.session_id)
                continue
            started = time.perf_counter()
            known = [f for f in state.facts.values() if f.invalid_at is None]
            facts, supersessions = to_facts(session, chosen.extract(session, known))
            supersessions = [s for s in supersessions if s.fact_id in state.facts]
            timings["extract"] += time.perf_counter() - started
            started = time.perf_counter()
            archive.write(session)
            log.append_session(
                session.session_id,
                facts,
                supersessions,
                session_hash=session.content_hash(),
                extractor=chosen.name,
            )
            timings["write"] += time.perf_counter() - started
            report.sessions_added.append(session.session_id)
            report.facts_appended += len(facts)
            report.supersessions += len(supersessions)
            added.append((session, facts))
        if added:
            started = time.perf_counter()
            _, chunks = index_sessions(ctx.index, added)
            report.chunks_indexed = chunks
            timings["index"] += time.perf_counter() - started
    report.timings = timings
    return report
