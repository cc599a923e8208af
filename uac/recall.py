"""Reading the memory back: hybrid search and the facts valid at a date."""

from __future__ import annotations

import datetime as _dt

from .context import MemoryContext
from .facts.model import Fact
from .index.search import SearchHit, hybrid_search, parse_as_of


def search(
    ctx: MemoryContext, query: str, *, k: int = 20, channel: str = "all", as_of: "_dt.date | str | None" = None
) -> list[SearchHit]:
    """Hybrid (dense + BM25, RRF) search over facts and/or archive chunks, best first."""
    return hybrid_search(ctx.index, ctx.fact_table(), query, k=k, channel=channel, as_of=parse_as_of(as_of))


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
