"""Hybrid search: dense (Chroma) and BM25 lists fused with reciprocal rank fusion.

Each channel contributes two ranked lists, dense and BM25.  The facts
channel adds a third: the facts of the turns in the best archive excerpts (the
fused archive lists), so the conversation around a fact votes for it.
``channel="all"`` fuses the dense and BM25 lists of both channels.  A document's score is
``sum(1 / (RRF_K + rank))`` over the lists it appears in (rank from 1, ``RRF_K`` 20).
In the facts channel the BM25 list is then read again with a few words of the best
facts added to the query (pseudo-relevance feedback, :func:`feedback_terms`) and the
lists fused anew.

A query that names exactly one of the speakers is searched without the name
(nearly every fact carries one), and facts said by other speakers score
``OTHER_SPEAKER_FACTOR`` of their fused score; a question fact scores
``QUESTION_FACTOR`` of it, a fact whose turns better hits already cover
``REPEAT_PENALTY`` of it (see :func:`query_focus`, :func:`_diversify`).

Time filters (both optional):

* ``as_of`` -- what the memory knew on that day, by when things were *said*:
  facts said on or before it and still in force on it (not yet superseded);
  archive chunks of sessions on or before it.  Without ``as_of`` every fact is
  a candidate, superseded ones too: a hit carries ``invalid_at`` (and the
  fact that replaced it), so "where did she live before Berlin?" still finds
  the old home.
* ``happened`` -- a period: facts whose event date (else, for an undated fact,
  the date it was said) overlaps it; archive chunks of sessions inside it.

A question about the present ("Where do I work now?", "my current job",
"these days", "still") prefers what is valid: without ``as_of``, superseded
facts are listed after every other hit (their scores scaled below the lowest
of those), so the fact that replaced them comes first; other questions find
superseded facts as they rank.

A third channel, ``records``, holds the imported records as text
(:mod:`uac.index.record_index`); ``all`` fuses its dense and BM25 lists with
the others.  Its hits carry a ``record`` pointer (domain, collection,
position, source) and no session.  Time filters do not apply to it (a record's
dates are its own fields): with ``as_of`` or ``happened`` it is left out.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..dates import Period, parse_day, parse_period
from ..errors import InputError
from ..facts.log import LogState
from ..facts.table import FactTable
from ..safejson import check_text
from .store import ChannelIndex, MemoryIndex
from .tokens import tokenize

if TYPE_CHECKING:
    from .record_index import RecordIndex

#: reciprocal rank fusion's constant: a document's score is ``sum(1 / (RRF_K + rank))``.  20
#: rather than the customary 60 lets the top of each list weigh more; on LoCoMo recall@10
#: went from 0.796 to 0.800 (facts), 0.771 to 0.794 (archive), 0.807 to 0.814 (all)
RRF_K = 20
#: how deep each ranked list is read (at least; three times k when that is more).  60 =
#: 3 x 20, so every k up to 20 reads the same candidates and a search's first hits do
#: not depend on k (``search(q, k=10)`` is ``search(q, k=20)[:10]``)
MIN_CANDIDATES = 60
#: how many times the facts' dense list counts in the facts channel
DENSE_WEIGHT = 1
#: how many times the facts-around-the-best-excerpts list counts in the facts channel
AROUND_WEIGHT = 1
#: score factor for a hit whose evidence turns better hits already cover (1.0: off)
REPEAT_PENALTY = 0.3
#: score factor for a fact that is a question ("Ann asked: ...?"): it asks, it tells little
QUESTION_FACTOR = 0.5
#: score factor for a fact said by someone else when the query names exactly one of the
#: speakers ("What does Melanie do to relax?" leans towards what Melanie said; 1.0: off)
OTHER_SPEAKER_FACTOR = 0.5
SEARCH_CHANNELS = ("facts", "archive", "records", "all")
#: words that make a query about the present: superseded facts then rank after valid ones
NOW_WORDS = re.compile(
    r"\b(now|nowadays|currently|current|these days|at the moment|at present|presently|still|anymore|any more)\b",
    re.IGNORECASE,
)
#: a superseded fact's score, at most, relative to the lowest valid hit's (a "now" query)
NOW_FACTOR = 0.5
#: pseudo-relevance feedback for the facts' BM25 list (RM3-like): the LEXICAL_FEEDBACK_TERMS
#: words that best mark the LEXICAL_FEEDBACK_DEPTH best facts of a first ranking (share of
#: a fact's indexed text times idf, summed; the query's own words left out) join the BM25
#: query, each counting LEXICAL_FEEDBACK_WEIGHT of a query word, and the facts are ranked
#: again.  On LoCoMo: facts recall@10 0.800 -> 0.807 (every neighbour setting of 3-8 terms,
#: weights 0.2-0.5, depth 3-5: 0.801-0.807); 0 terms turns it off
LEXICAL_FEEDBACK_TERMS = 5
LEXICAL_FEEDBACK_WEIGHT = 0.3
LEXICAL_FEEDBACK_DEPTH = 5


def asks_about_now(query: str) -> bool:
    """Does ``query`` ask about the present ("now", "current", "these days", "still")?"""
    return NOW_WORDS.search(query) is not None


@dataclass(frozen=True)
class SearchHit:
    id: str
    channel: str
    text: str
    score: float
    session_id: str
    session_date: str | None
    evidence: tuple[str, ...]
    #: a fact's event date (its stored form: ``2023-05-07``, ``2023-05``, ``2022``, ``START/END``)
    event_date: str | None = None
    #: the day a superseded fact stopped being true (``None``: still in force; archive chunks)
    invalid_at: str | None = None
    #: a record hit: where it lives (domain, collection, position, record_type, source)
    record: dict[str, Any] | None = None

    def validity(self) -> str:
        """``until 2023-06-20`` for a superseded fact, else empty."""
        return f"until {self.invalid_at}" if self.invalid_at else ""

    def to_json(self) -> dict[str, Any]:
        """The ``search --json`` shape, a fixed contract: ``event_date`` and
        ``invalid_at`` are not part of it (they are attributes of the hit, shown by
        the command line's listing and the reader's evidence lines).  A hit of
        the ``records`` channel adds ``record``, its pointer into the view."""
        data = {
            "id": self.id,
            "channel": self.channel,
            "text": self.text,
            "score": round(self.score, 6),
            "session_id": self.session_id,
            "session_date": self.session_date,
            "evidence": list(self.evidence),
        }
        if self.record is not None:
            data["record"] = dict(self.record)
        return data


def rrf(lists: Sequence[Sequence[Any]], k: int = RRF_K) -> list[tuple[Any, float]]:
    """Reciprocal rank fusion of ranked lists: items with their fused score, best first."""
    scores: dict[Any, float] = {}
    first_seen: dict[Any, int] = {}
    for ranked in lists:
        for rank, item in enumerate(ranked, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            first_seen.setdefault(item, len(first_seen))
    return sorted(scores.items(), key=lambda pair: (-pair[1], first_seen[pair[0]]))


class _OpenedChannels:
    """The channels of one search, each looked up once (a lookup checks its corpus
    file for changes: once per search is enough)."""

    def __init__(self, index: MemoryIndex) -> None:
        self._index = index
        self._opened: dict[str, ChannelIndex] = {}

    def channel(self, name: str) -> ChannelIndex:
        found = self._opened.get(name)
        if found is None:
            found = self._opened[name] = self._index.channel(name)
        return found


def _diversify(
    index: "MemoryIndex | _OpenedChannels", fused: list[tuple[Any, float]], k: int
) -> list[tuple[Any, float]]:
    """Lower the score of a hit whose evidence turns are all covered by better hits
    (multiplied by ``REPEAT_PENALTY`` once per such hit) and of a fact that is a
    question (by ``QUESTION_FACTOR``), then re-sort."""
    covered: set[tuple[str, str]] = set()
    out: list[tuple[Any, float]] = []
    for (name, item), score in fused[: max(k * 3, MIN_CANDIDATES)]:
        if name == "records":
            out.append(((name, item), score))
            continue
        entry = index.channel(name).entry(item)
        if name == "facts" and entry.text.rstrip().endswith("?"):
            score *= QUESTION_FACTOR
        turns = {(entry.session_id, t) for t in entry.evidence}
        if turns and turns <= covered:
            score *= REPEAT_PENALTY
        covered |= turns
        out.append(((name, item), score))
    out.sort(key=lambda pair: -pair[1])
    return out


_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def named_speaker(query: str, speakers: "Sequence[str]") -> str | None:
    """The one speaker ``query`` names (by first name, any case), else None."""
    words = {w.lower() for w in _NAME_WORD.findall(query)}
    words |= {w[:-2] for w in words if w.endswith(("'s", "’s"))}
    named = [s for s in speakers if s.strip() and s.split()[0].lower() in words]
    return named[0] if len(named) == 1 else None


def _speakers(state: LogState | FactTable) -> Sequence[str]:
    if isinstance(state, FactTable):
        return state.speaker_names
    return sorted({f.speaker for f in state.facts.values() if f.speaker})


def query_focus(state: LogState | FactTable, query: str, channel: str = "all") -> tuple[str, str | None]:
    """(the text to embed and match, the speaker the query is about).

    When a facts search names exactly one of two or more speakers, search leans
    towards what that person said (see :func:`_prefer_named_speaker`), and the
    name -- which nearly every fact of a conversation carries -- leaves the text
    that is embedded and matched, so the rest of the question decides
    ("What does Melanie do to destress?" is matched as "What does do to destress?").
    Otherwise the query as it is, and no one."""
    if channel == "archive":
        return query, None
    speakers = _speakers(state)
    if len(speakers) < 2:
        return query, None
    person = named_speaker(query, speakers)
    if person is None:
        return query, None
    first = re.escape(person.split()[0])
    full = re.escape(person)
    rest = re.sub(rf"\b(?:{full}|{first})(?:['’]s)?\b", " ", query, flags=re.IGNORECASE)
    rest = re.sub(r"\s+", " ", rest).strip()
    return (rest if tokenize(rest) else query), person


def _prefer_named_speaker(
    state: LogState | FactTable, person: str | None, fused: list[tuple[Any, float]]
) -> list[tuple[Any, float]]:
    """When the query names one speaker, facts said by other speakers score
    ``OTHER_SPEAKER_FACTOR`` times less: a question about a person is answered
    mostly by what that person said, rarely by what others asked or replied."""
    if person is None:
        return fused
    speaker_of: Callable[[str], str | None]
    if isinstance(state, FactTable):
        speaker_of = state.speaker_of
    else:
        facts = state.facts

        def fact_speaker(item: str) -> str | None:
            fact = facts.get(item)
            return None if fact is None else fact.speaker

        speaker_of = fact_speaker

    out = []
    for (name, item), score in fused:
        if name == "facts":
            who = speaker_of(item)
            if who is not None and who != person:
                score *= OTHER_SPEAKER_FACTOR
        out.append(((name, item), score))
    out.sort(key=lambda pair: -pair[1])
    return out


def parse_as_of(value: str | _dt.date | None) -> _dt.date | None:
    return parse_day(value, what="as_of")


def parse_happened(value: "str | _dt.date | Period | None") -> Period | None:
    """A period as a user writes it (``2023-05-07``, ``2023-05``, ``2022``, ``2023-summer``,
    ``START/END``)."""
    try:
        return parse_period(value)
    except ValueError:
        raise InputError(
            f"{value!r} is not a date or period.",
            hint="Give {opt:happened} as YYYY-MM-DD, YYYY-MM, YYYY, YYYY-summer or START/END (e.g. 2023-05-01/2023-05-14).",
        ) from None


def hybrid_search(
    index: MemoryIndex,
    state: LogState | FactTable,
    query: str,
    *,
    k: int = 20,
    channel: str = "all",
    as_of: _dt.date | None = None,
    happened: Period | None = None,
    candidates: int | None = None,
    query_vector: Any = None,
    records: "RecordIndex | None" = None,
    prefer_valid: bool | None = None,
) -> list[SearchHit]:
    """The ``k`` best hits for ``query`` (see the module doc).  ``query_vector``, if
    given, is the embedding of the text :func:`query_focus` gives for this query
    (callers that search many queries embed them in one batch).  ``records``: the
    imported records' index (no records channel without it); ``prefer_valid``:
    rank superseded facts after the rest (default: when the query asks about now)."""
    _check_search(query, k, channel)
    channels = _OpenedChannels(index)
    text, person = query_focus(state, query, channel)
    if query_vector is None:
        from .embeddings import get_embedder

        query_vector = get_embedder().encode([text])[0]
    tokens = tokenize(text)
    n = candidates or max(MIN_CANDIDATES, 3 * k)
    if happened is not None:
        n = max(n, 400)  # the period filter removes candidates after ranking
    max_ordinal = as_of.toordinal() if as_of is not None else None
    per_channel: dict[str, list[list[str]]] = {}
    wanted = ("facts", "archive") if channel in ("all", "facts") else (() if channel == "records" else (channel,))
    fuse_around = channel == "facts"
    for name in wanted:
        ci = channels.channel(name)
        dense = ci.dense(query_vector, n, max_ordinal=max_ordinal)
        lexical = ci.lexical(tokens, n, max_ordinal=max_ordinal)
        per_channel[name] = [dense, lexical]
    other_lists: list[list[tuple[str, str]]] = []
    valid = _fact_filter(state, as_of, happened)
    fact_lists = _fact_lists(channels, per_channel, valid, n, around=fuse_around)
    if channel in ("all", "archive"):
        other_lists.extend(_archive_lists(channels, per_channel["archive"], happened))
    if channel in ("all", "records") and records is not None and as_of is None and happened is None:
        other_lists.append([("records", i) for i in records.dense(query_vector, n)])
        other_lists.append([("records", i) for i in records.lexical(tokens, n)])

    def ranking(fact_lists: list[list[str]]) -> list[tuple[Any, float]]:
        fused = rrf([[("facts", i) for i in ranked] for ranked in fact_lists] + other_lists)
        if fact_lists and OTHER_SPEAKER_FACTOR < 1.0:
            fused = _prefer_named_speaker(state, person, fused)
        if REPEAT_PENALTY < 1.0 or QUESTION_FACTOR < 1.0:
            fused = _diversify(channels, fused, k)
        return fused

    fused = ranking(fact_lists)
    if channel == "facts" and fact_lists and LEXICAL_FEEDBACK_TERMS > 0:
        # pseudo-relevance feedback: the words that mark the best facts so far widen the
        # BM25 query, which finds facts saying the same thing without the question's words
        # (the facts channel only: on the fused ``all`` ranking it changed nothing, 0.814)
        facts = channels.channel("facts")
        best = [item for (name, item), _ in fused if name == "facts"][:LEXICAL_FEEDBACK_DEPTH]
        more = feedback_terms(facts, tokens, best)
        if more:
            fact_lists[DENSE_WEIGHT] = [
                i for i in facts.lexical(tokens, n, max_ordinal=max_ordinal, extra=more) if valid(i)
            ]
            fused = ranking(fact_lists)
    if prefer_valid is None:
        prefer_valid = as_of is None and asks_about_now(query)
    if prefer_valid:
        fused = _valid_first(state, fused)
    return _hits(channels, state, records, fused[:k])


def _check_search(query: str, k: int, channel: str) -> None:
    if channel not in SEARCH_CHANNELS:
        raise InputError(f"unknown channel {channel!r}.", hint=f"Use one of: {', '.join(SEARCH_CHANNELS)}.")
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}.")
    if not query.strip():
        raise InputError("the search query is empty.")
    check_text(query, "the search query")


def _fact_lists(
    channels: _OpenedChannels,
    per_channel: dict[str, list[list[str]]],
    valid: Callable[[str], bool],
    n: int,
    *,
    around: bool,
) -> list[list[str]]:
    """The ranked lists of fact ids that vote in the fusion: dense (weighted), lexical and, with
    ``around``, the facts of the best archive excerpts."""
    if "facts" not in per_channel:
        return []
    fact_lists = [[i for i in ranked if valid(i)] for ranked in per_channel["facts"]]
    fact_lists[1:1] = [fact_lists[0]] * (DENSE_WEIGHT - 1)
    if around:
        # the facts of the turns in the best archive excerpts, in excerpt order:
        # lets the conversation around a fact vote for it
        chunk_order = [item for item, _ in rrf(per_channel["archive"])][:n]
        chunks = channels.channel("archive")
        near = [i for i in channels.channel("facts").facts_of_chunks(chunks, chunk_order) if valid(i)]
        fact_lists.extend([near[:n]] * AROUND_WEIGHT)
    return fact_lists


def _archive_lists(
    channels: _OpenedChannels, chunk_lists: list[list[str]], happened: Period | None
) -> list[list[tuple[str, str]]]:
    """The archive's ranked lists as ``(channel, id)`` pairs, only sessions within ``happened``."""
    if happened is not None:
        chunks = channels.channel("archive")
        chunk_lists = [
            [i for i in ranked if _session_in(chunks.entry(i).session_date, happened)] for ranked in chunk_lists
        ]
    return [[("archive", i) for i in ranked] for ranked in chunk_lists]


