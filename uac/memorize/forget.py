"""Forgetting: removing a fact, a whole session, or imported data for real, from every copy.

Under the project lock:

* the log is rewritten without the forgotten records (a forgotten fact's line
  and every supersession naming it; for a session, all its records including
  its commit) and, for a session, its archive file is deleted;
* the indexes drop the same entries (the index of imported records follows
  the view: :mod:`uac.records.search`); an embedded Chroma store is
  deleted whole, to be rebuilt from the flat vector copies when it is next
  opened, as its files keep more than their entries
  (:meth:`uac.index.store.MemoryIndex.drop_embedded_store`);
* the compiled view: records citing only forgotten facts are removed, records
  citing some lose those citations and are revisited by the next compile; the
  compile ledgers and history drop what they kept of them
  (:mod:`uac.records.forget`);
* the LLM response cache drops every entry whose prompt or reply held a word
  that only the forgotten text used, and is compacted.

Afterwards no file of the project holds the forgotten text.  A domain (or one
collection of it) is taken out of the typed view
(:func:`uac.records.importer.remove_records`): that is how imported records are
undone; their entries leave the search index of imported records with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ..context import MemoryContext
from ..errors import FactNotFound, InputError, SessionNotFound
from ..facts.log import LogState
from ..fieldjson import fields_json
from ..index.catchup import coverage
from ..index.store import CHANNELS
from ..llm.cache import ResponseCache
from ..records.forget import forget_in_view
from ..records.search import sync_record_index
from ..sessions.archive import Archive, check_session_id


@dataclass
class ForgetReport:
    facts_removed: list[str] = field(default_factory=list)
    sessions_removed: list[str] = field(default_factory=list)
    archive_deleted: bool = False
    records_removed: int = 0
    records_revisited: int = 0
    cache_entries_dropped: int = 0
    #: the domain data was removed from, its collections removed, and whether the domain went
    domain: str | None = None
    collections_removed: list[str] = field(default_factory=list)
    domain_removed: bool = False

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


_WORD = re.compile(r"[^\W_]{4,}")


def words_of(texts: Any) -> set[str]:
    return {w.lower() for text in texts for w in _WORD.findall(text or "")}


def forgotten_words(gone: list[str], kept: list[str]) -> set[str]:
    """Words (4+ letters or digits) of the forgotten texts that no kept text uses:
    what marks a derived copy (a cached prompt, a model's reply) as holding them."""
    return words_of(gone) - words_of(kept)


def forget(
    ctx: MemoryContext,
    *,
    fact: str | None = None,
    session: str | None = None,
    domain: str | None = None,
    collection: str | None = None,
) -> ForgetReport:
    if sum(x is not None for x in (fact, session, domain)) != 1:
        raise InputError(
            "forget needs exactly one of a fact id, a session id or a domain.",
            hint="Give {opt:fact}, {opt:session}, or {opt:domain} (with {opt:collection} for one collection).",
        )
    if collection is not None and domain is None:
        raise InputError("a collection is forgotten with its domain.", hint="Give {opt:domain} with {opt:collection}.")
    if domain is not None:
        return _forget_view_data(ctx, domain, collection)
    project = ctx.project
    log = ctx.fact_log()
    archive = Archive(project.paths.sessions)
    report = ForgetReport()
    with project.lock("forget"):
        state = log.read()
        if fact is not None:
            doomed, keep = _fact_to_forget(state, fact)
        else:
            assert session is not None
            doomed, keep = _session_to_forget(state, archive, session)
        gone_texts = [state.facts[i].text for i in doomed]
        if session is not None and archive.has(session):
            gone_texts += [t.full_text for t in archive.read(session).turns]
        index = ctx.index
        in_step = coverage(index, state, log) == "current"
        new_state = _rewrite_and_unindex(index, log, archive, keep, doomed, session, report)
        kept_texts = [f.text for f in new_state.facts.values()]
        for other in archive.ids():
            kept_texts += [t.full_text for t in archive.read(other).turns]
        words = forgotten_words(gone_texts, kept_texts)
        view = forget_in_view(project, doomed, words)
        report.records_removed, report.records_revisited = view.records_removed, view.records_revisited
        cache_path = ctx.llm_settings.cache_path
        if cache_path is not None and cache_path.exists():
            report.cache_entries_dropped = ResponseCache(cache_path).purge(words)
        if in_step:  # the indexes now cover the rewritten log (else the next search catches up)
            index.write_manifest((new_state.good_bytes, new_state.digest))
        sync_record_index(project)  # the view changed: the imported records' index follows
    return report


_Keep = Callable[[dict[str, Any]], bool]


def _fact_to_forget(state: LogState, fact: str) -> tuple[set[str], _Keep]:
    """The fact ids to forget, and which log records stay, for one fact."""
    if fact not in state.facts:
        raise FactNotFound(f"no fact {fact!r} in this project's log.", hint="{do:find_facts}.")
    doomed = {fact}

    def keep(record: dict[str, Any]) -> bool:
        if record["kind"] == "fact":
            return record["id"] not in doomed
        if record["kind"] == "supersede":
            return record["id"] not in doomed and record["superseded_by"] not in doomed
        return True

    return doomed, keep


def _session_to_forget(state: LogState, archive: Archive, session: str) -> tuple[set[str], _Keep]:
    """The fact ids to forget, and which log records stay, for one session."""
    check_session_id(session)
    if session not in state.sessions and not archive.has(session):
        raise SessionNotFound(f"no session {session!r} in this project.", hint="{do:find_sessions}.")
    doomed = {f.id for f in state.facts.values() if f.session_id == session}

    def keep(record: dict[str, Any]) -> bool:
        if record.get("session_id") == session:
            return False
        if record["kind"] == "supersede":
            return record["id"] not in doomed and record["superseded_by"] not in doomed
        return True

    return doomed, keep


def _rewrite_and_unindex(
    index: Any, log: Any, archive: Archive, keep: _Keep, doomed: set[str], session: str | None, report: ForgetReport
) -> Any:
    """Rewrite the log without the forgotten records and take them out of the indexes
    (and the session out of the archive); the rewritten log's state."""
    # an embedded Chroma store is deleted whole rather than edited (its files keep
    # deleted entries and stray heap bytes: see MemoryIndex.drop_embedded_store);
    # it is rebuilt from the flat copies, so those are brought in step first
    embedded = index.backend != "http"
    if embedded:
        for name in CHANNELS:
            index.channel(name).flat_from_chroma()
    new_state = log.rewrite(keep)
    report.facts_removed = sorted(doomed)
    facts_index = index.channel("facts")
    facts_index.remove(doomed, from_chroma=not embedded)
    if session is not None:
        report.sessions_removed = [session]
        report.archive_deleted = archive.delete(session)
        chunks = index.channel("archive")
        chunks.remove([e.id for e in chunks.entries.values() if e.session_id == session], from_chroma=not embedded)
    if embedded:
        index.drop_embedded_store()
    return new_state


def _forget_view_data(ctx: MemoryContext, domain: str, collection: str | None) -> ForgetReport:
    from ..records.importer import remove_records
    from ..view.changes import compile_scope, purge_collection

    with ctx.project.lock("forget"):
        with compile_scope(ctx.project, "forget", record=False):
            removed = remove_records(ctx.project, domain, collection)
        purge_collection(ctx.project, domain, collection)
    return ForgetReport(
        domain=removed.domain,
        collections_removed=removed.collections,
        records_removed=removed.records,
        domain_removed=removed.domain_removed,
    )
