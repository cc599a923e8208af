"""What changed in the view, and when: the change log read as a person or an agent asks.

* :func:`history` -- the changes, oldest first, filtered by domain, record and a
  range of compiles or times, each with the sentences of the facts that caused it;
* :func:`diff` -- the same changes grouped by domain and record;
* :func:`view_at` -- a domain as it stood after a compile or at a time, replayed
  from the log (:func:`uac.view.changes.replay`).

A point is a compile id (``c12``) or a time (``2026-05-01``: that day at 00:00
UTC; or an ISO date-time).  ``since`` is exclusive for a compile (the changes
made after it) and inclusive for a time; ``until`` is inclusive for both (a
day until its end).  A point in the future gives an empty result; a compile
the log never had is a :class:`~uac.errors.NotFound`.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .context import MemoryContext
from .errors import DomainNotFound, InputError, NotFound
from .fieldjson import fields_json
from .names import DOMAIN_NAME
from .view import changes as _log

_COMPILE = re.compile(r"c(\d{1,9})")
#: the longest fact sentence a change carries
SENTENCE_CHARS = 400


@dataclass(frozen=True)
class Point:
    """One end of a range: a compile number or a UTC time (ISO string)."""

    seq: int | None = None
    at: str | None = None
    text: str = ""


def parse_point(ctx: MemoryContext, text: str | None, *, end: bool = False) -> Point | None:
    """``c12``, ``2026-05-01`` or ``2026-05-01T10:00:00+00:00`` (``end``: a day means its end)."""
    if text is None or not str(text).strip():
        return None
    text = str(text).strip()
    match = _COMPILE.fullmatch(text)
    if match:
        seq = int(match.group(1))
        known = _log.read_state(ctx.project)["next_seq"]
        if seq < 1 or seq >= known:
            last = f"c1 to c{known - 1}" if known > 1 else "none yet"
            raise NotFound(
                f"there is no compile {text} in the change log (compiles: {last}).",
                hint="The history of the view lists the compiles that changed it.",
            )
        return Point(seq=seq, text=text)
    try:
        if len(text) == 10:
            day = _dt.date.fromisoformat(text)
            moment = _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.timezone.utc)
            if end:
                moment += _dt.timedelta(days=1)
        else:
            moment = _dt.datetime.fromisoformat(text)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=_dt.timezone.utc)
            moment = moment.astimezone(_dt.timezone.utc)
            if end:
                moment += _dt.timedelta(seconds=1)
    except ValueError:
        raise InputError(
            f"{text!r} is neither a compile id nor a date.",
            hint="Give a compile id such as c3, a day such as 2026-05-01 or an ISO date-time.",
        ) from None
    return Point(at=moment.isoformat(timespec="seconds"), text=text)


def _between(since: Point | None, until: Point | None) -> _log.ChangeRange:
    return _log.ChangeRange(
        since_seq=since.seq if since else None,
        since_at=since.at if since else None,
        until_seq=until.seq if until else None,
        until_at=until.at if until else None,
    )


class _Sentences:
    """The sentences of the facts behind changes, read from the fact log only for the
    facts asked for (:class:`uac.facts.lookup.FactLookup`)."""

    def __init__(self, ctx: MemoryContext) -> None:
        from .facts.lookup import FactLookup

        self.lookup = FactLookup(ctx.fact_log())

    def entries(self, changes: list[_log.Change]) -> list["ChangeEntry"]:
        facts = self.lookup.get({f for c in changes for f in c.facts})
        return [ChangeEntry(c, [_sentence(facts[f]) for f in c.facts if f in facts]) for c in changes]


def _sentence(fact: Any) -> dict[str, str]:
    text = fact.text if len(fact.text) <= SENTENCE_CHARS else fact.text[: SENTENCE_CHARS - 1] + "…"
    return {"fact": fact.id, "text": text, "session_id": fact.session_id}


@dataclass
class ChangeEntry:
    change: _log.Change
    sentences: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {**self.change.to_json(), "sentences": list(self.sentences)}


@dataclass
class HistoryReport:
    changes: list[ChangeEntry]
    #: changes that matched (``changes`` holds at most ``limit`` of them, the newest)
    total: int
    #: lines of the log that could not be read (``uac doctor --repair`` rebuilds the log)
    damaged_lines: int = 0

    @property
    def truncated(self) -> bool:
        return self.total > len(self.changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "changes": [c.to_json() for c in self.changes],
            "total": self.total,
            "truncated": self.truncated,
            "damaged_lines": self.damaged_lines,
        }


def _check_domain(ctx: MemoryContext, domain: str | None) -> None:
    if domain is not None:
        DOMAIN_NAME.check(domain)


def history(
    ctx: MemoryContext,
    *,
    domain: str | None = None,
    record: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int | None = None,
) -> HistoryReport:
    """The changes in the range, oldest first (at most ``limit``: the newest ones)."""
    _check_domain(ctx, domain)
    if limit is not None and limit < 1:
        raise InputError(f"limit must be at least 1 (got {limit}).")
    start, stop = parse_point(ctx, since), parse_point(ctx, until, end=True)
    if record is not None:
        domain, record = _record_of(ctx, domain, record)
    read = _log.read_changes(ctx.project, _between(start, stop), domain=domain, record=record, tail=limit)
    return HistoryReport(_Sentences(ctx).entries(read.changes), read.total, read.damaged)


def _record_of(ctx: MemoryContext, domain: str | None, record: str) -> tuple[str, str]:
    """The domain and id of the record ``record`` names: a record id is unique only within
    its domain, so without ``domain`` it is ``DOMAIN/ID`` (as ``uac history`` prints it)
    or an id only one domain has."""
    if domain is None and "/" in record:
        head, rest = record.split("/", 1)
        if DOMAIN_NAME.ok(head) and _log.read_changes(ctx.project, domain=head, record=rest, tail=1).total:
            return head, rest
    found = sorted({c.domain for c in _log.read_changes(ctx.project, domain=domain, record=record).changes})
    if not found:
        where = f" of domain {domain!r}" if domain else ""
        raise NotFound(
            f"no change of a record {record!r}{where} is in the change log.",
            hint="The history of the view lists the records that changed.",
        )
    if len(found) > 1:
        raise InputError(
            f"a record {record!r} is in more than one domain ({', '.join(found)}).",
            hint="Name its domain too ({opt:domain}), or give the record as DOMAIN/ID, as the history prints it: "
            + f"{found[0]}/{record}.",
        )
    return found[0], record


def _write_entries(write: Any, entries: list["ChangeEntry"], *, first: bool) -> None:
    if entries:  # one encoding of the batch, its brackets cut: the same text as one by one
        write(
            ("" if first else ", ") + json.dumps([e.to_json() for e in entries], ensure_ascii=False, default=str)[1:-1]
        )


#: changes whose sentences are looked up at a time when the history is streamed
STREAM_BATCH = 2000


def stream_history(
    ctx: MemoryContext,
    write: Any,
    *,
    domain: str | None = None,
    record: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> int:
    """Write every change in the range as the JSON of :meth:`HistoryReport.to_json`
    (``write(text)`` called piece by piece, the changes as they are read: a range of
    100,000 changes is never held whole).  Returns the number of changes written."""
    _check_domain(ctx, domain)
    start, stop = parse_point(ctx, since), parse_point(ctx, until, end=True)
    if record is not None:
        domain, record = _record_of(ctx, domain, record)
    sentences = _Sentences(ctx)
    total = damaged = 0
    batch: list[_log.Change] = []
    write('{"changes": [')
    for item in _log.matching(ctx.project, _between(start, stop), domain=domain, record=record):
        if item is None:
            damaged += 1
            continue
        batch.append(item)
        if len(batch) >= STREAM_BATCH:
            _write_entries(write, sentences.entries(batch), first=total == 0)
            total += len(batch)
            batch = []
    _write_entries(write, sentences.entries(batch), first=total == 0)
    total += len(batch)
    write(f'], "total": {total}, "truncated": false, "damaged_lines": {damaged}}}\n')
    return total


def changed_domains(ctx: MemoryContext) -> list[str]:
    """The domains the change log has changes of, by name (read from its state, not its lines)."""
    return _log.logged_domains(ctx.project)


@dataclass
class RecordDiff:
    domain: str
    collection: str
    record: str
    changes: list[ChangeEntry]

    def to_json(self) -> dict[str, Any]:
        return fields_json(self, changes=[c.to_json() for c in self.changes])


@dataclass
class DiffReport:
    since: str
    until: str | None
    domains: dict[str, list[RecordDiff]]
    damaged_lines: int = 0

    @property
    def count(self) -> int:
        return sum(len(r.changes) for records in self.domains.values() for r in records)

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "until": self.until,
            "changes": self.count,
            "domains": [
                {"domain": name, "records": [r.to_json() for r in records]} for name, records in self.domains.items()
            ],
            "damaged_lines": self.damaged_lines,
        }


def diff(ctx: MemoryContext, *, since: str, until: str | None = None, domain: str | None = None) -> DiffReport:
    """What changed between two points, grouped by domain (by name) and record (first change first)."""
    _check_domain(ctx, domain)
    start = parse_point(ctx, since)
    if start is None:
        raise InputError("a diff needs a start.", hint="Give a compile id such as c3 or a day such as 2026-05-01.")
    stop = parse_point(ctx, until, end=True)
    read = _log.read_changes(ctx.project, _between(start, stop), domain=domain)
    grouped: dict[str, dict[str, RecordDiff]] = {}
    for entry in _Sentences(ctx).entries(read.changes):
        change = entry.change
        records = grouped.setdefault(change.domain, {})
        found = records.get(change.record)
        if found is None:
            found = records[change.record] = RecordDiff(change.domain, change.collection, change.record, [])
        found.changes.append(entry)
    domains = {name: list(grouped[name].values()) for name in sorted(grouped)}
    return DiffReport(start.text, stop.text if stop else None, domains, read.damaged)


@dataclass
class DomainAt:
    domain: str
    at: str
    #: the last compile at or before the point that changed this domain (``None``: none had)
    compile: str | None
    collections: dict[str, list[dict[str, Any]]]

    @property
    def record_count(self) -> int:
        return sum(len(v) for v in self.collections.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "at": self.at,
            "compile": self.compile,
            "records": self.record_count,
            "collections": {k: list(v) for k, v in self.collections.items()},
        }


def view_at(ctx: MemoryContext, domain: str, at: str) -> DomainAt:
    """Domain ``domain`` as it stood after compile ``at`` (or at that time), from the log."""
    DOMAIN_NAME.check(domain)
    point = parse_point(ctx, at, end=True)
    if point is None:
        raise InputError(
            "a view as it stood needs a compile id or a date.",
            hint="Give a compile id such as c3 or a day such as 2026-05-01.",
        )
    read = _log.read_changes(ctx.project, _log.ChangeRange(until_seq=point.seq, until_at=point.at), domain=domain)
    if not read.changes and not _log.read_changes(ctx.project, domain=domain).changes:
        raise DomainNotFound(
            f"the change log has no domain {domain!r}.", hint="The history of the view lists the domains that changed."
        )
    records: dict[str, dict[str, Any]] = {}
    for change in read.changes:
        _log.apply(records, change)
    collections: dict[str, list[dict[str, Any]]] = {}
    for name, rec in records.items():
        collections.setdefault(rec["collection"], []).append(
            {"record": name, "fields": rec["fields"], "sources": rec["sources"]}
        )
    last = read.changes[-1].compile if read.changes else None
    return DomainAt(domain, point.text, last, collections)


__all__ = [
    "ChangeEntry",
    "DiffReport",
    "DomainAt",
    "HistoryReport",
    "Point",
    "RecordDiff",
    "changed_domains",
    "diff",
    "history",
    "parse_point",
    "stream_history",
    "view_at",
]
