"""Reading the memory back: hybrid search and the facts valid at a date."""

from __future__ import annotations

import datetime as _dt

from .context import MemoryContext
from .facts.model import Fact
from .index.catchup import ensure_current
from .index.search import SearchHit, hybrid_search, parse_as_of


def search(
    ctx: MemoryContext, query: str, *, k: int = 20, channel: str = "all", as_of: "_dt.date | str | None" = None
) -> list[SearchHit]:
    """Hybrid (dense + BM25, RRF) search over facts and/or archive chunks, best first.

    The indexes are brought in step with the fact log first if they are behind
    it (after a crash): a search never answers from an index that misses
    committed facts.
    """
    day = parse_as_of(as_of)
    ensure_current(ctx)
    return hybrid_search(ctx.index, ctx.read_log(), query, k=k, channel=channel, as_of=day)


def search_many(
    ctx: MemoryContext,
    queries: list[str],
    *,
    k: int = 20,
    channel: str = "all",
    as_of: "_dt.date | str | None" = None,
) -> list[list[SearchHit]]:
    """:func:`search` for each query, the queries embedded in one batch and the log read once."""
    queries = list(queries)
    if not queries:
        return []
    from .index.embeddings import get_embedder

    day = parse_as_of(as_of)
    state = ctx.read_log()
    vectors = get_embedder().encode(queries)
    return [
        hybrid_search(ctx.index, state, query, k=k, channel=channel, as_of=day, query_vector=vector)
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
