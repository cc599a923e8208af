"""Bringing the indexes in step with the fact log, by themselves.

The log is the truth; the indexes follow it.  The index manifest
(``.uac/index/manifest.json``) records the log position the indexes cover:
the byte length of the committed log and the sha256 of those bytes.  Whether
the indexes are current is then one comparison with what reading the log
computes anyway (:func:`coverage`), so searches pay nothing for it:

* ``current``  -- the manifest names the log as it is: nothing to do;
* ``grown``    -- the log only grew since (the recorded bytes are still its
  prefix): the sessions committed after that position are indexed, after
  dropping whatever part of them an interrupted run left in the indexes;
* ``unknown``  -- no usable position (no manifest, a log rewritten by
  ``forget``, a manifest from before positions were recorded): the indexes
  are compared with the log entry by entry and mended (:func:`reconcile`);
* ``settings`` -- built with other settings (model, text rules): rebuilt.

:func:`catch_up` does whichever applies and then records the new position;
the caller holds the project lock.  Only what is missing is embedded.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Any

from ..errors import StoreError
from ..facts.head import LogHead
from ..facts.log import FactLog, LogState, parse_log
from ..facts.model import Fact
from ..failpoints import crash_point
from ..fieldjson import fields_json
from ..sessions.archive import Archive
from ..sessions.model import Session
from .maintain import index_sessions, rebuild, session_or_stub
from .store import CHANNELS, ChannelIndex, MemoryIndex

log = logging.getLogger(__name__)

EMPTY_DIGEST = hashlib.sha256(b"").hexdigest()


@dataclass
class CatchUpReport:
    """What :func:`catch_up` found and did."""

    status: str
    sessions_indexed: int = 0
    facts_added: int = 0
    chunks_added: int = 0
    entries_removed: int = 0
    vectors_removed: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return fields_json(self, seconds=round(self.seconds, 4))


def coverage(
    index: MemoryIndex, state: LogState | LogHead, fact_log: FactLog, previous: LogState | LogHead | None = None
) -> str:
    """``current``, ``grown``, ``unknown`` or ``settings`` (see the module doc).

    ``current`` costs one small file read.  Telling ``grown`` from ``unknown``
    hashes the recorded prefix of the log again -- unless ``previous`` is a
    state this log has only been appended to since (the caller held the lock
    in between) and the manifest names exactly that state.
    """
    manifest = index.read_manifest()
    if manifest is not None and index.manifest.settings_differ(manifest):
        return "settings"
    position = index.manifest.covered_position(manifest)
    if position is None:
        # a project whose indexes were never written starts from an empty log
        if manifest is None and not index.has_corpus():
            position = (0, EMPTY_DIGEST)
        else:
            return "unknown"
    size, digest = position
    if size == state.good_bytes and digest == state.digest:
        return "current"
    if size >= state.good_bytes:
        return "unknown"
    if size == 0 and digest == EMPTY_DIGEST:
        return "grown"
    if previous is not None and (size, digest) == (previous.good_bytes, previous.digest):
        return "grown"
    return "grown" if fact_log.prefix_digest(size) == digest else "unknown"


def _log_position(state: LogState | LogHead) -> tuple[int, str]:
    return state.good_bytes, state.digest


def _expected_chunks(session: Session | None) -> int:
    from .texts import TEXT_SETTINGS, chunk_ranges

    if session is None:
        return 0
    return len(chunk_ranges(len(session.turns), int(TEXT_SETTINGS["chunk_turns"]), int(TEXT_SETTINGS["chunk_stride"])))


def _indexed_by_session(channel: ChannelIndex, sessions: set[str] | None) -> dict[str, list[str]]:
    """Session -> the ids its entries have in ``channel``, in corpus order, for the
    given sessions (``None``: every session), read from the corpus table (no entry
    is parsed)."""
    table = channel.rows.table
    row_of = channel.rows.row_of
    out: dict[str, list[str]] = {}
    for row, (entry_id, session_id) in enumerate(zip(channel.rows.line_ids, table.sessions)):
        if (sessions is None or session_id in sessions) and row_of.get(entry_id) == row:
            out.setdefault(session_id, []).append(entry_id)
    return out


class _Work:
    """The state of one catch-up: what the log holds, what the indexes hold.

    ``by_session``: the committed facts of the sessions looked at (every
    session, or only those committed after the covered position).
    """

    def __init__(
        self,
        index: MemoryIndex,
        state: LogState | LogHead,
        archive: Archive,
        by_session: dict[str, list[Fact]],
        sessions: set[str] | None,
    ) -> None:
        self.index = index
        self.state = state
        self.archive = archive
        self.facts: ChannelIndex = index.channel("facts")
        self.chunks: ChannelIndex = index.channel("archive")
        self.by_session = by_session
        self.indexed_facts: dict[str, set[str]] = {
            sid: set(ids) for sid, ids in _indexed_by_session(self.facts, sessions).items()
        }
        self.indexed_chunks: dict[str, list[str]] = _indexed_by_session(self.chunks, sessions)
        self.sessions: dict[str, Session] = {}

    def session(self, session_id: str) -> Session:
        if session_id not in self.sessions:
            self.sessions[session_id] = session_or_stub(self.archive, session_id, self.by_session.get(session_id, []))
        return self.sessions[session_id]

    def complete(self, session_id: str) -> bool:
        """Does the index hold exactly this committed session's facts (same content) and chunks?"""
        facts = self.by_session.get(session_id, [])
        if self.indexed_facts.get(session_id, set()) != {f.id for f in facts}:
            return False
        if any(self.facts.entry(f.id).checksum != f.content_checksum() for f in facts):
            return False
        return len(self.indexed_chunks.get(session_id, ())) == _expected_chunks(self.session(session_id))

    def stray_ids(self) -> tuple[list[str], list[str]]:
        """Indexed facts no longer in the log, and chunks of sessions not committed."""
        facts = [i for i in self.facts.rows.order if i not in self.state.fact_ids]
        chunks = [i for sid, ids in self.indexed_chunks.items() if sid not in self.state.sessions for i in ids]
        return facts, chunks

    def include(self, by_session: dict[str, list[Fact]]) -> None:
        """Look at these sessions too (their facts as given)."""
        wanted = set(by_session)
        self.by_session.update(by_session)
        for sid, ids in _indexed_by_session(self.facts, wanted).items():
            self.indexed_facts[sid] = set(ids)
        self.indexed_chunks.update(_indexed_by_session(self.chunks, wanted))

    def entries_of(self, session_ids: set[str]) -> tuple[list[str], list[str]]:
        facts = [i for sid in session_ids for i in self.indexed_facts.get(sid, ())]
        chunks = [i for sid in session_ids for i in self.indexed_chunks.get(sid, ())]
        return facts, chunks


