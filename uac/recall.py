"""Reading the memory back: hybrid search and the facts valid at a date."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import TYPE_CHECKING

from .context import MemoryContext
from .dates import Period
from .facts.model import Fact
from .index.catchup import ensure_current
from .index.search import SearchHit, asks_about_now, hybrid_search, parse_as_of, parse_happened, query_focus

if TYPE_CHECKING:
    from .facts.table import FactTable
    from .index.record_index import RecordIndex


def search(
    ctx: MemoryContext,
    query: str,
    *,
    k: int,
    channel: str,
    as_of: "_dt.date | str | None" = None,
    happened: "Period | _dt.date | str | None" = None,
) -> list[SearchHit]:
    """Hybrid (dense + BM25, RRF) search over facts, archive chunks and/or imported
    records, best first: at most ``k`` hits of ``channel`` (their defaults are
    :meth:`UserMemory.search <uac.memory.UserMemory.search>`'s).

    ``as_of`` filters by when things were said (what the memory knew on that day:
    facts said by then and not yet superseded); without it superseded facts are
    found too, with their ``invalid_at``.  ``happened`` filters by when things
    happened (a fact's event date overlaps the period).

    A question about now ranks the archive excerpts that state a superseded fact
    after the current hits (:func:`current_first`), as superseded facts are.

    The indexes are brought in step with the fact log first if they are behind
    it (after a crash): a search never answers from an index that misses
    committed facts.  The log is read through its saved table of validity
    (:mod:`uac.facts.table`), not folded line by line.
    """
    day = parse_as_of(as_of)
    period = parse_happened(happened)
    table = _current_table(ctx)
    records = _records(ctx, channel)
    hits = hybrid_search(ctx.index, table, query, k=k, channel=channel, as_of=day, happened=period, records=records)
    return current_first(ctx, table, query, hits, day)


#: a stale excerpt's score, at most, relative to the lowest current hit's (a "now" query)
STALE_FACTOR = 0.5


def current_first(
    ctx: MemoryContext, table: "FactTable", query: str, hits: list[SearchHit], as_of: "_dt.date | None" = None
) -> list[SearchHit]:
    """For a question about now (without ``as_of``): the archive excerpts that state a
    superseded fact -- its source turns lie in the excerpt, and the fact that replaced it
    does not -- rank after the current hits, their scores scaled below the lowest of those,
    as superseded facts do; nothing is removed.  Other questions keep the ranking."""
    if as_of is not None or not asks_about_now(query) or not any(h.channel == "archive" for h in hits):
        return hits
    stale = stale_excerpts(ctx, table, [h.id for h in hits if h.channel == "archive"])
    if not stale:
        return hits
    current = [h for h in hits if h.id not in stale and not (h.channel == "facts" and h.invalid_at)]
    rest = [h for h in hits if h.id in stale or (h.channel == "facts" and h.invalid_at)]
    floor = min((h.score for h in current), default=1.0)
    top = max(h.score for h in rest)
    factor = min(1.0, STALE_FACTOR * floor / top) if top > 0 else 1.0
    return current + [dataclasses.replace(h, score=h.score * factor) for h in rest]


def stale_excerpts(ctx: MemoryContext, table: "FactTable", chunk_ids: list[str]) -> set[str]:
    """The archive chunks among ``chunk_ids`` that are the source of a superseded fact
    and not of the fact that replaced it."""
    facts_index, chunks = ctx.index.channel("facts"), ctx.index.channel("archive")
    sourced = {chunk_id: facts_index.facts_of_chunks(chunks, [chunk_id]) for chunk_id in chunk_ids}
    if not any(table.invalid_at(f) is not None for ids in sourced.values() for f in ids):
        return set()
    facts = ctx.read_log().facts  # who replaced whom (only read when a superseded fact is at stake)
    out = set()
    for chunk_id, ids in sourced.items():
        own = set(ids)
        for fact_id in ids:
            fact = facts.get(fact_id)
            if fact is not None and fact.invalid_at is not None and fact.superseded_by not in own:
                out.add(chunk_id)
                break
    return out


def _records(ctx: MemoryContext, channel: str) -> "RecordIndex | None":
    """The imported records' index, brought in step with the view first if it is behind
    (a few ``stat`` calls when it is not); ``None`` when the channel does not need it."""
    if channel not in ("all", "records"):
        return None
    from .records.search import in_step, record_index, sync_record_index

    if not in_step(ctx.project):
        with ctx.project.lock("records index"):
            sync_record_index(ctx.project)
    return record_index(ctx.project)


def _current_table(ctx: MemoryContext) -> "FactTable":
    table = ctx.fact_table()
    if ensure_current(ctx, table) is not None:  # the indexes caught up: the log may have grown meanwhile
        table = ctx.fact_table()
    return table


def search_many(
    ctx: MemoryContext,
    queries: list[str],
    *,
    k: int,
    channel: str,
    as_of: "_dt.date | str | None" = None,
    happened: "Period | _dt.date | str | None" = None,
) -> list[list[SearchHit]]:
    """:func:`search` for each query, the queries embedded in one batch and the log read once."""
    queries = list(queries)
    if not queries:
        return []
    from .index.embeddings import get_embedder

    day = parse_as_of(as_of)
    period = parse_happened(happened)
    table = _current_table(ctx)
    records = _records(ctx, channel)
    vectors = get_embedder().encode([query_focus(table, q, channel)[0] for q in queries])
    return [
        current_first(
            ctx,
            table,
            query,
            hybrid_search(
                ctx.index,
                table,
                query,
                k=k,
                channel=channel,
                as_of=day,
                happened=period,
                query_vector=vector,
                records=records,
            ),
            day,
        )
        for query, vector in zip(queries, vectors)
    ]


def list_facts(
    ctx: MemoryContext, *, as_of: "_dt.date | str | None" = None, include_superseded: bool = False
) -> list[Fact]:
    """The facts of the log in log order: valid now (or at ``as_of``) unless ``include_superseded``."""
    day = parse_as_of(as_of)
    facts = list(ctx.read_log().facts.values())
    if include_superseded:
        if day is None:
            return facts
        return [f for f in facts if (start := f.valid_from or f.session_date) is None or start <= day]
    return [f for f in facts if f.is_valid_at(day)]
