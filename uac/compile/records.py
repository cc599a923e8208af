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
import json
import keyword
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import safejson
from ..dialect.grammar import RESERVED_NAMES
from ..dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from ..dialect.types import TypeSpec, union
from ..errors import InputError, InvalidName, UserError

if TYPE_CHECKING:
    from ..project import Project

ANY = TypeSpec("any")
STR = TypeSpec("str")
LIST_STR = TypeSpec("list", (STR,))
#: names every record class carries, so input keys with these names are renamed
OWN_FIELDS = ("notes", "sources")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$")
_INT_RE = re.compile(r"^-?(0|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(r"^-?(0|[1-9][0-9]*)?(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass
class ImportReport:
    domain: str
    collection: str
    record_type: str
    file: str
    records_added: int
    records_total: int
    fields: list[dict[str, str]] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    appended: bool = False
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "collection": self.collection,
            "record_type": self.record_type,
            "file": self.file,
            "records_added": self.records_added,
            "records_total": self.records_total,
            "appended": self.appended,
            "fields": self.fields,
            "renamed": self.renamed,
            "seconds": round(self.seconds, 3),
        }


# --- reading ------------------------------------------------------------------------


def read_records(path: Path) -> tuple[list[dict[str, Any]], str]:
    """Read a JSON list, JSONL or CSV file -> (records, format).

    CSV records carry every header column as a key (an empty cell is ``None``).
    """
    path = Path(path)
    try:
        text = path.read_text("utf-8")
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
    raise InputError(f"{path}: unknown records format.", hint="Use a .json list of objects, .jsonl (one object a line) or .csv file.")


def _loads(text: str, where: str) -> Any:
    return safejson.loads(text, where)


def _read_json(text: str, path: Path) -> list[dict[str, Any]]:
    data = _loads(text, str(path))
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of objects, got {type(data).__name__}.", hint="Wrap the records in [ ... ] or use JSONL.")
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(f"{path}: record #{index} is {type(item).__name__}, not an object.")
    return data


def _read_jsonl(text: str, path: Path) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(text.splitlines(), 1):
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
        if keyword.iskeyword(base) or keyword.issoftkeyword(base) or base in OWN_FIELDS or base in ("field", "dataclass", "Enum"):
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
    if not re.match(r"^[a-z][a-z0-9_]{0,59}$", name or "") or keyword.iskeyword(name) or name in RESERVED_NAMES:
        raise InvalidName(f"invalid collection name {name!r}.", hint="Use a lowercase identifier such as 'trips' or 'medical_visits'.")
    return name


def check_record_type(name: str) -> str:
    if not re.match(r"^[A-Z][A-Za-z0-9]{0,59}$", name or "") or name in RESERVED_NAMES:
        raise InvalidName(f"invalid record type {name!r}.", hint="Use a CamelCase class name such as 'Trip'.")
    return name


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
        if _DATE_RE.match(value) and _parses(_dt.date.fromisoformat, value):
            return "date"
        if _DATETIME_RE.match(value) and _parses(_dt.datetime.fromisoformat, value):
            return "datetime"
        return "str"
    if kind is list:
        return "list"
    if kind is dict:
        return "dict"
    return "other"


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
    if all(_INT_RE.match(v) for v in values):
        return TypeSpec("int")
    if all(_FLOAT_RE.match(v) and any(c.isdigit() for c in v) and _finite(v) for v in values):
        return TypeSpec("float")
    if all(_DATE_RE.match(v) and _parses(_dt.date.fromisoformat, v) for v in values):
        return TypeSpec("date")
    if all(_DATETIME_RE.match(v) and _parses(_dt.datetime.fromisoformat, v) for v in values):
        return TypeSpec("datetime")
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


# --- compiling -------------------------------------------------------------------------


@dataclass
class CompiledRecords:
    spec: ClassSpec
    values: list[dict[str, Any]]
    mapping: dict[str, str]


def compile_records(records: list[dict[str, Any]], record_type: str, file_name: str, fmt: str, start_index: int = 0) -> CompiledRecords:
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
    types = {f.name: f.type for f in cls.fields}
    for index, record in enumerate(records):
        row: dict[str, Any] = {}
        for key, value in record.items():
            name = mapping[key]
            if fmt != "csv":
                _check_value(value, f"{file_name} record #{index} field {key!r}")
            row[name] = convert(value, types[name], fmt == "csv")
        row["sources"] = [f"record:{file_name}#{start_index + index}"]
        values.append(row)
    return CompiledRecords(cls, values, mapping)


def _field_diff(old: ClassSpec, new: ClassSpec) -> list[str]:
    diffs = []
    old_fields = {f.name: f for f in old.fields}
    new_fields = {f.name: f for f in new.fields}
    for name, f in new_fields.items():
        if name not in old_fields:
            diffs.append(f"new field {name}: {f.type.source()}")
        elif old_fields[name].type != f.type:
            diffs.append(f"field {name}: {old_fields[name].type.source()} in the collection, {f.type.source()} in the file")
    for name, f in old_fields.items():
        if name not in new_fields:
            diffs.append(f"field {name} ({f.type.source()}) missing from the file")
    return diffs


def import_records(
    project: "Project",
    path: str | Path,
    *,
    domain: str,
    collection: str,
    record_type: str | None = None,
) -> ImportReport:
    """Import a records file into ``domains/<domain>/`` as ``<collection>: list[<Type>]``."""
    from ..dialect import render
    from ..dialect.classes import build_classes, rebuild
    from ..dialect.problems import CodeRejected
    from ..view import store
    from ..view.manifest import write_manifest

    started = time.perf_counter()
    path = Path(path)
    store.check_domain_name(domain)
    check_collection_name(collection)
    record_type = check_record_type(record_type) if record_type else record_type_name(collection)
    check_record_type(record_type)
    records, fmt = read_records(path)
    if not records:
        raise InputError(f"{path} holds no records.")
    with project.lock("import-records"):
        existing = None
        if (project.paths.domains / domain / "schema.py").exists():
            try:
                existing = store.load_domain(project, domain)
            except CodeRejected as exc:
                raise UserError(
                    f"domain {domain!r} exists but does not validate: {exc.message}",
                    hint=f"Fix or remove domains/{domain}/ first; {{do:doctor}}.",
                ) from None
        start_index = 0
        old_values: list[Any] = []
        classes_before: list[ClassSpec] = []
        entries: list[tuple[str, TypeSpec, Any]] = []
        if existing is not None:
            classes_before = list(existing.schema.classes)
            entries = [(n, existing.types[n], v) for n, v in existing.values.items()]
            if collection in existing.values:
                old_spec = existing.types[collection]
                if not (old_spec.kind == "list" and old_spec.args[0].kind == "class"):
                    raise UserError(f"{domain}.{collection} exists and is not a list of records ({old_spec.source()}).", hint="Choose another collection ({opt:collection}).")
                old_type = old_spec.args[0].name
                if old_type != record_type:
                    raise UserError(
                        f"{domain}.{collection} holds {old_type} records, not {record_type}.",
                        hint=f"Give {{opt:record_type}} {old_type} to append, or choose another collection ({{opt:collection}}).",
                    )
                old_values = list(existing.values[collection])
                start_index = sum(1 for v in old_values for s in getattr(v, "sources", ()) if s.startswith(f"record:{path.name}#"))
        compiled = compile_records(records, record_type, path.name, fmt, start_index)
        new_class = compiled.spec
        old_class = next((c for c in classes_before if c.name == record_type), None)
        appended = False
        if old_class is not None:
            in_use = collection in dict((n, 0) for n, _, _ in entries)
            diffs = _field_diff(old_class, new_class)
            if diffs:
                where = f"{domain}.{collection}" if in_use else f"class {record_type} in domain {domain}"
                raise UserError(
                    f"{path.name} does not match the existing type {record_type} of {where}: {'; '.join(diffs)}.",
                    hint="Import into a new collection ({opt:collection}, with {opt:record_type}), or make the file's fields match.",
                )
            new_class = old_class
            appended = bool(old_values)
            classes = classes_before
        else:
            classes = classes_before + [new_class]
        schema = SchemaSpec(
            tuple(classes),
            existing.schema.doc if existing is not None else f"Records of the {domain} domain.",
            (),
        )
        built = build_classes(schema, f"uac_domains.{domain}")
        cls = built[record_type]
        rebuilt_old = [rebuild(v, built) for v in old_values]
        instances = rebuilt_old + [cls(**row) for row in compiled.values]
        list_spec = TypeSpec("list", (TypeSpec("class", name=record_type),))
        new_entries = []
        placed = False
        for name, spec, value in entries:
            if name == collection:
                new_entries.append((name, list_spec, instances))
                placed = True
            else:
                new_entries.append((name, spec, rebuild(value, built)))
        if not placed:
            new_entries.append((collection, list_spec, instances))
        doc = f"State of the {domain} domain (generated by uac; do not edit by hand)."
        files = {
            "__init__.py": render.render_init(f"The {domain} domain of this user project.", schema, [n for n, _, _ in new_entries]),
            "schema.py": render.render_schema(schema),
            "state.py": render.render_state(doc, schema, new_entries),
        }
        loaded = store.write_domain(project, domain, files)
        write_manifest(project)
    return ImportReport(
        domain=domain,
        collection=collection,
        record_type=record_type,
        file=str(path),
        records_added=len(compiled.values),
        records_total=len(loaded.values[collection]),
        fields=[{"name": f.name, "type": f.type.source()} for f in new_class.fields],
        renamed={k: v for k, v in compiled.mapping.items() if k != v},
        appended=appended,
        seconds=time.perf_counter() - started,
    )


__all__ = ["ImportReport", "compile_records", "import_records", "read_records", "record_type_name", "field_names"]
