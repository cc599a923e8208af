"""The operations of the incremental compile protocol: checked one by one, applied in order.

The model answers a batch with ``{"operations": [...]}``; each operation is
one of:

``add_class``  ``{"op": "add_class", "name": "Trip", "doc": "...", "fields":
               [{"name": "city", "type": "str"}, {"name": "nights", "type":
               "int | None", "default": null}]}`` -- a record class (uac adds
               ``id``, ``notes`` and ``sources``), or with ``"members":
               ["PLANNED", "DONE"]`` an enum;
``add_field``  ``{"op": "add_field", "class": "Trip", "name": "companions",
               "type": "list[str]", "default": []}`` -- a new field; it needs a
               default once the class has records;
``add``        ``{"op": "add", "collection": "trips", "class": "Trip",
               "values": {...}, "sources": ["f12"]}`` -- a new record (``class``
               is needed only for a new collection); uac assigns its id;
``update``     ``{"op": "update", "id": "trip-3", "set": {...}, "sources":
               ["f14"], "note": "..."}`` -- change fields of a named record;
               the sources are added to the record's;
``correct``    ``{"op": "correct", "id": "trip-3", "set": {"nights": 4}, "sources":
               ["f42"], "note": "..."}`` -- a value was misstated: the fields
               change, the record keeps the old fact and cites the new one, and
               a note keeps what was said before; nothing ends;
``cite``       ``{"op": "cite", "id": "trip-3", "sources": ["f50"]}`` -- a fact
               supports a record without changing it (the fact is recorded);
``retire``     ``{"op": "retire", "id": "trip-4", "reason": "...", "sources":
               ["f20"]}`` -- the record no longer holds; it leaves the state
               (the ledger keeps it);
``describe``   ``{"op": "describe", "doc": "Trips the user took or planned."}`` --
               the domain's description (its schema docstring, shown to the
               router and to compile; one line, 1 to 300 characters);
``skip``       ``{"op": "skip", "facts": ["f15"], "reason": "..."}`` -- facts
               considered and left out, with a one-line reason.

Every operation is checked against the domain as the operations before it
left it; a rejected one is reported with what is wrong and how to fix it,
and the valid ones are applied.  Nothing here calls a model.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import keyword
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from sandbox.pyparse import parse

from ..dates import Period, read_day, read_period
from ..dialect.grammar import ALLOWED_IMPORTS, RESERVED_NAMES
from ..dialect.spec import ClassSpec, FieldSpec
from ..dialect.types import PERIOD_MODULE, REF_MODULE, AnnotationError, TypeSpec, parse_annotation
from ..refs import Ref, parse_ref
from .working_copy import ID_FIELD, RESERVED_FIELDS, DomainWork, is_managed, managed_layout

OP_KINDS = ("add_class", "add_field", "add", "update", "correct", "cite", "retire", "skip", "describe")
#: changes uac refuses because they would drop recorded data
DROPPING = {
    "remove_field": "remove a field",
    "drop_field": "remove a field",
    "delete_field": "remove a field",
    "rename_field": "rename a field",
    "change_type": "change a field's type",
    "retype_field": "change a field's type",
    "remove_class": "remove a class",
    "drop_class": "remove a class",
    "delete_class": "remove a class",
    "rename_class": "rename a class",
    "delete": "delete a record",
    "remove": "delete a record",
}
#: names an annotation may use besides the domain's classes: what a schema may import
#: from datetime and typing, and the period and reference types
ANNOTATION_NAMES = set().union(
    *(ALLOWED_IMPORTS[module] for module in ("datetime", "typing", PERIOD_MODULE, REF_MODULE))
)
_CLASS_NAME = re.compile(r"\A[A-Z][A-Za-z0-9]*\Z")
_FIELD_NAME = re.compile(r"\A[a-z][a-z0-9_]*\Z")
_MEMBER_NAME = re.compile(r"\A[A-Z][A-Z0-9_]*\Z")
#: bounds on what one operation may carry
MAX_FIELDS = 40
MAX_TEXT = 2_000


class OpRejected(ValueError):
    """One operation is invalid; the message says what to change."""


@dataclass
class BatchOutcome:
    """What applying one reply's operations did."""

    applied: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: fact id -> reason, from ``skip`` operations
    skipped: dict[str, str] = field(default_factory=dict)
    #: retired records: {"id", "collection", "record", "reason", "sources"}
    retired: list[dict[str, Any]] = field(default_factory=list)
    #: ids of records added or updated
    touched: set[str] = field(default_factory=set)
    #: fact ids cited by applied operations
    cited: set[str] = field(default_factory=set)

    @property
    def changed(self) -> bool:
        return any(op.get("op") != "skip" for op in self.applied)


