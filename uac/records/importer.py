"""``uac import-records``: structured records compiled into a typed package.

Deterministic, no model involved.  Type rules (see ``docs/structure.md``):

* field names are kept, made valid identifiers (lowercase snake case; a
  leading digit gets ``f_``; Python keywords, ``sources``/``notes`` and names
  the schema itself uses get a trailing ``_``; collisions get ``_2``, ``_3``
  in order of first appearance); the mapping is reported;
* JSON/JSONL values: strings, ints, floats, bools, lists and objects are kept;
  a string field whose every value is an ISO date (``YYYY-MM-DD``) becomes
  ``date``, every value an ISO datetime without offset becomes ``datetime``;
  int mixed with float becomes ``float``; any other mix is kept as ``Any``
  (each value exactly as given);
* CSV: every cell is text; a column becomes ``bool``/``int``/``float``/
  ``date``/``datetime`` only when EVERY non-empty cell parses as that type,
  else ``str``; an empty cell is a missing value;
* a key missing (or null) in some record makes the field ``T | None = None``;
* records keep their input order; each cites ``record:<file name>#<index>``
  (0-based) in ``sources``.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import keyword
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import safejson
from ..dates import Period
from ..dialect.grammar import RESERVED_NAMES
from ..dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from ..dialect.types import TypeSpec, union
from ..errors import DomainNotFound, InputError, NotFound, UserError
from ..fieldjson import fields_json
from ..fsutil import read_utf8, split_lines
from ..names import COLLECTION_NAME, RECORD_TYPE, full_match
from ..progress import step
from .evolve import FieldChange, evolve, widen_values

if TYPE_CHECKING:
    from ..dialect.loader import LoadedDomain
    from ..project import Project

ANY = TypeSpec("any")
STR = TypeSpec("str")
LIST_STR = TypeSpec("list", (STR,))
#: names every record class carries, so input keys with these names are renamed
OWN_FIELDS = ("notes", "sources")
#: value shapes, matched whole (:func:`~uac.names.full_match`): a cell "5\n" is text, not 5
_DATE_RE = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")
_DATETIME_RE = re.compile(r"\A\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?\Z")
_INT_RE = re.compile(r"\A-?(0|[1-9][0-9]*)\Z")
_FLOAT_RE = re.compile(r"\A-?(0|[1-9][0-9]*)?(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
#: the stored forms of a period that make a column a Period (a bare year counts only beside another form)
_PERIOD_FORMS = (
    ("day", re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")),
    ("month", re.compile(r"\A\d{4}-\d{2}\Z")),
    ("season", re.compile(r"\A\d{4}-(spring|summer|autumn|fall|winter)\Z")),
    ("week", re.compile(r"\A\d{4}-W\d{2}\Z")),
    ("year", re.compile(r"\A\d{4}\Z")),
)


@dataclass
class ImportReport:
    domain: str
    collection: str
    record_type: str
    file: str
    records_added: int
    records_total: int
    #: records of the file already in the collection (imported before from a file of this name)
    records_skipped: int = 0
    #: records dropped by ``replace``
    records_removed: int = 0
    replaced: bool = False
    appended: bool = False
    fields: list[dict[str, str]] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    #: how the collection's record class changed to take the file (added, widened, optional fields)
    schema_changes: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return fields_json(self, seconds=round(self.seconds, 3))


# --- reading ------------------------------------------------------------------------


def read_records(path: Path) -> tuple[list[dict[str, Any]], str]:
    """Read a JSON list, JSONL or CSV file -> (records, format).

    CSV records carry every header column as a key (an empty cell is ``None``).
    """
    path = Path(path)
    try:
        text = read_utf8(path)
    except FileNotFoundError:
        raise InputError(f"records file {path} does not exist.") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 (byte {exc.start}).", hint="Re-save the file as UTF-8.") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc}.") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    suffix = path.suffix.lower()
    stripped = text.lstrip()
    if suffix == ".csv":
        return _read_csv(text, path), "csv"
    if suffix in (".jsonl", ".ndjson") or (suffix != ".json" and stripped.startswith("{")):
        return _read_jsonl(text, path), "jsonl"
    if suffix == ".json" or stripped.startswith("["):
        return _read_json(text, path), "json"
    raise InputError(
        f"{path}: unknown records format.", hint="Use a .json list of objects, .jsonl (one object a line) or .csv file."
    )


def _loads(text: str, where: str) -> Any:
    return safejson.loads(text, where)


def _read_json(text: str, path: Path) -> list[dict[str, Any]]:
    data = _loads(text, str(path))
    if not isinstance(data, list):
        raise InputError(
            f"{path}: expected a JSON list of objects, got {type(data).__name__}.",
            hint="Wrap the records in [ ... ] or use JSONL.",
        )
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(f"{path}: record #{index} is {type(item).__name__}, not an object.")
    return data


def _read_jsonl(text: str, path: Path) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        item = _loads(line, f"{path}:{number}")
        if not isinstance(item, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, got {type(item).__name__}.")
        records.append(item)
    return records


def _read_csv(text: str, path: Path) -> list[dict[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(f"{path}: empty CSV file (no header row).") from None
    except csv.Error as exc:
        raise InputError(f"{path}: bad CSV ({exc}).") from None
    if len(set(header)) != len(header):
        raise InputError(f"{path}: duplicate column names in the header.")
    records = []
    try:
        for number, row in enumerate(reader, 2):
            if not row:
                continue
            if len(row) != len(header):
                raise InputError(f"{path}:{number}: {len(row)} cells, but the header has {len(header)} columns.")
            records.append({k: (v if v != "" else None) for k, v in zip(header, row)})
    except csv.Error as exc:
        raise InputError(f"{path}: bad CSV ({exc}).") from None
    return records


# --- names --------------------------------------------------------------------------


def snake(name: str) -> str:
    text = _CAMEL.sub("_", str(name).strip())
    text = re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").lower()
    text = re.sub(r"_+", "_", text)
    if not text:
        text = "unnamed"
    if text[0].isdigit():
        text = "f_" + text
    return text


def field_names(keys: list[str]) -> dict[str, str]:
    """Input key -> field identifier (deterministic; collisions numbered)."""
    taken: set[str] = set(OWN_FIELDS)
    mapping: dict[str, str] = {}
    for key in keys:
        base = snake(key)
        if (
            keyword.iskeyword(base)
            or keyword.issoftkeyword(base)
            or base in OWN_FIELDS
            or base in ("field", "dataclass", "Enum")
        ):
            base += "_"
        candidate = base
        number = 2
        while candidate in taken:
            candidate = f"{base}_{number}"
            number += 1
        taken.add(candidate)
        mapping[key] = candidate
    return mapping


def record_type_name(collection: str) -> str:
    words = [w for w in collection.split("_") if w]
    if words:
        last = words[-1]
        if last.endswith("ies") and len(last) > 3:
            last = last[:-3] + "y"
        elif last.endswith(("sses", "xes", "ches", "shes")):
            last = last[:-2]
        elif last.endswith("s") and not last.endswith("ss") and len(last) > 1:
            last = last[:-1]
        words[-1] = last
    return "".join(w[:1].upper() + w[1:] for w in words) or "Record"


def check_collection_name(name: str) -> str:
    return COLLECTION_NAME.check(name, reserved=RESERVED_NAMES)


def check_record_type(name: str) -> str:
    return RECORD_TYPE.check(name, reserved=RESERVED_NAMES)


# --- type inference -------------------------------------------------------------------


def _scalar_kind(value: Any) -> str:
    kind = type(value)
    if kind is bool:
        return "bool"
    if kind is int:
        return "int"
    if kind is float:
        return "float"
    if kind is str:
        if full_match(_DATE_RE, value) and _parses(_dt.date.fromisoformat, value):
            return "date"
        if full_match(_DATETIME_RE, value) and _parses(_dt.datetime.fromisoformat, value):
            return "datetime"
        return "str"
    if kind is list:
        return "list"
    if kind is dict:
        return "dict"
    return "other"


def _period_form(value: str) -> str | None:
    """Which stored form of a period ``value`` is (``range`` for START/END), or None."""
    if "/" in value:
        left, _, right = value.partition("/")
        if _period_form(left) and _period_form(right):
            try:
                Period(value)
            except (ValueError, TypeError):
                return None
            return "range"
        return None
    for form, pattern in _PERIOD_FORMS:
        if full_match(pattern, value):
            try:
                Period(value)
            except (ValueError, TypeError):
                return None
            return form
    return None


def is_period_column(values: list[str]) -> bool:
    """Every value a period's stored form, not all of them days or all bare years."""
    forms = {_period_form(v) if isinstance(v, str) else None for v in values}
    return bool(values) and None not in forms and not forms <= {"day"} and not forms <= {"year"}


