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
from collections.abc import Callable
from dataclasses import dataclass, field

from uac import LLMClient, Message, Usage

from ..cases import Case
from ..prompts import render
from ..record_types import RECORD_TYPES, Record, RecordType
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


#: the texts one record is retrieved by, from its type
Split = Callable[[RecordType, Record], list[str]]


def _sentence(rtype: RecordType, record: Record) -> list[str]:
    return [rtype.sentence(record)]


def top_texts(case: Case, split: Split, k: int) -> list[tuple[str, int, str]]:
    """The ``k`` texts of the case's records most like its question, each with the record it came
    from: ``(collection, index in it, text)``."""
    found: list[tuple[str, int, str]] = []
    for name, records in case.collections.items():
        rtype = RECORD_TYPES[name]
        for index, record in enumerate(records):
            found.extend((name, index, text) for text in split(rtype, record))
    return [found[hit] for hit in _top(case.question, [text for _, _, text in found], k)]


class _RetrievalSystem(System):
    def __init__(self, *, k: int = TOP_K) -> None:
        self.k = k

    def retrieve(self, case: Case) -> Retrieved:
        raise NotImplementedError

    #: what the prompt says of the texts it shows: how they were chosen; in what order they come
    chosen_how = ""

    def messages_for(self, case: Case, retrieved: Retrieved) -> list[Message]:
        prompt = render("retrieval", items=retrieved.texts, chosen_how=self.chosen_how, question=case.question)
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
    chosen_how = "top-20 sentence retrieval with neighbouring records; in date order"

    def retrieve(self, case: Case) -> Retrieved:
        hits = top_texts(case, _sentence, self.k)
        chosen: set[tuple[str, int]] = set()
        for name, index, _ in hits:
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
    chosen_how = "top-20 flat facts; most relevant first"

    def retrieve(self, case: Case) -> Retrieved:
        hits = top_texts(case, RecordType.facts, self.k)
        ids = [case.collections[name][index]["id"] for name, index, _ in hits]
        return Retrieved(texts=[text for _, _, text in hits], record_ids=list(dict.fromkeys(ids)))