def describe_op(op: Any) -> str:
    """A short label of an operation for messages: ``update trip-3``, ``add trips``."""
    if not isinstance(op, dict):
        return repr(op)[:60]
    kind = op.get("op")
    target = op.get("id") or op.get("collection") or op.get("name") or op.get("class") or ""
    if kind == "skip":
        target = ", ".join(str(f) for f in (op.get("facts") or [])[:5])
    return f"{kind} {target}".strip()


def apply_operations(work: DomainWork, operations: Any, citable: set[str]) -> BatchOutcome:
    """Check and apply ``operations`` to ``work`` in order; ``citable`` are the fact ids
    the reply may cite (the batch's facts and those shown with related records)."""
    outcome = BatchOutcome()
    if not isinstance(operations, list):
        outcome.problems.append('the reply must be {"operations": [...]}, a list of operations')
        return outcome
    for number, op in enumerate(operations, 1):
        try:
            _apply_one(work, op, citable, outcome)
        except OpRejected as exc:
            outcome.problems.append(f"operation {number} ({describe_op(op)}): {exc}")
        else:
            outcome.applied.append(op)
    return outcome


def _apply_one(work: DomainWork, op: Any, citable: set[str], outcome: BatchOutcome) -> None:
    if not isinstance(op, dict):
        raise OpRejected('an operation is a JSON object with an "op" key')
    kind = op.get("op")
    if kind in DROPPING:
        raise OpRejected(
            f"uac never drops data, so it cannot {DROPPING[kind]}: add a new field or class with add_field/add_class "
            "and move values with update, or retire records that no longer hold"
        )
    if kind not in OP_KINDS:
        raise OpRejected(f"unknown op {kind!r}; use one of {', '.join(OP_KINDS)}")
    handler = _HANDLERS[kind]
    handler(work, op, citable, outcome)


_Handler = Callable[[DomainWork, dict[str, Any], set[str], BatchOutcome], None]
#: the handler of each kind of operation (one of :data:`OP_KINDS`), filled by :func:`_handles`
_HANDLERS: dict[str, _Handler] = {}


def _handles(kind: str) -> Callable[[_Handler], _Handler]:
    """Register the decorated function as the handler of operations of ``kind``."""

    def register(handler: _Handler) -> _Handler:
        _HANDLERS[kind] = handler
        return handler

    return register


# -- schema operations -----------------------------------------------------------------


def _check_class_name(work: DomainWork, name: Any) -> str:
    if not isinstance(name, str) or not _CLASS_NAME.match(name) or name in RESERVED_NAMES:
        raise OpRejected(f'class name {name!r} must be CamelCase ASCII letters and digits, e.g. "Trip"')
    if name == "Period":
        raise OpRejected(
            'Period is the field type of a date with its precision; name the class otherwise (e.g. "Phase")'
        )
    if name == "Ref":
        raise OpRejected("Ref is the field type of a reference to a record; name the class otherwise")
    if work.class_spec(name) is not None:
        raise OpRejected(f"class {name} already exists; use add_field to extend it")
    return name


def _check_field_name(name: Any) -> str:
    if (
        not isinstance(name, str)
        or not _FIELD_NAME.match(name)
        or keyword.iskeyword(name)
        or keyword.issoftkeyword(name)
    ):
        raise OpRejected(f'field name {name!r} must be snake_case ASCII, e.g. "start_date"')
    if name in RESERVED_FIELDS:
        raise OpRejected(f"field {name!r} is kept by uac on every record; leave it out")
    return name