def _parses(fn: Any, value: str) -> bool:
    try:
        fn(value)
    except ValueError:
        return False
    return True


def infer(values: list[Any]) -> TypeSpec:
    """The type of a JSON field from its non-null values."""
    kinds = {_scalar_kind(v) for v in values}
    if not kinds:
        return ANY
    if kinds <= {"int", "float"}:
        return TypeSpec("float") if "float" in kinds else TypeSpec("int")
    if kinds <= {"str", "date", "datetime"}:
        if kinds <= {"str", "date"} and is_period_column(values):
            return TypeSpec("period")
        return TypeSpec(kinds.pop()) if len(kinds) == 1 else STR
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind == "bool":
            return TypeSpec("bool")
        if kind == "list":
            items = [x for v in values for x in v]
            inner = infer([x for x in items if x is not None])
            if any(x is None for x in items):
                inner = union([inner, TypeSpec("none")]) if inner.kind != "any" else inner
            return TypeSpec("list", (inner,))
        if kind == "dict":
            items = [x for v in values for x in v.values()]
            inner = infer([x for x in items if x is not None])
            if any(x is None for x in items):
                inner = union([inner, TypeSpec("none")]) if inner.kind != "any" else inner
            return TypeSpec("dict", (STR, inner))
    return ANY


