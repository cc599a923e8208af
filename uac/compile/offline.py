"""The model-free view: kinds of records, and a timeline per life domain for the rest.

Facts are routed by meaning (:mod:`uac.compile.route_meaning`: the bundled
embedding model against short descriptions of each domain, the vectors the
search index already holds, the keyword classifier breaking ties).  The
rules of :mod:`.kinds` turn what they recognise into records of a few kinds
(trips, meals out, ...), each kind a class and a collection in its own domain
(``travel.trips``); a fact that became part of such a record is cited by it
and leaves the timeline.  Every other fact is an ``Event`` of its domain::

    @dataclass(frozen=True)
    class Event:
        text: str
        session_id: str
        actor: str | None = None
        when: Period | None = None      # when it happened, only when the text dates it
        said_on: date | None = None     # when it was said (the session date)
        notes: list[str] = field(default_factory=list)
        sources: list[str] = field(default_factory=list)   # [fact id]

    events: list[Event] = [...]          # by when (else when said), then log order

Other classes and collections of an existing domain (imported records, an
LLM-compiled view) are kept; what the offline compile wrote before (``Event``
-- also its earlier form with one ``date`` -- and the kinds' classes, marked in
their docstrings) is replaced.  A class of the same name written by something
else is never overwritten: the domain fails for ``Event``; for a kind, the kind
is skipped in that domain and its facts stay on the timeline.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from ..dialect.types import Mismatch, TypeSpec, check_value
from ..progress import step
from . import kinds as kind_rules
from .report import CompileReport, DomainReport
from .routing import route_offline

if TYPE_CHECKING:
    from ..dates import Period
    from ..dialect.loader import LoadedDomain
    from ..facts.model import Fact
    from ..project import Project

#: the last sentence of the docstring of every class the offline compile writes
OFFLINE_MARK = "Written by the offline compile."

_OPT_STR = TypeSpec("union", (TypeSpec("str"), TypeSpec("none")))
_OPT_DATE = TypeSpec("union", (TypeSpec("date"), TypeSpec("none")))
_OPT_PERIOD = TypeSpec("union", (TypeSpec("period"), TypeSpec("none")))
_LIST_STR = TypeSpec("list", (TypeSpec("str"),))


def _event_spec(dates: tuple[FieldSpec, ...], doc: str) -> ClassSpec:
    """The timeline's ``Event`` with its date fields (``text``, ``session_id`` and
    ``actor`` before them, ``notes`` and ``sources`` after)."""
    fields = (
        FieldSpec("text", TypeSpec("str")),
        FieldSpec("session_id", TypeSpec("str")),
        FieldSpec("actor", _OPT_STR, "value", None),
        *dates,
        FieldSpec("notes", _LIST_STR, "list"),
        FieldSpec("sources", _LIST_STR, "list"),
    )
    return ClassSpec("Event", "dataclass", fields, doc=doc)


EVENT = _event_spec(
    (FieldSpec("when", _OPT_PERIOD, "value", None), FieldSpec("said_on", _OPT_DATE, "value", None)),
    doc=(
        "One event or statement from the conversations: when it happened (only when the text dates it) "
        f"apart from when it was said. {OFFLINE_MARK}"
    ),
)
#: ``Event`` as earlier offline compiles wrote it (one ``date``: the event date, else the session date)
EVENT_WITH_ONE_DATE = _event_spec(
    (FieldSpec("date", _OPT_DATE, "value", None),),
    doc="One dated event or statement from the conversations (offline timeline).",
)
EVENTS_TYPE = TypeSpec("list", (TypeSpec("class", name="Event"),))


def written_offline(spec: ClassSpec) -> bool:
    """Did an offline compile write this class (so the next one may replace it)?"""
    return spec == EVENT_WITH_ONE_DATE or spec.doc.rstrip().endswith(OFFLINE_MARK)


def _marked(spec: ClassSpec) -> ClassSpec:
    if spec.doc.rstrip().endswith(OFFLINE_MARK):
        return spec
    doc = f"{spec.doc.rstrip()} {OFFLINE_MARK}".strip()
    return dataclasses.replace(spec, doc=doc)


@dataclass
class KindOutcome:
    """What one kind took in one compile (``kinds`` in the report)."""

    kind: "kind_rules.Kind"
    records: list[Any] = field(default_factory=list)
    facts: set[str] = field(default_factory=set)
    #: written | skipped (its class or collection is taken by something else) | failed (a record
    #: does not fit its class) | empty (no records, and its domain has no facts)
    status: str = "written"
    reason: str | None = None
    #: the facts the kind's rules saw something of the kind in (a fact seen but cited by no
    #: record, of this kind or another, is unclear: it stays on the timeline with its sources)
    seen: set[str] = field(default_factory=set)
    #: the facts cited by the written records of every kind (not on any timeline)
    claimed: set[str] = field(default_factory=set)
    #: fact id -> why the rules doubted it ("a place the gazetteer does not know")
    doubts: dict[str, str] = field(default_factory=dict)

    def unclear(self) -> set[str]:
        """The facts this kind's rules saw that became no record and stayed on the timeline."""
        if self.status != "written":
            return set(self.seen)
        return self.seen - self.facts - self.claimed

    def to_json(self) -> dict[str, Any]:
        unclear = self.unclear()
        why: dict[str, int] = {}
        for fact_id in sorted(unclear):
            reason = self.doubts.get(fact_id, "seen, but no record came of it")
            why[reason] = why.get(reason, 0) + 1
        return {
            "domain": self.kind.domain,
            "collection": self.kind.collection,
            "class": self.kind.cls.name,
            "status": self.status,
            # facts that became (part of) its records, and the records
            "facts": len(self.facts) if self.status == "written" else 0,
            "records": len(self.records) if self.status == "written" else 0,
            # facts its rules saw that became no record (unclear): they stay on the timeline, counted by why
            "unclear": len(unclear),
            "unclear_why": why,
            "reason": self.reason,
        }


