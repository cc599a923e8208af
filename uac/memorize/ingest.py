"""Ingest: sessions into the archive, their facts into the log, both into the indexes.

The log is read through its saved head (:mod:`uac.facts.head`: committed
sessions, fact ids, position), never folded whole; reconcile reads at most the
latest 20,000 facts in force, backwards, so one session costs about the same in
a memory of ten thousand facts or of a hundred thousand.

Per new session, under the project lock: extract its facts, write the
archived session, append its facts (and supersessions) with a commit line and
fsync.  With a model, up to ``[extract] parallel_sessions`` sessions are
extracted side by side (their calls within ``[llm] concurrency``;
:mod:`.ordered`), session n shown the facts valid once session
n - parallel_sessions was committed (those it mentions first: :mod:`.shown`),
and they are committed one by one in
input order; at each commit :mod:`.reconcile` settles what the new facts
change among every fact committed before them (rules, then one small model
call for the facts that look like a change, prepared as soon as the sessions
before are extracted).  The log is the same at every concurrency and with
``parallel_sessions = 1``, and a crash loses only sessions not yet committed.
A session already committed to the log with the same content is
skipped (re-ingest is a no-op); the same id with different content is a
:class:`~uac.errors.SessionConflict` raised before anything is written.  Then
the indexes catch up with the log (:mod:`uac.index.catchup`): the new sessions
are indexed, and so is anything an earlier, interrupted run committed but never
indexed.  Input errors surface while reading the file, before anything is
written.

The report counts what the extractor did with the model's replies (kept,
coerced, repaired, dropped items, split windows, windows that fell back to
the rules), what reconcile did (links by origin and relation, pairs dropped
by reason, its calls and their tokens) and every token the ingest spent
(``usage``, the reconcile calls included; cache hits apart).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..context import MemoryContext
from ..errors import InputError, SessionConflict
from ..extract.base import ExtractedFact, Extractor
from ..extract.llm import ExtractionStats, LLMExtractor
from ..extract.rules import RuleExtractor
from ..facts.head import LogHead
from ..facts.log import FactLog, LogState, Supersession
from ..facts.model import Fact
from ..failpoints import crash_point
from ..index.catchup import catch_up
from ..llm import Usage
from ..llm.progress import ProgressCallback, Tracker
from ..sessions.archive import Archive, check_turn_ids
from ..sessions.model import Session
from .ordered import Submit, run_in_order
from .reconcile import INDEXED_FACTS, Prepared, Reconciler
from .shown import ShownFacts

if TYPE_CHECKING:
    from ..compile.follow import CatchUp

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
    #: what the LLM extractor did with the model's replies (``None`` for the rules)
    extraction: dict[str, Any] | None = None
    #: what reconcile did at the commits (``None`` for the rules): links, drops, its calls and tokens
    reconcile: dict[str, Any] | None = None
    usage: Usage = field(default_factory=Usage)
    #: what the view's catch-up after the ingest did (:class:`uac.compile.follow.CatchUp`), ``None``: not asked
    view: "CatchUp | None" = None

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
            "extraction": self.extraction,
            "reconcile": self.reconcile,
            "usage": self.usage.report(),
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "view": None if self.view is None else self.view.to_json(),
        }


def make_extractor(ctx: MemoryContext, name: str | None) -> Extractor:
    name = name or "auto"
    if name not in EXTRACTORS:
        raise InputError(f"unknown extractor {name!r}.", hint="Use rules or llm.")
    if name == "rules" or (name == "auto" and ctx.llm is None):
        return RuleExtractor()
    config = ctx.project.config.extract
    return LLMExtractor(
        ctx.require_llm("LLM fact extraction"),
        window_chars=config.window_chars,
        context_turns=config.context_turns,
        known_facts=config.known_facts,
    )


def to_facts(
    session: Session, extracted: Sequence[ExtractedFact], start: int = 1
) -> tuple[list[Fact], list[Supersession]]:
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
        for old in item.superseded_ids:  # one supersede line per pair
            supersessions.append(Supersession(old, fact.id, session.date, session.session_id))
    return facts, supersessions


def stored_hash(session_id: str, state: LogState | LogHead, archive: Archive) -> str | None:
    """The content hash the memory holds for a committed session (``None``: unknown)."""
    recorded = str(state.sessions[session_id].get("session_hash") or "")
    if recorded:
        return recorded
    if archive.has(session_id):  # logs written before commits carried the hash
        return archive.read(session_id).content_hash()
    return None


def check_conflicts(sessions: Sequence[Session], state: LogState | LogHead, archive: Archive) -> None:
    """Refuse the whole input, before anything is written, if a session id it uses
    is already taken by different content (in the memory, or earlier in the input).

    The same id with the same content is fine: that session is skipped.
    """
    seen: dict[str, str] = {}
    for session in sessions:
        sid = session.session_id
        digest = session.content_hash()
        if sid in seen:
            if seen[sid] != digest:
                raise SessionConflict(
                    f"the input holds session {sid} twice, with different content; nothing was written.",
                    hint="Give each session an id of its own.",
                )
            continue
        seen[sid] = digest
        if sid in state.sessions:
            stored = stored_hash(sid, state, archive)
            if stored is not None and stored != digest:
                raise SessionConflict(
                    f"session {sid} is already in the memory with different content; nothing was written.",
                    hint="Give the new session an id of its own, or forget the stored session first and ingest again.",
                )


def _pending(sessions: Sequence[Session], before: LogHead, report: IngestReport) -> list[Session]:
    """The sessions the log does not hold yet, each once and in order (the others are reported skipped)."""
    pending: list[Session] = []
    taken = set(before.sessions)
    for session in sessions:
        if session.session_id in taken:
            report.sessions_skipped.append(session.session_id)
        else:
            taken.add(session.session_id)
            pending.append(session)
    return pending


class _SessionWriter:
    """Prepares each extracted session and commits it, in order: its facts and supersessions to the
    log, the session to the archive, and the counts to the report."""

    def __init__(
        self,
        chosen: Any,
        log: Any,
        archive: Archive,
        reconciler: Reconciler | None,
        report: IngestReport,
        timings: dict[str, float],
    ) -> None:
        self.chosen, self.log, self.archive, self.reconciler = chosen, log, archive, reconciler
        self.report, self.timings = report, timings
        #: the last session committed so far (what the next extractions may be shown)
        self.last: str | None = None
        self.tracker: Any = None

    def prepare(self, session: Session, extraction: Extraction, submit: Submit) -> Any:
        extracted, stats = extraction
        facts, proposals = to_facts(session, extracted)
        if self.reconciler is None:
            return facts, proposals, stats
        return self.reconciler.prepare(session, facts, extracted, submit), None, stats

    def _facts_and_supersessions(self, work: Any, proposals: Any, head: Any) -> tuple[list[Any], list[Any]]:
        if self.reconciler is not None:
            return self.reconciler.resolve(work, head)
        facts = work
        # an earlier fact, or one said earlier in this session ("I'm leaving Acme. I now work at Initech.")
        own = {f.id for f in facts}
        supersessions = [
            s for s in proposals if (s.fact_id in head.fact_ids or s.fact_id in own) and s.fact_id != s.superseded_by
        ]
        return facts, supersessions

    def commit(self, session: Session, prepared: Any) -> None:
        started = time.perf_counter()
        head = self.log.head()
        work, proposals, stats = prepared
        facts, supersessions = self._facts_and_supersessions(work, proposals, head)
        crash_point("ingest:extracted")
        self.archive.write(session)
        self.log.append_session(
            session.session_id,
            facts,
            supersessions,
            session_hash=session.content_hash(),
            extractor=self.chosen.name,
            base=head,
        )
        if stats is not None and isinstance(self.chosen, LLMExtractor):
            self.chosen.merge_stats(stats)
        self.timings["write"] += time.perf_counter() - started
        self.report.sessions_added.append(session.session_id)
        self.last = session.session_id
        self.report.facts_appended += len(facts)
        self.report.supersessions += len(supersessions)
        self.tracker.advance()


def _extract_and_write(
    writer: _SessionWriter, pending: list[Session], client: Any, lag: int, progress: ProgressCallback | None
) -> None:
    """Extract the pending sessions (``lag`` ahead at most) while the writer commits them in order."""
    chosen, log, reconciler = writer.chosen, writer.log, writer.reconciler
    loop_started = time.perf_counter()
    with Tracker(progress, client, stage="extract", unit="sessions", total=len(pending)) as tracker:
        writer.tracker = tracker
        run_in_order(
            pending,
            extract=lambda session, known: _extract(chosen, session, known),
            known=lambda: (
                reconciler.shown_after(writer.last) if reconciler is not None else _known(chosen, log, log.head())
            ),
            prepare=writer.prepare,
            commit=writer.commit,
            lag=lag,
            workers=min(lag, client.concurrency) if client is not None else 1,
            carry=client.carry if client is not None else None,
            started=lambda prepared: prepared[0].answer if isinstance(prepared[0], Prepared) else None,
        )
    # extraction runs side by side with the writes: its share is the rest of the loop
    writer.timings["extract"] = time.perf_counter() - loop_started - writer.timings["write"]


def ingest_sessions(
    ctx: MemoryContext,
    sessions: Sequence[Session],
    *,
    extractor: str | None = None,
    file: str | Path | None = None,
    format: str | None = None,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    for session in sessions:
        check_turn_ids(session)
    chosen = make_extractor(ctx, extractor)
    report = IngestReport(str(file) if file is not None else None, format, chosen.name)
    project = ctx.project
    log = ctx.fact_log()
    archive = Archive(project.paths.sessions)
    timings = {"extract": 0.0, "write": 0.0, "index": 0.0}
    client = chosen.client if isinstance(chosen, LLMExtractor) else None
    meter = client.metered() if client is not None else contextlib.nullcontext(Usage())
    with meter as usage, project.lock("ingest"):
        # the log's head (sessions, fact ids, position), not its folded facts:
        # what this costs grows with the new sessions, not with the memory
        before = log.head()
        check_conflicts(sessions, before, archive)
        pending = _pending(sessions, before, report)
        if pending:
            from ..index.embeddings import preload

            preload()  # the model loads while the sessions are extracted and written
        lag = project.config.extract.parallel_sessions if isinstance(chosen, LLMExtractor) else 1
        reconciler = (
            Reconciler(client, lambda: log.recent_valid(INDEXED_FACTS, before), [s.session_id for s in pending])
            if isinstance(chosen, LLMExtractor)
            else None
        )
        if reconciler is not None and pending:
            reconciler.start()
        writer = _SessionWriter(chosen, log, archive, reconciler, report, timings)
        _extract_and_write(writer, pending, client, lag, progress)
        # index what the log has and the indexes lack: the new sessions, and
        # whatever an earlier run that crashed left unindexed (usually nothing)
        started = time.perf_counter()
        caught = catch_up(ctx.index, log.head(), archive, log, previous=before)
        report.chunks_indexed = caught.chunks_added
        timings["index"] += time.perf_counter() - started
    report.timings = timings
    report.usage = usage
    if isinstance(chosen, LLMExtractor):
        report.extraction = chosen.stats.to_json()
    if reconciler is not None:
        report.reconcile = reconciler.stats.to_json()
    return report


Extraction = tuple[list[ExtractedFact], "ExtractionStats | None"]


def _known(chosen: Extractor, log: FactLog, head: LogHead) -> list[Fact]:
    """The earlier facts an extractor is shown without reconcile's index: the last
    ``known_facts`` facts valid now, for the model; for the rules, the facts in force
    that record a person's state (employer, home), which a new statement may supersede.
    (An LLM ingest shows the facts its session is about: :mod:`.shown`.)"""
    if not isinstance(chosen, LLMExtractor):
        return head.state_fact_list()
    if not chosen.known_facts:
        return []
    return log.recent_valid(chosen.known_facts, head)


def _extract(chosen: Extractor, session: Session, known: "list[Fact] | ShownFacts") -> Extraction:
    if isinstance(known, ShownFacts):
        known = known.for_session(session, chosen.known_facts if isinstance(chosen, LLMExtractor) else 0)
    if isinstance(chosen, LLMExtractor):
        return chosen.extract_apart(session, known)
    return chosen.extract(session, known), None
