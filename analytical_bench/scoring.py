"""Deterministic scoring by answer kind; no LLM judge.

* ``int``: the first number in the prediction must equal the gold exactly
  ("12 trips", "1,234", "-3" are read; "none"/"zero" with no digits read as 0);
* ``float``: the first number within ``max(1% of |gold|, 0.01)`` of the gold;
* ``string``: the gold, case-insensitively and with whitespace collapsed, is
  contained in the prediction (an empty prediction never matches);
* ``set``: the prediction, split into items (a JSON list, lines, commas,
  semicolons, "and"), equals the gold as a set after normalisation (case,
  whitespace, punctuation);
* ``list``: the same items in the same order.
"""

from __future__ import annotations

import json
import re
from typing import Any

_NUMBER = re.compile(r"[-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-\u2212]?\.\d+")
_ZERO_WORDS = re.compile(r"\b(none|zero|no)\b", re.IGNORECASE)
_PUNCT = re.compile(r"[\"'`\u2018\u2019\u201c\u201d.,;:!?()\[\]{}*_]")
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")
_SPLIT = re.compile(r"\n|;|,|\band\b", re.IGNORECASE)


def parse_number(text: str | None) -> float | None:
    """The first number in ``text`` (thousands commas and a leading minus understood)."""
    if not text:
        return None
    match = _NUMBER.search(text)
    if match is None:
        if _ZERO_WORDS.search(text):
            return 0.0
        return None
    raw = match.group(0).replace(",", "").replace("\u2212", "-")
    return float(raw)


def normalize(text: str) -> str:
    """Case-folded, punctuation removed, whitespace collapsed."""
    return " ".join(_PUNCT.sub(" ", text.casefold()).split())


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text.strip()


def split_items(text: str | None) -> list[str]:
    """A prediction read as a list of items, in order (normalised, empties dropped)."""
    if not text:
        return []
    text = _strip_fences(text)
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, list):
            return [normalize(str(item)) for item in value if normalize(str(item))]
    if ":" in text:
        text = text.rsplit(":", 1)[1]
    items = []
    for line in text.split("\n"):
        line = _BULLET.sub("", line)
        for part in _SPLIT.split(line):
            item = normalize(_BULLET.sub("", part))
            if item:
                items.append(item)
    return items


def score(answer_kind: str, gold: Any, prediction: str | None) -> bool:
    """Whether ``prediction`` is a correct answer of kind ``answer_kind`` for ``gold``."""
    text = (prediction or "").strip()
    if not text:
        return False
    if answer_kind == "int":
        number = parse_number(text)
        return number is not None and number == int(gold)
    if answer_kind == "float":
        number = parse_number(text)
        if number is None:
            return False
        gold_value = float(gold)
        return abs(number - gold_value) <= max(0.01 * abs(gold_value), 0.01) + 1e-9
    if answer_kind == "string":
        wanted = " ".join(str(gold).casefold().split())
        return bool(wanted) and wanted in " ".join(text.casefold().split())
    if answer_kind == "set":
        return set(split_items(text)) == {normalize(str(item)) for item in gold}
    if answer_kind == "list":
        return split_items(text) == [normalize(str(item)) for item in gold]
    raise ValueError(f"unknown answer kind {answer_kind!r}")