def parse_type(work: DomainWork, text: Any) -> TypeSpec:
    """A field type from its annotation text; record fields may name enums, not other records."""
    if not isinstance(text, str) or not text.strip() or len(text) > 200:
        raise OpRejected(f'type {text!r} must be an annotation such as "str", "date | None", "list[str]"')
    try:
        node = parse(text.strip(), mode="eval").body
        spec = parse_annotation(node, {c.name for c in work.class_specs}, ANNOTATION_NAMES)
    except SyntaxError:
        raise OpRejected(f"type {text!r} is not a valid annotation") from None
    except AnnotationError as exc:
        raise OpRejected(f"type {text!r}: {exc}") from None
    for name in spec.class_names():
        target = work.class_spec(name)
        if target is not None and target.kind != "enum":
            raise OpRejected(
                f"type {text!r} names the record class {name}; records stay flat: refer to one by id "
                f'with type "Ref | None" (a value {{"ref": "<domain>/<id>"}}) or keep a separate collection'
            )
    return spec


def _default_for(work: DomainWork, spec: TypeSpec, value: Any, has_default: bool) -> tuple[str, Any]:
    if not has_default:
        return "required", None
    if value is None:
        if not spec.optional:
            raise OpRejected(f'default null needs an optional type, e.g. "{spec.source()} | None"')
        return "value", None
    if spec.kind == "list" and value == []:
        return "list", None
    if spec.kind == "dict" and value == {}:
        return "dict", None
    converted = coerce(work, value, spec, "default")
    if isinstance(converted, (list, dict, set, tuple)) or dataclasses.is_dataclass(converted):
        raise OpRejected("a default must be a single value, null, [] or {}")
    if isinstance(converted, (Period, Ref, _dt.date, _dt.time, _dt.timedelta)):
        raise OpRejected(
            f'a {spec.source()} field takes no default but null: use type "{spec.source()} | None" with default null'
        )
    if isinstance(converted, enum.Enum):
        raise OpRejected(
            f'an enum field takes no enum default: use type "{spec.source()} | None" with default null, '
            "or no default, and set the member on each record"
        )
    return "value", converted


def _field_specs(work: DomainWork, fields: Any) -> list[FieldSpec]:
    if not isinstance(fields, list) or len(fields) > MAX_FIELDS:
        raise OpRejected(f'"fields" must be a list of at most {MAX_FIELDS} {{"name", "type", "default"?}} objects')
    out: list[FieldSpec] = []
    seen: set[str] = set()
    for item in fields:
        if not isinstance(item, dict):
            raise OpRejected('each field is an object {"name", "type", "default"?}')
        name = _check_field_name(item.get("name"))
        if name in seen:
            raise OpRejected(f"field {name!r} is listed twice")
        seen.add(name)
        spec = parse_type(work, item.get("type"))
        kind, default = _default_for(work, spec, item.get("default"), "default" in item)
        out.append(FieldSpec(name, spec, kind, default))
    return out