def _assemble(
    facts: list["Fact"], currency: str | None = None
) -> tuple[
    list["kind_rules.Kind"],
    dict[str, list["kind_rules.Assembled"]],
    tuple[dict[str, set[str]], dict[str, dict[str, str]]],
]:
    """Every kind of the registry with its assembled records, the facts its rules saw (by kind
    name; sightings that only support others are not counted) and the doubts they noted (fact id -> why)."""
    registry = list(kind_rules.registry())
    sightings: dict[str, list[kind_rules.Sighting]] = {kind.name: [] for kind in registry}
    for fact in facts:
        for sighting in kind_rules.detect(fact):
            if sighting.kind in sightings:
                sightings[sighting.kind].append(sighting)
    sightings = kind_rules.localise(sightings, facts, currency)
    by_id = {fact.id: fact for fact in facts}
    assembled = {
        kind.name: list(kind_rules.assemble(kind, sightings[kind.name], by_id)) if sightings[kind.name] else []
        for kind in registry
    }
    from .kinds.trip_days import date_within_trips

    date_within_trips(assembled, by_id)  # "Friday morning" told in a trip's report: that Friday of the trip
    seen = {name: {s.fact_id for s in found if not s.fields.get("_support")} for name, found in sightings.items()}
    doubts = {
        name: {s.fact_id: str(kind_rules.doubt(s)) for s in found if kind_rules.doubt(s)}
        for name, found in sightings.items()
    }
    return registry, assembled, (seen, doubts)


@dataclass
class _DomainPlan:
    """What the offline compile will write to one domain (decided before any domain is written)."""

    name: str
    existing: "LoadedDomain | None" = None
    #: the domain cannot be written (its view does not validate, or its Event is someone else's)
    failure: str | None = None
    theirs: list[ClassSpec] = field(default_factory=list)
    kept_values: dict[str, Any] = field(default_factory=dict)
    outcomes: list[KindOutcome] = field(default_factory=list)
    schema: SchemaSpec | None = None
    built: dict[str, type] = field(default_factory=dict)


