"""Which earlier facts a new fact may change: found by what they are about.

A fact's *keys* are its subject (the speaker), its entities (capitalised
names other than the subject: "Yosemite", "Initech", "Lena") and its content
words (lower case, crudely stemmed, stop words and the words of change
themselves left out: "camping" and "camp" are one key, "cancelled" is none).
:class:`TopicIndex` keeps an inverted index from key to facts; the candidates
of a new fact are the facts of the same subject sharing an entity or two
content words with it, best first (shared entities weigh three words), the
later fact first on a tie.  A key many of the facts share (more than
:data:`FREQUENT_SHARE` of them, and more than :data:`FREQUENT_FLOOR`) weighs a
third as much: "Tom" in a memory where Tom is in every other fact does not by
itself make a fact about Tom's sister's wedding a candidate for "Tom and I
bought a kettle"; it still adds to a fact that shares something else.

The cost is bounded whatever the size of the memory: a key held by more than
:data:`COMMON_KEY` facts ("Maya", "today") says nothing about a topic and is
not looked up, and at most :data:`MAX_CANDIDATES` candidates are returned.  The
index is built once per ingest from the facts in force before it and grows by
each session's facts, in input order, so what it answers never depends on how
many sessions were extracted side by side.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Container, Iterable

from ..facts.model import Fact

#: at most this many candidates per new fact
MAX_CANDIDATES = 6
#: a key shared by more facts than this is too common to find a topic by
COMMON_KEY = 400
#: the least score of a candidate (one shared entity, or two shared words), in thirds
MIN_SCORE = 6
#: a shared entity and a shared content word, in thirds of a word
ENTITY_WEIGHT = 9
WORD_WEIGHT = 3
#: a key held by more than this share of the facts (and more than FREQUENT_FLOOR facts) weighs a third
FREQUENT_SHARE = 0.05
FREQUENT_FLOOR = 12

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_STOP = set(
    """a an the and or but so of to in on at for with from by about into over after before as is are was were be been
    being has have had do does did not no yes this that these those there here it its it's they them their he him his
    she her hers we us our you your i me my mine just very really also then than too still even now today tonight
    yesterday tomorrow week weekend month year day days time times last next ago soon said asked says told tell
    think thinks thought going gone went get got gets make made will would could should can may might must want wants
    wanted plan plans planned planning cancel cancels cancelled canceled cancelling called call off actually instead
    new old anymore longer again other others one two some any all more most much many lot lots really thing things
    something nothing everything anything work works worked working job live lives lived living moved move moving
    because while when where what which who whom whose how why if else such own same different like likes liked
    finally ended end ends ending started start starts starting stopped stop wrong mistake correct correction right
    january february march april june july august september october november december monday tuesday wednesday
    thursday friday saturday sunday""".split()
)
_NOT_ENTITIES = {
    "i",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
}


@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    word = word.lower().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True)
class Keys:
    subject: str | None
    entities: frozenset[str]
    words: frozenset[str]

    def all(self) -> set[str]:
        return {f"e:{e}" for e in self.entities} | {f"w:{w}" for w in self.words}


def fact_keys(fact: Fact) -> Keys:
    """What ``fact`` is about (see the module docstring)."""
    subject = (fact.speaker or "").strip() or None
    subject_words = {w.lower() for w in (subject or "").split()}
    entities: set[str] = set()
    words: set[str] = set()
    for index, token in enumerate(_TOKEN.findall(fact.text)):
        token = token.strip("'’-")
        if not token:
            continue
        lowered = token.lower()
        if lowered.endswith(("'s", "’s")):
            lowered = lowered[:-2]
        if lowered in subject_words or lowered in _STOP:
            continue
        if index > 0 and token[0].isupper():
            if lowered not in _NOT_ENTITIES:
                entities.add(lowered)
        elif len(lowered) >= 4:
            stem = _stem(lowered)
            if stem not in _STOP:
                words.add(stem)
    return Keys(subject.lower() if subject else None, frozenset(entities), frozenset(words))


class TopicIndex:
    """Facts by what they are about, in the order they were added (log order)."""

    def __init__(self, facts: Iterable[Fact] = ()) -> None:
        self.facts: list[Fact] = []
        self.keys: list[Keys] = []
        self.position: dict[str, int] = {}
        self._postings: dict[str, list[int]] = {}
        #: facts are added on one thread while extraction reads on others (:mod:`.shown`)
        self._lock = threading.Lock()
        for fact in facts:
            self.add(fact)

    def __len__(self) -> int:
        return len(self.facts)

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self.position

    def add(self, fact: Fact) -> None:
        if fact.id in self.position:
            return
        keys = fact_keys(fact)
        with self._lock:
            number = len(self.facts)
            self.facts.append(fact)
            self.keys.append(keys)
            self.position[fact.id] = number
            for key in keys.all():
                self._postings.setdefault(key, []).append(number)

    def candidates(
        self,
        fact: Fact,
        limit: int = MAX_CANDIDATES,
        *,
        before: int | None = None,
        exclude: Container[str] = frozenset(),
    ) -> list[Fact]:
        """The earlier facts (already added) ``fact`` may change, best first; ``before``:
        only the first ``before`` facts added count, ``exclude``: ids that do not."""
        keys = fact_keys(fact)
        scores: dict[int, int] = {}
        with self._lock:
            end = len(self.facts) if before is None else min(before, len(self.facts))
            frequent = max(FREQUENT_FLOOR, FREQUENT_SHARE * end)
            for key in keys.all():
                postings = self._postings.get(key)
                if not postings or len(postings) > COMMON_KEY:
                    continue
                weight = ENTITY_WEIGHT if key.startswith("e:") else WORD_WEIGHT
                if len(postings) > frequent:
                    weight //= 3
                for number in postings:
                    if number < end:
                        scores[number] = scores.get(number, 0) + weight
        found = []
        for number, score in scores.items():
            if score < MIN_SCORE or self.facts[number].id == fact.id or self.facts[number].id in exclude:
                continue
            other = self.keys[number]
            if keys.subject is not None and other.subject is not None and other.subject != keys.subject:
                # another speaker's fact counts only where it names this fact's subject
                if keys.subject not in self.facts[number].text.lower():
                    continue
            found.append((-score, -number))
        found.sort()
        return [self.facts[-number] for _, number in found[:limit]]

    def latest(self, count: int, *, before: int | None = None, exclude: Container[str] = frozenset()) -> list[Fact]:
        """The last ``count`` facts added (of the first ``before``), latest first, ``exclude`` left out."""
        with self._lock:
            end = len(self.facts) if before is None else min(before, len(self.facts))
        out: list[Fact] = []
        for number in range(end - 1, -1, -1):
            if len(out) >= count:
                break
            if self.facts[number].id not in exclude:
                out.append(self.facts[number])
        return out


__all__ = ["COMMON_KEY", "Keys", "MAX_CANDIDATES", "TopicIndex", "fact_keys"]