def _hits(
    channels: _OpenedChannels,
    state: LogState | FactTable,
    records: "RecordIndex | None",
    ranked: list[tuple[Any, float]],
) -> list[SearchHit]:
    """The ranked ``(channel, id)`` pairs as search hits, with their texts and dates."""
    hits = []
    for (name, item), score in ranked:
        if name == "records":
            assert records is not None
            found = records.entry(item)
            hits.append(SearchHit(item, name, found.text, score, "", None, (), record=found.pointer()))
            continue
        entry = channels.channel(name).entry(item)
        event = invalid = None
        if name == "facts":
            event, invalid = _fact_dates(state, item)
        hits.append(
            SearchHit(
                item,
                name,
                entry.text,
                score,
                entry.session_id,
                entry.session_date,
                tuple(entry.evidence),
                event,
                invalid,
            )
        )
    return hits


def _fact_filter(state: LogState | FactTable, as_of: _dt.date | None, happened: Period | None) -> Callable[[str], bool]:
    """Is a fact id a candidate under the time filters?"""
    if isinstance(state, FactTable):

        def valid(item: str) -> bool:
            if as_of is None:
                ok = item in state
            else:
                ok = state.is_valid_at(item, as_of)
            return ok and (happened is None or state.happened_in(item, happened))

        return valid
    facts = state.facts

    def valid_fact(item: str) -> bool:
        fact = facts.get(item)
        if fact is None or (as_of is not None and not fact.is_valid_at(as_of)):
            return False
        if happened is None:
            return True
        when = fact.event_date or (Period.day(fact.session_date) if fact.session_date else None)
        return when is not None and when.overlaps(happened)

    return valid_fact