def compile_offline(project: "Project", facts: list["Fact"]) -> CompileReport:
    """Write the kinds' records and the event timeline of every domain that has facts."""
    from ..view.manifest import write_manifest
    from .route_meaning import stored_vectors

    started = time.perf_counter()
    report = CompileReport(mode="offline", facts_total=len(facts))
    routing = route_offline(facts, stored_vectors(project, facts))
    report.routed_by_keywords = routing.by_keywords
    report.routed_by_meaning = routing.by_meaning
    from .ended import past_states

    # the kinds read the past jobs and homes too, which later states superseded (the timeline does not)
    told = past_states(project, facts) + facts
    order = {fact.id: index for index, fact in enumerate(told)}
    registry, assembled, seen_and_doubts = _assemble(told, project.config.user.currency or None)
    kinds_by_domain: dict[str, list["kind_rules.Kind"]] = {}
    for kind in registry:
        kinds_by_domain.setdefault(kind.domain, []).append(kind)
    candidates = sorted(set(routing.routes.values()) | {kind.domain for kind in registry if assembled[kind.name]})
    covered: set[str] = set()
    outcomes: dict[str, KindOutcome] = {}
    with project.lock("compile"):
        plans = {name: _plan(project, name, kinds_by_domain.get(name, []), assembled, order) for name in candidates}
        for plan in plans.values():
            for outcome in plan.outcomes:
                outcomes[outcome.kind.name] = outcome
        claimed = {fact_id for o in outcomes.values() if o.status == "written" for fact_id in o.facts}
        unclear = _unclear_reasons(registry, seen_and_doubts, claimed)
        grouped = _facts_by_final_domain(facts, routing.routes, outcomes)
        domains = [
            name
            for name in candidates
            if grouped.get(name) or plans[name].existing is not None or any(o.records for o in plans[name].outcomes)
        ]
        step(0, len(domains), "domains")
        for number, domain in enumerate(domains, 1):
            step(number - 1, len(domains), "domains")
            entry = DomainReport(domain)
            report.domains.append(entry)
            written = _TimelineWrite(plans[domain], grouped.get(domain, []), claimed, unclear, order)
            covered |= written.write(project, entry)
        step(len(domains), len(domains), "domains")
        write_manifest(project)
    report.kinds = _kinds_report(registry, outcomes, seen_and_doubts)
    report.facts_covered = sum(1 for f in facts if f.id in covered)
    report.seconds = time.perf_counter() - started
    return report


def _facts_by_final_domain(
    facts: list["Fact"], routes: dict[str, str], outcomes: dict[str, KindOutcome]
) -> dict[str, list["Fact"]]:
    """Domain -> its facts: a fact that became part of a kind's record belongs to that
    kind's domain; the rest stay where they were routed."""
    route = dict(routes)
    for outcome in outcomes.values():
        if outcome.status == "written":
            for fact_id in outcome.facts:
                route[fact_id] = outcome.kind.domain
    grouped: dict[str, list["Fact"]] = {}
    for fact in facts:
        grouped.setdefault(route[fact.id], []).append(fact)
    return grouped


@dataclass(frozen=True)
class _TimelineWrite:
    """One domain of an offline compile: its plan, its facts, the facts the kinds' records
    claimed (the rest go on the timeline) and why facts were left out."""

    plan: _DomainPlan
    facts: list["Fact"]
    claimed: set[str]
    unclear: dict[str, str]
    order: dict[str, int]

    def entries(self) -> list[tuple[str, TypeSpec, Any]]:
        """What the domain holds: the values kept, the kinds' records, the timeline."""
        from ..dialect.classes import rebuild

        plan, built = self.plan, self.plan.built
        entries: list[tuple[str, TypeSpec, Any]] = (
            [(name, plan.existing.types[name], rebuild(value, built)) for name, value in plan.kept_values.items()]
            if plan.existing is not None
            else []
        )
        for outcome in plan.outcomes:
            if outcome.status == "written":
                spec = TypeSpec("list", (TypeSpec("class", name=outcome.kind.cls.name),))
                entries.append((outcome.kind.collection, spec, outcome.records))
        timeline = [fact for fact in self.facts if fact.id not in self.claimed]
        entries.append(("events", EVENTS_TYPE, _events(built["Event"], timeline, self.order)))
        return entries

    def write(self, project: "Project", entry: DomainReport) -> set[str]:
        """Write the domain and fill its report entry; returns the fact ids it cites."""
        from ..view import store
        from .coverage import save_offline_left_out

        entry.facts_routed = entry.facts_new = len(self.facts)
        if self.plan.failure is not None:
            entry.status, entry.rejection = "failed", self.plan.failure
            return set()
        assert self.plan.schema is not None
        loaded = store.write_records(project, entry.domain, self.plan.schema, self.entries())
        left_out = {f.id: self.unclear[f.id] for f in self.facts if f.id in self.unclear}
        save_offline_left_out(project, entry.domain, loaded.source_hash, left_out)
        cited = loaded.cited_ids()
        entry.status = "compiled"
        entry.records = loaded.record_count()
        entry.facts_covered = sum(1 for f in self.facts if f.id in cited)
        return cited


