"""The reference programs: one small query language over a ledger's events or a view's records.

A :class:`Query` filters the items of one kind (by status, time, key, company,
returns) and reduces them (count, sum, max/min, distinct values, the one item
at a date or current, one field of the one matching item).  The same query
gives a question's gold over the ledger (:func:`ledger_items`, strict: a
missing value, a tie or no item at all is a :class:`GoldError`) and the
answer read from a typed view (:func:`view_items`, lenient: what the view
lacks is skipped, and no answer is ``None``).  The view's records are read
through :data:`~.view_score.SPECS` (which record field holds the key and the
date), so a kind the offline compiler changes is read the way it is scored.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .ledger import Ledger, LedgerError
from .view_score import SPECS, _days, _is_users, _key, normalize, record_fields, same_item, same_name

#: the ledger field dating each kind (a trip by its start, else its end)
EVENT_DATES = {
    "trip": ("start", "end"),
    "meal": ("date",),
    "purchase": ("date",),
    "workout": ("date",),
    "book": ("finished",),
    "job": ("start",),
    "home": ("start",),
}
#: record fields tried for a date when the kind's spec names none
VIEW_DATES = ("start", "when", "finished", "date", "end")
OPS = ("count", "sum", "max", "min", "argmax", "argmin", "distinct", "repeated", "at", "current", "field")


class GoldError(LedgerError):
    """A question whose gold the ledger cannot give (the message says why)."""


@dataclass
class Item:
    """An event or a record, as the queries read it."""

    kind: str
    key: Any
    first: _dt.date | None = None
    last: _dt.date | None = None
    status: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    start: _dt.date | None = None
    end: _dt.date | None = None  # None: open (a current job or home)
    current: bool = False


def ledger_items(ledger: Ledger, kind: str) -> list[Item]:
    items = []
    for event in ledger.of_kind(kind):
        span = next((event.span(n) for n in EVENT_DATES[kind] if event.get(n)), None)
        start, end = event.span("start"), event.span("end")
        values = {k: v for k, v in event.fields.items()}
        values["with"] = [normalize(p) for p in event.get("with", []) or []]
        items.append(
            Item(
                kind,
                event.get(SPECS[kind].event_key),
                span.first if span else None,
                span.last if span else None,
                event.get("status"),
                values,
                start.first if start else None,
                end.last if end else None,
                event.current,
            )
        )
    return items


def view_items(
    state: Mapping[str, Any], kind: str, user: str, collections: Mapping[str, tuple[str, str]]
) -> list[Item]:
    """The user's records of ``kind`` in ``state`` (none where the view has no such collection)."""
    if kind not in collections:
        return []
    domain, collection = collections[kind]
    records = getattr(state[domain], collection, ()) if domain in state else ()
    spec = SPECS[kind]
    items = []
    for rec in (record_fields(r) for r in records or ()):
        if not _is_users(rec, user):
            continue
        days = next((d for d in (_days(rec.get(n)) for n in spec.record_dates or VIEW_DATES) if d), None)
        start, end = _days(rec.get("start")), _days(rec.get("end"))
        values = dict(rec)
        values["with"] = [normalize(p) for p in (rec.get("companions") or rec.get("with") or [])]
        if "title" not in values or kind == "job":
            values["title"] = rec.get("role") or rec.get("title")
        current = bool(rec["current"]) if "current" in rec else (end is None and kind in ("job", "home"))
        items.append(
            Item(
                kind,
                _key(rec, spec),
                days[0] if days else None,
                days[1] if days else None,
                None if rec.get("status") is None else str(rec.get("status")),
                values,
                start[0] if start else None,
                end[1] if end else None,
                current,
            )
        )
    return items


