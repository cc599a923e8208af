"""The model-free view: a dated event timeline per life domain.

Facts are routed by meaning (:mod:`uac.compile.meaning`: the bundled
embedding model against short descriptions of each domain, the vectors the
search index already holds, the keyword classifier breaking ties) and each
domain gets::

    @dataclass(frozen=True)
    class Event:
        text: str
        session_id: str
        actor: str | None = None
        date: date | None = None        # event_date, else session_date
        notes: list[str] = field(default_factory=list)
        sources: list[str] = field(default_factory=list)   # [fact id]

    events: list[Event] = [...]          # by date, then log order

Other classes and collections of an existing domain (imported records, an
LLM-compiled view) are kept; only ``Event``/``events`` are replaced.
"""

from __future__ import annotations

import datetime as _dt
import time
from typing import TYPE_CHECKING, Any

from ..dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from ..dialect.types import TypeSpec
from ..progress import step
from .report import CompileReport, DomainReport
from .routing import route_offline

if TYPE_CHECKING:
    from ..facts.model import Fact
    from ..project import Project

_OPT_STR = TypeSpec("union", (TypeSpec("str"), TypeSpec("none")))
_OPT_DATE = TypeSpec("union", (TypeSpec("date"), TypeSpec("none")))
_LIST_STR = TypeSpec("list", (TypeSpec("str"),))
EVENT = ClassSpec(
    "Event",
    "dataclass",
    (
        FieldSpec("text", TypeSpec("str")),
        FieldSpec("session_id", TypeSpec("str")),
        FieldSpec("actor", _OPT_STR, "value", None),
        FieldSpec("date", _OPT_DATE, "value", None),
        FieldSpec("notes", _LIST_STR, "list"),
        FieldSpec("sources", _LIST_STR, "list"),
    ),
    doc="One dated event or statement from the conversations (offline timeline).",
)
EVENTS_TYPE = TypeSpec("list", (TypeSpec("class", name="Event"),))


def compile_offline(project: "Project", facts: list["Fact"]) -> CompileReport:
    """Write the event timeline of every domain that has facts."""
    from ..dialect import render
    from ..dialect.classes import build_classes, rebuild
    from ..dialect.problems import CodeRejected
    from ..view import store
    from ..view.manifest import write_manifest

    started = time.perf_counter()
    report = CompileReport(mode="offline", facts_total=len(facts))
    from .meaning import stored_vectors

    routing = route_offline(facts, stored_vectors(project, facts))
    report.routed_by_keywords = routing.by_keywords
    report.routed_by_meaning = routing.by_meaning
    grouped: dict[str, list["Fact"]] = {}
    for fact in facts:
        grouped.setdefault(routing.routes[fact.id], []).append(fact)
    covered: set[str] = set()
    with project.lock("compile"):
        step(0, len(grouped), "domains")
        for number, domain in enumerate(sorted(grouped), 1):
            step(number - 1, len(grouped), "domains")
            domain_facts = grouped[domain]
            entry = DomainReport(domain, facts_routed=len(domain_facts), facts_new=len(domain_facts))
            report.domains.append(entry)
            existing = None
            if (project.paths.domains / domain / "schema.py").exists():
                try:
                    existing = store.load_domain(project, domain)
                except CodeRejected as exc:
                    entry.status, entry.rejection = "failed", f"existing view does not validate: {exc.message}"
                    continue
            classes = [c for c in (existing.schema.classes if existing else ()) if c.name != "Event"]
            clash = existing is not None and any(c.name == "Event" and c != EVENT for c in existing.schema.classes)
            if clash:
                entry.status = "failed"
                entry.rejection = f"domain {domain} already defines a different class Event; the timeline was not written"
                continue
            schema = SchemaSpec(
                tuple(classes) + (EVENT,),
                existing.schema.doc if existing else f"The {domain} domain: a dated timeline of what the conversations say.",
                (),
            )
            built = build_classes(schema, f"uac_domains.{domain}")
            event_cls = built["Event"]
            ordered = sorted(enumerate(domain_facts), key=lambda pair: (_day(pair[1]) or _dt.date.min, pair[0]))
            events = [
                event_cls(
                    text=fact.text,
                    session_id=fact.session_id,
                    actor=fact.speaker,
                    date=_day(fact),
                    notes=[],
                    sources=[fact.id],
                )
                for _, fact in ordered
            ]
            entries: list[tuple[str, TypeSpec, Any]] = []
            if existing is not None:
                entries = [(n, existing.types[n], rebuild(v, built)) for n, v in existing.values.items() if n != "events"]
            entries.append(("events", EVENTS_TYPE, events))
            files = {
                "__init__.py": render.render_init(f"The {domain} domain of this user project.", schema, [n for n, _, _ in entries]),
                "schema.py": render.render_schema(schema),
                "state.py": render.render_state(f"State of the {domain} domain (generated by uac; do not edit by hand).", schema, entries),
            }
            loaded = store.write_domain(project, domain, files)
            cited = loaded.cited_ids()
            entry.status = "compiled"
            entry.records = loaded.record_count()
            entry.facts_covered = sum(1 for f in domain_facts if f.id in cited)
            covered |= cited
        step(len(grouped), len(grouped), "domains")
        write_manifest(project)
    report.facts_covered = sum(1 for f in facts if f.id in covered)
    report.seconds = time.perf_counter() - started
    return report


def _day(fact: "Fact") -> _dt.date | None:
    return fact.event_date.start if fact.event_date else fact.session_date
