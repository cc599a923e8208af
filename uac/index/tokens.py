"""Tokenizing text for BM25: lower case, words and numbers, stop words out,
a light suffix stemmer so "painting", "paints" and "painted" meet."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")
#: the version of :func:`stem` (2: every form of a verb meets, "move", "moved",
#: "moving"); saved with each BM25 index, which is built again when it differs
STEMMER_VERSION = 2

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who whom why will
    with would you your yours yourself yourselves s t don ll m re ve d said asked""".split()
)


def stem(word: str) -> str:
    """Plural first, then -ing/-ed, then a doubled consonant and a final e, so that
    every form of a verb meets: "move", "moves", "moved", "moving" -> "mov";
    "stop", "stopped" -> "stop"; "paintings" -> "paint"; "lakes" -> "lak"."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    suffix = False
    if len(word) > 5 and word.endswith("ing"):
        word, suffix = word[:-3], True
    elif len(word) > 4 and word.endswith("ed"):
        word, suffix = word[:-2], True
    if suffix and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # "stopped" -> "stop", "running" -> "run"
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]  # "move" meets "moved" and "moving"
    return word


def tokenize(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower().replace("'s", "")) if w not in STOPWORDS]