def _facts_after(state: LogState | LogHead, fact_log: FactLog, after: int, sessions: set[str]) -> dict[str, list[Fact]]:
    """The facts of ``sessions`` (all committed after byte ``after``), by session in log
    order: from the folded log, or by folding only the log's bytes after ``after``."""
    by_session: dict[str, list[Fact]] = {}
    if isinstance(state, LogState):
        facts = state.facts.values()
    else:
        data = fact_log.read_range(after, state.good_bytes)
        facts = parse_log(data, fact_log.path).facts.values()
    for fact in facts:
        if fact.session_id in sessions:
            by_session.setdefault(fact.session_id, []).append(fact)
    return by_session


def _vector_mismatch(channel: ChannelIndex, always: bool) -> tuple[list[str], set[str]]:
    """(vectors without a corpus entry, corpus entries without a vector).

    The full id comparison runs when ``always`` or when the counts differ.  With
    a flat copy in step with the corpus every entry has its vector and Chroma
    is not opened (it may lag behind; it catches up when next opened), unless
    ``always``; opening it then brings it in step first.
    """
    if not always and channel.flat is not None and channel.vectors.covered():
        return [], set()
    if not always and channel.vector_count() == len(channel):
        return [], set()
    held = channel.vectors.ids()
    ids = set(channel.rows.order)
    return sorted(held - ids), ids - held


def _rebuild_for_settings(index: MemoryIndex, state: LogState, archive: Archive, report: CatchUpReport) -> None:
    """The indexes were built with other settings: build them again from the log,
    keeping the vectors when they are still the ones this uac computes."""
    manifest = index.read_manifest()
    keep = manifest is not None and index.manifest.vectors_still_valid(manifest)
    log.warning(
        "the search indexes were built with other settings; rebuilding them from the log%s",
        " (the vectors are kept)" if keep else "",
    )
    report.facts_added, report.chunks_added = rebuild(index, state, archive, keep_vectors=keep)
    report.sessions_indexed = len(state.sessions)  # rebuild() records the position


def _reconcile_vectors(
    index: MemoryIndex, state: Any, report: CatchUpReport, dirty: set[str], stray: dict[str, set[str]], *, always: bool
) -> None:
    """Drop the vectors no corpus entry holds; an entry without a vector marks its
    session ``dirty`` (indexed again whole), or ``stray`` when the log lacks the session."""
    for name in CHANNELS:
        channel = index.channel(name)
        orphans, unbacked = _vector_mismatch(channel, always=always)
        if orphans:
            channel.vectors.delete(orphans)
            report.vectors_removed += len(orphans)
        for entry_id in unbacked:
            session_id = channel.entry(entry_id).session_id
            if session_id in state.sessions:
                dirty.add(session_id)  # re-indexed whole below
            else:
                stray[name].add(entry_id)


