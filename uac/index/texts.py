"""What the indexes hold for a session: fact entries and archive chunks, with vectors.

Vectors are computed once per fact (its sentence) and composed from there, so
ingest embeds about as much text as the conversation itself:

* a turn's vector is the mean of the vectors of the facts it supports;
* a fact's vector is its own plus ``context_weight`` times the vector of the
  turn before its evidence (the question it answers, the topic it continues);
* an archive chunk (``chunk_turns`` consecutive turns, every ``chunk_stride``)
  gets the mean of its turns' vectors; a chunk with no facts at all (pure
  small talk) is embedded from its own text.

BM25 reads a fact's text plus the whole turn it comes from (the sentences around
it, an image caption), the turn before it (the question it answers, the topic
it continues) and the day it was said in words ("13 October 2023 (Friday)"), so
"It was so powerful." is found by the words of the sentence before it and
"what did she share on October 13?" by its date; and a chunk's text.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Sequence

from ..dates import MONTH_NAMES, WEEKDAY_NAMES
from ..facts.model import Fact
from ..sessions.model import Session
from .entry import Entry

if TYPE_CHECKING:
    import numpy

    from .embeddings import Embedder

TEXT_SETTINGS: dict[str, Any] = {
    "fact_vectors": "spans",
    "chunk_turns": 3,
    "chunk_stride": 1,
    "context_weight": 0.0,
    "bm25_context_turns": 1,
    "bm25_own_turn": 1,
    "bm25_said_day": 1,
}

#: the settings a fact's or an excerpt's vector depends on; the others (what BM25
#: reads) can change without embedding anything again
VECTOR_SETTINGS = ("fact_vectors", "chunk_turns", "chunk_stride", "context_weight")


def _normalise(vectors: "numpy.ndarray") -> "numpy.ndarray":
    import numpy as np

    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32)


def chunk_ranges(count: int, size: int, stride: int) -> list[tuple[int, int]]:
    """[start, end) turn ranges of the archive chunks of a session with ``count`` turns."""
    if count <= size:
        return [(0, count)] if count else []
    ranges = [(start, start + size) for start in range(0, count - size + 1, stride)]
    if ranges[-1][1] < count:
        ranges.append((count - size, count))
    return ranges


def day_words(day: "_dt.date") -> str:
    """``13 October 2023 (Friday)``: the day a fact was said, in the words a query uses
    (English whatever the locale)."""
    return f"{day.day} {MONTH_NAMES[day.month - 1]} {day.year} ({WEEKDAY_NAMES[day.weekday()]})"


def chunk_text(session: Session, start: int, end: int) -> str:
    lines = [f"{t.speaker}: {t.full_text}" for t in session.turns[start:end]]
    return "\n".join(lines)


def session_entries(
    session: Session,
    facts: Sequence[Fact],
    embedder: "Embedder",
    *,
    fact_vectors: "numpy.ndarray | None" = None,
    settings: dict[str, Any] = TEXT_SETTINGS,
) -> tuple[list[Entry], "numpy.ndarray", list[Entry], "numpy.ndarray"]:
    """(fact entries, their vectors, chunk entries, their vectors) for one session."""
    import numpy as np

    facts = list(facts)
    if fact_vectors is None:
        fact_vectors = embedder.encode([f.text for f in facts])
    position = {t.turn_id: n for n, t in enumerate(session.turns)}
    turn_sum = np.zeros((len(session.turns), embedder.dim), dtype=np.float32)
    turn_count = np.zeros(len(session.turns), dtype=np.float32)
    for fact, vector in zip(facts, fact_vectors):
        for turn_id in fact.evidence:
            if turn_id in position:
                turn_sum[position[turn_id]] += vector
                turn_count[position[turn_id]] += 1
    has_vector = turn_count > 0
    turn_vectors = np.where(has_vector[:, None], turn_sum / np.maximum(turn_count, 1)[:, None], 0.0)

    weight = float(settings["context_weight"])
    context_turns = int(settings["bm25_context_turns"])
    own_turn = bool(int(settings.get("bm25_own_turn", 0)))
    said_day = bool(int(settings.get("bm25_said_day", 0)))
    date = session.date.isoformat()
    fact_entries: list[Entry] = []
    composed = np.array(fact_vectors, dtype=np.float32, copy=True)
    for n, fact in enumerate(facts):
        first = min((position[e] for e in fact.evidence if e in position), default=None)
        context_text = ""
        if first is not None and first > 0:
            previous = first - 1
            if weight and has_vector[previous]:
                composed[n] = composed[n] + weight * turn_vectors[previous]
            before = session.turns[max(0, first - context_turns) : first]
            context_text = " ".join(f"{t.speaker}: {t.full_text}" for t in before)
        if own_turn and first is not None:
            turn = session.turns[first]
            context_text = f"{turn.speaker}: {turn.full_text}" + (f"\n{context_text}" if context_text else "")
        index_text = fact.text if not context_text else f"{fact.text}\n{context_text}"
        if said_day and fact.session_date is not None:
            index_text += "\n" + day_words(fact.session_date)
        fact_entries.append(
            Entry(
                id=fact.id,
                text=fact.text,
                index_text=index_text,
                session_id=fact.session_id,
                session_date=None if fact.session_date is None else fact.session_date.isoformat(),
                evidence=list(fact.evidence),
                checksum=fact.content_checksum(),
            )
        )
    size, stride = int(settings["chunk_turns"]), int(settings["chunk_stride"])
    chunk_entries: list[Entry] = []
    chunk_vectors = []
    missing: list[int] = []
    for number, (start, end) in enumerate(chunk_ranges(len(session.turns), size, stride), 1):
        text = chunk_text(session, start, end)
        turn_ids = [t.turn_id for t in session.turns[start:end]]
        chunk_entries.append(Entry(f"{session.session_id}/c{number}", text, text, session.session_id, date, turn_ids))
        mask = has_vector[start:end]
        if mask.any():
            chunk_vectors.append(turn_vectors[start:end][mask].mean(axis=0))
        else:
            chunk_vectors.append(np.zeros(embedder.dim, dtype=np.float32))
            missing.append(len(chunk_entries) - 1)
    chunk_array = np.array(chunk_vectors, dtype=np.float32).reshape(len(chunk_entries), embedder.dim)
    if missing:
        encoded = embedder.encode([chunk_entries[i].text for i in missing])
        for row, i in enumerate(missing):
            chunk_array[i] = encoded[row]
    return fact_entries, _normalise(composed), chunk_entries, _normalise(chunk_array)