def _kinds_report(
    registry: list["kind_rules.Kind"],
    outcomes: dict[str, KindOutcome],
    seen_and_doubts: tuple[dict[str, set[str]], dict[str, dict[str, str]]],
) -> dict[str, Any]:
    """Per kind: what it wrote, saw and doubted (a kind that wrote nothing is ``empty``)."""
    seen, doubts = seen_and_doubts
    claimed_all = {fact_id for o in outcomes.values() if o.status == "written" for fact_id in o.facts}
    for kind in registry:
        outcomes.setdefault(kind.name, KindOutcome(kind, status="empty"))
        outcomes[kind.name].seen = seen.get(kind.name, set())
        outcomes[kind.name].doubts = doubts.get(kind.name, {})
        outcomes[kind.name].claimed = claimed_all
    return {kind.name: outcomes[kind.name].to_json() for kind in registry}


def _unclear_reasons(
    registry: list["kind_rules.Kind"],
    seen_and_doubts: tuple[dict[str, set[str]], dict[str, dict[str, str]]],
    claimed: set[str],
) -> dict[str, str]:
    """Fact id -> why it is left out: a kind's rules saw it and no written record cites it
    (the reason a rule doubted it for, when one did)."""
    seen, doubts = seen_and_doubts
    out: dict[str, str] = {}
    for kind in registry:
        for fact_id in sorted(seen.get(kind.name, set())):
            if fact_id in claimed:
                continue
            reason = doubts.get(kind.name, {}).get(fact_id)
            if reason or fact_id not in out:
                out[fact_id] = reason or out.get(fact_id) or "seen, but no record came of it"
    return out


def _plan(
    project: "Project",
    name: str,
    kinds: list["kind_rules.Kind"],
    assembled: dict[str, list["kind_rules.Assembled"]],
    order: dict[str, int],
) -> _DomainPlan:
    from ..dialect.classes import build_classes
    from ..dialect.problems import CodeRejected
    from ..view import store

    plan = _DomainPlan(name)
    if (project.paths.domains / name / "schema.py").exists():
        try:
            plan.existing = store.load_domain(project, name)
        except CodeRejected as exc:
            plan.failure = f"existing view does not validate: {exc.message}"
    existing = plan.existing
    plan.theirs = [c for c in (existing.schema.classes if existing else ()) if not written_offline(c)]
    if plan.failure is None and any(c.name == "Event" for c in plan.theirs):
        plan.failure = f"domain {name} already defines a different class Event; the timeline was not written"
    if plan.failure is not None:
        plan.outcomes = [KindOutcome(kind, status="skipped", reason=plan.failure) for kind in kinds]
        return plan
    dropped = {c.name for c in (existing.schema.classes if existing else ()) if written_offline(c)}
    plan.kept_values = (
        {}
        if existing is None
        else {
            value_name: value
            for value_name, value in existing.values.items()
            if not (existing.types[value_name].class_names() & dropped)
        }
    )
    if "events" in plan.kept_values:
        plan.failure = f"domain {name} already holds a collection events of its own; the timeline was not written"
        plan.outcomes = [KindOutcome(kind, status="skipped", reason=plan.failure) for kind in kinds]
        return plan
    plan.outcomes = [_kind_outcome(kind, assembled[kind.name], plan.theirs, plan.kept_values) for kind in kinds]
    classes = list(plan.theirs)
    collections = set(plan.kept_values) | {"events"}
    for outcome in plan.outcomes:
        if outcome.status != "written":
            continue
        specs = [_marked(spec) for spec in (*outcome.kind.enums, outcome.kind.cls)]
        named = {c.name: c for c in classes} | {"Event": EVENT}
        # two kinds of a domain may share an enum, never a record class, a differing enum or a collection
        taken = [
            spec.name for spec in specs if spec.name in named and (named[spec.name] != spec or spec.kind != "enum")
        ]
        if taken or outcome.kind.collection in collections:
            what = f"class {', '.join(taken)}" if taken else f"collection {outcome.kind.collection}"
            outcome.status, outcome.reason = "skipped", f"{what} of domain {name} is used by another kind"
            continue
        collections.add(outcome.kind.collection)
        classes.extend(spec for spec in specs if spec not in classes)
    classes.append(EVENT)
    plan.schema = SchemaSpec(
        tuple(classes),
        existing.schema.doc
        if existing
        else f"The {name} domain: what the conversations say, as records and a timeline.",
        (),
    )
    plan.built = build_classes(plan.schema, f"uac_domains.{name}")
    for outcome in plan.outcomes:
        if outcome.status == "written":
            _build_records(outcome, plan.built, order)
    return plan