@_handles("add_class")
def _add_class(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    name = _check_class_name(work, op.get("name"))
    doc = op.get("doc") or ""
    if not isinstance(doc, str) or len(doc) > MAX_TEXT:
        raise OpRejected('"doc" must be a short string')
    members = op.get("members")
    if members is not None:
        if not isinstance(members, list) or not members or len(members) > 100:
            raise OpRejected('an enum needs "members": a list of UPPER_CASE names')
        pairs = []
        for member in members:
            if not isinstance(member, str) or not _MEMBER_NAME.match(member):
                raise OpRejected(f'enum member {member!r} must be UPPER_CASE, e.g. "PLANNED"')
            pairs.append((member, member.lower()))
        if len({m for m, _ in pairs}) != len(pairs):
            raise OpRejected("enum members must be distinct")
        work.add_class(ClassSpec(name, "enum", (), tuple(pairs), True, doc))
        return
    fields = _field_specs(work, op.get("fields", []))
    work.add_class(ClassSpec(name, "dataclass", managed_layout(fields), (), True, doc))


@_handles("add_field")
def _add_field(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    cls = op.get("class")
    spec = work.class_spec(cls) if isinstance(cls, str) else None
    if spec is None or spec.kind != "dataclass":
        raise OpRejected(f"no record class {cls!r} in this domain; add_class first")
    if not is_managed(spec):
        raise OpRejected(f"class {cls} holds imported records and cannot be changed by compile")
    name = _check_field_name(op.get("name"))
    if spec.field(name) is not None:
        raise OpRejected(f"class {cls} already has a field {name!r}")
    ftype = parse_type(work, op.get("type"))
    has_records = any(type(r).__name__ == cls for _, _, r in work.iter_records())
    if "default" not in op and has_records:
        raise OpRejected(
            f'class {cls} already has records, so a new field needs a "default" (null with an optional type, [] or a value)'
        )
    kind, default = _default_for(work, ftype, op.get("default"), "default" in op)
    fields = [*spec.fields, FieldSpec(name, ftype, kind, default)]
    work.replace_class(dataclasses.replace(spec, fields=managed_layout(fields)))


# -- record operations ------------------------------------------------------------------------


def _sources(op: dict[str, Any], citable: set[str], *, required: bool = True) -> list[str]:
    sources = op.get("sources")
    if isinstance(sources, str):
        sources = [sources]
    if sources is None and not required:
        return []
    if not isinstance(sources, list) or (required and not sources) or not all(isinstance(s, str) for s in sources):
        raise OpRejected('"sources" must list the ids of the facts that justify it, e.g. ["f12"]')
    unknown = [s for s in sources if s not in citable]
    if unknown:
        raise OpRejected(f"sources {', '.join(unknown[:5])} are not facts of this batch; cite only the ids shown")
    return list(dict.fromkeys(sources))


def _record_values(work: DomainWork, spec: ClassSpec, values: Any, *, partial: bool) -> dict[str, Any]:
    if not isinstance(values, dict):
        raise OpRejected('"values"/"set" must be an object of field: value')
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name in RESERVED_FIELDS:
            raise OpRejected(f"field {name!r} is kept by uac; leave it out of the values")
        fspec = spec.field(name)
        if fspec is None:
            known = ", ".join(f.name for f in spec.fields if f.name not in RESERVED_FIELDS)
            raise OpRejected(f"class {spec.name} has no field {name!r} (fields: {known}); add_field first")
        out[name] = coerce(work, value, fspec.type, name)
    if not partial:
        missing = [f.name for f in spec.fields if f.required and f.name not in RESERVED_FIELDS and f.name not in out]
        if missing:
            raise OpRejected(f"missing required field(s) {', '.join(missing)} of class {spec.name}")
    return out


@_handles("add")
def _add(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    collection = op.get("collection")
    if not isinstance(collection, str) or not _FIELD_NAME.match(collection) or keyword.iskeyword(collection):
        raise OpRejected(f'collection {collection!r} must be a snake_case plural name, e.g. "trips"')
    cls_name = work.collection_class(collection)
    if cls_name is None:
        if collection in work.values:
            raise OpRejected(f"{collection!r} is not a list of records in this domain")
        cls_name = op.get("class")
        if not isinstance(cls_name, str) or (cls_spec := work.class_spec(cls_name)) is None:
            raise OpRejected(
                f'new collection {collection!r} needs "class": a record class of this domain (add_class first)'
            )
        if cls_spec.kind != "dataclass":
            raise OpRejected(f"{cls_name} is an enum; a collection holds records of a record class")
    elif op.get("class") not in (None, cls_name):
        raise OpRejected(f"collection {collection!r} holds {cls_name} records, not {op.get('class')}")
    spec = work.class_spec(cls_name)
    assert spec is not None
    if not is_managed(spec):
        raise OpRejected(f"collection {collection!r} holds imported records and cannot be changed by compile")
    sources = _sources(op, citable)
    values = _record_values(work, spec, op.get("values"), partial=False)
    note = _note(op)
    if collection not in work.values:
        work.add_collection(collection, cls_name)
    cls = work.classes[cls_name]
    ident = work.ids.new(cls_name)
    record = cls(**{ID_FIELD: ident, **values, "notes": [note] if note else [], "sources": sources})
    work.append(collection, record)
    outcome.touched.add(ident)
    outcome.cited.update(sources)


def _note(op: dict[str, Any]) -> str | None:
    note = op.get("note")
    if note is None or note == "":
        return None
    if not isinstance(note, str) or len(note) > MAX_TEXT:
        raise OpRejected('"note" must be a short string')
    return note


def _existing(work: DomainWork, op: dict[str, Any]) -> tuple[str, Any]:
    ident = op.get("id")
    found = work.find(ident) if isinstance(ident, str) else None
    if found is None:
        raise OpRejected(f"no record {ident!r} in this domain; name a record id shown in the prompt")
    return found


@_handles("update")
def _update(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    _, record = _existing(work, op)
    spec = work.class_spec(type(record).__name__)
    assert spec is not None
    sources = _sources(op, citable)
    changes = _record_values(work, spec, op.get("set", {}), partial=True)
    check_ref_cycle(work, record.id, changes)
    note = _note(op)
    notes = list(record.notes) + ([note] if note and note not in record.notes else [])
    merged = list(dict.fromkeys([*record.sources, *sources]))
    work.replace(record.id, dataclasses.replace(record, **changes, notes=notes, sources=merged))
    outcome.touched.add(record.id)
    outcome.cited.update(sources)


def _named_record(work: DomainWork, op: dict[str, Any], kind: str) -> Any:
    """The record a correct or cite names; refused with the ids that exist."""
    ident = op.get("id")
    found = work.find(ident) if isinstance(ident, str) else None
    if found is not None:
        return found[1]
    ids = [record.id for _, _, record in work.iter_records()]
    if isinstance(ident, str) and "-" in ident:
        prefix = ident.rsplit("-", 1)[0] + "-"
        ids = [i for i in ids if i.startswith(prefix)] or ids
    shown = ", ".join(ids[:12]) + (f" and {len(ids) - 12} more" if len(ids) > 12 else "")
    where = f"records of this domain: {shown}" if ids else "the domain has no records yet: add one instead"
    raise OpRejected(f"{kind} names no record {ident!r} ({where}); name the id of a record shown in the prompt")


@_handles("correct")
def _correct(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    """A misstated value put right: the record changes, its sources keep the fact that was
    wrong beside the one that corrects it, and a note keeps the old value."""
    record = _named_record(work, op, "correct")
    spec = work.class_spec(type(record).__name__)
    assert spec is not None
    changes = op.get("set")
    if not isinstance(changes, dict) or not changes:
        raise OpRejected(
            '"set" must name the corrected fields and their right values, e.g. {"nights": 4}; '
            "a fact that changes nothing is a cite"
        )
    known = [f.name for f in spec.fields if f.name not in RESERVED_FIELDS]
    unknown = [name for name in changes if name not in known]
    if unknown:
        raise OpRejected(
            f"correct names no field {unknown[0]!r} of {record.id} (a {spec.name}: fields {', '.join(known)}); "
            "correct one of these, or add_field first when the fact says something the record has no field for"
        )
    sources = _sources(op, citable)
    values = _record_values(work, spec, changes, partial=True)
    if all(getattr(record, name) == value for name, value in values.items()):
        raise OpRejected(f'{record.id} already holds these values; cite the fact instead (op "cite")')
    was = "; ".join(
        f"{name} was {_shown(getattr(record, name))}"
        for name, value in values.items()
        if getattr(record, name) != value
    )
    notes = list(record.notes)
    for note in (f"corrected by {', '.join(sources)}: {was}"[:MAX_TEXT], _note(op)):
        if note and note not in notes:
            notes.append(note)
    merged = list(dict.fromkeys([*record.sources, *sources]))
    work.replace(record.id, dataclasses.replace(record, **values, notes=notes, sources=merged))
    outcome.touched.add(record.id)
    outcome.cited.update(sources)


def _shown(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, Period):
        return value.code
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    return repr(value)[:80]


@_handles("cite")
def _cite(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    """A fact supports a record without changing it: it joins the record's sources."""
    record = _named_record(work, op, "cite")
    for key in ("set", "values"):
        if op.get(key):
            raise OpRejected(
                f'cite changes nothing, so it takes no "{key}": use update (or correct, for a misstated value)'
            )
    sources = _sources(op, citable)
    note = _note(op)
    notes = list(record.notes) + ([note] if note and note not in record.notes else [])
    merged = list(dict.fromkeys([*record.sources, *sources]))
    if merged != list(record.sources) or notes != list(record.notes):
        work.replace(record.id, dataclasses.replace(record, notes=notes, sources=merged))
        outcome.touched.add(record.id)
    outcome.cited.update(sources)


@_handles("retire")
def _retire(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    collection, record = _existing(work, op)
    reason = op.get("reason")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_TEXT:
        raise OpRejected('"reason" must say in one line why the record no longer holds')
    sources = _sources(op, citable, required=False)
    work.remove(record.id)
    from ..dialect.render import flat

    outcome.retired.append(
        {
            "id": record.id,
            "collection": collection,
            "record": flat(record),
            "reason": reason.strip(),
            "sources": sources,
            "cited": list(record.sources),
        }
    )
    outcome.cited.update(sources)


@_handles("skip")
def _skip(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    facts = op.get("facts")
    if isinstance(facts, str):
        facts = [facts]
    if not isinstance(facts, list) or not facts or not all(isinstance(f, str) for f in facts):
        raise OpRejected('"facts" must list the fact ids left out, e.g. ["f15"]')
    reason = op.get("reason")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_TEXT:
        raise OpRejected('"reason" must say in one line why the facts are left out')
    unknown = [f for f in facts if f not in citable]
    if unknown:
        raise OpRejected(f"facts {', '.join(unknown[:5])} are not in this batch")
    for fact in facts:
        outcome.skipped[fact] = reason.strip()[:300]


# -- domain descriptions ---------------------------------------------------------------------------

#: a domain's description is one line the router and compile read: bounded, never empty
MAX_DESCRIPTION = 300


@_handles("describe")
def _describe(work: DomainWork, op: dict[str, Any], citable: set[str], outcome: BatchOutcome) -> None:
    """``{"op": "describe", "doc": "..."}``: the domain's description (its schema docstring)."""
    doc = op.get("doc")
    if not isinstance(doc, str) or not doc.strip():
        raise OpRejected(
            '"doc" must describe in one line what this domain holds, e.g. "Trips the user took or planned, with dates and who came"'
        )
    text = " ".join(doc.split())
    if len(text) > MAX_DESCRIPTION:
        raise OpRejected(
            f'"doc" is {len(text)} characters; a description is one line of at most {MAX_DESCRIPTION}: say what the domain holds, not every record'
        )
    work.doc = text


# -- references ------------------------------------------------------------------------------------

#: how far a chain of references is followed when looking for a cycle
MAX_REF_DEPTH = 50


def coerce_ref(work: DomainWork, value: Any, where: str) -> Ref:
    """A reference from ``{"ref": "relationships/person-2"}`` or ``"relationships/person-2"``
    (a bare id names a record of this domain); the record must exist."""
    target = value.get("ref") if isinstance(value, dict) and set(value) == {"ref"} else value
    if isinstance(target, str) and "/" not in target and target.strip():
        target = f"{work.name}/{target.strip()}"
    try:
        if not isinstance(target, str) or len(target) > 80:
            raise ValueError
        domain, ident = parse_ref(target)
    except ValueError:
        raise OpRejected(
            f'{where}: a reference is {{"ref": "<domain>/<record id>"}}, e.g. {{"ref": "relationships/person-2"}}; got {str(value)[:60]!r}'
        ) from None
    if _ref_target(work, domain, ident) is None:
        raise OpRejected(
            f"{where}: {domain}/{ident} is not a record: refer only to records shown in the prompt "
            "(this domain's, or those of other domains with their domain/id), or add the record first"
        )
    return Ref(f"{domain}/{ident}")


def _ref_target(work: DomainWork, domain: str, ident: str) -> Any | None:
    if domain == work.name:
        found = work.find(ident)
        return found[1] if found is not None else None
    others = work.refs
    return others.find(domain, ident) if others is not None else None


def _refs_of(record: Any) -> list[Ref]:
    out: list[Ref] = []
    for value in record.__dict__.values():
        for item in value if isinstance(value, (list, tuple, set)) else (value,):
            if type(item) is Ref:
                out.append(item)
    return out


def check_ref_cycle(work: DomainWork, ident: str, changes: dict[str, Any]) -> None:
    """Refuse changes to record ``ident`` whose references lead back to it."""
    start = Ref(f"{work.name}/{ident}")
    stack = [r for value in changes.values() for r in _refs_of(_Holder(value))]
    seen: set[Ref] = set()
    while stack:
        ref = stack.pop()
        if ref == start:
            raise OpRejected(
                f"a reference from {start.code} leads back to it ({start.code} -> ... -> {start.code}); "
                "references must not form a cycle: keep the link on one side only"
            )
        if ref in seen or len(seen) > MAX_REF_DEPTH:
            continue
        seen.add(ref)
        target = _ref_target(work, ref.domain, ref.id)
        if target is not None:
            stack.extend(_refs_of(target))


class _Holder:
    """A value seen as a record with one field (to walk it like one)."""

    def __init__(self, value: Any) -> None:
        self.value = value


# -- values ---------------------------------------------------------------------------------------


def _read_day(value: Any) -> _dt.date | None:
    """An exact day in a form :func:`uac.dates.read_day` reads, else ``None``."""
    if not isinstance(value, str):
        return None
    try:
        return read_day(value)
    except ValueError:
        return None


def _read_period(value: Any) -> Period | None:
    """A period in a form :func:`uac.dates.read_period` reads, else ``None``."""
    if not isinstance(value, (str, dict)):
        return None
    try:
        return read_period(value)
    except ValueError:
        return None


#: what a converter answers for a value that does not fit its type (the plain error follows)
_NO_FIT = object()
#: the kinds whose errors say the form expected (kept when a union's members all refuse)
_FORM_KINDS = ("date", "datetime", "time", "timedelta", "period", "ref", "class")


def coerce(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    """A JSON value converted to ``spec`` (dates from ISO text, periods from their usual
    spellings, enums by name), or :class:`OpRejected`."""
    kind = spec.kind
    if kind == "any":
        return value
    if kind == "union":
        return _as_union(work, value, spec, where)
    if value is None:
        if kind == "none":
            return None
        raise OpRejected(f"{where}: null is not allowed for {spec.source()}; make the field optional or give a value")
    converter = _CONVERTERS.get(kind)
    converted = converter(work, value, spec, where) if converter is not None else _NO_FIT
    if converted is _NO_FIT:
        raise OpRejected(f"{where}: expects {spec.source()}, got {type(value).__name__} {str(value)[:40]!r}")
    return converted


def _as_union(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if value is None and spec.optional:
        return None
    hints = []
    for member in spec.args:
        if member.kind == "none":
            continue
        try:
            return coerce(work, value, member, where)
        except OpRejected as exc:
            if member.kind in _FORM_KINDS:
                hints.append(str(exc))  # says the expected form
    if hints:
        raise OpRejected(hints[0])
    raise OpRejected(f"{where}: expects {spec.source()}, got {type(value).__name__} {str(value)[:40]!r}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_str(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if isinstance(value, str):
        if len(value) > 20 * MAX_TEXT:
            raise OpRejected(f"{where}: text too long")
        return value
    return str(value) if _is_number(value) else _NO_FIT


def _as_bool(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return _NO_FIT


def _as_int(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,18}", value.strip()):
        return int(value.strip())
    return _NO_FIT


def _as_float(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if _is_number(value) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip().replace(",", ""))
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    return _NO_FIT


def _as_date(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    day = _read_day(value)
    if day is not None:
        return day
    hint = ""
    if _read_period(value) is not None:
        hint = ' (this field is a date; a month, season, year or range needs a new field of type "Period | None")'
    raise OpRejected(f'{where}: expects a date as "YYYY-MM-DD", got {value!r}{hint}')


def _as_period(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    period = _read_period(value)
    if period is not None:
        return period
    raise OpRejected(
        f'{where}: expects a period: "2023-05-07" (a day), "2023-05" or "May 2023" (a month), '
        f'"2023-summer", "2023" or "2023-06-02/2023-06-08" (a range); got {value!r}'
    )


def _as_ref(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    return coerce_ref(work, value, where)


def _as_datetime(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if isinstance(value, str):
        try:
            parsed = _dt.datetime.fromisoformat(value.strip().replace("Z", ""))
        except ValueError:
            parsed = None
        if parsed is not None:
            return parsed.replace(tzinfo=None)
    raise OpRejected(f'{where}: expects a datetime as "YYYY-MM-DDTHH:MM", got {value!r}')


def _as_time(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if isinstance(value, str):
        try:
            return _dt.time.fromisoformat(value.strip())
        except ValueError:
            pass
    raise OpRejected(f'{where}: expects a time as "HH:MM", got {value!r}')


def _as_timedelta(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if _is_number(value):
        return _dt.timedelta(days=value)
    if isinstance(value, dict) and set(value) <= {"days", "seconds", "hours", "minutes"}:
        try:
            return _dt.timedelta(**{k: float(v) for k, v in value.items()})
        except (TypeError, ValueError):
            pass
    raise OpRejected(f'{where}: expects a duration as a number of days or {{"days": N, "hours": N}}')


def _as_sequence(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    items = value if isinstance(value, list) else [value]
    if spec.kind == "tuple" and not spec.variadic:
        if len(items) != len(spec.args):
            raise OpRejected(f"{where}: expects {len(spec.args)} items")
        return tuple(coerce(work, v, s, where) for v, s in zip(items, spec.args))
    converted = [coerce(work, v, spec.args[0], where) for v in items]
    if spec.kind == "set":
        return set(converted)
    return tuple(converted) if spec.kind == "tuple" else converted


def _as_dict(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    if not isinstance(value, dict):
        return _NO_FIT
    return {coerce(work, k, spec.args[0], where): coerce(work, v, spec.args[1], where) for k, v in value.items()}


def _as_member(work: DomainWork, value: Any, spec: TypeSpec, where: str) -> Any:
    """An enum member by name or value (another class takes no JSON value here)."""
    target = work.classes.get(spec.name)
    if not (isinstance(target, type) and issubclass(target, enum.Enum) and isinstance(value, str)):
        return _NO_FIT
    wanted = value.strip()
    for member in target:
        if wanted in (member.name, member.value) or wanted.upper() == member.name:
            return member
    names = ", ".join(m.name for m in target)
    raise OpRejected(f"{where}: {value!r} is not a member of {spec.name} ({names}); add it with a new enum or use one")


#: kind -> its converter: the value converted, :data:`_NO_FIT`, or :class:`OpRejected` naming the form
_CONVERTERS: dict[str, Callable[[DomainWork, Any, TypeSpec, str], Any]] = {
    "str": _as_str,
    "bool": _as_bool,
    "int": _as_int,
    "float": _as_float,
    "date": _as_date,
    "period": _as_period,
    "ref": _as_ref,
    "datetime": _as_datetime,
    "time": _as_time,
    "timedelta": _as_timedelta,
    "list": _as_sequence,
    "set": _as_sequence,
    "tuple": _as_sequence,
    "dict": _as_dict,
    "class": _as_member,
}


__all__ = ["OP_KINDS", "BatchOutcome", "OpRejected", "apply_operations", "coerce", "describe_op", "parse_type"]