@dataclass(frozen=True)
class Query:
    """``op`` over the items of ``kind`` that pass every filter in ``where``.

    Filters: ``status``, ``year``, ``month`` (``YYYY-MM``), ``until`` (ISO day: dated on
    or before it), ``key`` (the item's key names it), ``with`` (a companion),
    ``returned`` (False: not returned), ``on`` (ISO day within the item's date).
    ``field`` is the measure of sum/max/min/argmax/argmin, the value of
    distinct/field; ``amount`` is converted into the ledger's currency.
    ``at`` is an ISO day for op ``at``."""

    kind: str
    op: str
    where: tuple[tuple[str, Any], ...] = ()
    field: str | None = None
    at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "op": self.op,
            "where": [list(w) for w in self.where],
            "field": self.field,
            "at": self.at,
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Query":
        if value.get("op") not in OPS or value.get("kind") not in SPECS:
            raise GoldError(f"a query needs a kind of {', '.join(SPECS)} and an op of {', '.join(OPS)}: {dict(value)}.")
        return cls(
            value["kind"],
            value["op"],
            tuple((str(k), v) for k, v in value.get("where", ())),
            value.get("field"),
            value.get("at"),
        )

    # -- evaluation --------------------------------------------------------------------

    def _keep(self, item: Item, name: str, wanted: Any) -> bool:
        if name == "status":
            return item.status == wanted
        if name in ("year", "month", "until", "on"):
            if item.first is None:
                return False
            if name == "year":
                return item.first.year == int(wanted)
            if name == "month":
                return item.first.strftime("%Y-%m") == wanted
            day = _dt.date.fromisoformat(wanted)
            if name == "until":
                return (item.last or item.first) <= day
            return item.first <= day <= (item.last or item.first)
        if name == "key":
            match = same_item if self.kind == "purchase" else same_name
            return match(wanted, item.key)
        if name == "with":
            return normalize(wanted) in item.values.get("with", [])
        if name == "returned":
            return bool(item.values.get("returned")) == bool(wanted)
        raise GoldError(f"unknown filter {name!r} in a {self.kind} query.")

    def _measure(self, item: Item, ledger: Ledger, strict: bool) -> float | None:
        value = item.values.get(self.field or "")
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            if strict:
                raise GoldError(f"the {self.kind} {item.key!r} has no {self.field}.")
            return None
        if self.field == "amount":
            currency = str(item.values.get("currency") or ledger.currency).upper()
            if currency not in ledger.rates and currency != ledger.currency:
                if strict:
                    raise GoldError(f"no exchange rate for {currency} in the ledger.")
                return None
            return round(ledger.convert(value, currency), 6)
        return float(value)

    def evaluate(self, items: Iterable[Item], ledger: Ledger, *, strict: bool) -> Any:
        """The answer over ``items``; strict (a gold) raises :class:`GoldError` where it has none."""
        chosen = [i for i in items if all(self._keep(i, name, wanted) for name, wanted in self.where)]
        op = self.op
        if op == "count":
            return len(chosen)
        if op in ("sum", "max", "min", "argmax", "argmin"):
            pairs = [(m, i) for m, i in ((self._measure(i, ledger, strict), i) for i in chosen) if m is not None]
            if op == "sum":
                total = sum(m for m, _ in pairs)
                return int(total) if self.field == "nights" else round(total, 2)
            if not pairs:
                return _none(strict, f"no {self.kind} to take the {op} of")
            best = (max if op in ("max", "argmax") else min)(m for m, _ in pairs)
            if op in ("max", "min"):
                return int(best) if self.field == "nights" else round(best, 2)
            tied = {normalize(i.key) for m, i in pairs if m == best}
            if len(tied) > 1 and strict:
                raise GoldError(f"a tie for the {op} of {self.field} among {self.kind}s: {sorted(tied)}.")
            return next(i.key for m, i in pairs if m == best)
        if op in ("distinct", "repeated"):
            counts: dict[str, list[Any]] = {}
            for item in chosen:
                value = item.key if self.field in (None, "key") else item.values.get(self.field)
                for one in value if isinstance(value, list) else [value]:
                    if one not in (None, ""):
                        counts.setdefault(normalize(one), []).append(one)
            keep = [names[0] for names in counts.values() if op == "distinct" or len(names) > 1]
            if not keep and strict:
                raise GoldError(f"no {self.kind} values for a {op} question.")
            return sorted(keep, key=normalize)
        if op == "at":
            day = _dt.date.fromisoformat(self.at or "")
            found = [i for i in chosen if i.start and i.start <= day and (i.end is None or day <= i.end)]
            return _one(found, strict, f"{self.kind} on {day}")
        if op == "current":
            found = [i for i in chosen if i.current]
            if len(found) > 1 and not strict:  # the latest started one
                found = sorted(found, key=lambda i: i.start or _dt.date.min)[-1:]
            return _one(found, strict, f"current {self.kind}", self.field)
        if op == "field":
            item = _one(chosen, strict, f"{self.kind} matching {dict(self.where)}", None, whole=True)
            if item is None:
                return None
            value = item.key if self.field in (None, "key") else item.values.get(self.field)
            if value in (None, "", []) and strict:
                raise GoldError(f"the {self.kind} {item.key!r} has no {self.field}.")
            return sorted(value, key=normalize) if isinstance(value, list) else value
        raise GoldError(f"unknown op {op!r}.")


def _none(strict: bool, why: str) -> None:
    if strict:
        raise GoldError(f"{why}.")
    return None


def _one(found: list[Item], strict: bool, what: str, field_name: str | None = None, whole: bool = False) -> Any:
    if len(found) != 1:
        if strict:
            raise GoldError(f"{len(found)} items for the {what}; a question needs exactly one.")
        if not found:
            return None
    item = found[0]
    if whole:
        return item
    return item.key if field_name in (None, "key") else item.values.get(field_name)
