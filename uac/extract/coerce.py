"""Reading one model-written fact item, coercing what can be coerced.

Models slip in ordinary ways: an ``event_date`` of ``"N/A"`` or ``"May 7,
2023"`` (a date may be a period too: ``"2022"``, ``"May 2023"``, ``"last year"``,
``"the week before 9 June 2023"``, ``"2023-06-02/2023-06-08"``, an object with
``start`` and ``end``), evidence as one string (``"D1:3, D1:4"``), a range (``"D1:3-D1:5"``),
bracketed ids (``"[D1:3]"``), bare turn numbers, a turn id of the context that
may not be cited.  :func:`read_item` turns such an item into an
:class:`~uac.extract.base.ExtractedFact` and says which fields it coerced; an
item it cannot read comes back with the problem, for the repair round.  With
``final=True`` (after the repair round) an unreadable optional field
(``event_date``, ``supersedes``) is cleared instead of failing the item.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..dates import NO_DATE, Period, read_period
from ..facts.model import Fact
from ..llm import clean_id
from .base import ExtractedFact
from .dates import find_relative_dates

_RANGE_SEPARATORS = ("..", "\u2013", "\u2014", " to ", " through ", "-")
_LIST_SPLIT = re.compile(r"\s*(?:[,;|]|\band\b|\s)\s*")


@dataclass
class DateReading:
    period: Period | None = None
    coerced: bool = False
    problem: str | None = None

    @property
    def day(self) -> _dt.date | None:
        """The first day of the period."""
        return None if self.period is None else self.period.start

    @property
    def precision(self) -> str | None:
        return None if self.period is None else self.period.precision


def read_date(value: Any, session_date: _dt.date) -> DateReading:
    """An ``event_date`` as a model wrote it (see the module docstring and
    :func:`uac.dates.read_period`, which reads it; relative dates are read against
    ``session_date``)."""
    if value is None:
        return DateReading()
    try:
        period = read_period(value, relative=lambda text: _relative(text, session_date))
    except ValueError as exc:
        return DateReading(problem=f"event_date {exc}")
    if period is None:
        return DateReading(coerced=value != "")
    text = " ".join(str(value).split()) if isinstance(value, str) else None
    return DateReading(period, coerced=period.code != text)


def _relative(text: str, session_date: _dt.date) -> Period | None:
    """A relative phrase (``yesterday``, ``last year``) that is the whole text."""
    found = find_relative_dates(text, session_date)
    if found and len(found[0].phrase) >= len(text) - 3:
        return found[0].period
    return None


@dataclass
class TurnIds:
    """The turn ids a window may cite, and those it may not (its context)."""

    allowed: tuple[str, ...]
    context: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self._allowed = set(self.allowed)
        self._context = set(self.context)
        self._order = {turn: i for i, turn in enumerate(self.allowed)}
        by_number: dict[str, list[str]] = {}
        for turn in self.allowed:
            match = re.search(r"(\d+)$", turn)
            if match:
                by_number.setdefault(str(int(match.group(1))), []).append(turn)
        self._by_number = {n: ids[0] for n, ids in by_number.items() if len(ids) == 1}
        self._lower = {t.lower(): t for t in self.allowed}

    def resolve(self, token: str) -> str | None:
        """The allowed id ``token`` names, if any."""
        token = clean_id(token)
        if token in self._allowed:
            return token
        if token.lower() in self._lower:
            return self._lower[token.lower()]
        if token.isdigit():
            return self._by_number.get(str(int(token)))
        return None

    def in_context(self, token: str) -> bool:
        return clean_id(token) in self._context

    def span(self, first: str, last: str) -> list[str]:
        a, b = sorted((self._order[first], self._order[last]))
        return list(self.allowed[a : b + 1])


@dataclass
class EvidenceReading:
    ids: list[str] = field(default_factory=list)
    coerced: bool = False
    dropped_context: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def _range(token: str, turns: TurnIds) -> list[str] | None:
    for separator in _RANGE_SEPARATORS:
        start = 0
        while True:
            at = token.find(separator, start)
            if at <= 0:
                break
            left, right = turns.resolve(token[:at]), turns.resolve(token[at + len(separator) :])
            if left and right:
                return turns.span(left, right)
            start = at + 1
    return None


def read_evidence(value: Any, turns: TurnIds) -> EvidenceReading:
    """Evidence as a model wrote it: a list, one string, a range, bare numbers, brackets."""
    out = EvidenceReading()
    if value is None:
        return out
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        raw_items: list[Any] = [value]
        out.coerced = True
    elif isinstance(value, list):
        raw_items = list(value)
    else:
        out.unknown.append(repr(value)[:40])
        return out
    for raw in raw_items:
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            out.unknown.append(repr(raw)[:40])
            continue
        token = str(int(raw)) if isinstance(raw, float) and raw.is_integer() else str(raw)
        if not isinstance(raw, str):
            out.coerced = True
        resolved = turns.resolve(token)
        if resolved is not None:
            if resolved != token:
                out.coerced = True
            out.ids.append(resolved)
            continue
        if turns.in_context(token):
            out.dropped_context.append(clean_id(token))
            out.coerced = True
            continue
        spanned = _range(clean_id(token), turns)
        if spanned:
            out.ids.extend(spanned)
            out.coerced = True
            continue
        pieces = [p for p in _LIST_SPLIT.split(clean_id(token)) if p]
        if len(pieces) > 1:
            inner = read_evidence(pieces, turns)
            out.ids.extend(inner.ids)
            out.dropped_context.extend(inner.dropped_context)
            out.unknown.extend(inner.unknown)
            out.coerced = True
            continue
        out.unknown.append(token)
    out.ids = list(dict.fromkeys(out.ids))
    return out


@dataclass
class ItemReading:
    fact: ExtractedFact | None
    coerced: list[str] = field(default_factory=list)
    problem: str | None = None


class KnownFacts:
    """The earlier facts an item may supersede, by id and by text."""

    def __init__(self, known: Sequence[Fact]) -> None:
        self.ids = {f.id for f in known}
        self.by_text = {" ".join(f.text.lower().split()): f.id for f in known}

    def resolve(self, value: Any) -> str | None:
        key = clean_id(value)
        if key in self.ids:
            return key
        return self.by_text.get(" ".join(str(value).lower().split()).strip())


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, str) and clean_id(value).lower() in NO_DATE)


def read_supersedes(value: Any, known: KnownFacts) -> tuple[list[str], list[str], bool]:
    """The known facts an item's ``supersedes`` names, as models write it: null, one id
    (bracketed or not) or the text of a known fact, a list of these, or several ids in one
    string ("s1-f2, s1-f3").  Returns (the ids found, in order; what named no known fact;
    whether it was read with a coercion)."""
    if _is_null(value) or value == []:
        return [], [], False
    reshaped = False
    if isinstance(value, (list, tuple)):
        items = [v for v in value if not _is_null(v)]
    elif isinstance(value, (str, int)):
        items = [str(value)]
    else:
        return [], [str(value)[:60]], True
    found: list[str] = []
    unknown: list[str] = []
    for item in items:
        if not isinstance(item, (str, int)):
            unknown.append(str(item)[:60])
            continue
        resolved = known.resolve(item)
        if resolved is not None:
            if resolved != item:
                reshaped = True
            found.append(resolved)
            continue
        parts = [p for p in re.split(r"\s*(?:[,;]|\band\b)\s*", str(item)) if p.strip()]
        ids = [known.resolve(p) for p in parts]
        if len(parts) > 1 and all(ids):
            found.extend(i for i in ids if i is not None)
            reshaped = True
        else:
            unknown.append(str(item)[:60])
    if isinstance(value, str) and len(found) > 1:
        reshaped = True
    return list(dict.fromkeys(found)), unknown, reshaped


def read_item(
    item: Any,
    where: str,
    turns: TurnIds,
    known: KnownFacts,
    session_date: _dt.date,
    *,
    final: bool = False,
) -> ItemReading:
    """One item of ``{"facts": [...]}`` (see the module docstring)."""
    if not isinstance(item, dict):
        return ItemReading(None, problem=f"{where} is not an object with text and evidence")
    coerced: list[str] = []
    text = item.get("text")
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = str(text)
        coerced.append("text")
    if not isinstance(text, str) or not text.strip():
        return ItemReading(None, problem=f"{where}.text must be a non-empty string")
    evidence = read_evidence(item.get("evidence"), turns)
    if evidence.coerced:
        coerced.append("evidence")
    if not evidence.ids:
        detail = ""
        if evidence.dropped_context:
            detail = f" ({', '.join(evidence.dropped_context)} are context turns, which may not be cited)"
        elif evidence.unknown:
            detail = f" ({', '.join(evidence.unknown[:5])} are not turns of this excerpt)"
        return ItemReading(None, problem=f"{where}.evidence must list the ids of the turns that support it{detail}")
    meta: dict[str, Any] = {"extractor": "llm"}
    date = read_date(item.get("event_date"), session_date)
    if date.problem:
        if not final:
            return ItemReading(None, problem=f"{where}.{date.problem}")
        date = DateReading(coerced=True)
        meta.setdefault("cleared", []).append("event_date")
    if date.coerced:
        coerced.append("event_date")
    #: a proposed link read with a coercion (or cleared): counted, but not marked in the
    #: fact's meta -- what an extraction is shown of earlier facts depends on how many
    #: sessions run side by side, and the facts written must not (the link itself is
    #: settled at the commit: uac.memorize.reconcile)
    linked: list[str] = []
    found, unknown, reshaped = read_supersedes(item.get("supersedes"), known)
    if unknown and not final:
        return ItemReading(
            None,
            problem=f"{where}.supersedes {', '.join(repr(u) for u in unknown[:3])} "
            f"{'is' if len(unknown) == 1 else 'are'} neither the id nor the text of a known fact "
            "(give a list of the ids shown under Known facts, or [])",
        )
    if unknown or reshaped:
        linked.append("supersedes")
    supersedes: str | tuple[str, ...] | None = None
    if len(found) == 1:
        supersedes = found[0]
    elif found:
        supersedes = tuple(found)
    speaker = item.get("speaker")
    if speaker is not None and not isinstance(speaker, str):
        speaker = str(speaker)
        coerced.append("speaker")
    if coerced:
        meta["coerced"] = sorted(set(coerced))
    fact = ExtractedFact(
        text=" ".join(text.split()),
        evidence=tuple(evidence.ids),
        speaker=speaker.strip() or None if isinstance(speaker, str) else None,
        event_date=date.period,
        supersedes=supersedes,
        meta=meta,
    )
    return ItemReading(fact, coerced=sorted(set(coerced + linked)))


__all__ = [
    "DateReading",
    "EvidenceReading",
    "ItemReading",
    "KnownFacts",
    "TurnIds",
    "read_date",
    "read_evidence",
    "read_item",
    "read_supersedes",
]
