"""Reading a project the way a person inspects it: overview, tables, the evidence chain.

Every belief of the memory can be followed back to the words it came from:
a record of the typed view cites fact ids (its ``sources``), a fact cites the
turn ids of the archive it was read from (its ``evidence``), and a turn
belongs to a session.  This module walks that chain in both directions
(:func:`record_detail`, :func:`fact_detail`, :func:`turn_detail`) and builds
what an overview shows (:func:`overview`): counts, facts per month, records
per domain, the last compile and its coverage.

Records are addressed by ``(domain, collection, position)``: generated records
need not carry an id of their own, and the position in a collection is what
the view on disk holds.  Values are turned into display text here
(:func:`display`), never into markup: adapters escape what they show.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .compile.coverage import fact_coverage
from .compile.report import LAST_COMPILE
from .context import MemoryContext
from .dates import Period
from .errors import DomainNotFound, FactNotFound, NotFound, SessionNotFound
from .facts.model import Fact
from .memorize.correct import is_correction
from .names import DOMAIN_NAME, SESSION_ID
from .sessions.archive import Archive
from .sessions.model import Session, Turn

#: the longest display text of one value
MAX_DISPLAY = 400


def display(value: Any) -> str:
    """A value of the typed view as plain text (dates in ISO, lists joined)."""
    if value is None:
        return ""
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, Period):
        return value.label()  # an exact day in ISO like the dates beside it, else "May 2023"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple, set, frozenset)):
        text = ", ".join(display(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{display(k)}: {display(v)}" for k, v in value.items())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ", ".join(f"{f.name}={display(getattr(value, f.name))}" for f in dataclasses.fields(value))
        text = f"{type(value).__name__}({inner})"
    elif hasattr(value, "value") and hasattr(value, "name") and type(value).__module__ == "enum":
        text = str(value.value)
    else:
        text = str(value)
    return text if len(text) <= MAX_DISPLAY else text[: MAX_DISPLAY - 1] + "…"


def _sort_key(value: Any) -> tuple[int, Any]:
    """Sort numbers as numbers and dates as dates; everything else as text; blanks last."""
    if value is None or value == "" or value == [] or value == ():
        return (3, "")
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, (int, float)):
        return (0, value)
    if isinstance(value, _dt.datetime):
        return (1, value.replace(tzinfo=None).isoformat())
    if isinstance(value, _dt.date):
        return (1, value.isoformat())
    if isinstance(value, Period):
        return (1, value.start.isoformat() + "/" + value.end.isoformat())
    return (2, display(value).casefold())


@dataclass(frozen=True)
class RecordRow:
    """One record of a collection, as a table row."""

    domain: str
    collection: str
    position: int
    type_name: str
    values: dict[str, Any]
    sources: tuple[str, ...] = ()

    def cell(self, column: str) -> str:
        return display(self.values.get(column))

    @property
    def label(self) -> str:
        for name in ("title", "name", "text", "description", "summary", "id"):
            if isinstance(self.values.get(name), str) and self.values[name]:
                return display(self.values[name])
        return f"{self.type_name} #{self.position}"

    def matches(self, query: str) -> bool:
        needle = query.casefold()
        return any(needle in display(v).casefold() for v in self.values.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "collection": self.collection,
            "position": self.position,
            "type": self.type_name,
            "values": {k: _jsonable(v) for k, v in self.values.items()},
            "sources": list(self.sources),
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return display(value)


@dataclass
class CollectionTable:
    """One collection of a domain (a list of records) as a table."""

    domain: str
    name: str
    type_name: str
    columns: list[str]
    rows: list[RecordRow]

    def view(self, *, query: str = "", sort: str | None = None, descending: bool = False) -> list[RecordRow]:
        """The rows whose text contains ``query`` (any column), sorted by column ``sort``."""
        rows = [r for r in self.rows if r.matches(query)] if query else list(self.rows)
        if sort in self.columns:
            rows.sort(key=lambda r: _sort_key(r.values.get(sort)), reverse=descending)
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type_name,
            "columns": list(self.columns),
            "rows": [r.to_json() for r in self.rows],
        }


@dataclass
class DomainTables:
    name: str
    doc: str
    collections: list[CollectionTable]
    #: top-level values that are not collections of records (name -> display text)
    values: dict[str, str] = field(default_factory=dict)

    def collection(self, name: str) -> CollectionTable:
        for table in self.collections:
            if table.name == name:
                return table
        raise NotFound(
            f"domain {self.name!r} has no collection {name!r}.", hint="Open the domain to see its collections."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "doc": self.doc,
            "collections": [c.to_json() for c in self.collections],
            "values": dict(self.values),
        }


def _row(domain: str, collection: str, position: int, record: Any) -> RecordRow:
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    sources = values.get("sources")
    cited = tuple(str(s) for s in sources) if isinstance(sources, (list, tuple)) else ()
    return RecordRow(domain, collection, position, type(record).__name__, values, cited)


def domain_names(ctx: MemoryContext) -> list[str]:
    return sorted(ctx.load_view())


def domain_tables(ctx: MemoryContext, domain: str) -> DomainTables:
    """Every collection of ``domain`` as a table of records."""
    DOMAIN_NAME.check(domain)
    view = ctx.load_view()
    loaded = view.get(domain)
    if loaded is None:
        raise DomainNotFound(
            f"this project has no domain {domain!r}.", hint=f"Domains: {', '.join(sorted(view)) or 'none yet'}."
        )
    tables: list[CollectionTable] = []
    values: dict[str, str] = {}
    for name, value in loaded.values.items():
        records = list(value) if isinstance(value, (list, tuple)) else None
        if records and all(dataclasses.is_dataclass(r) and not isinstance(r, type) for r in records):
            rows = [_row(domain, name, i, r) for i, r in enumerate(records)]
            columns = list(dict.fromkeys(c for r in rows for c in r.values if c != "sources"))
            tables.append(CollectionTable(domain, name, rows[0].type_name, columns, rows))
        elif isinstance(value, (list, tuple)) and not value:
            spec = loaded.types.get(name)
            inner = spec.source().removeprefix("list[").removesuffix("]") if spec is not None else ""
            tables.append(CollectionTable(domain, name, inner, [], []))
        else:
            values[name] = display(value)
    doc = (loaded.schema.doc or "").strip()
    return DomainTables(domain, doc, tables, values)


# --- the evidence chain --------------------------------------------------------------


@dataclass
class TurnRef:
    session_id: str
    turn_id: str
    speaker: str | None
    text: str | None

    def to_json(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "turn_id": self.turn_id, "speaker": self.speaker, "text": self.text}


@dataclass
class RecordDetail:
    row: RecordRow
    #: the facts the record cites (``None`` for an id the log no longer holds)
    facts: list[tuple[str, Fact | None]]

    def to_json(self) -> dict[str, Any]:
        return {
            "record": self.row.to_json(),
            "facts": [{"id": i, "fact": f.to_json() if f is not None else None} for i, f in self.facts],
        }


@dataclass
class FactDetail:
    fact: Fact
    superseded_by: Fact | None
    supersedes: list[Fact]
    turns: list[TurnRef]
    citing: list[RecordRow]

    @property
    def correction(self) -> bool:
        return is_correction(self.fact)

    def to_json(self) -> dict[str, Any]:
        return {
            "fact": self.fact.to_json(),
            "correction": self.correction,
            "superseded_by": self.superseded_by.to_json() if self.superseded_by else None,
            "supersedes": [f.to_json() for f in self.supersedes],
            "turns": [t.to_json() for t in self.turns],
            "cited_by": [r.to_json() for r in self.citing],
        }


@dataclass
class TurnDetail:
    session: Session
    turn: Turn
    facts: list[Fact]

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session.session_id,
            "session_date": self.session.date.isoformat(),
            "turn": self.turn.to_json(),
            "facts": [f.to_json() for f in self.facts],
        }


def record_detail(ctx: MemoryContext, domain: str, collection: str, position: int) -> RecordDetail:
    """One record and the facts it cites."""
    table = domain_tables(ctx, domain).collection(collection)
    if not 0 <= position < len(table.rows):
        raise NotFound(
            f"collection {domain}.{collection} has no record #{position} (it holds {len(table.rows)}).",
            hint="Open the collection to see its records.",
        )
    row = table.rows[position]
    facts = ctx.read_log().facts
    return RecordDetail(row, [(i, facts.get(i)) for i in row.sources])


def records_citing(ctx: MemoryContext, fact_ids: set[str] | list[str]) -> list[RecordRow]:
    """Every record of the typed view that cites one of ``fact_ids``."""
    wanted = set(fact_ids)
    out: list[RecordRow] = []
    for name in domain_names(ctx):
        for table in domain_tables(ctx, name).collections:
            out.extend(r for r in table.rows if wanted.intersection(r.sources))
    return out


def _turn_refs(archive: Archive, fact: Fact) -> list[TurnRef]:
    refs = []
    session = archive.read(fact.session_id) if SESSION_ID.ok(fact.session_id) and archive.has(fact.session_id) else None
    for turn_id in fact.evidence:
        turn = None
        if session is not None:
            turn = next((t for t in session.turns if t.turn_id == turn_id), None)
        refs.append(TurnRef(fact.session_id, turn_id, turn.speaker if turn else None, turn.full_text if turn else None))
    return refs


def fact_detail(ctx: MemoryContext, fact_id: str) -> FactDetail:
    """A fact with its supersession chain, its source turns and the records citing it."""
    facts = ctx.read_log().facts
    fact = facts.get(fact_id)
    if fact is None:
        raise FactNotFound(f"no fact {fact_id!r} in this project's log.", hint="{do:find_facts}.")
    archive = Archive(ctx.project.paths.sessions)
    return FactDetail(
        fact=fact,
        superseded_by=facts.get(fact.superseded_by) if fact.superseded_by else None,
        supersedes=[f for f in facts.values() if f.superseded_by == fact_id],
        turns=_turn_refs(archive, fact),
        citing=records_citing(ctx, {fact_id}),
    )


def turn_detail(ctx: MemoryContext, session_id: str, turn_id: str) -> TurnDetail:
    """One turn of the archive and the facts read from it."""
    session = read_session(ctx, session_id)
    turn = next((t for t in session.turns if t.turn_id == turn_id), None)
    if turn is None:
        raise NotFound(f"session {session_id!r} has no turn {turn_id!r}.", hint="Open the session to see its turns.")
    facts = [f for f in ctx.read_log().facts.values() if f.session_id == session_id and turn_id in f.evidence]
    return TurnDetail(session, turn, facts)


def read_session(ctx: MemoryContext, session_id: str) -> Session:
    archive = Archive(ctx.project.paths.sessions)
    if not SESSION_ID.ok(session_id) or not archive.has(session_id):
        raise SessionNotFound(f"no session {session_id!r} in this project.", hint="{do:find_sessions}.")
    return archive.read(session_id)


# --- the overview ------------------------------------------------------------------


@dataclass
class Overview:
    project: str
    user_name: str | None
    timezone: str
    manifest: str
    facts_valid: int
    facts_superseded: int
    corrections: int
    sessions: int
    records: int
    #: ("YYYY-MM", facts first valid that month), oldest first, months without facts included
    facts_per_month: list[tuple[str, int]]
    #: (domain, records), largest first
    records_per_domain: list[tuple[str, int]]
    #: the last compile's summary (``None``: never compiled since this was recorded)
    last_compile: dict[str, Any] | None
    #: where the facts valid now stand in the view (:mod:`uac.compile.coverage`)
    coverage: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "user_name": self.user_name,
            "timezone": self.timezone,
            "counts": {
                "facts_valid": self.facts_valid,
                "facts_superseded": self.facts_superseded,
                "corrections": self.corrections,
                "sessions": self.sessions,
                "domains": len(self.records_per_domain),
                "records": self.records,
            },
            "facts_per_month": [{"month": m, "facts": n} for m, n in self.facts_per_month],
            "records_per_domain": [{"domain": d, "records": n} for d, n in self.records_per_domain],
            "last_compile": self.last_compile,
            "coverage": self.coverage,
        }


def _months(counts: Counter[str]) -> list[tuple[str, int]]:
    if not counts:
        return []
    first, last = min(counts), max(counts)
    year, month = int(first[:4]), int(first[5:7])
    out: list[tuple[str, int]] = []
    while f"{year:04d}-{month:02d}" <= last and len(out) < 600:
        key = f"{year:04d}-{month:02d}"
        out.append((key, counts.get(key, 0)))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def facts_per_month(facts: list[Fact]) -> list[tuple[str, int]]:
    """How many facts became valid each month (by ``valid_from``, else the session date)."""
    counts: Counter[str] = Counter()
    for fact in facts:
        day = fact.valid_from or fact.session_date
        if day is not None:
            counts[day.isoformat()[:7]] += 1
    return _months(counts)


def last_compile(ctx: MemoryContext) -> dict[str, Any] | None:
    text = ctx.project.read_text(f".uac/{LAST_COMPILE}")
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def overview(ctx: MemoryContext) -> Overview:
    state = ctx.read_log()
    facts = list(state.facts.values())
    valid = [f for f in facts if f.invalid_at is None]
    view = ctx.load_view()
    per_domain = sorted(((name, view[name].record_count()) for name in view), key=lambda p: (-p[1], p[0]))
    config = ctx.project.config
    return Overview(
        project=ctx.project.name,
        user_name=config.user.name,
        timezone=config.user.timezone,
        manifest=ctx.project.read_text("MANIFEST.md") or "",
        facts_valid=len(valid),
        facts_superseded=len(facts) - len(valid),
        corrections=sum(1 for f in facts if is_correction(f)),
        sessions=len(Archive(ctx.project.paths.sessions).ids()),
        records=sum(n for _, n in per_domain),
        facts_per_month=facts_per_month(facts),
        records_per_domain=per_domain,
        last_compile=last_compile(ctx),
        coverage=fact_coverage(ctx.project, [f.id for f in valid], view).to_json(),
    )


__all__ = [
    "CollectionTable",
    "DomainTables",
    "FactDetail",
    "Overview",
    "RecordDetail",
    "RecordRow",
    "TurnDetail",
    "TurnRef",
    "display",
    "domain_tables",
    "fact_detail",
    "facts_per_month",
    "overview",
    "record_detail",
    "records_citing",
    "turn_detail",
]
