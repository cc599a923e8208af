"""LoCoMo's official answer scoring, restated.

* :func:`normalize_answer`: drop commas, lowercase, strip punctuation, drop the
  words a/an/the/and, fold whitespace;
* :func:`token_f1`: F1 over the Porter-stemmed tokens of the normalised texts;
* per category (:func:`score_answer`): 1 (multi-hop) splits prediction and gold
  on ``,`` and averages, over the gold parts, each part's best F1 against the
  predicted parts; 2 (temporal) and 4 (single-hop) are plain token F1;
  3 (open-domain) cuts the gold at its first ``;``; 5 (adversarial) scores 1
  when the lowercased prediction contains "no information available" or
  "not mentioned" (a refusal), else 0.

Integer golds are stringified before scoring.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache
from typing import Any

from uac import ConfigError

REFUSAL_MARKERS = ("no information available", "not mentioned")

_PUNCTUATION = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


@lru_cache(maxsize=1)
def _stemmer():
    try:
        from nltk.stem import PorterStemmer
    except ImportError:
        raise ConfigError(
            "LoCoMo token F1 needs the Porter stemmer of nltk, which is not installed.",
            hint="Install the bench extra: pip install 'user-as-code[bench]' (the stemmer needs no data download).",
        ) from None
    return PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


def as_text(value: Any) -> str:
    """A gold or predicted answer as text (``None`` -> ``""``, integers stringified)."""
    if value is None:
        return ""
    return str(value)


def normalize_answer(text: Any) -> str:
    text = as_text(text).replace(",", "")
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def answer_tokens(text: Any) -> list[str]:
    """Porter-stemmed tokens of the normalised text."""
    return [_stem(word) for word in normalize_answer(text).split()]


def token_f1(prediction: Any, gold: Any) -> float:
    predicted = answer_tokens(prediction)
    expected = answer_tokens(gold)
    common = Counter(predicted) & Counter(expected)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(predicted)
    recall = same / len(expected)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: Any, gold: Any) -> float:
    """Category 1: mean over the gold's comma-separated parts of the best F1 against a predicted part."""
    predictions = [part.strip() for part in as_text(prediction).split(",")]
    golds = [part.strip() for part in as_text(gold).split(",")]
    return sum(max(token_f1(p, g) for p in predictions) for g in golds) / len(golds)


def is_refusal(prediction: Any) -> bool:
    text = as_text(prediction).lower()
    return any(marker in text for marker in REFUSAL_MARKERS)


def score_answer(category: int, prediction: Any, gold: Any) -> float:
    """The official per-category score of ``prediction`` (0..1)."""
    if category == 5:
        return 1.0 if is_refusal(prediction) else 0.0
    if category == 1:
        return multi_answer_f1(prediction, gold)
    if category == 3:
        return token_f1(prediction, as_text(gold).split(";")[0].strip())
    if category in (2, 4):
        return token_f1(prediction, gold)
    raise ValueError(f"LoCoMo category {category!r} is not one of 1-5")
