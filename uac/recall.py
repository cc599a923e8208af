"""Reading the memory back: hybrid search and the facts valid at a date."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from .context import MemoryContext
from .facts.model import Fact
from .index.catchup import ensure_current
from .dates import Period
from .index.search import SearchHit, hybrid_search, parse_as_of, parse_happened, query_focus

if TYPE_CHECKING:
    from .facts.table import FactTable
    from .index.record_index import RecordIndex


def search(
    ctx: MemoryContext,
    query: str,
    *,
    k: int = 20,
    channel: str = "all",
    as_of: "_dt.date | str | None" = None,
    happened: "Period | _dt.date | str | None" = None,
) -> list[SearchHit]:
    """Hybrid (dense + BM25, RRF) search over facts, archive chunks and/or imported
    records, best first.

    ``as_of`` filters by when things were said (what the memory knew on that day:
    facts said by then and not yet superseded); without it superseded facts are
    found too, with their ``invalid_at``.  ``happened`` filters by when things
    happened (a fact's event date overlaps the period).

    The indexes are brought in step with the fact log first if they are behind
    it (after a crash): a search never answers from an index that misses
    committed facts.  The log is read through its saved table of validity
    (:mod:`uac.facts.table`), not folded line by line.
    """
    day = parse_as_of(as_of)
    period = parse_happened(happened)
    table = _current_table(ctx)
    records = _records(ctx, channel)
    return hybrid_search(ctx.index, table, query, k=k, channel=channel, as_of=day, happened=period, records=records)


def _records(ctx: MemoryContext, channel: str) -> "RecordIndex | None":
    """The imported records' index, brought in step with the view first if it is behind
    (a few ``stat`` calls when it is not); ``None`` when the channel does not need it."""
    if channel not in ("all", "records"):
        return None
    from .compile.record_search import in_step, record_index, sync_record_index

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
    k: int = 20,
    channel: str = "all",
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
        hybrid_search(
            ctx.index, table, query, k=k, channel=channel, as_of=day, happened=period, query_vector=vector, records=records
        )
        for query, vector in zip(queries, vectors)
    ]


def list_facts(
    ctx: MemoryContext, *, as_of: "_dt.date | str | None" = None, include_superseded: bool = False
) -> list[Fact]:
    """The facts of the log in log order: valid now (or at ``as_of``) unless ``include_superseded``."""
    day = parse_as_of(as_of)
    facts = list(ctx.read_log().facts.values())
    if include_superseded and day is None:
        return facts
    if include_superseded:
        return [f for f in facts if (f.valid_from or f.session_date) is None or (f.valid_from or f.session_date) <= day]
    return [f for f in facts if f.is_valid_at(day)]