def feedback_terms(facts: ChannelIndex, tokens: Sequence[str], best: Sequence[str]) -> dict[str, float]:
    """The words to add to a BM25 query after a first ranking (pseudo-relevance feedback):
    the ``LEXICAL_FEEDBACK_TERMS`` words of the ``best`` facts' indexed texts with the
    highest sum of their share of a text times ``ln(1 + N / (1 + df))``, the query's own
    ``tokens`` left out, each weighted ``LEXICAL_FEEDBACK_WEIGHT``."""
    import math
    from collections import Counter

    bm25 = facts.bm25()
    shares: dict[str, float] = {}
    for item in best:
        words = tokenize(facts.entry(item).index_text)
        for word, count in Counter(words).items():
            shares[word] = shares.get(word, 0.0) + count / len(words)
    own = set(tokens)
    weighted = []
    for word, share in shares.items():
        df = bm25.document_frequency(word)
        if word not in own and df:
            weighted.append((share * math.log(1 + bm25.size / (1 + df)), word))
    weighted.sort(key=lambda pair: (-pair[0], pair[1]))
    return {word: LEXICAL_FEEDBACK_WEIGHT for _, word in weighted[:LEXICAL_FEEDBACK_TERMS]}


def _valid_first(state: LogState | FactTable, fused: list[tuple[Any, float]]) -> list[tuple[Any, float]]:
    """Superseded facts after every other hit, in their order, their scores scaled to
    stay below the lowest other score (a query about the present)."""
    valid: list[tuple[Any, float]] = []
    stale: list[tuple[Any, float]] = []
    for (name, item), score in fused:
        superseded = name == "facts" and _fact_dates(state, item)[1] is not None
        (stale if superseded else valid).append(((name, item), score))
    if not stale:
        return fused
    floor = min((score for _, score in valid), default=1.0)
    top = max(score for _, score in stale)
    factor = min(1.0, NOW_FACTOR * floor / top) if top > 0 else 1.0
    return valid + [(key, score * factor) for key, score in stale]


def _session_in(session_date: str | None, period: Period) -> bool:
    if not session_date:
        return False
    try:
        return _dt.date.fromisoformat(session_date[:10]) in period
    except ValueError:
        return False


def _fact_dates(state: LogState | FactTable, fact_id: str) -> tuple[str | None, str | None]:
    """A fact's event date (stored form) and the day it stopped being true (ISO)."""
    if isinstance(state, FactTable):
        event, invalid = state.event_date(fact_id), state.invalid_at(fact_id)
    else:
        fact = state.facts.get(fact_id)
        if fact is None:
            return None, None
        event, invalid = fact.event_date, fact.invalid_at
    return (None if event is None else event.code), (None if invalid is None else invalid.isoformat())