def _kind_outcome(
    kind: "kind_rules.Kind",
    records: list["kind_rules.Assembled"],
    theirs: list[ClassSpec],
    kept_values: dict[str, Any],
) -> KindOutcome:
    outcome = KindOutcome(kind)
    names = {kind.cls.name} | {e.name for e in kind.enums}
    taken = sorted(c.name for c in theirs if c.name in names)
    if taken:
        outcome.status, outcome.reason = (
            "skipped",
            f"class {', '.join(taken)} of domain {kind.domain} was written by something else",
        )
    elif kind.collection in kept_values or kind.collection == "events":
        outcome.status, outcome.reason = "skipped", f"collection {kind.collection} of domain {kind.domain} is taken"
    outcome.records = list(records)
    return outcome


def _build_records(outcome: KindOutcome, built: dict[str, type], order: dict[str, int]) -> None:
    """The assembled field values as records of the built class, sorted by when (else
    when said), then by the log order of their first source; a record that does not fit
    its class leaves the whole kind on the timeline (status ``failed``)."""
    kind = outcome.kind
    cls = built[kind.cls.name]
    records = []
    for number, item in enumerate(outcome.records):
        values = dict(item.fields)
        values.setdefault("sources", list(item.sources))
        try:
            checked = {}
            for spec in kind.cls.fields:
                if spec.name in values:
                    checked[spec.name] = check_value(
                        _members(values[spec.name], spec.type, built), spec.type, built, f"{kind.cls.name}.{spec.name}"
                    )
            unknown = sorted(set(values) - {f.name for f in kind.cls.fields})
            if unknown:
                raise Mismatch(f"{kind.cls.name} has no field {', '.join(unknown)}")
            record = cls(**checked)
        except (Mismatch, TypeError) as exc:
            outcome.status, outcome.reason = (
                "failed",
                f"record {number} of kind {kind.name} does not fit its class: {exc}",
            )
            outcome.records, outcome.facts = [], set()
            return
        first = min((order[s] for s in item.sources if s in order), default=len(order))
        records.append(
            (_moment(getattr(record, "when", None), getattr(record, "said_on", None)), first, number, record)
        )
    records.sort(key=lambda row: row[:3])
    outcome.records = [row[3] for row in records]
    # the facts the kind took are those its records cite (so none leaves the timeline uncited)
    outcome.facts = {s for record in outcome.records for s in getattr(record, "sources", ()) if s in order}


def _members(value: Any, spec: TypeSpec, built: dict[str, type]) -> Any:
    """Enum members named by their names (what the rules give) become members."""
    if spec.kind == "class" and isinstance(value, str):
        target = built.get(spec.name)
        if isinstance(target, type) and issubclass(target, enum.Enum) and value in target.__members__:
            return target[value]
    if spec.kind == "union":
        for member in spec.args:
            if member.kind == "class":
                converted = _members(value, member, built)
                if converted is not value:
                    return converted
    if spec.kind == "list" and isinstance(value, list):
        return [_members(v, spec.args[0], built) for v in value]
    return value


def _moment(when: "Period | _dt.date | None", said_on: Any) -> tuple[_dt.date, _dt.date]:
    """The sort key of a record: when it happened, else when it was said; undated first."""
    if when is not None and not isinstance(when, _dt.date) and hasattr(when, "start"):
        return (when.start, when.end)
    if isinstance(when, _dt.date):
        return (when, when)
    if isinstance(said_on, _dt.date):
        return (said_on, said_on)
    return (_dt.date.min, _dt.date.min)


def _events(event_cls: type, facts: list["Fact"], order: dict[str, int]) -> list[Any]:
    events = [
        event_cls(
            text=fact.text,
            session_id=fact.session_id,
            actor=fact.speaker,
            when=fact.event_date,
            said_on=fact.session_date,
            notes=[],
            sources=[fact.id],
        )
        for fact in facts
    ]
    keyed = sorted(
        zip(facts, events), key=lambda pair: (_moment(pair[0].event_date, pair[0].session_date), order[pair[0].id])
    )
    return [event for _, event in keyed]