def infer_csv(values: list[str]) -> TypeSpec:
    """A CSV column's type: the first that EVERY non-empty cell parses as."""
    if not values:
        return STR
    if all(v in ("true", "false", "True", "False", "TRUE", "FALSE") for v in values):
        return TypeSpec("bool")
    if all(full_match(_INT_RE, v) for v in values):
        return TypeSpec("int")
    if all(full_match(_FLOAT_RE, v) and any(c.isdigit() for c in v) and _finite(v) for v in values):
        return TypeSpec("float")
    if all(full_match(_DATE_RE, v) and _parses(_dt.date.fromisoformat, v) for v in values):
        return TypeSpec("date")
    if all(full_match(_DATETIME_RE, v) and _parses(_dt.datetime.fromisoformat, v) for v in values):
        return TypeSpec("datetime")
    if is_period_column(values):
        return TypeSpec("period")
    return STR


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def convert(value: Any, spec: TypeSpec, csv_cell: bool = False) -> Any:
    """An input value as the Python value of its inferred type."""
    if value is None:
        return None
    kind = spec.kind
    if kind == "union":
        members = [a for a in spec.args if a.kind != "none"]
        return convert(value, members[0], csv_cell) if len(members) == 1 else value
    if kind == "period":
        if isinstance(value, Period):
            return value
        if isinstance(value, _dt.date):
            return Period.day(value)
        return Period(value)
    if kind == "date":
        return _dt.date.fromisoformat(value)
    if kind == "datetime":
        return _dt.datetime.fromisoformat(value)
    if kind == "float":
        return float(value)
    if kind == "int":
        return int(value)
    if kind == "bool":
        return value if type(value) is bool else value.lower() == "true"
    if kind == "list":
        return [convert(v, spec.args[0]) for v in value]
    if kind == "dict":
        return {k: convert(v, spec.args[1]) for k, v in value.items()}
    return value