def _work_of(
    index: MemoryIndex, state: LogState | LogHead, archive: Archive, fact_log: FactLog, status: str
) -> "tuple[list[str], _Work]":
    """The sessions to compare and what they hold: those committed after the covered
    position when the log only grew, else every session of the folded log."""
    if status == "grown":
        size = index.manifest.covered_position()
        after = size[0] if size is not None else 0
        candidates = [sid for sid, end in state.commit_ends.items() if end > after]
        return candidates, _Work(
            index, state, archive, _facts_after(state, fact_log, after, set(candidates)), set(candidates)
        )
    assert isinstance(state, LogState)
    by_session: dict[str, list[Fact]] = {}
    for fact in state.facts.values():
        by_session.setdefault(fact.session_id, []).append(fact)
    return list(state.sessions), _Work(index, state, archive, by_session, None)


def catch_up(
    index: MemoryIndex,
    state: LogState | LogHead,
    archive: Archive,
    fact_log: FactLog,
    *,
    previous: LogState | LogHead | None = None,
) -> CatchUpReport:
    """Index what the log has and the indexes lack, drop what they hold beyond it,
    and record the log position they now cover (caller holds the project lock).

    ``state``: the log, folded or only its head (:mod:`uac.facts.head`); when the
    log only grew since the covered position, only the sessions committed after
    it are read and compared, so the work follows the new data.  Otherwise the
    log is folded whole and compared with the indexes entry by entry.
    ``previous``: the log as it was when the caller took the lock (see :func:`coverage`).
    """
    started = time.perf_counter()
    status = coverage(index, state, fact_log, previous)
    report = CatchUpReport(status)
    if status == "current":
        report.seconds = time.perf_counter() - started
        return report
    if status != "grown" and not isinstance(state, LogState):
        full = fact_log.read()
        if (full.good_bytes, full.digest) != (state.good_bytes, state.digest):
            raise StoreError(
                f"{fact_log.path} changed while its indexes were being brought up to date.",
                hint="Hold the project lock while writing the log; {do:repair}.",
            )
        state = full
    if status == "settings":
        assert isinstance(state, LogState)
        _rebuild_for_settings(index, state, archive, report)
        report.seconds = time.perf_counter() - started
        return report
    candidates, work = _work_of(index, state, archive, fact_log, status)
    dirty = {sid for sid in candidates if not work.complete(sid)}
    stray_facts, stray_chunks = work.stray_ids() if status == "unknown" else ([], [])
    stray = {"facts": set(stray_facts), "archive": set(stray_chunks)}
    _reconcile_vectors(index, state, report, dirty, stray, always=status == "unknown")
    older = dirty - set(candidates)
    if older:  # entries of sessions before the covered position lack vectors: read their facts
        folded = state if isinstance(state, LogState) else fact_log.read()
        work.include({sid: folded.session_facts(sid) for sid in older})
    if older and status == "grown":
        # their entries are dropped and indexed again below: until the new position is
        # recorded, the manifest must not claim them (a crash in between leaves "unknown",
        # so the next catch-up compares every entry and indexes them again)
        index.write_manifest(None)
    doomed_facts, doomed_chunks = work.entries_of(dirty)
    report.entries_removed += work.facts.remove(sorted(stray["facts"] | set(doomed_facts)))
    report.entries_removed += work.chunks.remove(sorted(stray["archive"] | set(doomed_chunks)))
    for channel in (work.facts, work.chunks):
        channel.drop_torn_tail()
    if dirty:
        order = [sid for sid in state.sessions if sid in dirty]
        pairs = [(work.session(sid), work.by_session.get(sid, [])) for sid in order]
        report.facts_added, report.chunks_added = index_sessions(index, pairs)
        report.sessions_indexed = len(order)
    crash_point("index:manifest")
    index.write_manifest(_log_position(state))
    report.seconds = time.perf_counter() - started
    if report.sessions_indexed or report.entries_removed or report.vectors_removed:
        log.info(
            "indexes caught up with the log (%s): %d session(s) indexed, %d entr(ies) and %d vector(s) dropped",
            status,
            report.sessions_indexed,
            report.entries_removed,
            report.vectors_removed,
        )
    return report


def ensure_current(ctx: Any, state: Any = None) -> CatchUpReport | None:
    """Before a search: if the indexes are behind the log, catch them up first.

    ``state`` is what the caller read of the log (a :class:`LogState` or the
    log's :class:`~uac.facts.table.FactTable`: anything with ``good_bytes`` and
    ``digest``); by default the log is read now.  The check costs one small
    file read; only when the indexes are behind
    does it take the project lock (waiting for a writer that is indexing right
    now, which usually leaves nothing to do) and call :func:`catch_up`.
    Returns ``None`` when they were current.
    """
    fact_log = ctx.fact_log()
    if state is None:
        state = fact_log.read()
    index = ctx.index
    if coverage(index, state, fact_log) == "current":
        return None
    with ctx.project.lock("index catch-up"):
        state = fact_log.read()
        return catch_up(index, state, Archive(ctx.project.paths.sessions), fact_log)


__all__ = ["CatchUpReport", "catch_up", "coverage", "ensure_current"]
