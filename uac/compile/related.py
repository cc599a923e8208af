"""Which existing records a batch of new facts should see.

The model never sees a whole domain: for each batch it sees the records that
share words, names or dates with the batch's facts, ranked by the weight of
what they share (rare words count more, like BM25's idf; a name -- a word the
facts capitalize -- counts double, and a month the facts name meets the
records whose dates fall in it), plus the records it must revisit and those
whose ids the facts name, within a character budget.  The index is an
inverted map from token to record ids, kept up to date as operations add,
change and retire records, so ranking a batch costs what the batch's words
touch, not the size of the domain.

:class:`CrossIndex` holds one such index per domain, built once per compile
from the domains as they were when it began: a batch is also shown the best
records of the *other* domains (read-only, with their ``domain/id``), so the
model can refer to a thing that already exists instead of copying it.
"""

from __future__ import annotations

import datetime as _dt
import heapq
import math
import re
import threading
from collections import defaultdict
from typing import Any, Iterable, Mapping

from ..dates import MONTH_NAMES, WEEKDAY_NAMES, Period
from ..index.tokens import tokenize
from .shown import record_line, ref_line
from .working_copy import DomainWork

#: a record id as uac writes them (``trip-3``), alone or qualified (``travel/trip-3``)
RECORD_ID = re.compile(r"\b(?:(?P<domain>[a-z][a-z0-9_]*)/)?(?P<id>[a-z][a-z0-9_]*-[0-9]+)\b")
_ISO_MONTH = re.compile(r"\b((?:19|20)[0-9]{2})-(0[1-9]|1[0-2])\b")
#: a month as the rule extractor writes dates after a phrase ("(on 18 April 2025)", "(in June 2024)")
_WORDED_MONTH = re.compile(rf"\b({'|'.join(MONTH_NAMES)})\s+((?:19|20)[0-9]{{2}})\b")
_CALENDAR_WORDS = frozenset(MONTH_NAMES) | frozenset(WEEKDAY_NAMES)
#: numbers that say when rather than what: a year, a day of the month (the month terms carry dates)
_WHEN_NUMBER = re.compile(r"(?:19|20)[0-9]{2}|[0-9]{1,2}")
_NAME = re.compile(r"\b[A-Z][a-zA-Z'\-]+")
#: a name shared with a record weighs this many times a plain word
NAME_WEIGHT = 2.0


def _tokens(text: str) -> set[str]:
    return {t for t in tokenize(text) if len(t) > 1}


def _month_terms(value: Any) -> set[str]:
    """``@2023-05`` for each month a date or period value falls in (at most a year of them)."""
    if isinstance(value, Period):
        first, last = value.start, value.end
    elif isinstance(value, _dt.date):
        first = last = value
    else:
        return set()
    terms: set[str] = set()
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month) and len(terms) < 12:
        terms.add(f"@{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return terms


def _record_terms(record: Any) -> set[str]:
    # what identifies a record: its values, not the fact ids it cites
    values = [v for k, v in record.__dict__.items() if k not in ("sources", "notes", "id")]
    terms = _tokens(" ".join(str(v) for v in values))
    for value in values:
        for item in value if isinstance(value, (list, tuple)) else (value,):
            terms |= _month_terms(item)
    return terms


def query_terms(texts: Iterable[str], ignore: Iterable[str] = ()) -> dict[str, float]:
    """What the facts are about, term -> weight: their words, names (capitalized words)
    at :data:`NAME_WEIGHT`, and the months their dates name (``@2023-05``, from "2023-05-07"
    or "7 May 2023"); a year or a day number alone is no term (every record of a year
    shares it: the month terms say when).

    ``ignore``: names that say nothing of which record a fact is about -- the user's, whom
    nearly every fact and record names ("Alice ran the parkrun" is not about Alice's thesis)."""
    terms: dict[str, float] = {}
    for text in texts:
        for term in _tokens(text):
            if not _WHEN_NUMBER.fullmatch(term):
                terms.setdefault(term, 1.0)
        for name in _NAME.findall(text):
            if name in _CALENDAR_WORDS:
                continue  # "June", "Friday": a date, not a name (its month term says it)
            for term in _tokens(name):
                terms[term] = NAME_WEIGHT
        for year, month in _ISO_MONTH.findall(text):
            terms[f"@{year}-{month}"] = NAME_WEIGHT
        for month_name, year in _WORDED_MONTH.findall(text):
            terms[f"@{year}-{MONTH_NAMES.index(month_name) + 1:02d}"] = NAME_WEIGHT
    for name in ignore:
        for term in _tokens(name):
            terms.pop(term, None)
    return terms


def named_ids(texts: Iterable[str]) -> list[tuple[str | None, str]]:
    """(domain or None, record id) of each record id the texts name."""
    found: list[tuple[str | None, str]] = []
    for text in texts:
        for match in RECORD_ID.finditer(text):
            found.append((match.group("domain"), match.group("id")))
    return list(dict.fromkeys(found))


class RecordIndex:
    """An inverted index of a domain's managed records."""

    def __init__(self, work: DomainWork) -> None:
        self.postings: dict[str, set[str]] = defaultdict(set)
        self.terms: dict[str, set[str]] = {}
        for _, _, record in work.iter_records():
            self.put(record)

    def put(self, record: Any) -> None:
        self.drop(record.id)
        terms = _record_terms(record)
        self.terms[record.id] = terms
        for term in terms:
            self.postings[term].add(record.id)

    def drop(self, ident: str) -> None:
        for term in self.terms.pop(ident, ()):
            holders = self.postings.get(term)
            if holders is not None:
                holders.discard(ident)

    def rank(self, texts: Iterable[str], limit: int = 200, ignore: Iterable[str] = ()) -> list[str]:
        """Record ids sharing what ``texts`` are about (``ignore``: see :func:`query_terms`), best first."""
        return [i for i, _ in self.scored(query_terms(texts, ignore), limit)]

    def scored(self, terms: Mapping[str, float], limit: int = 200) -> list[tuple[str, float]]:
        """(record id, score) of the records sharing ``terms`` (see :func:`query_terms`), best first."""
        total = max(1, len(self.terms))
        scores: dict[str, float] = defaultdict(float)
        for term, boost in terms.items():
            holders = self.postings.get(term)
            if not holders or len(holders) > total / 2 + 1:
                continue  # a word most records share says nothing about which one
            weight = boost * math.log(1 + total / len(holders))
            for ident in holders:
                scores[ident] += weight
        # the best ``limit`` without sorting every record that shares a word (same order as a sort)
        return heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], kv[0]))