def _check_value(value: Any, where: str) -> None:
    """Refuse what cannot be written as a literal (lone surrogates, huge ints)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is str:
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(f"{where}: a string holds a lone surrogate (invalid Unicode).") from None
        elif type(item) is int and item.bit_length() > 128:
            raise InputError(f"{where}: integer {item} is too large (more than 128 bits).")
        elif type(item) is list:
            stack.extend(item)
        elif type(item) is dict:
            stack.extend(item.values())
            if not all(isinstance(k, str) for k in item):
                raise InputError(f"{where}: object keys must be strings.")


def _check_exact_float(value: Any, spec: TypeSpec, where: str) -> None:
    """A whole number bound for a ``float`` field must fit one exactly."""
    kinds = {a.kind for a in spec.args} if spec.kind == "union" else {spec.kind}
    if "float" not in kinds or value is None or type(value) is bool:
        return
    number = (
        value if type(value) is int else (int(value) if isinstance(value, str) and full_match(_INT_RE, value) else None)
    )
    if number is not None and abs(number) > 2**53:
        raise InputError(
            f"{where}: {number} is too large for the float field it joins to hold exactly.",
            hint="Import the file into a new collection ({opt:collection}), or give {opt:replace}.",
        )


# --- compiling -------------------------------------------------------------------------


@dataclass
class CompiledRecords:
    spec: ClassSpec
    values: list[dict[str, Any]]
    mapping: dict[str, str]


def compile_records(
    records: list[dict[str, Any]],
    record_type: str,
    file_name: str,
    fmt: str,
    start_index: int = 0,
    *,
    force: ClassSpec | None = None,
) -> CompiledRecords:
    """The file's records as a class and its rows.  ``force``: convert the values to
    the fields of this class instead (a collection's class the file is merged into)."""
    keys: dict[str, None] = {}
    for record in records:
        for key in record:
            keys.setdefault(key, None)
    mapping = field_names(list(keys))
    fields: list[FieldSpec] = []
    optional: list[FieldSpec] = []
    for key in keys:
        present = [r[key] for r in records if r.get(key) is not None]
        spec = infer_csv(present) if fmt == "csv" else infer(present)
        if fmt == "csv" and not present:
            spec = STR
        name = mapping[key]
        if len(present) < len(records):
            if spec.kind != "any":
                spec = union([spec, TypeSpec("none")])
            optional.append(FieldSpec(name, spec, "value", None))
        else:
            fields.append(FieldSpec(name, spec))
    own = [FieldSpec("notes", LIST_STR, "list"), FieldSpec("sources", LIST_STR, "list")]
    cls = ClassSpec(record_type, "dataclass", tuple(fields + optional + own), doc=f"One record of {file_name}.")
    values = []
    types = {f.name: f.type for f in (force or cls).fields}
    for index, record in enumerate(records):
        row: dict[str, Any] = {}
        for key, value in record.items():
            name = mapping[key]
            where = f"{file_name} record #{index} field {key!r}"
            if fmt != "csv":
                _check_value(value, where)
            if force is not None:
                _check_exact_float(value, types[name], where)
            row[name] = convert(value, types[name], fmt == "csv")
        row["sources"] = [f"record:{file_name}#{start_index + index}"]
        values.append(row)
    return CompiledRecords(cls, values, mapping)


def refuse_conversation(records: list[dict[str, Any]], path: Path) -> None:
    """A chat export or a LoCoMo conversation is not a records file: say where it belongs."""
    from ..sessions.locomo import looks_like_locomo
    from ..sessions.messages import looks_like_messages

    if looks_like_messages(records) or looks_like_locomo(records):
        raise InputError(
            f"{path.name} is a conversation (chat messages or LoCoMo), not a list of records.",
            hint="{do:ingest} (their facts then compile into the view); "
            "importing records is for structured records such as trips or purchases.",
        )


def _class_names(spec: TypeSpec) -> set[str]:
    names = {spec.name} if spec.kind == "class" else set()
    for arg in spec.args:
        names |= _class_names(arg)
    return names


def _used_elsewhere(
    record_type: str, collection: str, entries: list[tuple[str, TypeSpec, Any]], classes: list[ClassSpec]
) -> bool:
    """Is class ``record_type`` used by another top-level name or another class's fields?"""
    if any(record_type in _class_names(spec) for name, spec, _ in entries if name != collection):
        return True
    return any(record_type in _class_names(f.type) for c in classes if c.name != record_type for f in c.fields)


def _value_key(record: Any, fields: list[str]) -> str:
    """What a record holds, without its own ``sources``/``notes`` (to spot a record imported before)."""
    return repr(tuple(getattr(record, name) for name in fields))


def import_records(
    project: "Project",
    path: str | Path,
    *,
    domain: str,
    collection: str,
    record_type: str | None,
    replace: bool,
) -> ImportReport:
    """Import a records file into ``domains/<domain>/`` as ``<collection>: list[<Type>]``.

    Records already imported from a file of the same name (same values) are
    not added again, so importing a file twice is a no-op and importing a
    grown file adds only its new records.  ``replace`` swaps the whole
    collection for the file's records (and lets its type change when no other
    collection uses it).
    """
    from ..dialect.classes import build_classes
    from ..view.changes import compile_scope

    started = time.perf_counter()
    path = Path(path)
    record_type = _checked_names(domain, collection, record_type)
    records, fmt = _read_import(path)
    with project.lock("import-records"), compile_scope(project, "import"):
        existing = _existing_domain(project, domain)
        prior = _prior_state(existing, domain, collection, record_type, replace, path.name)
        step(0, len(records), "records")
        compiled = compile_records(records, record_type, path.name, fmt, prior.start_index)
        step(len(records) // 2, len(records), "records")
        merged = _merged_type(prior, compiled, (records, path.name, fmt), domain, collection)
        doc = existing.schema.doc if existing is not None else f"Records of the {domain} domain."
        schema = SchemaSpec(tuple(merged.classes), doc, ())
        built = build_classes(schema, f"uac_domains.{domain}")
        rebuilt_old = [_widened(v, built, record_type, merged, f"{domain}.{collection}") for v in prior.old_values]
        fresh = [built[record_type](**row) for row in merged.compiled.values]
        added = _not_imported_before(
            fresh, rebuilt_old, [f.name for f in merged.spec.fields if f.name not in OWN_FIELDS], path.name
        )
        skipped = len(fresh) - len(added)
        report = ImportReport(
            domain=domain,
            collection=collection,
            record_type=record_type,
            file=str(path),
            records_added=len(added),
            records_total=0,
            records_skipped=skipped,
            renamed={k: v for k, v in merged.compiled.mapping.items() if k != v},
        )
        if not added and not replace and prior.holds(collection):
            step(len(records), len(records), "records")
            report.records_total = len(prior.old_values)
            report.fields = _fields_of(merged.old_class or merged.spec)
            report.seconds = time.perf_counter() - started
            return report
        if skipped:  # renumber the sources of the records that are really new
            added = _renumbered(added, built[record_type], merged.spec, path.name, prior.start_index)
        entries = _with_collection(prior.entries, collection, record_type, rebuilt_old + added, built, merged, domain)
        loaded = _write_import(project, domain, schema, entries)
        step(len(records), len(records), "records")
    report.records_total = len(loaded.values[collection])
    report.records_removed = prior.removed
    report.replaced = replace and prior.removed > 0
    report.fields = _fields_of(merged.spec)
    report.appended = merged.appended and bool(added)
    report.schema_changes = [c.to_json() for c in merged.changes]
    report.seconds = time.perf_counter() - started
    return report


def _checked_names(domain: str, collection: str, record_type: str | None) -> str:
    """Check the names an import is given; returns the record type (named for the
    collection when none is given)."""
    from ..view import store

    store.check_domain_name(domain)
    check_collection_name(collection)
    return check_record_type(record_type) if record_type else check_record_type(record_type_name(collection))


def _read_import(path: Path) -> tuple[list[dict[str, Any]], str]:
    records, fmt = read_records(path)
    if not records:
        raise InputError(f"{path} holds no records.")
    refuse_conversation(records, path)
    return records, fmt


def _existing_domain(project: "Project", domain: str) -> "LoadedDomain | None":
    """The domain as it is, if it exists (one that does not validate is refused)."""
    from ..dialect.problems import CodeRejected
    from ..view import store

    if not (project.paths.domains / domain / "schema.py").exists():
        return None
    try:
        return store.load_domain(project, domain)
    except CodeRejected as exc:
        raise UserError(
            f"domain {domain!r} exists but does not validate: {exc.message}",
            hint=f"Fix or remove domains/{domain}/ first; {{do:doctor}}.",
        ) from None


@dataclass
class _Prior:
    """What the domain held before the import: its classes and entries, the collection's
    records kept (appended to), how many the file imported before, and how many go."""

    classes: list[ClassSpec] = field(default_factory=list)
    entries: list[tuple[str, TypeSpec, Any]] = field(default_factory=list)
    old_values: list[Any] = field(default_factory=list)
    start_index: int = 0
    removed: int = 0

    def holds(self, collection: str) -> bool:
        return any(name == collection for name, _, _ in self.entries)


def _prior_state(
    existing: "LoadedDomain | None", domain: str, collection: str, record_type: str, replace: bool, file_name: str
) -> _Prior:
    prior = _Prior()
    if existing is None:
        return prior
    prior.classes = list(existing.schema.classes)
    prior.entries = [(n, existing.types[n], v) for n, v in existing.values.items()]
    if collection not in existing.values:
        return prior
    old_spec = existing.types[collection]
    if not (old_spec.kind == "list" and old_spec.args[0].kind == "class"):
        raise UserError(
            f"{domain}.{collection} exists and is not a list of records ({old_spec.source()}).",
            hint="Choose another collection ({opt:collection}).",
        )
    old_type = old_spec.args[0].name
    if replace:
        prior.removed = len(existing.values[collection])
        if not _used_elsewhere(old_type, collection, prior.entries, prior.classes):
            prior.classes = [c for c in prior.classes if c.name != old_type]
    elif old_type != record_type:
        raise UserError(
            f"{domain}.{collection} holds {old_type} records, not {record_type}.",
            hint=f"Give {{opt:record_type}} {old_type} to append, {{opt:replace}} to replace the collection, "
            "or choose another collection ({opt:collection}).",
        )
    else:
        prior.old_values = list(existing.values[collection])
        prior.start_index = sum(
            1 for v in prior.old_values for s in getattr(v, "sources", ()) if s.startswith(f"record:{file_name}#")
        )
    return prior


@dataclass(frozen=True)
class _MergedType:
    """The record class after an import (the file's, or the collection's evolved to hold
    it), the file's records compiled to it, the domain's classes, and what changed."""

    spec: ClassSpec
    old_class: ClassSpec | None
    classes: list[ClassSpec]
    compiled: CompiledRecords
    changes: tuple[FieldChange, ...] = ()
    appended: bool = False

    def widened(self) -> dict[str, TypeSpec]:
        return {
            c.field: spec.type
            for c in self.changes
            if c.change == "widened" and (spec := self.spec.field(c.field)) is not None
        }


def _merged_type(
    prior: _Prior, compiled: CompiledRecords, read: tuple[list[dict[str, Any]], str, str], domain: str, collection: str
) -> _MergedType:
    """``read``: the file's records, its name and its format."""
    records, file_name, fmt = read
    record_type = compiled.spec.name
    old_class = next((c for c in prior.classes if c.name == record_type), None)
    if old_class is None:
        return _MergedType(compiled.spec, None, prior.classes + [compiled.spec], compiled)
    evolution = evolve(old_class, compiled.spec, csv=fmt == "csv", own=OWN_FIELDS, file_name=file_name)
    if evolution.conflicts:
        place = f"{domain}.{collection}" if prior.holds(collection) else f"class {record_type} in domain {domain}"
        raise UserError(
            f"{file_name} does not fit the type {record_type} of {place} without reinterpreting data: "
            f"{'; '.join(evolution.conflicts)}.",
            hint="Import into a new collection ({opt:collection}, with {opt:record_type}), give {opt:replace} "
            "to replace the collection, or make the file's values match the collection's types.",
        )
    # the file's values as the merged class holds them
    again = compile_records(records, record_type, file_name, fmt, prior.start_index, force=evolution.spec)
    classes = [evolution.spec if c.name == record_type else c for c in prior.classes]
    return _MergedType(evolution.spec, old_class, classes, again, evolution.changes, bool(prior.old_values))


def _widened(value: Any, built: dict[str, type], record_type: str, merged: _MergedType, where: str) -> Any:
    from ..dialect.classes import rebuild

    return widen_values(rebuild(value, built), record_type, merged.widened(), where)


def _not_imported_before(fresh: list[Any], old: list[Any], compared: list[str], file_name: str) -> list[Any]:
    """The file's records not imported before from a file of this name (by value, as a multiset)."""
    before: dict[str, int] = {}
    for value in old:
        if any(s.startswith(f"record:{file_name}#") for s in getattr(value, "sources", ())):
            key = _value_key(value, compared)
            before[key] = before.get(key, 0) + 1
    added = []
    for value in fresh:
        key = _value_key(value, compared)
        if before.get(key):
            before[key] -= 1
        else:
            added.append(value)
    return added


def _renumbered(added: list[Any], cls: type, spec: ClassSpec, file_name: str, start_index: int) -> list[Any]:
    fields = [f.name for f in spec.fields]
    return [
        cls(**{**{n: getattr(v, n) for n in fields}, "sources": [f"record:{file_name}#{start_index + i}"]})
        for i, v in enumerate(added)
    ]


def _with_collection(
    entries: list[tuple[str, TypeSpec, Any]],
    collection: str,
    record_type: str,
    instances: list[Any],
    built: dict[str, type],
    merged: _MergedType,
    domain: str,
) -> list[tuple[str, TypeSpec, Any]]:
    """The domain's entries with the collection's records (placed where it was, else last)."""
    list_spec = TypeSpec("list", (TypeSpec("class", name=record_type),))
    out = [
        (name, list_spec, instances)
        if name == collection
        else (name, spec, _widened(value, built, record_type, merged, f"{domain}.{name}"))
        for name, spec, value in entries
    ]
    if not any(name == collection for name, _, _ in entries):
        out.append((collection, list_spec, instances))
    return out


def _write_import(
    project: "Project", domain: str, schema: SchemaSpec, entries: list[tuple[str, TypeSpec, Any]]
) -> "LoadedDomain":
    """The new files, the manifest and the search index of imported records, whole or not at all."""
    from ..view import store
    from ..view.manifest import write_manifest
    from .search import sync_record_index

    with store.undone_on_failure(project, domain):
        loaded = store.write_records(project, domain, schema, entries)
        write_manifest(project)
        sync_record_index(project)
    return loaded


def _fields_of(spec: ClassSpec) -> list[dict[str, str]]:
    return [{"name": f.name, "type": f.type.source()} for f in spec.fields]


@dataclass
class RemovedRecords:
    """What :func:`remove_records` took out of the view."""

    domain: str
    collections: list[str]
    records: int
    domain_removed: bool


def remove_records(project: "Project", domain: str, collection: str | None = None) -> RemovedRecords:
    """Remove collection ``collection`` of ``domain`` (or the whole domain) from the view.

    The domain is rewritten without the collection (and without its record
    class when nothing else uses it); a domain left empty, or named without a
    collection, is removed whole.  The manifest is re-rendered.  Caller holds
    the project lock.  The view, the manifest and the search index of imported
    records change whole or not at all (:func:`uac.view.store.undone_on_failure`).
    """
    from ..dialect.classes import build_classes, rebuild
    from ..view import store
    from ..view.manifest import write_manifest
    from .search import sync_record_index

    store.check_domain_name(domain)
    if collection is not None:
        check_collection_name(collection)
    if domain not in store.domain_names(project):
        raise DomainNotFound(f"there is no domain {domain!r} in the view.", hint="See MANIFEST.md for the domains.")
    loaded = store.load_domain(project, domain)
    if collection is not None and collection not in loaded.values:
        raise NotFound(
            f"domain {domain!r} has no collection {collection!r}.",
            hint=f"Its collections: {', '.join(loaded.values) or '(none)'}.",
        )
    doomed = [collection] if collection is not None else list(loaded.values)
    records = sum(
        len(loaded.values[n]) if isinstance(loaded.values[n], (list, tuple, set, dict)) else 1 for n in doomed
    )
    entries = [(n, loaded.types[n], v) for n, v in loaded.values.items() if n not in doomed]
    files = None
    if entries:
        used: set[str] = set()
        for _, spec, _ in entries:
            used |= _class_names(spec)
        classes = list(loaded.schema.classes)
        # keep every class still reachable from what stays (through other classes' fields too)
        changed = True
        while changed:
            changed = False
            for cls in classes:
                if cls.name in used:
                    for f in cls.fields:
                        extra = _class_names(f.type) - used
                        if extra:
                            used |= extra
                            changed = True
        schema = SchemaSpec(tuple(c for c in classes if c.name in used), loaded.schema.doc, ())
        built = build_classes(schema, f"uac_domains.{domain}")
        entries = [(n, spec, rebuild(v, built)) for n, spec, v in entries]
        files = store.render_domain(domain, schema, entries).files
    with store.undone_on_failure(project, domain):
        if files is not None:
            store.write_domain(project, domain, files)
        else:
            store.remove_domain(project, domain)
        write_manifest(project)
        sync_record_index(project)  # the removed records leave the search index too
    return RemovedRecords(domain, doomed, records, files is None)


__all__ = [
    "ImportReport",
    "RemovedRecords",
    "compile_records",
    "field_names",
    "import_records",
    "read_records",
    "record_type_name",
    "remove_records",
]
