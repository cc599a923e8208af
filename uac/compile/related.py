"""Which existing records a batch of new facts should see.

The model never sees a whole domain: for each batch it sees the records that
share words, names or dates with the batch's facts, ranked by the weight of
what they share (rare words count more, like BM25's idf), plus the records it
must revisit, within a character budget.  The index is an inverted map from
token to record ids, kept up to date as operations add, change and retire
records, so ranking a batch costs what the batch's words touch, not the size
of the domain.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from typing import Any, Iterable

from ..dialect.render import flat
from ..index.tokens import tokenize
from .work import DomainWork


def record_line(record: Any) -> str:
    """One record as the model sees it: its constructor on one line."""
    return flat(record)


def _tokens(text: str) -> set[str]:
    return {t for t in tokenize(text) if len(t) > 1}


def _record_text(record: Any) -> str:
    # what identifies a record: its values, not the fact ids it cites
    values = {k: v for k, v in record.__dict__.items() if k not in ("sources", "notes", "id")}
    return " ".join(str(v) for v in values.values())


class RecordIndex:
    """An inverted index of a domain's managed records."""

    def __init__(self, work: DomainWork) -> None:
        self.postings: dict[str, set[str]] = defaultdict(set)
        self.terms: dict[str, set[str]] = {}
        for _, _, record in work.iter_records():
            self.put(record)

    def put(self, record: Any) -> None:
        self.drop(record.id)
        terms = _tokens(_record_text(record))
        self.terms[record.id] = terms
        for term in terms:
            self.postings[term].add(record.id)

    def drop(self, ident: str) -> None:
        for term in self.terms.pop(ident, ()):
            holders = self.postings.get(term)
            if holders is not None:
                holders.discard(ident)

    def rank(self, texts: Iterable[str], limit: int = 200) -> list[str]:
        """Record ids sharing tokens with ``texts``, best first."""
        total = max(1, len(self.terms))
        scores: dict[str, float] = defaultdict(float)
        for term in set().union(*(_tokens(t) for t in texts)) if texts else set():
            holders = self.postings.get(term)
            if not holders or len(holders) > total / 2 + 1:
                continue  # a word most records share says nothing about which one
            weight = math.log(1 + total / len(holders))
            for ident in holders:
                scores[ident] += weight
        # the best ``limit`` without sorting every record that shares a word (same order as a sort)
        return [i for i, _ in heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def select_related(
    work: DomainWork,
    index: RecordIndex,
    fact_texts: list[str],
    *,
    must: Iterable[str] = (),
    budget: int,
) -> list[tuple[str, str]]:
    """(record id, line) of the records to show with a batch, within ``budget`` characters.

    ``must`` (records to revisit) come first, then the best-ranked ones.
    """
    chosen: list[tuple[str, str]] = []
    seen: set[str] = set()
    used = 0
    for ident in [*must, *index.rank(fact_texts)]:
        if ident in seen:
            continue
        found = work.find(ident)
        if found is None:
            continue
        line = record_line(found[1])
        if used + len(line) + 1 > budget and chosen:
            if ident in must:
                continue
            break
        chosen.append((ident, line))
        seen.add(ident)
        used += len(line) + 1
    return chosen


__all__ = ["RecordIndex", "record_line", "select_related"]
