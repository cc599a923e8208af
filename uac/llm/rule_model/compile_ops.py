"""The compile responder for the operations protocol (``structure_ops.j2`` and its repair).

It reads the domain from the prompt's data blocks -- the classes with their
fields, the collections, the related records, the records to revisit, the
facts shown for reference and the new facts -- and answers ``{"operations": [...]}``:

* for each record under REVISIT: a ``correct`` from the fact that corrected
  one of its sources (a ``cite`` when no field fits), an ``update`` from the
  fact that replaced one (a trip takes the new trip's values when that fact is
  about a trip too; a record with a ``text`` field, an event, takes the new
  text and day), else a ``retire`` with the reason;
* ``add_class`` for ``Trip`` / ``Event`` (:mod:`.records`) when a new fact
  needs one the domain lacks, ``add_field`` for a field an existing class of
  that name lacks (default null);
* one ``add`` per new fact (naming the class only while its collection is
  new) -- a ``cite`` instead when the fact looks back on an earlier day and a
  related record shown already holds every value it gives (the same trip
  told again); one ``skip`` for the facts too short to record;
* an event whose text names a record the prompt shows from another domain
  (the destination of a trip, the name of a person) refers to it: an
  ``about: Ref | None`` field (added when the class lacks it) set to
  ``{"ref": "<domain>/<id>"}``.

A repair request (an answer, then uac's reply with a ``problems`` block) gets
operations for the facts the problems name as not addressed yet, planned
against the domain as the applied operations of the earlier answers left it
(the rejected ones are those the problems name by number).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from ...errors import InvalidReply
from ..structured import parse_structured
from ..types import ChatRequest, Message
from .records import EVENT_SHAPE, SHAPES, TOO_SHORT, TRIP_SHAPE, Planned, Shape, classify
from .reply import Reply
from .request import FactLine, block, fact_lines, first_user

#: the data blocks of an operations prompt besides the domain's classes and collections
_PARTS = tuple(
    "related_records other_domain_records revisit reference_facts new_facts ended_facts shared_facts".split()
)
_COLLECTION = re.compile(r"`(?P<name>\w+): list\[(?P<cls>\w+)\]`")
_REPLACED = re.compile(r"(?:replaced|corrected|cancelled|fulfilled) by ([^\s;,]+)")
_CORRECTED = re.compile(r"corrected by ([^\s;,]+)")
_UNADDRESSED = re.compile(r"facts (\S+(?:, \S+)*) are not addressed yet")
_REJECTED = re.compile(r"^- operation (\d+) \(", re.M)
_ENDED = re.compile(r"^- (?P<id>\S+): \w+ by \S+$")
_SHARED = re.compile(r"^- (?P<id>\S+): also .*\((?P<main>[a-z][a-z0-9_]*) is its main domain\)$")
#: the fields an other domain's record goes by, when they hold a name
_NAMING = ("destination", "name", "place", "city")
_NAME_VALUE = re.compile(r"^[A-Z].{1,60}$")
#: the field an event refers to another domain's record by
ABOUT = "about"
REMOVED = "the facts it came from were removed or forgotten"
ENDED = "no longer in force; the fact that ended it is recorded"


@dataclass
class Domain:
    """The domain as the model knows it: record classes (with field names) and collections."""

    classes: dict[str, list[str]] = field(default_factory=dict)
    enums: set[str] = field(default_factory=set)
    collections: dict[str, str] = field(default_factory=dict)
    #: collections this answer creates (their adds name the class)
    new_collections: set[str] = field(default_factory=set)

    def collection_of(self, cls: str) -> str | None:
        return next((name for name, held in self.collections.items() if held == cls), None)


@dataclass(frozen=True)
class Revisit:
    ident: str
    cls: str
    reason: str


@dataclass
class Batch:
    """One operations prompt, read back."""

    domain: Domain
    revisit: list[Revisit]
    reference: list[FactLine]
    new: list[FactLine]
    #: related records shown: (class, id, {field: JSON value}) of their text and date fields
    related: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    #: other domains' records shown: (the name they go by, "domain/id")
    elsewhere: list[tuple[str, str]] = field(default_factory=list)
    #: facts whose main domain is another one (they record their side here, not the thing)
    secondary: set[str] = field(default_factory=set)
    #: new facts shown as no longer in force (a plan since cancelled, a job since left)
    ended: set[str] = field(default_factory=set)

    def fact(self, ident: str) -> FactLine | None:
        return next((f for f in (*self.new, *self.reference) if f.fact_id == ident), None)


def _objects(lines: list[str]) -> list[dict[str, Any]]:
    """The JSON objects of a block's lines (one a line; a line that is none is passed over)."""
    out = []
    for line in lines:
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def read_domain(prompt: str) -> Domain:
    """The record classes (``classes`` block: one ``add_class`` object a line) and collections
    (``collections``)."""
    domain = Domain()
    for shown in _objects(block(prompt, "classes") or []):
        name = str(shown.get("name") or "")
        if "members" in shown:
            domain.enums.add(name)
        elif name:
            fields = [str(f.get("name")) for f in shown.get("fields") or [] if isinstance(f, dict)]
            domain.classes[name] = ["id", *fields, "notes", "sources"]
    for line in block(prompt, "collections") or []:
        for found in _COLLECTION.finditer(line):
            domain.collections[found["name"]] = found["cls"]
    return domain


