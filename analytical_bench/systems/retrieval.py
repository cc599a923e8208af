"""The two retrieval systems, over embeddings of the bundled model:

* :class:`TopKRetrieval` (the paper's MemMachine setup) -- each record rendered
  as one sentence; the top 20 sentences by cosine similarity to the question,
  each expanded with its chronological neighbours (previous and next record
  of the same collection), shown in date order;
* :class:`FlatFacts` (the paper's Mem0 setup) -- each record split into flat
  fact sentences; the top 20 facts, most similar first.

Vectors are kept in numpy (cosine = dot product of unit vectors); each case
embeds its distinct texts in one batched call on the process-wide embedder, and
vectors are kept for the next case (two questions share each collection).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from uac import LLMClient, Message, Usage

from ..cases import Case
from ..prompts import render
from ..record_types import RECORD_TYPES
from .base import Prediction, System

TOP_K = 20


@dataclass
class Retrieved:
    texts: list[str]
    record_ids: list[str]
    extra: dict = field(default_factory=dict)


_vectors: dict[str, object] = {}
_vectors_lock = threading.Lock()
#: texts whose vectors are kept between cases (collections shared by two questions embed once)
CACHE_LIMIT = 60_000


def _embed(texts: list[str]):
    """Unit vectors of ``texts``: each distinct text encoded once, in one batched call."""
    import numpy as np

    from uac import get_embedder

    unique = list(dict.fromkeys(texts))
    with _vectors_lock:
        missing = [text for text in unique if text not in _vectors]
    if missing:
        fresh = get_embedder().encode(missing)
        with _vectors_lock:
            if len(_vectors) + len(missing) > CACHE_LIMIT:
                _vectors.clear()
            _vectors.update(zip(missing, fresh))
            known = {text: _vectors.get(text) for text in unique}
        known.update(zip(missing, fresh))
    else:
        with _vectors_lock:
            known = {text: _vectors[text] for text in unique}
    return np.stack([known[text] for text in texts])


def _top(question: str, texts: list[str], k: int) -> list[int]:
    import numpy as np

    vectors = _embed(texts + [question])
    scores = vectors[:-1] @ vectors[-1]
    # stable order for equal scores: by position
    order = np.lexsort((np.arange(len(texts)), -scores))
    return [int(i) for i in order[:k]]


class _RetrievalSystem(System):
    def __init__(self, *, k: int = TOP_K) -> None:
        self.k = k

    def retrieve(self, case: Case) -> Retrieved:
        raise NotImplementedError

    method = ""
    order = ""

    def messages_for(self, case: Case, retrieved: Retrieved) -> list[Message]:
        prompt = render(
            "retrieval", items=retrieved.texts, method=self.method, order=self.order, question=case.question
        )
        return [self.system_message(case), Message("user", prompt)]

    def messages(self, case: Case) -> list[Message]:
        return self.messages_for(case, self.retrieve(case))

    def respond(self, case: Case, llm: LLMClient) -> Prediction:
        retrieved = self.retrieve(case)
        response = llm.chat(self.messages_for(case, retrieved), purpose=f"analytical_bench:{self.name}")
        usage = Usage()
        usage.add(response.usage)
        return Prediction(text=(response.content or "").strip(), usage=usage, retrieved=retrieved.record_ids)


class TopKRetrieval(_RetrievalSystem):
    name = "topk"
    label = "Top-k + expansion (MemMachine-style)"
    method = "top-20 sentence retrieval with neighbouring records"
    order = "in date order"

    def retrieve(self, case: Case) -> Retrieved:
        entries: list[tuple[str, int]] = []  # (collection, index)
        texts: list[str] = []
        for name, records in case.collections.items():
            render_one = RECORD_TYPES[name].sentence
            for index, record in enumerate(records):
                entries.append((name, index))
                texts.append(render_one(record))
        hits = _top(case.question, texts, self.k)
        chosen: set[tuple[str, int]] = set()
        for hit in hits:
            name, index = entries[hit]
            size = len(case.collections[name])
            for neighbour in (index - 1, index, index + 1):
                if 0 <= neighbour < size:
                    chosen.add((name, neighbour))
        names = list(case.collections)
        ordered = sorted(chosen, key=lambda e: (names.index(e[0]), e[1]))
        records = [(name, case.collections[name][index]) for name, index in ordered]
        return Retrieved(
            texts=[RECORD_TYPES[name].sentence(record) for name, record in records],
            record_ids=[record["id"] for _, record in records],
            extra={"hits": len(hits)},
        )


class FlatFacts(_RetrievalSystem):
    name = "facts"
    label = "Flat facts top-20 (Mem0-style)"
    method = "top-20 flat facts"
    order = "most relevant first"

    def retrieve(self, case: Case) -> Retrieved:
        texts: list[str] = []
        owners: list[str] = []
        for name, records in case.collections.items():
            split = RECORD_TYPES[name].facts
            for record in records:
                for fact in split(record):
                    texts.append(fact)
                    owners.append(record["id"])
        hits = _top(case.question, texts, self.k)
        ids: list[str] = []
        for hit in hits:
            if owners[hit] not in ids:
                ids.append(owners[hit])
        return Retrieved(texts=[texts[h] for h in hits], record_ids=ids)