def select_related(
    work: DomainWork,
    index: RecordIndex,
    fact_texts: list[str],
    *,
    must: Iterable[str] = (),
    budget: int,
    ignore: Iterable[str] = (),
) -> list[tuple[str, str]]:
    """(record id, line) of the records to show with a batch, within ``budget`` characters.

    ``must`` (records to revisit) come first, then the records whose ids the facts name,
    then the best-ranked ones (``ignore``: names that rank nothing, see :func:`query_terms`).
    """
    chosen: list[tuple[str, str]] = []
    seen: set[str] = set()
    used = 0
    must = [*must, *(i for d, i in named_ids(fact_texts) if d in (None, work.name))]
    for ident in [*must, *index.rank(fact_texts, ignore=ignore)]:
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


class CrossIndex:
    """One :class:`RecordIndex` per domain, over the other domains' records as committed.

    It starts from the domains as they were when the compile began, and each domain
    *publishes* every batch it commits (:meth:`publish`: its new working copy, which
    nothing changes after the commit, and the records the batch touched or retired), so a
    domain compiled later in the same compile -- the first compile of a long history
    included -- is shown the records the others have made so far.  A domain's index is
    built once, the first time a batch asks, and kept current by the published changes
    (a record put or dropped, never a rebuild)."""

    def __init__(self, domains: Mapping[str, DomainWork]) -> None:
        self.works = {name: work.copy() for name, work in domains.items()}
        self._indexes: dict[str, RecordIndex] = {}
        self._lock = threading.Lock()

    @property
    def indexes(self) -> dict[str, RecordIndex]:
        with self._lock:  # domains compile on threads of their own: build each index once
            for name, work in self.works.items():
                if name not in self._indexes:
                    self._indexes[name] = RecordIndex(work)
            return dict(self._indexes)

    def publish(self, domain: str, work: DomainWork, touched: Iterable[str] = (), retired: Iterable[str] = ()) -> None:
        """``domain`` committed ``work`` (not to be changed after): its touched records are
        put in its index, its retired ones dropped."""
        with self._lock:
            self.works[domain] = work
            index = self._indexes.get(domain)
            if index is None:
                return
            for ident in touched:
                found = work.find(ident)
                if found is not None:
                    index.put(found[1])
            for ident in retired:
                index.drop(ident)

    def reset(self, domain: str, work: DomainWork) -> None:
        """``domain`` went back to ``work`` (a batch could not be written): its index is built again."""
        with self._lock:
            self.works[domain] = work
            self._indexes.pop(domain, None)

    def find(self, domain: str, ident: str) -> Any | None:
        work = self.works.get(domain)
        found = work.find(ident) if work is not None else None
        return found[1] if found is not None else None

    def exists(self, domain: str, ident: str) -> bool:
        return self.find(domain, ident) is not None

    def select(
        self, fact_texts: list[str], *, exclude: str, budget: int, limit: int = 50, ignore: Iterable[str] = ()
    ) -> list[tuple[str, str]]:
        """(``domain/id``, line) of the other domains' records best matching ``fact_texts``,
        within ``budget`` characters: records the facts name by id first, then by score
        across domains (``ignore``: names that rank nothing, see :func:`query_terms`)."""
        if budget <= 0:
            return []
        wanted: list[tuple[str, str]] = []
        for domain, ident in named_ids(fact_texts):
            homes = [domain] if domain else [n for n in self.works if n != exclude]
            wanted.extend((n, ident) for n in homes if n != exclude and self.exists(n, ident))
        terms = query_terms(fact_texts, ignore)
        ranked: list[tuple[float, str, str]] = []
        indexes = self.indexes
        with self._lock:  # a publish may change an index meanwhile
            for name, index in indexes.items():
                if name != exclude:
                    ranked.extend((score, name, ident) for ident, score in index.scored(terms, limit))
        ranked.sort(key=lambda item: (-item[0], item[1], item[2]))
        chosen: list[tuple[str, str]] = []
        seen: set[tuple[str, str]] = set()
        used = 0
        for name, ident in [*wanted, *((n, i) for _, n, i in ranked[:limit])]:
            if (name, ident) in seen:
                continue
            record = self.find(name, ident)
            if record is None:
                continue
            line = ref_line(name, record)
            if used + len(line) + 1 > budget:
                break
            chosen.append((f"{name}/{ident}", line))
            seen.add((name, ident))
            used += len(line) + 1
        return chosen


__all__ = ["CrossIndex", "RecordIndex", "named_ids", "query_terms", "select_related"]