def _related(lines: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    """(class, id, {field: text}) of each record shown: its values that are text (dates too)."""
    related = []
    for shown in _objects(lines):
        if isinstance(shown.get("class"), str) and isinstance(shown.get("id"), str):
            values = {k: v for k, v in shown.items() if isinstance(v, str) and k not in ("id", "class")}
            related.append((shown["class"], shown["id"], values))
    return related


def _matching(lines: list[str], pattern: re.Pattern[str]) -> list[re.Match[str]]:
    return [found for line in lines if (found := pattern.match(line.strip()))]


def read_batch(prompt: str) -> Batch:
    """The operations prompt, from its data blocks."""
    part = {name: block(prompt, name) or [] for name in _PARTS}
    revisit = [
        Revisit(record["id"], record["class"], str(shown.get("why") or ""))
        for shown in _objects(part["revisit"])
        if isinstance(record := shown.get("record"), dict) and "id" in record and "class" in record
    ]
    elsewhere = [
        (value, shown["ref"])
        for shown in _objects(part["other_domain_records"])
        if isinstance(shown.get("ref"), str)
        for name, value in shown.items()
        if name in _NAMING and isinstance(value, str) and _NAME_VALUE.match(value)
    ]
    return Batch(
        read_domain(prompt),
        revisit,
        fact_lines(part["reference_facts"]),
        fact_lines(part["new_facts"]),
        _related(part["related_records"]),
        elsewhere,
        {found["id"] for found in _matching(part["shared_facts"], _SHARED)},
        {found["id"] for found in _matching(part["ended_facts"], _ENDED)},
    )


# -- planning ---------------------------------------------------------------------------------


def ensure_class(domain: Domain, shape: Shape) -> list[dict[str, Any]]:
    """``add_class`` for a shape the domain lacks; ``add_field`` for the fields its class lacks."""
    have = domain.classes.get(shape.name)
    if have is None:
        domain.classes[shape.name] = shape.field_names()
        fields: list[dict[str, Any]] = []
        for name, kind, required in shape.fields:
            fields.append({"name": name, "type": kind} if required else {"name": name, "type": kind, "default": None})
        return [{"op": "add_class", "name": shape.name, "doc": shape.doc, "fields": fields}]
    ops = []
    for name, kind, _required in shape.fields:
        if name not in have:
            optional = kind if kind.endswith("| None") else f"{kind} | None"
            ops.append({"op": "add_field", "class": shape.name, "name": name, "type": optional, "default": None})
            have.append(name)
    return ops


def add_op(domain: Domain, shape: Shape, values: dict[str, Any], fact_id: str) -> dict[str, Any]:
    """One ``add``; it names the class while its collection is new (every such add stands alone,
    so one rejected add does not take the others of the collection with it)."""
    collection = domain.collection_of(shape.name)
    if collection is None:
        collection, number = shape.collection, 2
        while collection in domain.collections:  # the plain name holds another class
            collection, number = f"{shape.collection}_{number}", number + 1
        domain.collections[collection] = shape.name
        domain.new_collections.add(collection)
    op: dict[str, Any] = {"op": "add", "collection": collection}
    if collection in domain.new_collections:
        op["class"] = shape.name
    op.update(values=values, sources=[fact_id])
    return op


def _told_again(plan: Planned, related: list[tuple[str, str, dict[str, str]]]) -> str | None:
    """The id of a related record that already holds every value ``plan`` gives, if any."""
    shape = SHAPES.get(plan.kind)
    if shape is None or not plan.values:
        return None
    for cls, ident, values in related:
        if cls == shape.name and all(values.get(k) == v for k, v in plan.values.items()):
            return ident
    return None


def referred(fact: FactLine, elsewhere: list[tuple[str, str]]) -> str | None:
    """The ``domain/id`` of another domain's record the fact names, if any."""
    for name, ref in elsewhere:
        if re.search(r"\b" + re.escape(name) + r"\b", fact.text):
            return ref
    return None


def plan_facts(
    domain: Domain,
    facts: list[FactLine],
    related: list[tuple[str, str, dict[str, str]]] | None = None,
    elsewhere: Sequence[tuple[str, str]] = (),
    secondary: AbstractSet[str] = frozenset(),
) -> list[dict[str, Any]]:
    """The classes the facts need, one ``add`` per fact (a ``cite`` where a related record
    already says it all), one ``skip`` for the rest; a fact whose main domain is another one
    is this domain's side of it, an event, never a second trip."""
    planned: list[tuple[FactLine, Planned]] = [
        (fact, classify(fact) if fact.fact_id not in secondary else _as_event(fact)) for fact in facts
    ]
    cites: list[dict[str, Any]] = []
    for fact, plan in list(planned):
        if fact.happened is None or fact.happened == fact.said:
            continue  # only a fact that looks back on an earlier day can be that day told again
        same = _told_again(plan, related or [])
        if same is not None:
            cites.append({"op": "cite", "id": same, "sources": [fact.fact_id]})
            planned.remove((fact, plan))
    ops: list[dict[str, Any]] = []
    for kind, shape in SHAPES.items():
        if any(p.kind == kind for _, p in planned):
            ops += ensure_class(domain, shape)
    refs = {
        fact.fact_id: ref for fact, plan in planned if plan.kind == "event" and (ref := referred(fact, list(elsewhere)))
    }
    event = EVENT_SHAPE.name
    if refs and ABOUT not in domain.classes.get(event, []):
        ops.append({"op": "add_field", "class": event, "name": ABOUT, "type": "Ref | None", "default": None})
        domain.classes.setdefault(event, []).append(ABOUT)
    skipped = []
    for fact, plan in planned:
        if plan.kind == "skip":
            skipped.append(fact.fact_id)
        else:
            values = {**plan.values, ABOUT: {"ref": refs[fact.fact_id]}} if fact.fact_id in refs else plan.values
            ops.append(add_op(domain, SHAPES[plan.kind], values, fact.fact_id))
    if skipped:
        ops.append({"op": "skip", "facts": skipped, "reason": TOO_SHORT})
    return ops + cites


def _as_event(fact: FactLine) -> Planned:
    plan = classify(fact)
    if plan.kind != "trip":
        return plan
    day = fact.day.isoformat() if fact.day else None
    return Planned(
        "event", {k: v for k, v in {"text": fact.text, "day": day, "speaker": fact.speaker}.items() if v is not None}
    )


def plan_revisit(domain: Domain, batch: Batch) -> tuple[list[dict[str, Any]], set[str]]:
    """Operations for the records to revisit, and the new facts they used up."""
    ops: list[dict[str, Any]] = []
    used: set[str] = set()
    for record in batch.revisit:
        replacements = [f for i in _REPLACED.findall(record.reason) if (f := batch.fact(i)) is not None]
        if not replacements:
            ops.append({"op": "retire", "id": record.ident, "reason": REMOVED})
            continue
        newer = replacements[-1]
        changes = _changes(domain.classes.get(record.cls, []), record.cls, newer)
        if newer.fact_id in _CORRECTED.findall(record.reason):
            # a misstated value: the record is put right (or, when nothing fits, only cited)
            if changes:
                ops.append(
                    {
                        "op": "correct",
                        "id": record.ident,
                        "set": changes,
                        "sources": [newer.fact_id],
                        "note": newer.text,
                    }
                )
            else:
                ops.append({"op": "cite", "id": record.ident, "sources": [newer.fact_id]})
            used.add(newer.fact_id)
        elif changes:
            ops.append({"op": "update", "id": record.ident, "set": changes, "sources": [newer.fact_id]})
            used.add(newer.fact_id)
        else:
            reason = f"{newer.fact_id} replaced the fact it came from and says something else"
            ops.append({"op": "retire", "id": record.ident, "reason": reason, "sources": [newer.fact_id]})
    return ops, used


def _changes(fields: list[str], cls: str, newer: FactLine) -> dict[str, Any]:
    """What to set on a record of ``cls`` from the fact that replaced its source ({}: it does not fit).

    A trip takes the new trip's values; a record with a ``text`` field takes the new text and day."""
    if cls == TRIP_SHAPE.name:
        plan = classify(newer)
        return {k: v for k, v in plan.values.items() if k in fields} if plan.kind == "trip" else {}
    if "text" not in fields:
        return {}
    changes: dict[str, Any] = {"text": newer.text}
    if "day" in fields and newer.day is not None:
        changes["day"] = newer.day.isoformat()
    return changes


def respond_compile(request: ChatRequest) -> Reply:
    batch = read_batch(first_user(request))
    ops, used = plan_revisit(batch.domain, batch)
    fresh = [f for f in batch.new if f.fact_id not in used and f.fact_id not in batch.ended]
    ops += plan_facts(batch.domain, fresh, batch.related, batch.elsewhere, batch.secondary)
    left_out = sorted(batch.ended - used)
    if left_out:
        # the rules cannot tell what a fact no longer in force leaves of its time: they leave it out
        ops.append({"op": "skip", "facts": left_out, "reason": ENDED})
    return Reply("compile", {"operations": ops})


# -- repair -----------------------------------------------------------------------------------


def operations_of(text: str | None) -> list[Any]:
    """The operations of an earlier answer as it was sent (prose and fences allowed), else []."""
    try:
        value = parse_structured(text).value
    except InvalidReply:
        return []
    if isinstance(value, dict):
        value = value.get("operations")
    return value if isinstance(value, list) else []


def replay(domain: Domain, op: Any) -> None:
    """What an applied operation changed in the domain the model knows."""
    if not isinstance(op, dict):
        return
    kind = op.get("op")
    if kind == "add_class" and isinstance(op.get("name"), str):
        if op.get("members") is not None:
            domain.enums.add(op["name"])
        else:
            domain.classes[op["name"]] = [
                f["name"] for f in op.get("fields") or [] if isinstance(f, dict) and "name" in f
            ]
    elif kind == "add_field" and op.get("class") in domain.classes and isinstance(op.get("name"), str):
        domain.classes[op["class"]].append(op["name"])
    elif kind == "add" and isinstance(op.get("collection"), str) and op["collection"] not in domain.collections:
        if isinstance(op.get("class"), str):
            domain.collections[op["collection"]] = op["class"]


def _problems(message: Message | None) -> str:
    """The ``problems`` block of uac's reply to an answer."""
    return "\n".join(block(message.content or "", "problems") or []) if message is not None else ""


def respond_repair(request: ChatRequest) -> Reply:
    batch = read_batch(first_user(request))
    messages = request.messages
    for position, message in enumerate(messages):
        if message.role != "assistant":
            continue
        answer = next((m for m in messages[position + 1 :] if m.role == "user"), None)
        rejected = {int(n) for n in _REJECTED.findall(_problems(answer))}
        for number, op in enumerate(operations_of(message.content), 1):
            if number not in rejected:
                replay(batch.domain, op)
    wanted = _UNADDRESSED.search(_problems(messages[-1]))
    ids = wanted.group(1).split(", ") if wanted else []
    facts = [f for i in ids if (f := batch.fact(i)) is not None]
    return Reply(
        "compile_repair",
        {"operations": plan_facts(batch.domain, facts, batch.related, batch.elsewhere, batch.secondary)},
    )


__all__ = [
    "Batch",
    "Domain",
    "ensure_class",
    "operations_of",
    "plan_facts",
    "plan_revisit",
    "read_batch",
    "respond_compile",
    "respond_repair",
]
