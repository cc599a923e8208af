"""Keeping the indexes in step with the log and the archive.

* :func:`index_sessions` adds what new sessions contributed (incremental);
* :func:`index_problems` compares the indexes with the log and the archive;
* :func:`rebuild` drops the indexes and rebuilds them from the log and the
  archive alone.

:mod:`.catchup` uses them to bring the indexes in step with the log by
themselves after a crash.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Sequence

from ..facts.log import LogState
from ..facts.model import Fact
from ..sessions.archive import Archive
from ..sessions.model import Session
from .store import MemoryIndex

if TYPE_CHECKING:
    import numpy

log = logging.getLogger(__name__)


def index_sessions(
    index: MemoryIndex,
    sessions: Sequence[tuple[Session, Sequence[Fact]]],
    *,
    known: "dict[str, numpy.ndarray] | None" = None,
) -> tuple[int, int]:
    """Embed and add the facts and archive chunks of ``sessions``; returns (facts, chunks)
    added.  ``known``: fact id -> its vector as indexed before; when it holds every
    fact, nothing is embedded again but the archive excerpts without facts."""
    import numpy as np

    from .embeddings import get_embedder
    from .texts import session_entries

    if not sessions:
        return 0, 0
    embedder = get_embedder()
    all_facts = [f for _, facts in sessions for f in facts]
    if known and all(f.id in known for f in all_facts):
        vectors = (
            np.stack([known[f.id] for f in all_facts]) if all_facts else np.zeros((0, embedder.dim), dtype=np.float32)
        )
    else:
        vectors = compute_fact_vectors(embedder, all_facts)
    fact_entries, fact_vectors, chunk_entries, chunk_vectors = [], [], [], []
    offset = 0
    for session, facts in sessions:
        own = vectors[offset : offset + len(facts)]
        offset += len(facts)
        fe, fv, ce, cv = session_entries(session, facts, embedder, fact_vectors=own)
        fact_entries += fe
        fact_vectors.append(fv)
        chunk_entries += ce
        chunk_vectors.append(cv)
    dim = embedder.dim
    # Chroma's batch size is asked of its client only if the add writes Chroma (see ChannelIndex.add)
    index.channel("facts").add(fact_entries, np.concatenate(fact_vectors) if fact_vectors else np.zeros((0, dim)))
    index.channel("archive").add(chunk_entries, np.concatenate(chunk_vectors) if chunk_vectors else np.zeros((0, dim)))
    return len(fact_entries), len(chunk_entries)


def compute_fact_vectors(embedder, facts: Sequence[Fact]) -> "numpy.ndarray":
    """Vectors of ``facts``: by default the facts of one turn are encoded together
    and each gets its own span of the result (see ``Embedder.encode_spans``)."""
    from .texts import TEXT_SETTINGS

    if TEXT_SETTINGS["fact_vectors"] == "sentences":
        return embedder.encode([f.text for f in facts])
    groups: dict[tuple[str, str], list[int]] = {}
    for position, fact in enumerate(facts):
        key = (fact.session_id, fact.evidence[0] if fact.evidence else "")
        groups.setdefault(key, []).append(position)
    order = [i for members in groups.values() for i in members]
    texts, prefixes = [], []
    for members in groups.values():
        speaker = facts[members[0]].speaker
        prefixes.append(f"{speaker}:" if speaker else "")
        texts.append([_without_attribution(facts[i].text, speaker) for i in members])
    vectors = embedder.encode_spans(texts, prefixes)
    out = vectors.copy()
    out[order] = vectors
    return out


def _without_attribution(text: str, speaker: str | None) -> str:
    """ "Caroline said: X" -> "X" (the group's "Caroline:" prefix already says who)."""
    if speaker:
        for verb in ("said", "asked"):
            lead = f"{speaker} {verb}: "
            if text.startswith(lead) and len(text) > len(lead):
                return text[len(lead) :]
    return text


def session_or_stub(archive: Archive, session_id: str, facts: Sequence[Fact]) -> Session:
    """The archived session, or a stub without turns whose facts are indexed alone."""
    import datetime as _dt

    if archive.has(session_id):
        return archive.read(session_id)
    log.warning("session %s is in the fact log but not in the archive; indexing its facts alone", session_id)
    day = facts[0].session_date if facts and facts[0].session_date else _dt.date(1970, 1, 1)
    return Session(session_id, day, day.isoformat(), ())


def rebuild(index: MemoryIndex, state: LogState, archive: Archive, *, keep_vectors: bool = False) -> tuple[int, int]:
    """Drop and rebuild every index from the log and the archive; returns (facts, chunks).

    The sessions indexed are those committed to the log (an archive file
    without a commit line is left over from an interrupted ingest and is not
    part of the memory).  ``keep_vectors``: the facts' vectors are taken from the
    flat copy (every fact's, with its content unchanged) instead of embedding the
    facts again -- for a change of what BM25 reads, which leaves the vectors as
    they were (:meth:`IndexManifest.vectors_still_valid`).
    """
    known = None
    if keep_vectors:
        known = index.channel("facts").stored_vectors({f.id: f.content_checksum() for f in state.facts.values()})
        if len(known) < len(state.facts):
            known = None  # some fact lacks its vector: embed them all, as the turns are embedded together
    index.reset()
    by_session: dict[str, list[Fact]] = {}
    for fact in state.facts.values():
        by_session.setdefault(fact.session_id, []).append(fact)
    pairs = [
        (session_or_stub(archive, sid, by_session.get(sid, [])), by_session.get(sid, [])) for sid in state.sessions
    ]
    added = index_sessions(index, pairs, known=known)
    index.sync_vectors()  # Chroma was opened by the reset anyway: it takes the new vectors now
    index.write_manifest((state.good_bytes, state.digest))
    return added


def index_problems(index: MemoryIndex, state: LogState, archive: Archive) -> list[str]:
    """How the indexes differ from the log and the archive (empty list: in step)."""
    from .texts import chunk_ranges

    problems: list[str] = []
    manifest = index.read_manifest()
    has_data = bool(state.facts) or bool(state.sessions)
    if manifest is None:
        if has_data:
            problems.append("the index manifest is missing")
        return problems
    if index.manifest.settings_differ(manifest):
        problems.append(f"the indexes were built with other settings ({manifest})")
    facts = index.channel("facts")
    expected = {f.id: f.content_checksum() for f in state.facts.values()}
    have = {e.id: e.checksum for e in facts.entries.values()}
    missing = [i for i in expected if i not in have]
    extra = [i for i in have if i not in expected]
    changed = [i for i in expected if i in have and have[i] != expected[i]]
    if missing:
        problems.append(f"{len(missing)} fact(s) of the log are not indexed (e.g. {missing[0]})")
    if extra:
        problems.append(f"{len(extra)} indexed fact(s) are not in the log (e.g. {extra[0]})")
    if changed:
        problems.append(f"{len(changed)} indexed fact(s) differ from the log (e.g. {changed[0]})")
    if facts.vector_count() != len(facts.entries):
        problems.append(
            f"the facts vector collection holds {facts.vector_count()} vectors for {len(facts.entries)} entries"
        )
    chunks = index.channel("archive")
    per_session: dict[str, int] = {}
    for entry in chunks.entries.values():
        per_session[entry.session_id] = per_session.get(entry.session_id, 0) + 1
    for session_id in state.sessions:
        session = archive.read(session_id) if archive.has(session_id) else None
        want = len(chunk_ranges(len(session.turns), *_chunk_shape())) if session is not None else 0
        if per_session.get(session_id, 0) != want:
            problems.append(
                f"archive session {session_id} has {per_session.get(session_id, 0)} indexed chunk(s), expected {want}"
            )
    stray = sorted(set(per_session) - set(state.sessions))
    if stray:
        problems.append(f"{len(stray)} indexed session(s) are not in the log (e.g. {stray[0]})")
    if chunks.vector_count() != len(chunks.entries):
        problems.append(
            f"the archive vector collection holds {chunks.vector_count()} vectors for {len(chunks.entries)} entries"
        )
    return problems


def _chunk_shape() -> tuple[int, int]:
    from .texts import TEXT_SETTINGS

    return int(TEXT_SETTINGS["chunk_turns"]), int(TEXT_SETTINGS["chunk_stride"])
